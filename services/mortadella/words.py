"""Il Trono di Mortadella in words: each event as one viewer's projection of it reads (see
``services.engine.words``). A role card is named only where the projection carries it: the
viewer's own, a face-up one, and every one at the end (M18)."""

from services.engine.sentences import Voice, join, seat
from services.mortadella.model import (
    ROLE_INFO,
    Action,
    CancelDecided,
    ChooseDice,
    ChooseRevolution,
    ChooseStartToken,
    ChooseTarget,
    DiceChosen,
    DiceRolled,
    Effect,
    EffectChosen,
    EliminationCause,
    EndReason,
    Event,
    GameEnded,
    GuessMade,
    GuessRole,
    LombardDecided,
    NoEffect,
    PayCancel,
    PlagueDiscard,
    PlayerEliminated,
    ResolveEffect,
    Role,
    RoleDealt,
    RoleReplaced,
    RollDice,
    SkipTurnGiven,
    Special,
    SpecialEventOccurred,
    StartPlayerChosen,
    StartRoll,
    StealFrom,
    Symbol,
    TargetChosen,
    TokenCause,
    TokensChanged,
    TurnSkipped,
    TurnStarted,
    UseLombard,
)

TOKEN_NAMES = ("People", "Tower", "Book", "Mortadella")  # the order of a seat's tokens (M2)

CAUSES = {
    TokenCause.SETUP: "to start",
    TokenCause.ACQUIRE: "",
    TokenCause.STEAL: "",
    TokenCause.REVOLUTION: "in the Revolution",
    TokenCause.DRUNKENNESS: "to Drunkenness",
    TokenCause.CANCEL_PAYMENT: "to cancel",
    TokenCause.PLAGUE: "to the Plague",
    TokenCause.BLACK_DEATH: "to the Black Death",
    TokenCause.PORCHETTA: "to the Porchetta",
    TokenCause.EARTHQUAKE: "to the Earthquake",
    TokenCause.GUESS_PENALTY: "for a wrong guess",
}

ENDINGS = {  # how the winner won, after its name: (verb, third person, the rest)
    EndReason.VICTORY_ROW: ("meet", "meets", "the victory row"),
    EndReason.LAST_STANDING: ("are", "is", "the last player standing"),
    EndReason.MASTER_GUESS: ("guessed", "guessed", "a role right, as the Master"),
    EndReason.TWO_PLAYER_GUESS: ("guessed", "guessed", "the opponent's role"),
}


def symbol(value: Symbol) -> str:
    return Symbol(value).name.title()


def dice(values) -> str:
    return " ".join(f"[{symbol(v)}]" for v in values) or "no dice"


# Each effect as the rulebook's dice table says it (M4): an acquisition as what is acquired,
# the others by their names.
EFFECTS = {
    Effect.ACQUIRE_PEOPLE: "acquire 1 People",
    Effect.ACQUIRE_TWO_PEOPLE: "acquire 2 People",
    Effect.REVOLUTION: "the Revolution",
    Effect.ACQUIRE_TOWER: "acquire 1 Tower",
    Effect.ACQUIRE_BOOK: "acquire 1 Book",
    Effect.ACQUIRE_MORTADELLA: "acquire 1 Mortadella",
    Effect.DRUNKENNESS: "Drunkenness",
    Effect.INEBRIATION: "Inebriation",
    Effect.PLAGUE: "the Plague",
    Effect.BLACK_DEATH: "the Black Death",
}
# The die whose face an effect is (a Book used for another is a Joker, M4).
FACE_OF = {
    Effect.ACQUIRE_PEOPLE: Symbol.PEOPLE,
    Effect.ACQUIRE_TWO_PEOPLE: Symbol.PEOPLE,
    Effect.REVOLUTION: Symbol.PEOPLE,
    Effect.ACQUIRE_TOWER: Symbol.TOWER,
    Effect.ACQUIRE_BOOK: Symbol.BOOK,
    Effect.ACQUIRE_MORTADELLA: Symbol.MORTADELLA,
    Effect.DRUNKENNESS: Symbol.WINE,
    Effect.INEBRIATION: Symbol.WINE,
    Effect.PLAGUE: Symbol.RAT,
    Effect.BLACK_DEATH: Symbol.RAT,
}


def effect(value: Effect) -> str:
    """ "acquire 1 Tower", "Drunkenness", "the Plague"."""
    return EFFECTS[Effect(value)]


def _effect_name(value: Effect) -> str:
    """The effect as a sentence's subject: "Drunkenness", "The Plague"."""
    text = effect(value)
    return text[0].upper() + text[1:]


def resolved(faces, value: Effect) -> str:
    """Dice used for an effect: "[Tower]: acquire 1 Tower", "[Book] as a Joker: acquire 1 Tower"."""
    books = 0 if FACE_OF[Effect(value)] is Symbol.BOOK else sum(Symbol(f) is Symbol.BOOK for f in faces)
    joker = {0: "", 1: " as a Joker"}.get(books, " as Jokers")
    return f"{dice(faces)}{joker}: {effect(value)}"


def role(value: Role) -> str:
    return ROLE_INFO[Role(value)].name


def victory(value: Role) -> str:
    """What a role needs to win, from its rows (M14): "at least 3 People, 3 Book and 3
    Mortadella, and a right guess of a role"; alternatives joined by "; or"."""
    info = ROLE_INFO[Role(value)]
    rows = []
    for row in info.rows:
        least = [f"{low} {TOKEN_NAMES[index]}" for index, low, high in row if high is None]
        exact = [
            f"no {TOKEN_NAMES[index]}" if low == 0 else f"exactly {low} {TOKEN_NAMES[index]}"
            for index, low, high in row
            if high is not None
        ]
        if least and exact:
            rows.append(f"at least {join(least)}, with {join(exact)}")
        else:
            rows.append(f"at least {join(least)}" if least else join(exact))
    text = "; or ".join(rows)
    return text + (", and a right guess of a role" if info.requires_guess else "")


def event_text(event: Event, viewer: int | None) -> str:
    voice = Voice(viewer)
    if isinstance(event, TokensChanged):
        gains = event.delta > 0
        verb = voice.does(event.seat, "gain" if gains else "lose")
        text = f"{verb} {abs(event.delta)} {symbol(event.symbol)}"
        if event.cause is TokenCause.STEAL and event.other is not None:
            text += f" {'from' if gains else 'to'} {voice.whom(event.other)}"
        cause = CAUSES.get(event.cause, "")
        return f"{text}{' ' + cause if cause else ''}."
    if isinstance(event, DiceRolled):
        kept = " (keeping the 2 passed on)" if event.kept else ""
        return f"{voice.does(event.seat, 'roll')} {dice(event.dice)}{kept}."
    if isinstance(event, DiceChosen):
        passed = f" and {voice.verb(event.seat, 'pass')} {dice(event.passed_on)} on" if event.passed_on else ""
        return f"{voice.does(event.seat, 'use')} {dice(event.chosen)}{passed}."
    if isinstance(event, EffectChosen):
        return f"{voice.does(event.seat, 'resolve')} {resolved(event.dice, event.effect)}."
    if isinstance(event, TurnStarted):
        passed = f", with {dice(event.passed)} passed on" if event.passed else ""
        return f"Turn {event.turn}: {voice.whose(event.seat, start=False)} turn{passed}."
    if isinstance(event, TargetChosen):
        what = f" (to discard a {symbol(event.symbol)})" if event.symbol is not None else ""
        return f"{voice.does(event.seat, 'target')} {voice.whom(event.target)} with {_with(event.effect)}{what}."
    if isinstance(event, CancelDecided):
        if event.paid:
            return f"{voice.does(event.seat, 'pay')} Mortadella to cancel {effect(event.effect)}."
        return f"{voice.does(event.seat, 'let')} {effect(event.effect)} take effect."
    if isinstance(event, NoEffect):
        # The seat is whose effect it is (the active seat), not its target.
        if FACE_OF[event.effect] is Symbol.WINE or event.effect is Effect.REVOLUTION:
            return f"{voice.whose(event.seat)} {effect(event.effect)} has no effect."
        return f"{voice.does(event.seat, 'find')} nobody to take it from: {effect(event.effect)} has no effect."
    if isinstance(event, LombardDecided):
        if event.reroll:
            text = f"{voice.does(event.holder, 're-roll')} with the Lombard token: {dice(event.dice)}."
        else:
            text = f"{voice.does(event.holder, 'leave')} the dice as they lie (Lombard token)."
        if event.new_holder is not None and event.new_holder != event.holder:
            text += f" The Lombard token passes to {voice.whom(event.new_holder)}."
        return text
    if isinstance(event, SpecialEventOccurred):
        what = f" ({symbol(event.symbol)})" if event.symbol is not None else ""
        return f"Special event: {Special(event.kind).name.title()}{what}!"
    if isinstance(event, TurnSkipped):
        return f"{voice.does(event.seat, 'skip')} the turn (Skip Turn token)."
    if isinstance(event, SkipTurnGiven):
        return f"{voice.who(event.seat)} will skip the next turn."
    if isinstance(event, RoleDealt):
        if event.role is None:
            return f"{voice.is_(event.seat)} dealt a secret role card."
        face_up = ", face up" if ROLE_INFO[event.role].face_up else ""
        return f"{voice.whose(event.seat)} role: {role(event.role)}{face_up}. To win: {victory(event.role)}."
    if isinstance(event, RoleReplaced):
        if event.new_role is None:
            return f"{voice.does(event.seat, 'take')} a new secret role card."
        old = f" instead of {role(event.old_role)}" if event.old_role is not None else ""
        return f"{voice.whose(event.seat)} new role: {role(event.new_role)}{old}. To win: {victory(event.new_role)}."
    if isinstance(event, GuessMade):
        right = "right" if event.correct else "wrong"
        target = f"{voice.whom(event.target)} {voice.verb(event.target, 'are', 'is')}"
        return f"{voice.does(event.seat, 'guess')} {target} the {role(event.role)}: {right}."
    if isinstance(event, PlayerEliminated):
        why = "a deadly sin: 8 tokens of one kind" if event.cause is EliminationCause.DEADLY_SIN else "a wrong guess"
        text = f"{voice.is_(event.seat)} out of the game ({why})"
        returned = [f"{count} {name}" for count, name in zip(event.returned, TOKEN_NAMES, strict=True) if count]
        text += f"; {join(returned)} go back to the supply." if returned else "."
        if event.lombard_to is not None:
            text += f" The Lombard token passes to {voice.whom(event.lombard_to)}."
        return text
    if isinstance(event, StartRoll):
        rolls = "; ".join(f"{voice.who(s)}: {dice(r)}" for s, r in zip(event.seats, event.rolls, strict=False))
        return f"Rolling for the start player: {rolls}."
    if isinstance(event, StartPlayerChosen):
        text = f"{voice.does(event.seat, 'start')}."
        if event.lombard_holder is not None:
            text += f" {voice.does(event.lombard_holder, 'hold')} the Lombard token."
        return text
    if isinstance(event, GameEnded):
        return _game_ended(event, voice)
    return type(event).__name__


def _with(value: Effect) -> str:
    """An effect after "with": "with Drunkenness", "with the Revolution"."""
    return effect(value)


def _game_ended(event: GameEnded, voice: Voice) -> str:
    if event.reason is EndReason.TURN_LIMIT:
        head = "The game ends at the table's turn limit: nobody wins."
    elif event.reason is EndReason.ALL_ELIMINATED:
        head = "The game ends: every player is out, so nobody wins."
    else:
        winner = event.winners[0]  # one winner (M14-M16, M19)
        verb, third, rest = ENDINGS[event.reason]
        how = f"{voice.verb(winner, verb, third)} {rest}"
        head = f"The game ends: {voice.whom(winner)} {how} and {voice.verb(winner, 'win')}."
    roles = "; ".join(f"{voice.who(s)}: {role(r)}" for s, r in enumerate(event.roles))
    lines = [head, f"Roles revealed: {roles}."]
    removed = [
        f"{voice.who(s)}: {join(role(r) for r in cards)}" for s, cards in enumerate(event.removed_roles) if cards
    ]
    if removed:
        lines.append(f"Role cards set aside: {'; '.join(removed)}.")
    return "\n".join(lines)


class MortadellaWords:
    def event_text(self, event: Event, viewer: int | None) -> str:
        return event_text(event, viewer)


def action_label(action: Action) -> str:
    """A legal action's label (``LegalAction.label``), in the rulebook's words and read as the
    event that tells it ("use [Tower] [Tower] [Rat]", "resolve [Book] as a Joker: acquire 1
    Tower"). Seats are written "seat N": clients write the names in (their own as "you")."""
    if isinstance(action, ChooseStartToken):
        return f"start with 1 {symbol(action.symbol)}"
    if isinstance(action, RollDice):
        return "keep the 2 passed dice and roll 3" if action.keep_passed else "roll 5 dice"
    if isinstance(action, GuessRole):
        return f"guess {seat(action.target)} is the {role(action.role)}"
    if isinstance(action, UseLombard):
        return "re-roll with the Lombard token" if action.reroll else "leave the dice as they lie"
    if isinstance(action, ChooseDice):
        return f"use {dice(action.symbols)}"
    if isinstance(action, ResolveEffect):
        return f"resolve {resolved(action.dice, action.effect)}"
    if isinstance(action, ChooseTarget):
        return f"target {seat(action.target)}"
    if isinstance(action, ChooseRevolution):
        return f"Revolution: {seat(action.target)} discards 1 {symbol(action.symbol)}"
    if isinstance(action, PayCancel):
        return "pay Mortadella to cancel it" if action.pay else "let it take effect"
    if isinstance(action, PlagueDiscard):
        return "discard 1 People" if action.symbol is Symbol.PEOPLE else "discard 1 Tower instead of People"
    if isinstance(action, StealFrom):
        return f"steal from {seat(action.victim)}"
    return type(action).__name__

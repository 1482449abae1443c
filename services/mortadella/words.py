"""Il Trono di Mortadella in words: each event as one viewer's projection of it reads, as a
phrase of the game's catalog (``catalog/<locale>.po``, see ``services.engine.words``). A
role card is named only where the projection carries it: the viewer's own, a face-up one,
and every one at the end (M18)."""

from common.phrases import Arg, Phrase, Seat, Term, items, phrase
from services.engine.words import GameWords
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

WORDS = GameWords(__file__)
TOKENS = (Symbol.PEOPLE, Symbol.TOWER, Symbol.BOOK, Symbol.MORTADELLA)  # a seat's tokens (M2)

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


def _key(value) -> str:
    return value.name.lower().replace("_", "-")


def symbol(value: Symbol) -> Term:
    return Term(f"mortadella.symbol.{_key(Symbol(value))}")


def dice(values) -> Arg:
    """ "[Tower] [Rat]", "no dice"."""
    faces = [phrase("mortadella.die", symbol(v)) for v in values]
    return items(faces, "narrow") if faces else phrase("mortadella.no-dice")


def effect_term(value: Effect) -> Term:
    """ "acquire 1 Tower", "Drunkenness", "the Plague": as the rulebook's dice table says (M4)."""
    return Term(f"mortadella.effect.{_key(Effect(value))}")


def effect(value: Effect) -> str:
    return WORDS.english(phrase("mortadella.term", effect_term(value)))


def resolved(faces, value: Effect) -> Phrase:
    """Dice used for an effect: "[Tower]: acquire 1 Tower", "[Book] as a Joker: acquire 1 Tower"."""
    books = 0 if FACE_OF[Effect(value)] is Symbol.BOOK else sum(Symbol(f) is Symbol.BOOK for f in faces)
    joker = {0: "mortadella.resolved", 1: "mortadella.resolved.joker"}.get(books, "mortadella.resolved.jokers")
    return phrase(joker, dice(faces), effect_term(value))


def role(value: Role) -> Term:
    return Term(f"mortadella.role.{_key(Role(value))}")


def victory_phrase(value: Role) -> Arg:
    """What a role needs to win, from its rows (M14): "at least 3 People, 3 Book and 3
    Mortadella, and a right guess of a role"; alternatives joined by "; or"."""
    info = ROLE_INFO[Role(value)]
    rows: list[Arg] = []
    for row in info.rows:
        least = [phrase("mortadella.count", low, symbol(TOKENS[index])) for index, low, high in row if high is None]
        exact = [
            phrase("mortadella.none-of", symbol(TOKENS[index]))
            if low == 0
            else phrase("mortadella.exactly", low, symbol(TOKENS[index]))
            for index, low, high in row
            if high is not None
        ]
        if least and exact:
            rows.append(phrase("mortadella.at-least.with", items(least), items(exact)))
        else:
            rows.append(phrase("mortadella.at-least", items(least)) if least else items(exact))
    alternatives = items(rows, "semicolon-or")
    return phrase("mortadella.and-a-guess", alternatives) if info.requires_guess else alternatives


def victory(value: Role) -> str:
    return WORDS.english(phrase("mortadella.term", victory_phrase(value)))


def sentences(*said: Phrase | None) -> Phrase:
    """Sentences told one after the other."""
    return phrase("sentences", items((s for s in said if s is not None), "sentences"))


def _lombard_passes(seat: int | None, holder: int | None = None) -> Phrase | None:
    if seat is None or seat == holder:
        return None
    return phrase("mortadella.lombard-passes", Seat(seat))


def event_phrase(event: Event, viewer: int | None) -> Phrase:
    if isinstance(event, TokensChanged):
        gains = event.delta > 0
        told = (Seat(event.seat), abs(event.delta), symbol(event.symbol))
        if event.cause is TokenCause.STEAL and event.other is not None:
            change = phrase("mortadella.gain.from" if gains else "mortadella.lose.to", *told, Seat(event.other))
        else:
            change = phrase("mortadella.gain" if gains else "mortadella.lose", *told)
        if event.cause in (TokenCause.ACQUIRE, TokenCause.STEAL):
            return phrase("mortadella.tokens", change)
        return phrase("mortadella.tokens.cause", change, Term(f"mortadella.cause.{_key(event.cause)}"))
    if isinstance(event, DiceRolled):
        return phrase(
            "mortadella.rolled.kept" if event.kept else "mortadella.rolled", Seat(event.seat), dice(event.dice)
        )
    if isinstance(event, DiceChosen):
        if event.passed_on:
            return phrase("mortadella.used.passed", Seat(event.seat), dice(event.chosen), dice(event.passed_on))
        return phrase("mortadella.used", Seat(event.seat), dice(event.chosen))
    if isinstance(event, EffectChosen):
        return phrase("mortadella.resolves", Seat(event.seat), resolved(event.dice, event.effect))
    if isinstance(event, TurnStarted):
        if event.passed:
            return phrase("mortadella.turn.passed", Seat(event.seat), event.turn, dice(event.passed))
        return phrase("mortadella.turn", Seat(event.seat), event.turn)
    if isinstance(event, TargetChosen):
        targeted = (Seat(event.seat), Seat(event.target), effect_term(event.effect))
        if event.symbol is not None:
            return phrase("mortadella.targets.discard", *targeted, symbol(event.symbol))
        return phrase("mortadella.targets", *targeted)
    if isinstance(event, CancelDecided):
        return phrase(
            "mortadella.pays" if event.paid else "mortadella.lets", Seat(event.seat), effect_term(event.effect)
        )
    if isinstance(event, NoEffect):
        # The seat is whose effect it is (the active seat), not its target.
        if FACE_OF[event.effect] is Symbol.WINE or event.effect is Effect.REVOLUTION:
            return phrase("mortadella.no-effect", Seat(event.seat), effect_term(event.effect))
        return phrase("mortadella.no-effect.nobody", Seat(event.seat), effect_term(event.effect))
    if isinstance(event, LombardDecided):
        if event.reroll:
            decided = phrase("mortadella.lombard.reroll", Seat(event.holder), dice(event.dice))
        else:
            decided = phrase("mortadella.lombard.leave", Seat(event.holder))
        return sentences(decided, _lombard_passes(event.new_holder, event.holder))
    if isinstance(event, SpecialEventOccurred):
        kind = Term(f"mortadella.special.{_key(Special(event.kind))}")
        if event.symbol is not None:
            return phrase("mortadella.special-event.symbol", kind, symbol(event.symbol))
        return phrase("mortadella.special-event", kind)
    if isinstance(event, TurnSkipped):
        return phrase("mortadella.skips", Seat(event.seat))
    if isinstance(event, SkipTurnGiven):
        return phrase("mortadella.will-skip", Seat(event.seat))
    if isinstance(event, RoleDealt):
        if event.role is None:
            return phrase("mortadella.role-dealt.secret", Seat(event.seat))
        face_up = ".face-up" if ROLE_INFO[event.role].face_up else ""
        return phrase(f"mortadella.role-dealt{face_up}", Seat(event.seat), role(event.role), victory_phrase(event.role))
    if isinstance(event, RoleReplaced):
        if event.new_role is None:
            return phrase("mortadella.role-replaced.secret", Seat(event.seat))
        replaced = (Seat(event.seat), role(event.new_role), victory_phrase(event.new_role))
        if event.old_role is not None:
            return phrase("mortadella.role-replaced.instead", *replaced, role(event.old_role))
        return phrase("mortadella.role-replaced", *replaced)
    if isinstance(event, GuessMade):
        target = phrase("mortadella.is-the", Seat(event.target), role(event.role))
        right = Term("mortadella.right" if event.correct else "mortadella.wrong")
        return phrase("mortadella.guesses", Seat(event.seat), target, right)
    if isinstance(event, PlayerEliminated):
        why = Term(f"mortadella.why.{_key(event.cause)}")
        returned = [phrase("mortadella.count", n, symbol(s)) for n, s in zip(event.returned, TOKENS, strict=True) if n]
        if returned:
            out = phrase("mortadella.out.returned", Seat(event.seat), why, items(returned))
        else:
            out = phrase("mortadella.out", Seat(event.seat), why)
        return sentences(out, _lombard_passes(event.lombard_to))
    if isinstance(event, StartRoll):
        rolls = (phrase("mortadella.seat-is", Seat(s), dice(r)) for s, r in zip(event.seats, event.rolls, strict=False))
        return phrase("mortadella.start-roll", items(rolls, "semicolon"))
    if isinstance(event, StartPlayerChosen):
        holder = event.lombard_holder
        holds = phrase("mortadella.holds-lombard", Seat(holder)) if holder is not None else None
        return sentences(phrase("mortadella.starts", Seat(event.seat)), holds)
    if isinstance(event, GameEnded):
        return _game_ended(event)
    return phrase(type(event).__name__)


def _game_ended(event: GameEnded) -> Phrase:
    if event.reason in (EndReason.TURN_LIMIT, EndReason.ALL_ELIMINATED):
        head = phrase(f"mortadella.ended.{_key(event.reason)}")
    else:
        head = phrase(f"mortadella.ended.{_key(event.reason)}", Seat(event.winners[0]))  # one winner (M14-M16, M19)
    roles = (phrase("mortadella.seat-is", Seat(s), role(r)) for s, r in enumerate(event.roles))
    lines = [head, phrase("mortadella.roles-revealed", items(roles, "semicolon"))]
    removed = [
        phrase("mortadella.seat-is", Seat(s), items(role(r) for r in cards))
        for s, cards in enumerate(event.removed_roles)
        if cards
    ]
    if removed:
        lines.append(phrase("mortadella.set-aside", items(removed, "semicolon")))
    return phrase("lines", items(lines, "lines"))


def action_phrase(action: Action) -> Phrase:
    """A legal action's label, in the rulebook's words and read as the event that tells it
    ("use [Tower] [Tower] [Rat]", "resolve [Book] as a Joker: acquire 1 Tower")."""
    if isinstance(action, ChooseStartToken):
        return phrase("mortadella.start-with", symbol(action.symbol))
    if isinstance(action, RollDice):
        return phrase("mortadella.roll.keep" if action.keep_passed else "mortadella.roll")
    if isinstance(action, GuessRole):
        return phrase("mortadella.guess", Seat(action.target), role(action.role))
    if isinstance(action, UseLombard):
        return phrase("mortadella.use-lombard.reroll" if action.reroll else "mortadella.use-lombard.leave")
    if isinstance(action, ChooseDice):
        return phrase("mortadella.use", dice(action.symbols))
    if isinstance(action, ResolveEffect):
        return phrase("mortadella.resolve", resolved(action.dice, action.effect))
    if isinstance(action, ChooseTarget):
        return phrase("mortadella.target", Seat(action.target))
    if isinstance(action, ChooseRevolution):
        return phrase("mortadella.revolution", Seat(action.target), symbol(action.symbol))
    if isinstance(action, PayCancel):
        return phrase("mortadella.pay" if action.pay else "mortadella.let")
    if isinstance(action, PlagueDiscard):
        return phrase("mortadella.discard.people" if action.symbol is Symbol.PEOPLE else "mortadella.discard.tower")
    if isinstance(action, StealFrom):
        return phrase("mortadella.steal", Seat(action.victim))
    return phrase(type(action).__name__)


def action_label(action: Action) -> str:
    """The label in English, seats written "seat N" (``Engine.describe_action``)."""
    return WORDS.english(action_phrase(action))


class MortadellaWords:
    catalog = WORDS.folder

    def event_phrase(self, event: Event, viewer: int | None) -> Phrase:
        return event_phrase(event, viewer)

    def action_phrase(self, action: Action) -> Phrase:
        return action_phrase(action)

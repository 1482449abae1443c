"""House of Borgia in words: each event as one viewer's projection of it reads (see
``services.engine.words``). Only what the projection holds is told: a seat's own dice and
puppet, everyone's once revealed. The labels of the legal actions are said here too
(``action_label``, which the engine's ``describe_action`` gives): an action reads the same
in a seat's choices as in the event that tells it was performed."""

from collections.abc import Callable

from services.borgia.model import (
    CARDINAL_NAMES,
    Accuse,
    ActionPerformed,
    Allow,
    Allowed,
    Bid,
    BidMade,
    BorgiaAction,
    BorgiaEvent,
    Bribe,
    Call,
    Called,
    Cardinal,
    DiceRevealed,
    DieLost,
    Direction,
    Face,
    GameEnded,
    GameStarted,
    JudgementPair,
    JudgementSplit,
    PerformNothing,
    Poison,
    PuppetsDealt,
    Rallied,
    RollOff,
    RoundStarted,
    Rumor,
)
from services.engine.words import Voice, choice, join, plural, seat

VARIANT_NAMES = {
    "shadow_puppets": "Shadow Puppets",
    "flame_of_thy_tongue": "Flame of Thy Tongue",
    "poisoned_dice": "Poisoned Dice",
}


def cardinal(value: Cardinal) -> str:
    return CARDINAL_NAMES[Cardinal(value)]


def face(value: Face) -> str:
    return Face(value).name.title()


def bid(count: int, action: Face) -> str:
    """ "3 x Bribe"."""
    return f"{count} x {face(action)}"


def dice(faces) -> str:
    return " ".join(f"[{face(f)}]" for f in faces) or "no dice"


def perform(action: BorgiaAction, whom: Callable[[int], str] = seat) -> str:
    """A bid's action, as a clause ("Bribe: Medici to the top"): what a seat performed
    (``whom``: how the text names a seat it targets, ``Voice.whom`` in an event), and the
    label of that action among a seat's choices (``action_label``)."""
    if isinstance(action, Bribe):
        where = "top" if action.direction == Direction.TOP else "bottom"
        return f"Bribe: {cardinal(action.cardinal)} to the {where}"
    if isinstance(action, Poison):
        if action.first == action.second:
            return f"Poison: 2 from {cardinal(action.first)}"
        return f"Poison: 1 from {cardinal(action.first)} and 1 from {cardinal(action.second)}"
    if isinstance(action, JudgementPair):
        return f"Judgement: 2 from {cardinal(action.source)} to {cardinal(action.target)}"
    if isinstance(action, JudgementSplit):
        (a, b), (c, d) = action.sources, action.targets
        return f"Judgement: 1 each from {cardinal(a)} and {cardinal(b)} to {cardinal(c)} and {cardinal(d)}"
    if isinstance(action, Accuse):
        return f"Accusation: {cardinal(action.cardinal)} is the Antipope"
    if isinstance(action, Rumor):
        text = f"Rumor: {cardinal(action.card)} in front of {whom(action.target)}"
        return text + (f", {cardinal(action.returned)} back to the centre" if action.returned is not None else "")
    if isinstance(action, PerformNothing):
        return "nothing (no legal target)"
    if isinstance(action, Bid):
        return f"bid {bid(action.count, action.action)}"
    return type(action).__name__


def action_label(action: BorgiaAction) -> str:
    """A legal action's label (``LegalAction.label``): "bid 3 x Poison", "call", "allow", or
    the action a bid performs as events tell it ("Bribe: Medici to the top"). Seats are
    written "seat N": a label is read by the seat that may take it, and clients write the
    names in (a seat's own as "you")."""
    if isinstance(action, Call):
        return "call"
    if isinstance(action, Allow):
        return "allow"
    return perform(action)


def _changes(changes) -> str:
    return ", ".join(f"{cardinal(c.cardinal)} {c.delta:+d}" for c in changes if c.delta)


def event_text(event: BorgiaEvent, viewer: int | None) -> str:
    voice = Voice(viewer)
    if isinstance(event, BidMade):
        return f"{voice.does(event.seat, 'bid')} {bid(event.count, event.action)}."
    if isinstance(event, Allowed):
        return f"{voice.does(event.seat, 'allow')} the bid."
    if isinstance(event, Called):
        return f"{voice.does(event.seat, 'call')} the bid a bluff!"
    if isinstance(event, ActionPerformed):
        changes = _changes(event.influence_changes)
        text = f"{voice.who(event.seat)} performed {perform(event.action, voice.whom)}"
        return text + (f" ({changes})." if changes else ".")
    if isinstance(event, DieLost):
        return f"{voice.does(event.seat, 'lose')} a die ({event.remaining} left)."
    if isinstance(event, RoundStarted):
        return _round_started(event, voice)
    if isinstance(event, DiceRevealed):
        truth = "true" if event.truthful else "a bluff"
        counts = ", ".join(
            f"{voice.whom(s)} {sum(1 for f in faces if f in (event.bid.action, Face.FATE))}"
            for s, faces in enumerate(event.dice)
        )
        return (
            f"Every die is revealed: {event.matching} {'shows' if event.matching == 1 else 'show'}"
            f" {face(event.bid.action)} or Fate ({counts});"
            f" {voice.whose(event.bidder, start=False)} bid of {bid(event.bid.count, event.bid.action)} was {truth}."
        )
    if isinstance(event, Rallied):
        return f"Rally: {_changes(event.gains) or 'no gains'}."
    if isinstance(event, GameStarted):
        variants = [name for field, name in VARIANT_NAMES.items() if getattr(event, field)]
        extra = f" Variants: {', '.join(variants)}." if variants else ""
        dice_each = ", ".join(sorted({str(count) for count in event.dice_counts}))
        return f"House of Borgia, {event.player_count} players, {dice_each} dice each.{extra}"
    if isinstance(event, PuppetsDealt):
        own = event.puppets[viewer] if viewer is not None and viewer < len(event.puppets) else None
        if own:
            return f"The puppets are dealt in secret. Your puppet: {join(cardinal(c) for c in own)}."
        return "The puppets are dealt in secret."
    if isinstance(event, RollOff):
        rounds = len(event.rounds)
        again = f" after {plural(rounds, 'roll')}" if rounds > 1 else ""
        return f"{voice.who(event.starter)} rolled the most Fate{again} and {voice.verb(event.starter, 'start')}."
    if isinstance(event, GameEnded):
        return _game_ended(event, voice)
    return type(event).__name__


def _round_started(event: RoundStarted, voice: Voice) -> str:
    """One text for every seat: each sees its own dice on its board, not again here."""
    return f"Round {event.round_number}: everyone rolls; {voice.does(event.starter, 'bid', start=False)} first."


def _game_ended(event: GameEnded, voice: Voice) -> str:
    """Why the game ended as it did, step by step as B9/B10 score it."""
    result = event.result
    lines = ["The game ends: a player has no dice left."]
    puppets = "; ".join(f"{voice.who(s)}: {join(cardinal(c) for c in cards)}" for s, cards in enumerate(result.puppets))
    lines.append(f"Puppets revealed: {puppets}.")
    if result.bonuses:
        lines.append(f"Remaining dice to the puppets: {_changes(result.bonuses) or 'nothing'}.")
    if result.penalties:
        lines.append(f"Rumors naming their own puppet cost: {_changes(result.penalties)}.")
    for s in result.eliminated:
        them = choice(s, "you", "them")  # the seat was just named: "in front of them"
        lines.append(f"{voice.is_(s)} eliminated: the rumor in front of {them} names {voice.their(s)} puppet.")
    if result.removed:
        lines.append(
            f"{join(cardinal(c) for c in result.removed)} {'leaves' if len(result.removed) == 1 else 'leave'}"
            " the ladder."
        )
    if result.pope is None:
        lines.append("No pope is elected: nobody wins.")
    else:
        pope = f"{cardinal(result.pope)} is elected pope with {result.influence[result.pope]} influence"
        if result.winners:
            lines.append(f"{pope}: {join(voice.whom(s) for s in result.winners)} {_win(result.winners, voice)}.")
        else:
            lines.append(f"{pope}, whom no player still in the game holds: nobody wins.")
    return "\n".join(lines)


def _win(winners, voice: Voice) -> str:
    return voice.verb(winners[0], "win") if len(winners) == 1 else "win"


class BorgiaWords:
    def event_text(self, event: BorgiaEvent, viewer: int | None) -> str:
        return event_text(event, viewer)

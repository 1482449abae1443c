"""Pecunia non olet in words: each event as one viewer's projection of it reads (see
``services.engine.words``). Hands are secret (P7): the cards a seat draws are named only
in that seat's own text. The labels of the legal actions are said here too (``action_label``,
which the engine's ``describe_action`` gives): an action reads the same among a seat's
choices as in the event that tells it, in the rulebook's words."""

from collections.abc import Callable

from services.engine.sentences import Voice, join, plural, seat
from services.pecunia.model import (
    ACTION_LABELS,
    PLAY_KINDS,
    ActionCardPlayed,
    ActionCardsDrawn,
    DrawActionCard,
    EndReason,
    EndRefill,
    GameEnded,
    GameStarted,
    MarkersChanged,
    MarkersRemoved,
    PecuniaAction,
    PecuniaEvent,
    PickNext,
    Pile,
    PileReshuffled,
    PlayCastorOil,
    PlayEviction,
    PlayFishPoisoning,
    PlayPoaching,
    PlayQueueJumper,
    PlaySenateMeeting,
    PlaySpecialTax,
    PlaySwap,
    QueueChanged,
    QueueDealt,
    RefillEnded,
    RemoveMarkers,
    RomanCard,
    RomanKind,
    RomanPaid,
    RomanRemoved,
    RomanSeated,
    SeatPos,
    SeatRoman,
    SesterceTaxed,
    TurnStarted,
    turn_number,
)


def roman(card: RomanCard) -> str:
    """ "Senator 3r/5s": its kind, the rounds it sits and the sesterces it pays."""
    return f"{RomanKind(card.kind).name.title()} {card.rounds}r/{card.sesterces}s"


def position(value: SeatPos) -> str:
    return SeatPos(value).name.lower()


def place(value: SeatPos, slot: int = 0, owner: str = "the") -> str:
    """A latrine seat, or the woman on top of two there: "the left seat", "the top woman on
    Ada's left seat" (``owner``: "the", or whose latrine it is)."""
    where = f"{owner} {position(value)} seat"
    return f"the top woman on {where}" if slot else where


def played(action: PecuniaAction, whose: Callable[[int], str], whom: Callable[[int], str]) -> str:
    """An action card as played, its name and what it was played on ("Castor oil: -2 round
    markers on the left seat"): what a seat played (``whose``, ``whom``: how the text names
    the seat it targets) and the label of that play among a seat's choices (``action_label``)."""
    label = ACTION_LABELS.get(PLAY_KINDS.get(type(action)), "an action card")  # type: ignore[arg-type]
    if isinstance(action, PlayQueueJumper):
        return f"{label}: queue card {action.index + 1} to the start"
    if isinstance(action, PlayCastorOil):
        return f"{label}: -{plural(action.amount, 'round marker')} on {place(action.seat, action.slot)}"
    if isinstance(action, (PlayFishPoisoning, PlayEviction)):
        return f"{label} on {place(action.seat, action.slot, whose(action.target))}"
    if isinstance(action, (PlaySpecialTax, PlayPoaching, PlaySenateMeeting)):
        return f"{label} on {whom(action.target)}"
    if isinstance(action, PlaySwap):
        return f"{label}: queue card {action.index + 1} for {whose(action.target)} card {action.target_index + 1}"
    return label


def _played(event: ActionCardPlayed, voice: Voice) -> str:
    what = played(event.action, lambda s: voice.whose(s, start=False), voice.whom)
    return f"{voice.does(event.player, 'play')} {what}."


def action_label(action: PecuniaAction) -> str:
    """A legal action's label (``LegalAction.label``), in the rulebook's words (the four steps
    of a turn, P4) or an action card as its event tells it was played. Seats are written
    "seat N": clients write the names in."""
    if isinstance(action, RemoveMarkers):
        return "remove round markers and collect sesterces"
    if isinstance(action, SeatRoman):
        return f"refill {place(action.seat)}" + (" with two women" if action.pair else "")
    if isinstance(action, EndRefill):
        return "stop refilling"
    if isinstance(action, DrawActionCard):
        return "draw an action card (ends your turn)"
    if isinstance(action, PickNext):
        return f"Reordering: queue card {action.index + 1} next"
    if type(action) in PLAY_KINDS:
        return played(action, lambda s: f"{seat(s)}'s", seat)
    return type(action).__name__


def event_text(event: PecuniaEvent, viewer: int | None) -> str:
    voice = Voice(viewer)
    if isinstance(event, MarkersRemoved):
        latrine = f"{voice.their(event.player)} latrine"
        return f"{voice.does(event.player, 'take')} a round marker off each Roman on {latrine}."
    if isinstance(event, RomanPaid):
        return (
            f"{voice.whose(event.player)} {roman(event.card)} on the {position(event.seat)} seat pays"
            f" {event.amount} and leaves ({plural(event.sesterces, 'sesterce')} now)."
        )
    if isinstance(event, RomanSeated):
        return (
            f"{voice.does(event.player, 'place')} {roman(event.card)} on the {position(event.seat)} seat"
            f" ({plural(event.markers, 'round marker')})."
        )
    if isinstance(event, RefillEnded):
        empty = f"; empty: {join(position(p) for p in event.empty_seats)}" if event.empty_seats else ""
        return f"{voice.does(event.player, 'stop')} refilling{empty}."
    if isinstance(event, ActionCardsDrawn):
        cards = f": {join(ACTION_LABELS[c.kind] for c in event.cards)}" if event.cards else ""
        return f"{voice.does(event.player, 'draw')} {plural(event.count, 'action card')}{cards}."
    if isinstance(event, TurnStarted):
        return f"Turn {turn_number(event.turn)}: {voice.whose(event.player, start=False)} turn."
    if isinstance(event, ActionCardPlayed):
        return _played(event, voice)
    if isinstance(event, MarkersChanged):
        return (
            f"{voice.whose(event.player)} {roman(event.card)} on the {position(event.seat)} seat"
            f" now has {plural(event.markers, 'round marker')}."
        )
    if isinstance(event, SesterceTaxed):
        return f"{voice.does(event.player, 'pay')} {event.amount} in tax ({plural(event.sesterces, 'sesterce')} left)."
    if isinstance(event, RomanRemoved):
        where = f"{roman(event.card)} on the {position(event.seat)} seat"
        return f"{voice.whose(event.player)} {where} is sent away without pay."
    if isinstance(event, QueueChanged):
        queue = ", ".join(roman(card) for card in event.cards) or "empty"
        return f"{voice.whose(event.player)} queue is now: {queue}."
    if isinstance(event, QueueDealt):
        queue = ", ".join(roman(card) for card in event.cards)
        return f"{voice.whose(event.player)} queue: {queue}."
    if isinstance(event, PileReshuffled):
        pile = "Roman" if event.pile is Pile.ROMAN else "action card"
        return f"The {pile} discards are shuffled into a new draw pile of {event.size}."
    if isinstance(event, GameStarted):
        limit = f", at most {event.turn_limit} turns" if event.turn_limit else ""
        return (
            f"Pecunia non olet, {event.player_count} players: first to {event.target} sesterces wins{limit}."
            f" {voice.does(event.start_player, 'start', start=True)}."
        )
    if isinstance(event, GameEnded):
        winners = join(voice.whom(s) for s in event.winners) or "nobody"
        if event.reason is EndReason.TARGET_REACHED:
            why = "reached the target"
        else:
            why = "held the most sesterces at the turn limit"
        wins = voice.verb(event.winners[0], "win") if len(event.winners) == 1 else "win"
        held = ", ".join(f"{voice.who(s, start=False)} {amount}" for s, amount in enumerate(event.sesterces))
        return f"The game ends: {winners} {why} and {wins}. Sesterces: {held}."
    return type(event).__name__


class PecuniaWords:
    def event_text(self, event: PecuniaEvent, viewer: int | None) -> str:
        return event_text(event, viewer)

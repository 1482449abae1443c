"""Pecunia non olet in words: each event as one viewer's projection of it reads, as a
phrase of the game's catalog (``catalog/<locale>.po``, see ``services.engine.words``).
Hands are secret (P7): the cards a seat draws are named only in that seat's own phrase. The
labels of the legal actions are phrases too (``action_phrase``): an action reads the same
among a seat's choices as in the event that tells it, in the rulebook's words."""

from common.phrases import Arg, Phrase, Seat, Term, items, phrase
from services.engine.words import GameWords
from services.pecunia.model import (
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

WORDS = GameWords(__file__)


def _key(value) -> str:
    return value.name.lower().replace("_", "-")


def roman(card: RomanCard) -> Phrase:
    """ "Senator 3r/5s": its kind, the rounds it sits and the sesterces it pays."""
    return phrase("pecunia.roman", Term(f"pecunia.roman.{_key(RomanKind(card.kind))}"), card.rounds, card.sesterces)


def position(value: SeatPos) -> Term:
    return Term(f"pecunia.position.{_key(SeatPos(value))}")


def whose(number: int) -> Phrase:
    """ "seat 2's" / "your"."""
    return phrase("pecunia.whose", Seat(number))


def place(value: SeatPos, slot: int = 0, owner: int | None = None) -> Phrase:
    """A latrine seat, or the woman on top of two there: "the left seat", "the top woman on
    Ada's left seat" (``owner``: whose latrine it is, if said)."""
    top = ".top" if slot else ""
    if owner is None:
        return phrase(f"pecunia.place{top}", position(value))
    return phrase(f"pecunia.place.of{top}", whose(owner), position(value))


def card(action: PecuniaAction) -> Term:
    kind = PLAY_KINDS.get(type(action))
    return Term(f"pecunia.card.{_key(kind)}" if kind is not None else "pecunia.card")


def played(action: PecuniaAction) -> Phrase:
    """An action card as played, its name and what it was played on ("Castor oil: -2 round
    markers on the left seat"): what a seat played, and the label of that play among a
    seat's choices (``action_phrase``)."""
    name = card(action)
    if isinstance(action, PlayQueueJumper):
        return phrase("pecunia.play.queue-jumper", name, action.index + 1)
    if isinstance(action, PlayCastorOil):
        return phrase("pecunia.play.castor-oil", name, action.amount, place(action.seat, action.slot))
    if isinstance(action, (PlayFishPoisoning, PlayEviction)):
        return phrase("pecunia.play.on", name, place(action.seat, action.slot, action.target))
    if isinstance(action, (PlaySpecialTax, PlayPoaching, PlaySenateMeeting)):
        return phrase("pecunia.play.on", name, Seat(action.target))
    if isinstance(action, PlaySwap):
        return phrase("pecunia.play.swap", name, action.index + 1, whose(action.target), action.target_index + 1)
    return phrase("pecunia.play", name)


def action_phrase(action: PecuniaAction) -> Phrase:
    """A legal action's label, in the rulebook's words (the four steps of a turn, P4) or an
    action card as its event tells it was played."""
    if isinstance(action, RemoveMarkers):
        return phrase("pecunia.remove-markers")
    if isinstance(action, SeatRoman):
        return phrase("pecunia.refill.pair" if action.pair else "pecunia.refill", place(action.seat))
    if isinstance(action, EndRefill):
        return phrase("pecunia.stop-refilling")
    if isinstance(action, DrawActionCard):
        return phrase("pecunia.draw")
    if isinstance(action, PickNext):
        return phrase("pecunia.pick-next", action.index + 1)
    if type(action) in PLAY_KINDS:
        return played(action)
    return phrase(type(action).__name__)


def action_label(action: PecuniaAction) -> str:
    """The label in English, seats written "seat N" (``Engine.describe_action``)."""
    return WORDS.english(action_phrase(action))


def _count(message_id: str, count: int) -> Phrase:
    """ "1 sesterce", "3 round markers": a plural message of the catalog."""
    return phrase(message_id, count)


def event_phrase(event: PecuniaEvent, viewer: int | None) -> Phrase:
    if isinstance(event, MarkersRemoved):
        return phrase("pecunia.markers-removed", Seat(event.player))
    if isinstance(event, RomanPaid):
        told = (roman(event.card), position(event.seat), event.amount, _count("pecunia.sesterces", event.sesterces))
        return phrase("pecunia.roman-paid", Seat(event.player), *told)
    if isinstance(event, RomanSeated):
        markers = _count("pecunia.round-markers", event.markers)
        return phrase("pecunia.roman-seated", Seat(event.player), roman(event.card), position(event.seat), markers)
    if isinstance(event, RefillEnded):
        if event.empty_seats:
            return phrase(
                "pecunia.refill-ended.empty", Seat(event.player), items(position(p) for p in event.empty_seats)
            )
        return phrase("pecunia.refill-ended", Seat(event.player))
    if isinstance(event, ActionCardsDrawn):
        count = _count("pecunia.action-cards", event.count)
        if event.cards:
            names = items(Term(f"pecunia.card.{_key(c.kind)}") for c in event.cards)
            return phrase("pecunia.drawn.cards", Seat(event.player), count, names)
        return phrase("pecunia.drawn", Seat(event.player), count)
    if isinstance(event, TurnStarted):
        return phrase("pecunia.turn", Seat(event.player), turn_number(event.turn))
    if isinstance(event, ActionCardPlayed):
        return phrase("pecunia.played", Seat(event.player), played(event.action))
    if isinstance(event, MarkersChanged):
        markers = _count("pecunia.round-markers", event.markers)
        return phrase("pecunia.markers-changed", Seat(event.player), roman(event.card), position(event.seat), markers)
    if isinstance(event, SesterceTaxed):
        left = _count("pecunia.sesterces", event.sesterces)
        return phrase("pecunia.taxed", Seat(event.player), event.amount, left)
    if isinstance(event, RomanRemoved):
        return phrase("pecunia.roman-removed", Seat(event.player), roman(event.card), position(event.seat))
    if isinstance(event, QueueChanged):
        queue: Arg = items((roman(c) for c in event.cards), "unit") if event.cards else Term("pecunia.empty")
        return phrase("pecunia.queue-changed", Seat(event.player), queue)
    if isinstance(event, QueueDealt):
        return phrase("pecunia.queue-dealt", Seat(event.player), items((roman(c) for c in event.cards), "unit"))
    if isinstance(event, PileReshuffled):
        pile = "roman" if event.pile is Pile.ROMAN else "action"
        return phrase(f"pecunia.reshuffled.{pile}", event.size)
    if isinstance(event, GameStarted):
        starts = phrase("pecunia.starts", Seat(event.start_player))
        if event.turn_limit:
            return phrase("pecunia.started.limit", event.player_count, event.target, starts, event.turn_limit)
        return phrase("pecunia.started", event.player_count, event.target, starts)
    if isinstance(event, GameEnded):
        why = "target" if event.reason is EndReason.TARGET_REACHED else "turn-limit"
        held = items(
            (phrase("pecunia.seat-amount", Seat(s), amount) for s, amount in enumerate(event.sesterces)), "unit"
        )
        if len(event.winners) == 1:
            return phrase(f"pecunia.ended.{why}", Seat(event.winners[0]), held)
        if event.winners:
            return phrase(f"pecunia.ended.{why}.many", items(Seat(s) for s in event.winners), held)
        return phrase(f"pecunia.ended.{why}.nobody", held)
    return phrase(type(event).__name__)


class PecuniaWords:
    catalog = WORDS.folder

    def event_phrase(self, event: PecuniaEvent, viewer: int | None) -> Phrase:
        return event_phrase(event, viewer)

    def action_phrase(self, action: PecuniaAction) -> Phrase:
        return action_phrase(action)

"""Values of the Pecunia non olet engine: cards, state, actions, events and views.

Everything here is immutable (frozen dataclasses, named tuples and tuples), so two equal
values mean the same game position. Card faces (kind, rounds, sesterces) come from the deck
data file (``services/pecunia/decks/*.json``), never from code; the state refers to cards by
their id in the deck it carries.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

from services.engine.values import fast_inits


class RomanKind(IntEnum):
    SENATOR = 1
    CITIZEN = 2
    WOMAN = 3
    SLAVE = 4


class ActionKind(IntEnum):
    VILLA_DIXIUS = 1
    QUEUE_JUMPER = 2
    CASTOR_OIL = 3
    FISH_POISONING = 4
    SPECIAL_TAX = 5
    POACHING = 6
    SWAP = 7
    SENATE_MEETING = 8
    REORDERING = 9
    EVICTION = 10


ACTION_LABELS = {
    ActionKind.VILLA_DIXIUS: "Villa Dixius",
    ActionKind.QUEUE_JUMPER: "Queue-jumper",
    ActionKind.CASTOR_OIL: "Castor oil",
    ActionKind.FISH_POISONING: "Fish poisoning",
    ActionKind.SPECIAL_TAX: "Special tax",
    ActionKind.POACHING: "Poaching",
    ActionKind.SWAP: "Swap",
    ActionKind.SENATE_MEETING: "Senate meeting",
    ActionKind.REORDERING: "Reordering",
    ActionKind.EVICTION: "Eviction",
}


def turn_number(completed: int) -> int:
    """The number of the turn that follows ``completed`` turns, as the rulebook counts them
    (the first turn is turn 1): the one place turn numbers come from. The view's ``turn``
    is it, and a ``TurnStarted`` (which holds the turns completed before it) is told with it,
    so every client and every text say the same."""
    return completed + 1


class SeatPos(IntEnum):
    """P1: the three latrine seats; LEFT-MIDDLE and MIDDLE-RIGHT are adjacent."""

    LEFT = 0
    MIDDLE = 1
    RIGHT = 2


SEAT_NAMES = ("LEFT", "MIDDLE", "RIGHT")
# P1: adjacency of the latrine seats.
NEIGHBOURS = ((1,), (0, 2), (1,))
# P2: senators and slaves never sit beside each other; other Romans shun no one.
SHUNS = {RomanKind.SENATOR: RomanKind.SLAVE, RomanKind.SLAVE: RomanKind.SENATOR}


class Phase(IntEnum):
    """Where the active player's turn stands (P4). Action cards may be played in the first three."""

    MARKERS = 1  # before step 1 (remove round markers) and step 2 (collect sesterces)
    REFILL = 2  # step 3: refilling the latrine from the head of the queue (P3)
    DRAW = 3  # after refilling, before step 4 (draw an action card, which ends the turn)
    OVER = 4  # the game has ended


class Pile(IntEnum):
    ROMAN = 1
    ACTION = 2


class EndReason(IntEnum):
    NONE = 0
    TARGET_REACHED = 1  # P7
    TURN_LIMIT = 2  # P8: the table's limit on turns was reached


@dataclass(frozen=True)
class RomanCard:
    """One Roman card's face: rounds seated (top left) and sesterces paid (top right)."""

    id: int
    kind: RomanKind
    rounds: int
    sesterces: int


@dataclass(frozen=True)
class ActionCard:
    id: int
    kind: ActionKind


@dataclass(frozen=True)
class Deck:
    """The 70 Roman cards and 40 action cards a table plays with, loaded from a data file."""

    name: str
    romans: tuple[RomanCard, ...]
    actions: tuple[ActionCard, ...]


class Seated(NamedTuple):
    """A Roman card on a latrine seat with its round markers."""

    card: int
    markers: int


Stack = tuple[Seated, ...]  # one seat: empty, one Roman, or two women (P1), bottom first


@dataclass(frozen=True)
class PecuniaState:
    deck: Deck
    target: int  # P7: sesterces that win
    turn_limit: int  # P8: limit on completed turns; 0: none
    start_player: int
    seats: tuple[tuple[Stack, Stack, Stack], ...]  # per player: LEFT, MIDDLE, RIGHT
    queues: tuple[tuple[int, ...], ...]  # per player, start of the queue first
    hands: tuple[tuple[int, ...], ...]  # per player, action card ids, sorted
    coins: tuple[int, ...]  # sesterces per player
    roman_pile: tuple[int, ...]  # face down, top card last
    roman_discard: tuple[int, ...]  # face up, newest last
    action_pile: tuple[int, ...]  # face down, top card last
    action_discard: tuple[int, ...]  # face up, newest last
    active: int
    phase: Phase
    villa: bool  # a Villa Dixius played this turn is in force (P2)
    reorder: int | None  # Reordering in progress: how many queue cards are already placed
    turn: int  # completed turns
    rng: int
    winners: tuple[int, ...] = ()
    end_reason: EndReason = EndReason.NONE

    @property
    def player_count(self) -> int:
        return len(self.coins)


# ---------------------------------------------------------------------------------------
# Actions. Every decision is one small action; positions refer to the current state.


@dataclass(frozen=True)
class RemoveMarkers:
    """Steps 1 and 2 of the turn: remove a round marker from every seated Roman, collect (P4)."""


@dataclass(frozen=True)
class SeatRoman:
    """Step 3 (P3): seat the Roman at the start of the queue; ``pair``: the first two, both women."""

    seat: SeatPos
    pair: bool = False


@dataclass(frozen=True)
class EndRefill:
    """Stop refilling: allowed only when the head of the queue fits no free seat (P3)."""


@dataclass(frozen=True)
class DrawActionCard:
    """Step 4: draw one action card, which ends the turn (P4)."""


@dataclass(frozen=True)
class PlayVillaDixius:
    pass


@dataclass(frozen=True)
class PlayQueueJumper:
    index: int  # position in the own queue, moved to its start


@dataclass(frozen=True)
class PlayCastorOil:
    seat: SeatPos
    slot: int  # 0: the bottom (or only) Roman on the seat, 1: the woman on top
    amount: int  # 1 or 2 ("up to 2")


@dataclass(frozen=True)
class PlayFishPoisoning:
    target: int
    seat: SeatPos
    slot: int


@dataclass(frozen=True)
class PlaySpecialTax:
    target: int


@dataclass(frozen=True)
class PlayPoaching:
    target: int


@dataclass(frozen=True)
class PlaySwap:
    index: int  # position in the own queue
    target: int
    target_index: int  # position in the target's queue


@dataclass(frozen=True)
class PlaySenateMeeting:
    target: int


@dataclass(frozen=True)
class PlayReordering:
    pass


@dataclass(frozen=True)
class PlayEviction:
    target: int
    seat: SeatPos
    slot: int


@dataclass(frozen=True)
class PickNext:
    """While reordering: the queue card at ``index`` goes next in the new order."""

    index: int


PecuniaAction = (
    RemoveMarkers
    | SeatRoman
    | EndRefill
    | DrawActionCard
    | PlayVillaDixius
    | PlayQueueJumper
    | PlayCastorOil
    | PlayFishPoisoning
    | PlaySpecialTax
    | PlayPoaching
    | PlaySwap
    | PlaySenateMeeting
    | PlayReordering
    | PlayEviction
    | PickNext
)

PLAY_KINDS: dict[type, ActionKind] = {
    PlayVillaDixius: ActionKind.VILLA_DIXIUS,
    PlayQueueJumper: ActionKind.QUEUE_JUMPER,
    PlayCastorOil: ActionKind.CASTOR_OIL,
    PlayFishPoisoning: ActionKind.FISH_POISONING,
    PlaySpecialTax: ActionKind.SPECIAL_TAX,
    PlayPoaching: ActionKind.POACHING,
    PlaySwap: ActionKind.SWAP,
    PlaySenateMeeting: ActionKind.SENATE_MEETING,
    PlayReordering: ActionKind.REORDERING,
    PlayEviction: ActionKind.EVICTION,
}

ACTION_TYPES = (RemoveMarkers, SeatRoman, EndRefill, DrawActionCard, PickNext, *PLAY_KINDS)


# ---------------------------------------------------------------------------------------
# Events. All public except ActionCardsDrawn, whose cards only the drawer sees.


@dataclass(frozen=True)
class GameStarted:
    player_count: int
    start_player: int
    target: int
    turn_limit: int
    deck_name: str


@dataclass(frozen=True)
class TurnStarted:
    player: int
    turn: int


@dataclass(frozen=True)
class RomanSeated:
    player: int
    seat: SeatPos
    card: RomanCard
    markers: int


@dataclass(frozen=True)
class QueueDealt:
    """P5/P6: a new queue of (up to) 5 cards, face up, start first."""

    player: int
    cards: tuple[RomanCard, ...]


@dataclass(frozen=True)
class ActionCardsDrawn:
    """Secret: ``cards`` is empty in every projection but the drawer's; ``count`` is public."""

    player: int
    count: int
    cards: tuple[ActionCard, ...] = ()


@dataclass(frozen=True)
class MarkersRemoved:
    player: int


@dataclass(frozen=True)
class RomanPaid:
    player: int
    seat: SeatPos
    card: RomanCard
    amount: int
    sesterces: int  # the player's holding afterwards


@dataclass(frozen=True)
class RefillEnded:
    player: int
    empty_seats: tuple[SeatPos, ...]


@dataclass(frozen=True)
class ActionCardPlayed:
    player: int
    card: ActionCard
    action: PecuniaAction


@dataclass(frozen=True)
class MarkersChanged:
    player: int
    seat: SeatPos
    card: RomanCard
    markers: int


@dataclass(frozen=True)
class SesterceTaxed:
    player: int
    amount: int
    sesterces: int


@dataclass(frozen=True)
class RomanRemoved:
    """A seated Roman leaves without paying (Senate meeting, Eviction)."""

    player: int
    seat: SeatPos
    card: RomanCard


@dataclass(frozen=True)
class QueueChanged:
    player: int
    cards: tuple[RomanCard, ...]


@dataclass(frozen=True)
class PileReshuffled:
    """P5: the discard pile became the draw pile; the new order is nobody's to see."""

    pile: Pile
    size: int


@dataclass(frozen=True)
class GameEnded:
    winners: tuple[int, ...]
    reason: EndReason
    sesterces: tuple[int, ...]


PecuniaEvent = (
    GameStarted
    | TurnStarted
    | RomanSeated
    | QueueDealt
    | ActionCardsDrawn
    | MarkersRemoved
    | RomanPaid
    | RefillEnded
    | ActionCardPlayed
    | MarkersChanged
    | SesterceTaxed
    | RomanRemoved
    | QueueChanged
    | PileReshuffled
    | GameEnded
)


# ---------------------------------------------------------------------------------------
# Views (P7): coins, seats, queues and discard piles are public; a hand only to its owner;
# the draw piles only as counts.


@dataclass(frozen=True)
class SeatedView:
    card: RomanCard
    markers: int


@dataclass(frozen=True)
class PlayerView:
    seat: int
    sesterces: int
    latrine: tuple[tuple[SeatedView, ...], ...]  # LEFT, MIDDLE, RIGHT
    queue: tuple[RomanCard, ...]
    hand_count: int
    hand: tuple[ActionCard, ...] | None  # None: not the viewer's to see


@dataclass(frozen=True)
class PecuniaView:
    viewer: int | None
    deck_name: str
    target: int
    turn_limit: int
    start_player: int
    turn: int
    active: int
    phase: Phase
    villa: bool
    reorder: int | None
    players: tuple[PlayerView, ...]
    roman_pile_count: int
    roman_discard: tuple[RomanCard, ...]
    action_pile_count: int
    action_discard: tuple[ActionCard, ...]
    winners: tuple[int, ...]
    end_reason: EndReason


fast_inits(__name__)  # every value above is built at each decision

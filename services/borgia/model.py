"""House of Borgia values: enums, the game state, actions, events and views.

Everything here is an immutable value (frozen dataclasses holding tuples), so two states
compare equal exactly when they are the same game position. Rules live in ``engine.py``.
Pure: standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from services.engine.values import fast_inits


class Cardinal(IntEnum):
    """B1: the six cardinals. The value is the index into ``BorgiaState.influence``."""

    BORGIA = 0
    DELLA_ROVERE = 1
    MEDICI = 2
    ORSINI = 3
    COLONNA = 4
    SFORZA = 5


CARDINALS: tuple[Cardinal, ...] = tuple(Cardinal)

CARDINAL_NAMES: dict[Cardinal, str] = {
    Cardinal.BORGIA: "Borgia",
    Cardinal.DELLA_ROVERE: "Della Rovere",
    Cardinal.MEDICI: "Medici",
    Cardinal.ORSINI: "Orsini",
    Cardinal.COLONNA: "Colonna",
    Cardinal.SFORZA: "Sforza",
}


class Face(IntEnum):
    """B2: the six faces of a die. FATE is wild when counting a bid (rulebook, Fate Symbols)."""

    BRIBE = 0
    POISON = 1
    JUDGEMENT = 2
    ACCUSATION = 3
    RUMOR = 4
    FATE = 5


FACES: tuple[Face, ...] = tuple(Face)
# B3: FATE is not an action and cannot be bid.
BID_FACES: tuple[Face, ...] = (Face.BRIBE, Face.POISON, Face.JUDGEMENT, Face.ACCUSATION, Face.RUMOR)


class Direction(IntEnum):
    """Where a BRIBE moves a cardinal mat (B5)."""

    TOP = 0
    BOTTOM = 1


class Phase(IntEnum):
    """Project decision (lead 1): the three decision points of a round, then the end."""

    BID = 0  # ``active`` makes a bid
    RESPOND = 1  # the seat after ``active`` calls or allows (B4)
    PERFORM = 2  # ``active`` chooses the parameters of the bid action
    OVER = 3


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Bid:
    """B3: at least ``count`` dice show ``action`` (or FATE)."""

    count: int
    action: Face


@dataclass(frozen=True, slots=True)
class Call:
    """B4: call the bluff; every die is revealed."""


@dataclass(frozen=True, slots=True)
class Allow:
    """B4: let the bidder perform; the allowing seat bids next."""


@dataclass(frozen=True, slots=True)
class Bribe:
    """B5 BRIBE: move ``cardinal`` to the very top or the very bottom of the ladder."""

    cardinal: Cardinal
    direction: Direction


def _canonical_pair(a, b):
    if isinstance(a, int) and isinstance(b, int) and a > b:
        return b, a
    return a, b


@dataclass(frozen=True, slots=True)
class Poison:
    """B5 POISON. ``first == second``: up to 2 from that cardinal; otherwise 1 from each.

    The pair is unordered: the constructor stores it smallest cardinal first.
    """

    first: Cardinal
    second: Cardinal

    def __post_init__(self):
        first, second = _canonical_pair(self.first, self.second)
        object.__setattr__(self, "first", first)
        object.__setattr__(self, "second", second)


@dataclass(frozen=True, slots=True)
class JudgementPair:
    """B5 JUDGEMENT: 2 influence from ``source`` to ``target``."""

    source: Cardinal
    target: Cardinal


@dataclass(frozen=True, slots=True)
class JudgementSplit:
    """B5 JUDGEMENT: 1 influence from each of ``sources`` and 1 to each of ``targets``.

    Project decision: the two moves form one outcome whatever the pairing (A->C, B->D has
    the same effect as A->D, B->C), so an action is two unordered pairs, stored sorted.
    """

    sources: tuple[Cardinal, Cardinal]
    targets: tuple[Cardinal, Cardinal]

    def __post_init__(self):
        for name in ("sources", "targets"):
            value = getattr(self, name)
            if isinstance(value, tuple) and len(value) == 2:
                object.__setattr__(self, name, _canonical_pair(*value))


@dataclass(frozen=True, slots=True)
class Accuse:
    """B5 ACCUSATION: put the Antipope marker on ``cardinal``."""

    cardinal: Cardinal


@dataclass(frozen=True, slots=True)
class Rumor:
    """B5 RUMOR: place the rumor card naming ``card`` in front of seat ``target``.

    The card comes from wherever it lies (centre or another player). ``returned`` is only
    used in Shadow Puppets (B10) when the target already holds two rumors: the one that goes
    back to the centre. In the normal game the old rumor returns automatically.
    """

    card: Cardinal
    target: int
    returned: Cardinal | None = None


@dataclass(frozen=True, slots=True)
class PerformNothing:
    """Project decision (lead 4): the only choice when an action has no legal target."""


PERFORM_TYPES = (Bribe, Poison, JudgementPair, JudgementSplit, Accuse, Rumor, PerformNothing)
ACTION_TYPES = (Bid, Call, Allow, *PERFORM_TYPES)

BorgiaAction = Bid | Call | Allow | Bribe | Poison | JudgementPair | JudgementSplit | Accuse | Rumor | PerformNothing


# --------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class BorgiaState:
    """The whole game position. Seats are 0-based; turn order (clockwise) is seat + 1."""

    player_count: int
    shadow_puppets: bool
    flame_of_thy_tongue: bool
    poisoned_dice: bool
    rng: int  # the RNG state (services.engine.rng)
    ladder: tuple[Cardinal, ...]  # top first; always the six cardinals during play
    influence: tuple[int, ...]  # indexed by Cardinal
    antipope: Cardinal | None
    puppets: tuple[tuple[Cardinal, ...], ...]  # per seat, sorted (secret)
    dice: tuple[tuple[Face, ...], ...]  # per seat, sorted faces (secret until a call)
    rumors: tuple[tuple[Cardinal, ...], ...]  # rumor cards in front of each seat, sorted
    phase: Phase
    round_number: int
    round_starter: int
    active: int  # the bidder (BID, RESPOND, PERFORM)
    bid: Bid | None  # the highest bid of this round
    called: bool  # the dice were revealed by a call this round (PERFORM after a true bid; OVER)
    # Per seat, the actions it performed, in order: public (every perform is announced), kept
    # so that a seat's view carries what its player remembers of the others' play.
    performed: tuple[tuple[BorgiaAction, ...], ...]

    @property
    def responder(self) -> int:
        """B4: only the next player in turn order calls or allows.

        "Still holding dice" needs no check: during play every player holds dice (B8 ends
        the game as soon as one has none).
        """
        return (self.active + 1) % self.player_count

    @property
    def total_dice(self) -> int:
        return sum(map(len, self.dice))


# --------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class InfluenceChange:
    """``cardinal`` changed by ``delta`` to ``total``."""

    cardinal: Cardinal
    delta: int
    total: int


@dataclass(frozen=True, slots=True)
class SeatRoll:
    seat: int
    faces: tuple[Face, ...]


@dataclass(frozen=True, slots=True)
class RollOffRound:
    rolls: tuple[SeatRoll, ...]


@dataclass(frozen=True, slots=True)
class FinalResult:
    """B9/B10 scoring, step by step."""

    puppets: tuple[tuple[Cardinal, ...], ...]  # per seat, all revealed
    dice_counts: tuple[int, ...]
    bonuses: tuple[InfluenceChange, ...]  # remaining dice (negative with Poisoned Dice)
    penalties: tuple[InfluenceChange, ...]  # Flame of Thy Tongue
    eliminated: tuple[int, ...]  # seats
    removed: tuple[Cardinal, ...]  # cardinals that left the ladder
    influence: tuple[int, ...]  # final, indexed by Cardinal
    ladder: tuple[Cardinal, ...]  # final ladder (without removed cardinals)
    pope: Cardinal | None
    winners: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameStarted:
    player_count: int
    shadow_puppets: bool
    flame_of_thy_tongue: bool
    poisoned_dice: bool
    ladder: tuple[Cardinal, ...]
    dice_counts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PuppetsDealt:
    """Secret: a seat sees only its own entry; others are None."""

    puppets: tuple[tuple[Cardinal, ...] | None, ...]


@dataclass(frozen=True, slots=True)
class RollOff:
    """B11, public."""

    rounds: tuple[RollOffRound, ...]
    starter: int


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """Secret dice: a seat sees only its own faces; counts are public."""

    round_number: int
    starter: int
    dice_counts: tuple[int, ...]
    dice: tuple[tuple[Face, ...] | None, ...]


@dataclass(frozen=True, slots=True)
class BidMade:
    seat: int
    count: int
    action: Face


@dataclass(frozen=True, slots=True)
class Allowed:
    seat: int


@dataclass(frozen=True, slots=True)
class Called:
    seat: int


@dataclass(frozen=True, slots=True)
class DiceRevealed:
    """B4, public: every die, the bid and how many dice matched (action + FATE)."""

    dice: tuple[tuple[Face, ...], ...]
    bidder: int
    caller: int
    bid: Bid
    matching: int
    truthful: bool


@dataclass(frozen=True, slots=True)
class ActionPerformed:
    """The bid action took effect; the resulting public position is included."""

    seat: int
    action: BorgiaAction
    influence_changes: tuple[InfluenceChange, ...]
    ladder: tuple[Cardinal, ...]
    antipope: Cardinal | None
    rumors: tuple[tuple[Cardinal, ...], ...]


@dataclass(frozen=True, slots=True)
class DieLost:
    seat: int
    remaining: int


@dataclass(frozen=True, slots=True)
class Rallied:
    """B7: gains per cardinal (cardinals that gained nothing are left out)."""

    gains: tuple[InfluenceChange, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    result: FinalResult


BorgiaEvent = (
    GameStarted
    | PuppetsDealt
    | RollOff
    | RoundStarted
    | BidMade
    | Allowed
    | Called
    | DiceRevealed
    | ActionPerformed
    | DieLost
    | Rallied
    | GameEnded
)


# --------------------------------------------------------------------------- views


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    dice_count: int
    dice: tuple[Face, ...] | None  # None: hidden from this viewer
    puppets: tuple[Cardinal, ...] | None  # None: hidden from this viewer
    rumors: tuple[Cardinal, ...]
    performed: tuple[BorgiaAction, ...]  # the actions this seat performed, in order (public)


@dataclass(frozen=True, slots=True)
class BorgiaView:
    viewer: int | None
    player_count: int
    shadow_puppets: bool
    flame_of_thy_tongue: bool
    poisoned_dice: bool
    phase: Phase
    round_number: int
    round_starter: int
    active: int
    responder: int | None  # set while a call or allow is awaited
    bid: Bid | None
    called: bool
    ladder: tuple[Cardinal, ...]
    influence: tuple[int, ...]
    antipope: Cardinal | None
    centre_rumors: tuple[Cardinal, ...]
    seats: tuple[SeatView, ...]
    result: FinalResult | None
    # Who made ``bid`` (None with no bid, and once the game is over): after an allow the
    # allower bids next (B4), so in BID it is not ``active``.
    bidder: int | None = None


fast_inits(__name__)  # every value above is built at each decision

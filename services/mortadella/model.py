"""Il Trono di Mortadella: the engine's plain values (enums, state, actions, events, views).

Everything here is immutable: frozen dataclasses holding tuples and enums. Two states are
equal exactly when they are the same game position (the codec round trip relies on it).
Enum numbers equal the numbers of the matching proto enums in
``proto/tavola/mortadella/v1/mortadella.proto``; 0 (UNSPECIFIED) is ``None`` here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path

from services.engine.values import fast_inits


class Symbol(IntEnum):
    """Die faces (M1). The first four are also token kinds (M2)."""

    PEOPLE = 1
    TOWER = 2
    BOOK = 3
    MORTADELLA = 4
    WINE = 5
    RAT = 6


TOKEN_SYMBOLS = (Symbol.PEOPLE, Symbol.TOWER, Symbol.BOOK, Symbol.MORTADELLA)
DIE_FACES = tuple(Symbol)


class Role(IntEnum):
    PRINCE = 1
    RECTOR = 2
    LORD = 3
    CAPTAIN = 4
    CARDINAL = 5
    MASTER = 6
    BRIGAND = 7


class Phase(IntEnum):
    """Which decision the game waits for."""

    SETUP_TOKEN = 1  # 7 players: everyone picks a starting token (M20)
    PRE_ROLL = 2  # active: roll 5 / keep the 2 passed dice and roll 3 / 2-player guess (M3, M19)
    LOMBARD = 3  # Lombard token holder: re-roll the dice just rolled or not (M10)
    CHOOSE_DICE = 4  # active: which 3 dice (or which 1 of the 3 rolled) to use (M3)
    RESOLVE = 5  # active: which die or pair of dice to resolve next, and how (M4, M5)
    TARGET = 6  # active: target of Drunkenness / Inebriation (M6)
    REVOLUTION_TARGET = 7  # active: target of Revolution and Tower or Book (M6)
    CANCEL = 8  # the target: pay Mortadella to cancel or not (M6)
    PLAGUE = 9  # every hit player holding People: discard People or a Tower instead (M7)
    STEAL = 10  # active: which opponent to steal from (M13, M20)
    MASTER_GUESS = 11  # the Master: name a player and a role (M16)
    OVER = 12


class Effect(IntEnum):
    """One die effect or double effect (dice table, M4)."""

    ACQUIRE_PEOPLE = 1
    ACQUIRE_TWO_PEOPLE = 2
    REVOLUTION = 3
    ACQUIRE_TOWER = 4
    ACQUIRE_BOOK = 5
    ACQUIRE_MORTADELLA = 6
    DRUNKENNESS = 7
    INEBRIATION = 8
    PLAGUE = 9
    BLACK_DEATH = 10


# What one die may do by itself: its own effect, and for BOOK the Joker uses (M5).
SINGLE_EFFECTS: dict[Symbol, tuple[Effect, ...]] = {
    Symbol.PEOPLE: (Effect.ACQUIRE_PEOPLE,),
    Symbol.TOWER: (Effect.ACQUIRE_TOWER,),
    Symbol.BOOK: (
        Effect.ACQUIRE_BOOK,
        Effect.ACQUIRE_PEOPLE,
        Effect.ACQUIRE_TOWER,
        Effect.ACQUIRE_MORTADELLA,
        Effect.DRUNKENNESS,
        Effect.PLAGUE,
    ),
    Symbol.MORTADELLA: (Effect.ACQUIRE_MORTADELLA,),
    Symbol.WINE: (Effect.DRUNKENNESS,),
    Symbol.RAT: (Effect.PLAGUE,),
}
# Double effects (M4): the symbol both dice must show (a BOOK may stand in as Joker, M5).
DOUBLE_EFFECTS: dict[Symbol, tuple[Effect, ...]] = {
    Symbol.PEOPLE: (Effect.ACQUIRE_TWO_PEOPLE, Effect.REVOLUTION),
    Symbol.WINE: (Effect.INEBRIATION,),
    Symbol.RAT: (Effect.BLACK_DEATH,),
}


class Special(IntEnum):
    """The special events of a roll (M11-M13)."""

    PORCHETTA = 1
    EARTHQUAKE = 2
    CARNIVAL = 3


class EndReason(IntEnum):
    VICTORY_ROW = 1  # M14/M15
    LAST_STANDING = 2  # M15
    MASTER_GUESS = 3  # M16
    TWO_PLAYER_GUESS = 4  # M19
    TURN_LIMIT = 5  # table option max_turns (M21): nobody wins
    ALL_ELIMINATED = 6  # Project decision: Porchetta eliminated everyone at once, nobody wins


class GuessContext(IntEnum):
    """When the Master's row was met, which decides what a wrong guess leads to (M16)."""

    START_OF_TURN = 1
    AFTER_EFFECT = 2
    AFTER_EVENT = 3  # after Porchetta / Earthquake (M15)


class TokenCause(IntEnum):
    SETUP = 1
    ACQUIRE = 2
    STEAL = 3
    REVOLUTION = 4
    DRUNKENNESS = 5
    CANCEL_PAYMENT = 6
    PLAGUE = 7
    BLACK_DEATH = 8
    PORCHETTA = 9
    EARTHQUAKE = 10
    GUESS_PENALTY = 11


class EliminationCause(IntEnum):
    DEADLY_SIN = 1  # M8
    WRONG_GUESS = 2  # M16


# --------------------------------------------------------------------------- game data


@dataclass(frozen=True)
class RoleInfo:
    role: Role
    name: str
    # Alternative rows; each row is ((token index, minimum, maximum or None), ...).
    rows: tuple[tuple[tuple[int, int, int | None], ...], ...]
    requires_guess: bool = False
    face_up: bool = False
    steals: bool = False
    sin_exempt: bool = False
    guessable: bool = True


def _load_data() -> tuple[
    dict[Role, RoleInfo], dict[int, tuple[Role, ...]], dict[int, tuple[int, ...]], dict[int, int]
]:
    raw = json.loads(Path(__file__).with_name("roles.json").read_text(encoding="utf-8"))
    infos: dict[Role, RoleInfo] = {}
    for key, spec in raw["roles"].items():
        role = Role[key]
        rows = []
        for row in spec["rows"]:
            checks: list[tuple[int, int, int | None]] = []
            for symbol_name, bound in row.items():
                index = Symbol[symbol_name] - 1
                if "exactly" in bound:
                    checks.append((index, int(bound["exactly"]), int(bound["exactly"])))
                else:
                    checks.append((index, int(bound["min"]), None))
            rows.append(tuple(checks))
        infos[role] = RoleInfo(
            role=role,
            name=spec["name"],
            rows=tuple(rows),
            requires_guess=bool(spec.get("requires_guess", False)),
            face_up=bool(spec.get("face_up", False)),
            steals=bool(spec.get("steals", False)),
            sin_exempt=bool(spec.get("sin_exempt", False)),
            guessable=bool(spec.get("guessable", True)),
        )
    pools = {int(n): tuple(Role[name] for name in names) for n, names in raw["pools"].items()}
    starting = {
        int(n): tuple(int(counts.get(symbol.name, 0)) for symbol in TOKEN_SYMBOLS)
        for n, counts in raw["starting_tokens"].items()
    }
    choices = {int(n): int(count) for n, count in raw["starting_choice"].items()}
    return infos, pools, starting, choices


ROLE_INFO, ROLE_POOLS, STARTING_TOKENS, STARTING_CHOICES = _load_data()


def meets_row(role: Role, tokens: tuple[int, ...] | list[int]) -> bool:
    """Whether ``tokens`` meet one of ``role``'s victory rows (M14; the guess of M16 aside)."""
    for row in ROLE_INFO[role].rows:
        for index, low, high in row:
            count = tokens[index]
            if count < low or (high is not None and count > high):
                break
        else:
            return True
    return False


# --------------------------------------------------------------------------- state

Tokens = tuple[int, int, int, int]


@dataclass(frozen=True)
class WrongGuess:
    """A wrong guess, public knowledge (M16, M19): ``target``'s card number ``target_card``
    was not ``role``, nor was the guesser's own card number ``guesser_card`` (a guess never
    names the guesser's own role). A seat's cards are numbered from 0 in the order it held
    them: its removed cards first, then its current one. With three or more players only the
    Master guesses, so the guesser was the Master (M16)."""

    guesser: int
    guesser_card: int
    target: int
    target_card: int
    role: Role


@dataclass(frozen=True)
class State:
    player_count: int
    max_turns: int
    additional_rules: bool
    rng: int
    roles: tuple[Role, ...]  # current role card of each seat (secret, M18)
    removed_roles: tuple[tuple[Role, ...], ...]  # 2 players: role cards that left the game (M19)
    undealt: tuple[Role, ...]  # roles of the pool never dealt (hidden, M18)
    tokens: tuple[Tokens, ...]  # PEOPLE, TOWER, BOOK, MORTADELLA per seat
    in_game: tuple[bool, ...]
    skip_turn: tuple[bool, ...]  # holds the Skip Turn token (M9)
    start_player: int
    active: int
    turn: int  # turns begun so far, skipped ones included
    lombard_holder: int | None  # None when the additional rules are off (M10)
    lombard_used: bool  # the Lombard offer of this turn's roll is over
    passed: tuple[Symbol, ...]  # the 2 dice handed to the active player (or none)
    kept: bool  # the passed dice were kept: dice[:2] are them
    dice: tuple[Symbol, ...]  # the five dice as they lie (empty before the roll)
    carnival: bool  # M13 is in force this turn
    chosen: tuple[Symbol, ...]  # the 3 chosen dice, sorted
    unchosen: tuple[Symbol, ...]  # the 2 dice that will pass on, sorted
    remaining: tuple[Symbol, ...]  # chosen dice not resolved yet, sorted
    phase: Phase
    effect: Effect | None  # the effect being resolved
    target: int | None
    steal_symbol: Symbol | None
    steals_left: int
    waiting: tuple[int, ...]  # PLAGUE / SETUP_TOKEN: seats still to answer, in turn order
    guess_context: GuessContext | None
    winners: tuple[int, ...]
    end_reason: EndReason | None
    # Wrong guesses so far (public, M16/M19); emptied at the end, when every role is revealed.
    wrong_guesses: tuple[WrongGuess, ...]


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class ChooseStartToken:
    """7 players: the one starting token of the seat's choice (M20)."""

    symbol: Symbol


@dataclass(frozen=True)
class RollDice:
    """Roll all five dice, or keep the two passed dice and roll three (M3)."""

    keep_passed: bool


@dataclass(frozen=True)
class GuessRole:
    """Name another player's role: the 2-player guess (M19) or the Master's guess (M16)."""

    target: int
    role: Role


@dataclass(frozen=True)
class UseLombard:
    """The Lombard token holder re-rolls the dice just rolled, or lets them lie (M10)."""

    reroll: bool


@dataclass(frozen=True)
class ChooseDice:
    """The three dice to use (with kept dice: those two plus one rolled die), as symbols."""

    symbols: tuple[Symbol, ...]


@dataclass(frozen=True)
class ResolveEffect:
    """Resolve one chosen die, or two together as a double effect (M4); a BOOK die used
    for anything but ACQUIRE_BOOK is a Joker (M5)."""

    dice: tuple[Symbol, ...]
    effect: Effect


@dataclass(frozen=True)
class ChooseTarget:
    """The player hit by Drunkenness or Inebriation (M6)."""

    target: int


@dataclass(frozen=True)
class ChooseRevolution:
    """Revolution: the target and whether a TOWER or a BOOK is discarded (M6)."""

    target: int
    symbol: Symbol


@dataclass(frozen=True)
class PayCancel:
    """The target of Drunkenness (1) / Inebriation (2) pays Mortadella to cancel it, or not (M6)."""

    pay: bool


@dataclass(frozen=True)
class PlagueDiscard:
    """Plague / Black Death: discard 1 PEOPLE, or 1 TOWER instead (M7)."""

    symbol: Symbol


@dataclass(frozen=True)
class StealFrom:
    """Carnival or Brigand: the opponent one acquired token is stolen from (M13, M20)."""

    victim: int


Action = (
    ChooseStartToken
    | RollDice
    | GuessRole
    | UseLombard
    | ChooseDice
    | ResolveEffect
    | ChooseTarget
    | ChooseRevolution
    | PayCancel
    | PlagueDiscard
    | StealFrom
)
ACTION_TYPES = (
    ChooseStartToken,
    RollDice,
    GuessRole,
    UseLombard,
    ChooseDice,
    ResolveEffect,
    ChooseTarget,
    ChooseRevolution,
    PayCancel,
    PlagueDiscard,
    StealFrom,
)


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class RoleDealt:
    """A role card dealt to ``seat``. ``role`` is None in copies for other viewers (unless face up)."""

    seat: int
    role: Role | None


@dataclass(frozen=True)
class StartRoll:
    """One round of the start-player roll (M17)."""

    seats: tuple[int, ...]
    rolls: tuple[tuple[Symbol, ...], ...]


@dataclass(frozen=True)
class StartPlayerChosen:
    seat: int
    lombard_holder: int | None


@dataclass(frozen=True)
class TurnStarted:
    seat: int
    turn: int
    passed: tuple[Symbol, ...]


@dataclass(frozen=True)
class TurnSkipped:
    """M9: the whole turn is skipped and the Skip Turn token returned."""

    seat: int


@dataclass(frozen=True)
class DiceRolled:
    seat: int  # whose turn it is
    dice: tuple[Symbol, ...]
    kept: bool


@dataclass(frozen=True)
class LombardDecided:
    holder: int
    reroll: bool
    dice: tuple[Symbol, ...]  # the dice after the decision
    new_holder: int | None


@dataclass(frozen=True)
class SpecialEventOccurred:
    kind: Special
    symbol: Symbol | None  # Porchetta's symbol


@dataclass(frozen=True)
class DiceChosen:
    seat: int
    chosen: tuple[Symbol, ...]
    passed_on: tuple[Symbol, ...]


@dataclass(frozen=True)
class EffectChosen:
    seat: int
    dice: tuple[Symbol, ...]
    effect: Effect


@dataclass(frozen=True)
class TargetChosen:
    seat: int
    effect: Effect
    target: int
    symbol: Symbol | None  # Revolution only


@dataclass(frozen=True)
class CancelDecided:
    seat: int
    effect: Effect
    paid: bool


@dataclass(frozen=True)
class TokensChanged:
    seat: int
    symbol: Symbol
    delta: int
    cause: TokenCause
    other: int | None  # STEAL: the other player of the theft


@dataclass(frozen=True)
class SkipTurnGiven:
    seat: int


@dataclass(frozen=True)
class NoEffect:
    """An effect found nothing to act on (no token to take, nothing to steal...)."""

    seat: int
    effect: Effect


@dataclass(frozen=True)
class GuessMade:
    """A guess and whether it was right; a wrong guess never shows the true role."""

    seat: int
    target: int
    role: Role
    correct: bool


@dataclass(frozen=True)
class RoleReplaced:
    """2 players, wrong guess: the old card leaves face down, a new one is drawn (M19).
    Other viewers get a copy with both roles None."""

    seat: int
    old_role: Role | None
    new_role: Role | None


@dataclass(frozen=True)
class PlayerEliminated:
    seat: int
    cause: EliminationCause
    returned: Tokens
    lombard_to: int | None  # where the Lombard token went, if the seat held it


@dataclass(frozen=True)
class GameEnded:
    """Every role is revealed at the end: ``roles`` per seat and each seat's removed cards."""

    winners: tuple[int, ...]
    reason: EndReason
    roles: tuple[Role, ...]
    removed_roles: tuple[tuple[Role, ...], ...]


Event = (
    RoleDealt
    | StartRoll
    | StartPlayerChosen
    | TurnStarted
    | TurnSkipped
    | DiceRolled
    | LombardDecided
    | SpecialEventOccurred
    | DiceChosen
    | EffectChosen
    | TargetChosen
    | CancelDecided
    | TokensChanged
    | SkipTurnGiven
    | NoEffect
    | GuessMade
    | RoleReplaced
    | PlayerEliminated
    | GameEnded
)


# --------------------------------------------------------------------------- views


@dataclass(frozen=True)
class SeatView:
    seat: int
    role: Role | None  # own role, a face-up role, or every role once the game is over
    tokens: Tokens
    in_game: bool
    skip_turn: bool
    removed_role_count: int
    removed_roles: tuple[Role, ...]  # own removed cards (2 players), everyone's at the end


@dataclass(frozen=True)
class View:
    viewer: int | None
    player_count: int
    max_turns: int
    additional_rules: bool
    seats: tuple[SeatView, ...]
    undealt_count: int
    start_player: int
    active: int
    turn: int
    lombard_holder: int | None
    lombard_used: bool
    passed: tuple[Symbol, ...]
    kept: bool
    dice: tuple[Symbol, ...]
    carnival: bool
    chosen: tuple[Symbol, ...]
    unchosen: tuple[Symbol, ...]
    remaining: tuple[Symbol, ...]
    phase: Phase
    effect: Effect | None
    target: int | None
    steal_symbol: Symbol | None
    steals_left: int
    waiting: tuple[int, ...]
    guess_context: GuessContext | None
    deciders: tuple[int, ...]
    winners: tuple[int, ...]
    end_reason: EndReason | None
    wrong_guesses: tuple[WrongGuess, ...]  # public (M16, M19); empty once the game is over
    rows_met: tuple[int, ...]  # at a victory-row end, the seats whose row is met, the winner first (M15)


fast_inits(__name__)  # every value above is built at each decision

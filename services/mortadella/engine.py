"""Il Trono di Mortadella: the pure rules engine.

Rulebook: ``shared/rules/mortadella.txt``; rulings M1-M21 in ``shared/rules/RULINGS.md``.
Imports only the standard library and ``services.engine``; all randomness comes from the
RNG state kept in ``State.rng`` (``services.engine.rng``).

Shape of a turn (M3): [Skip Turn check (M9)] -> victory check (M15) -> PRE_ROLL (roll 5, or
keep the 2 passed dice and roll 3; 2 players: or guess, M19) -> LOMBARD offer to the token
holder (M10) -> the roll's special event (M11-M13) -> CHOOSE_DICE -> RESOLVE, one die or
one pair at a time, each effect with its own follow-up decisions (TARGET,
REVOLUTION_TARGET, CANCEL, PLAGUE, STEAL) and a victory check after it (M15) -> the two
unchosen dice pass to the next seat still in play.

Project decisions that apply everywhere:
- Seats are numbered clockwise in turn order: a seat's left is the next seat, its right
  the previous one (dice pass left, the Lombard token passes right, M3/M10).
- A decision that offers exactly one legal action is taken at once by the engine (e.g.
  Plague for a player without Towers, a theft with one possible victim, the roll of five
  dice when no dice were passed and no guess is possible). ``deciders()`` therefore only
  ever lists seats with a real choice.
- A player eliminated during his own turn (M8, M16) ends that turn at once; his dice not
  yet resolved are lost.
- The table option ``max_turns`` (default 500, M21) ends a game that runs too long: when
  that many turns have begun (skipped turns included) and the last one ends, nobody wins.
- The table option ``additional_rules`` (default true) turns the rulebook's Additional
  Rules on: Lombard token, deadly sins, Porchetta, Earthquake, Carnival (M8, M10-M13).

Internally ``apply`` copies the frozen ``State`` into a ``_Work`` (the same fields, which
may be reassigned), runs the rules on it and hands its fields to a new ``State``: the input
state is never touched. ``apply`` checks the action it is given directly (``_is_legal``)
rather than listing every legal action; playouts depend on this path being cheap.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from functools import cache
from itertools import permutations
from typing import cast

from services.engine.api import GameInfo, OptionSpec, Outcome, parse_options
from services.engine.errors import IllegalAction, MalformedAction, NotYourDecision
from services.engine.rng import Rng
from services.mortadella.model import (
    ACTION_TYPES,
    DIE_FACES,
    DOUBLE_EFFECTS,
    ROLE_INFO,
    ROLE_POOLS,
    SINGLE_EFFECTS,
    STARTING_CHOICES,
    STARTING_TOKENS,
    TOKEN_SYMBOLS,
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
    GuessContext,
    GuessMade,
    GuessRole,
    LombardDecided,
    NoEffect,
    PayCancel,
    Phase,
    PlagueDiscard,
    PlayerEliminated,
    ResolveEffect,
    Role,
    RoleDealt,
    RoleReplaced,
    RollDice,
    SeatView,
    SkipTurnGiven,
    Special,
    SpecialEventOccurred,
    StartPlayerChosen,
    StartRoll,
    State,
    StealFrom,
    Symbol,
    TargetChosen,
    TokenCause,
    Tokens,
    TokensChanged,
    TurnSkipped,
    TurnStarted,
    UseLombard,
    View,
    WrongGuess,
    meets_row,
)
from services.mortadella.words import action_label

GAME_ID = "mortadella"
DEADLY_SIN = 8  # M8: holding this many tokens of one symbol eliminates (not the Brigand)
DEFAULT_MAX_TURNS = 500

INFO = GameInfo(
    game_id=GAME_ID,
    display_name="Il Trono di Mortadella",
    min_players=2,
    max_players=7,
    options=(
        OptionSpec(
            name="max_turns",
            description=(
                "Turn limit: when this many turns (skipped ones included) have been played "
                "and nobody has won, the game ends with no winner."
            ),
            kind="int",
            default=str(DEFAULT_MAX_TURNS),
            minimum=1,
            maximum=100_000,
        ),
        OptionSpec(
            name="additional_rules",
            description=(
                "The rulebook's Additional Rules: Lombard Company token, 7 deadly sins, "
                "Porchetta, Earthquake and Carnival."
            ),
            kind="bool",
            default="true",
        ),
    ),
    summary=(
        "Secret roles in a fantastic Bologna: roll five dice, use three, pass two on; "
        "collect People, Towers, Books and Mortadella to meet your role's victory row."
    ),
)

_P, _T, _B, _M = 0, 1, 2, 3  # token indices
_PEOPLE, _TOWER, _BOOK, _MORT, _WINE, _RAT = DIE_FACES

# Effect -> (token symbol acquired, how many), for the acquisitions.
_ACQUIRE = {
    Effect.ACQUIRE_PEOPLE: (_PEOPLE, 1),
    Effect.ACQUIRE_TWO_PEOPLE: (_PEOPLE, 2),
    Effect.ACQUIRE_TOWER: (_TOWER, 1),
    Effect.ACQUIRE_BOOK: (_BOOK, 1),
    Effect.ACQUIRE_MORTADELLA: (_MORT, 1),
}
_SINGLE, _DOUBLE = SINGLE_EFFECTS, DOUBLE_EFFECTS  # the dice table (M4, M5), in model.py
_CANCEL_COST = {Effect.DRUNKENNESS: 1, Effect.INEBRIATION: 2}  # M6


# --------------------------------------------------------------------------- helpers


def _multiset_minus(items: Sequence[Symbol], remove: Sequence[Symbol]) -> tuple[Symbol, ...] | None:
    """``items`` without ``remove`` (as multisets), sorted; None if ``remove`` is not inside."""
    left = list(items)
    for symbol in remove:
        try:
            left.remove(symbol)
        except ValueError:
            return None
    return tuple(sorted(left))


def _order_from(in_game: Sequence[bool], start: int) -> list[int]:
    """Seats still in play in turn order (clockwise = increasing seat), starting at ``start``."""
    n = len(in_game)
    return [(start + k) % n for k in range(n) if in_game[(start + k) % n]]


def _rows_met(state: State) -> tuple[int, ...]:
    """M15: the seats whose victory row is met, in turn order from the active player, whose
    first wins a tie. Project decision (M16): the Master's row, which needs his guess, is not
    among them."""
    return tuple(
        seat
        for seat in _order_from(state.in_game, state.active)
        if not ROLE_INFO[state.roles[seat]].requires_guess and meets_row(state.roles[seat], state.tokens[seat])
    )


def _next_in_game(in_game: Sequence[bool], seat: int) -> int | None:
    """The next seat on ``seat``'s left still in play (M8), ``seat`` itself excluded."""
    n = len(in_game)
    for k in range(1, n):
        s = (seat + k) % n
        if in_game[s]:
            return s
    return None


def _right_in_game(in_game: Sequence[bool], seat: int) -> int | None:
    """The nearest seat on ``seat``'s right still in play, ``seat`` itself excluded."""
    n = len(in_game)
    for k in range(1, n):
        s = (seat - k) % n
        if in_game[s]:
            return s
    return None


def role_name(role: Role) -> str:
    return ROLE_INFO[role].name


def _replace(items: tuple, index: int, value: object) -> tuple:
    """``items`` with ``items[index]`` replaced by ``value``."""
    return (*items[:index], value, *items[index + 1 :])


class _Work(State):
    """The state one ``apply`` is changing: a State whose fields may be reassigned.

    It has no fields of its own: ``thaw`` copies the state's field dict and ``freeze`` hands
    that dict to a new State. Fields stay tuples and are replaced, never mutated in place,
    so neither step converts anything. ``ev`` collects the events of the ``apply``.
    """

    __slots__ = ("ev",)
    __setattr__ = object.__setattr__
    __delattr__ = object.__delattr__

    ev: list[Event]
    # The fields an apply reassigns, declared writable here for the type checker (State's are
    # frozen); annotations alone, so nothing changes at run time.
    rng: int
    roles: tuple[Role, ...]
    removed_roles: tuple[tuple[Role, ...], ...]
    undealt: tuple[Role, ...]
    tokens: tuple[Tokens, ...]
    in_game: tuple[bool, ...]
    skip_turn: tuple[bool, ...]
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
    winners: tuple[int, ...]
    end_reason: EndReason | None
    wrong_guesses: tuple[WrongGuess, ...]

    @classmethod
    def thaw(cls, s: State) -> _Work:
        w = object.__new__(cls)
        w.__dict__ = s.__dict__.copy()
        w.ev = []
        return w

    def freeze(self) -> State:
        state = object.__new__(State)
        object.__setattr__(state, "__dict__", self.__dict__)
        self.__dict__ = {}  # the state owns the fields now
        return state

    def add_tokens(self, seat: int, index: int, delta: int) -> None:
        row = self.tokens[seat]
        self.tokens = _replace(self.tokens, seat, _replace(row, index, row[index] + delta))

    def stop_waiting(self, seat: int) -> None:
        self.waiting = tuple(s for s in self.waiting if s != seat)


# --------------------------------------------------------------------------- who decides, what


def _deciders(s: State | _Work) -> tuple[int, ...]:
    phase = s.phase
    if phase is Phase.OVER:
        return ()
    if phase is Phase.LOMBARD:
        holder = s.lombard_holder
        assert holder is not None  # LOMBARD is the holder's offer
        return (holder,)
    if phase is Phase.CANCEL:
        target = s.target
        assert target is not None  # CANCEL is the target's decision
        return (target,)
    if phase is Phase.PLAGUE or phase is Phase.SETUP_TOKEN:
        return s.waiting
    return (s.active,)


def _guess_targets(s: State | _Work, seat: int) -> list[int]:
    """Players the Master may name (M16): others still in play, never the (face-up) Brigand.
    Project decision (M16): eliminated players cannot be named."""
    return [t for t in range(s.player_count) if t != seat and s.in_game[t] and not ROLE_INFO[s.roles[t]].face_up]


def _guess_roles(s: State | _Work, seat: int) -> list[Role]:
    """Roles a seat may name: the table's pool minus its own current role (certainly wrong,
    Project decision M16/M19) and minus roles that cannot be named (the Master, the Brigand)."""
    own = s.roles[seat]
    return [r for r in ROLE_POOLS[s.player_count] if r != own and ROLE_INFO[r].guessable]


def _steal_victims(s: State | _Work) -> list[int]:
    symbol = s.steal_symbol
    assert symbol is not None  # a steal names its symbol
    index = symbol - 1
    return [v for v in _order_from(s.in_game, s.active) if v != s.active and s.tokens[v][index] > 0]


@cache
def _resolve_options(remaining: tuple[Symbol, ...]) -> tuple[ResolveEffect, ...]:
    """Every (die or pair, effect) the active player may resolve next (M4, M5)."""
    options: list[ResolveEffect] = []
    distinct = sorted(set(remaining))
    for die in distinct:
        for effect in _SINGLE[die]:
            options.append(ResolveEffect((die,), effect))
    for i, a in enumerate(distinct):
        for b in distinct[i:]:
            if a == b and remaining.count(a) < 2:
                continue
            for symbol, effects in _DOUBLE.items():
                if a in (symbol, _BOOK) and b in (symbol, _BOOK):
                    for effect in effects:
                        options.append(ResolveEffect((a, b), effect))
    return tuple(options)


def _dice_choices(dice: tuple[Symbol, ...], kept: bool) -> tuple[ChooseDice, ...]:
    """Distinct choices of dice (M3): any 3 of 5, or the 2 kept plus 1 of the 3 rolled."""
    return _choices_of(_dice_key(dice, kept), kept)


def _dice_key(dice: tuple[Symbol, ...], kept: bool) -> tuple[Symbol, ...]:
    """The dice in an order that does not change the choices: sorted, or with kept dice the
    two kept sorted, then the rolled ones sorted. The caches below then hold a few hundred
    entries, not one per order the dice can lie in (thousands of long-lived objects that
    every full garbage collection of a search would walk)."""
    if kept:
        return (*sorted(dice[:2]), *sorted(dice[2:]))
    return tuple(sorted(dice))


@cache
def _choices_of(dice: tuple[Symbol, ...], kept: bool) -> tuple[ChooseDice, ...]:
    if kept:
        return tuple(ChooseDice(tuple(sorted((*dice[:2], r)))) for r in sorted(set(dice[2:])))
    dice = tuple(sorted(dice))
    seen: set[tuple[Symbol, ...]] = set()
    out = []
    for i in range(5):
        for j in range(i + 1, 5):
            for k in range(j + 1, 5):
                triple = (dice[i], dice[j], dice[k])
                if triple not in seen:
                    seen.add(triple)
                    out.append(ChooseDice(triple))
    return tuple(out)


_START_TOKENS = tuple(ChooseStartToken(symbol) for symbol in TOKEN_SYMBOLS)
_ROLL_FIVE = RollDice(False)
_ROLLS = (_ROLL_FIVE, RollDice(True))
_LOMBARD = (UseLombard(False), UseLombard(True))
_CANCEL = (PayCancel(False), PayCancel(True))
_DISCARD_PEOPLE = PlagueDiscard(_PEOPLE)
_DISCARDS = (_DISCARD_PEOPLE, PlagueDiscard(_TOWER))


@cache
def _targets(in_game: tuple[bool, ...], active: int) -> tuple[ChooseTarget, ...]:
    return tuple(ChooseTarget(t) for t in _order_from(in_game, active))


@cache
def _revolutions(in_game: tuple[bool, ...], active: int) -> tuple[ChooseRevolution, ...]:
    return tuple(ChooseRevolution(t, symbol) for t in _order_from(in_game, active) for symbol in (_TOWER, _BOOK))


def _dice_choice_set(dice: tuple[Symbol, ...], kept: bool) -> frozenset[ChooseDice]:
    return _choice_set_of(_dice_key(dice, kept), kept)


@cache
def _choice_set_of(dice: tuple[Symbol, ...], kept: bool) -> frozenset[ChooseDice]:
    return frozenset(_choices_of(dice, kept))


@cache
def _resolve_set(remaining: tuple[Symbol, ...]) -> frozenset[ResolveEffect]:
    return frozenset(_resolve_options(remaining))


def _legal(s: State, seat: int) -> list[Action]:
    phase = s.phase
    if phase is Phase.OVER or seat not in _deciders(s):
        return []
    if phase is Phase.SETUP_TOKEN:
        return list(_START_TOKENS)
    if phase is Phase.PRE_ROLL:
        actions: list[Action] = list(_ROLLS) if s.passed else [_ROLL_FIVE]
        # M19: two players, before rolling, while an undealt role remains.
        if s.player_count == 2 and s.undealt:
            opponent = 1 - seat
            actions.extend(GuessRole(opponent, role) for role in _guess_roles(s, seat))
        return actions
    if phase is Phase.LOMBARD:
        return list(_LOMBARD)
    if phase is Phase.CHOOSE_DICE:
        return list(_dice_choices(s.dice, s.kept))
    if phase is Phase.RESOLVE:
        return list(_resolve_options(s.remaining))
    if phase is Phase.TARGET:
        return list(_targets(s.in_game, s.active))
    if phase is Phase.REVOLUTION_TARGET:
        return list(_revolutions(s.in_game, s.active))
    if phase is Phase.CANCEL:
        return list(_CANCEL)
    if phase is Phase.PLAGUE:
        return list(_DISCARDS) if s.tokens[seat][_T] > 0 else [_DISCARD_PEOPLE]
    if phase is Phase.STEAL:
        return [StealFrom(v) for v in _steal_victims(s)]
    if phase is Phase.MASTER_GUESS:
        return [GuessRole(t, role) for t in _guess_targets(s, seat) for role in _guess_roles(s, seat)]
    return []


def _is_legal(s: State, seat: int, action: Action) -> bool:
    """``action in _legal(s, seat)`` for a well-formed, normalized action of a seat that must
    decide, without listing every legal action (``apply`` checks each action it is given)."""
    phase = s.phase
    if phase is Phase.PRE_ROLL:
        if isinstance(action, RollDice):
            return not action.keep_passed or bool(s.passed)
        return (
            isinstance(action, GuessRole)
            and s.player_count == 2
            and bool(s.undealt)
            and action.target == 1 - seat
            and action.role in _guess_roles(s, seat)
        )
    if phase is Phase.CHOOSE_DICE:
        return isinstance(action, ChooseDice) and action in _dice_choice_set(s.dice, s.kept)
    if phase is Phase.RESOLVE:
        return isinstance(action, ResolveEffect) and action in _resolve_set(s.remaining)
    if phase is Phase.LOMBARD:
        return isinstance(action, UseLombard)
    if phase is Phase.CANCEL:
        return isinstance(action, PayCancel)
    if phase is Phase.SETUP_TOKEN:
        return isinstance(action, ChooseStartToken)
    if phase is Phase.PLAGUE:
        return isinstance(action, PlagueDiscard) and (action.symbol is _PEOPLE or s.tokens[seat][_T] > 0)
    if phase is Phase.TARGET:
        return isinstance(action, ChooseTarget) and action.target < s.player_count and s.in_game[action.target]
    if phase is Phase.REVOLUTION_TARGET:
        return isinstance(action, ChooseRevolution) and action.target < s.player_count and s.in_game[action.target]
    if phase is Phase.STEAL:
        return isinstance(action, StealFrom) and action.victim in _steal_victims(s)
    if phase is Phase.MASTER_GUESS:
        return (
            isinstance(action, GuessRole)
            and action.target in _guess_targets(s, seat)
            and action.role in _guess_roles(s, seat)
        )
    return False


# --------------------------------------------------------------------------- the rules, on _Work


def _end_game(w: _Work, winners: tuple[int, ...], reason: EndReason) -> None:
    w.phase = Phase.OVER
    w.winners = winners
    w.end_reason = reason
    w.waiting = ()
    w.wrong_guesses = ()  # every role is revealed now (the GameEnded event)
    w.ev.append(GameEnded(winners, reason, tuple(w.roles), tuple(w.removed_roles)))


def _check_last_standing(w: _Work) -> bool:
    """M15: the last player left in the game wins."""
    alive = [s for s in range(w.player_count) if w.in_game[s]]
    if len(alive) == 1:
        _end_game(w, (alive[0],), EndReason.LAST_STANDING)
        return True
    if not alive:
        # Project decision (M8/M11): a Porchetta that eliminates every player leaves no winner.
        _end_game(w, (), EndReason.ALL_ELIMINATED)
        return True
    return False


def _eliminate(w: _Work, seat: int, cause: EliminationCause) -> None:
    """M8: out of the game, tokens back to the reserve, role still secret."""
    returned = w.tokens[seat]
    w.tokens = _replace(w.tokens, seat, (0, 0, 0, 0))
    w.in_game = _replace(w.in_game, seat, False)
    w.skip_turn = _replace(w.skip_turn, seat, False)
    lombard_to = None
    if w.lombard_holder == seat:
        # Project decision (M10): an eliminated holder's token goes to the right-hand seat in play.
        w.lombard_holder = _right_in_game(w.in_game, seat)
        lombard_to = w.lombard_holder
    if seat in w.waiting:
        w.stop_waiting(seat)
    w.ev.append(PlayerEliminated(seat, cause, returned, lombard_to))


def _sinned(w: _Work, seat: int, index: int) -> bool:
    """M8: with the additional rules, 8 of one symbol eliminates (the Brigand excepted)."""
    return w.additional_rules and w.tokens[seat][index] >= DEADLY_SIN and not ROLE_INFO[w.roles[seat]].sin_exempt


def _gain(w: _Work, seat: int, symbol: Symbol, n: int, cause: TokenCause, other: int | None = None) -> None:
    index = symbol - 1
    w.add_tokens(seat, index, n)
    w.ev.append(TokensChanged(seat, symbol, n, cause, other))
    if _sinned(w, seat, index):
        _eliminate(w, seat, EliminationCause.DEADLY_SIN)


def _lose(w: _Work, seat: int, symbol: Symbol, n: int, cause: TokenCause, other: int | None = None) -> None:
    w.add_tokens(seat, symbol - 1, -n)
    w.ev.append(TokensChanged(seat, symbol, -n, cause, other))


def _check_active_victory(w: _Work, context: GuessContext) -> bool:
    """M15: the active player's row, at the start of the turn and after each effect.
    True when the game ended or the Master must now guess (M16)."""
    seat = w.active
    role = w.roles[seat]
    if not meets_row(role, w.tokens[seat]):
        return False
    if ROLE_INFO[role].requires_guess:
        if not _guess_targets(w, seat):
            return False  # Project decision (M16): nobody can be named, so no guess and no win
        w.phase = Phase.MASTER_GUESS
        w.guess_context = context
        return True
    _end_game(w, (seat,), EndReason.VICTORY_ROW)
    return True


def _check_everyone(w: _Work) -> bool:
    """M15 after Porchetta / Earthquake: anyone whose row is met wins, ties to the first in
    turn order from the active player. Project decision (M16): the Master's row counts only
    on his own turn, where he must guess first."""
    for seat in _order_from(w.in_game, w.active):
        role = w.roles[seat]
        if not meets_row(role, w.tokens[seat]):
            continue
        if ROLE_INFO[role].requires_guess:
            if seat == w.active and _guess_targets(w, seat):
                w.phase = Phase.MASTER_GUESS
                w.guess_context = GuessContext.AFTER_EVENT
                return True
            continue
        _end_game(w, (seat,), EndReason.VICTORY_ROW)
        return True
    return False


def _begin_turn(w: _Work, seat: int, passed: tuple[Symbol, ...]) -> None:
    while True:
        if w.turn >= w.max_turns:
            _end_game(w, (), EndReason.TURN_LIMIT)
            return
        w.turn += 1
        w.active = seat
        w.passed = passed
        w.kept = False
        w.dice = ()
        w.carnival = False
        w.chosen = ()
        w.unchosen = ()
        w.remaining = ()
        w.effect = None
        w.target = None
        w.steal_symbol = None
        w.steals_left = 0
        w.waiting = ()
        w.guess_context = None
        w.lombard_used = False
        w.ev.append(TurnStarted(seat, w.turn, passed))
        if w.skip_turn[seat]:
            # M9: the whole turn is skipped, the token returned, the passed dice go on.
            w.skip_turn = _replace(w.skip_turn, seat, False)
            w.ev.append(TurnSkipped(seat))
            nxt = _next_in_game(w.in_game, seat)
            assert nxt is not None  # two or more players are in play, or the game is over
            seat = nxt
            continue
        if _check_active_victory(w, GuessContext.START_OF_TURN):
            return
        w.phase = Phase.PRE_ROLL
        return


def _end_turn(w: _Work) -> None:
    """Phase 3: the two unchosen dice pass to the next seat still in play (M3, M8).
    Project decision (M3/M9): a turn that ends before any roll hands the received dice
    on unchanged, as a skipped turn does; a turn ended by an elimination after the roll
    but before the dice were chosen passes no dice (the next player rolls five)."""
    if w.chosen:
        passing = w.unchosen
    elif not w.dice:
        passing = w.passed
    else:
        passing = ()
    nxt = _next_in_game(w.in_game, w.active)
    assert nxt is not None  # two or more players are in play, or the game is over
    _begin_turn(w, nxt, passing)


def _roll(w: _Work, count: int) -> tuple[Symbol, ...]:
    rng = Rng(w.rng)
    dice = tuple(DIE_FACES[rng.below(6)] for _ in range(count))
    w.rng = rng.state
    return dice


def _after_roll(w: _Work) -> None:
    if w.additional_rules and w.lombard_holder is not None and not w.lombard_used:
        w.phase = Phase.LOMBARD  # M10
        return
    _special_event(w)


def _special_event(w: _Work) -> None:
    """M11-M13 on the five dice as they lie (Jokers never count, M5)."""
    w.phase = Phase.CHOOSE_DICE
    if not w.additional_rules:
        return
    dice = w.dice
    first = dice[0]
    kinds = set(dice)
    if len(kinds) == 1 and first in TOKEN_SYMBOLS:
        # M11 Porchetta: every player in play acquires 1 (the Brigand too, from the reserve:
        # Project decision M11/M20, it is no dice acquisition of his).
        w.ev.append(SpecialEventOccurred(Special.PORCHETTA, first))
        order = _order_from(w.in_game, w.active)
        index = first - 1
        for seat in order:
            w.add_tokens(seat, index, 1)
            w.ev.append(TokensChanged(seat, first, 1, TokenCause.PORCHETTA, None))
        for seat in order:
            if _sinned(w, seat, index):
                _eliminate(w, seat, EliminationCause.DEADLY_SIN)
        if _check_last_standing(w) or _check_everyone(w):
            return
        if not w.in_game[w.active]:
            _end_turn(w)
        return
    if kinds <= {_WINE, _RAT}:
        # M12 Earthquake: every player in play discards all Towers and Books.
        w.ev.append(SpecialEventOccurred(Special.EARTHQUAKE, None))
        for seat in _order_from(w.in_game, w.active):
            for symbol in (_TOWER, _BOOK):
                held = w.tokens[seat][symbol - 1]
                if held:
                    _lose(w, seat, symbol, held, TokenCause.EARTHQUAKE)
        _check_everyone(w)
        return
    if len(kinds) == 5:
        # M13 Carnival: this turn's acquisitions are stolen from opponents.
        w.carnival = True
        w.ev.append(SpecialEventOccurred(Special.CARNIVAL, None))


def _steal_mode(w: _Work) -> bool:
    return w.carnival or ROLE_INFO[w.roles[w.active]].steals  # M13, M20


def _start_effect(w: _Work, effect: Effect) -> None:
    w.effect = effect
    acquired = _ACQUIRE.get(effect)
    if acquired is not None:
        symbol, n = acquired
        if _steal_mode(w):
            # Project decision (M13/M20): each acquired token is stolen on its own, so the two
            # tokens of "2 People" may come from two different opponents.
            w.steal_symbol = symbol
            w.steals_left = n
            _next_steal(w)
            return
        _gain(w, w.active, symbol, n, TokenCause.ACQUIRE)
        _finish_effect(w)
        return
    if effect is Effect.REVOLUTION:
        w.phase = Phase.REVOLUTION_TARGET
        return
    if effect is Effect.DRUNKENNESS or effect is Effect.INEBRIATION:
        w.phase = Phase.TARGET
        return
    # Plague / Black Death (M7): every player in play, the active player included.
    order = _order_from(w.in_game, w.active)
    if effect is Effect.BLACK_DEATH:
        for seat in order:
            if w.tokens[seat][_M] > 0:
                _lose(w, seat, _MORT, 1, TokenCause.BLACK_DEATH)
    w.waiting = tuple(seat for seat in order if w.tokens[seat][_P] > 0)
    if w.waiting:
        w.phase = Phase.PLAGUE
    else:
        _finish_effect(w)


def _next_steal(w: _Work) -> None:
    if w.steals_left <= 0 or not w.in_game[w.active]:
        _finish_effect(w)
        return
    if not _steal_victims(w):
        # M13: nothing if no opponent holds one.
        assert w.effect is not None  # steals are an effect's
        w.ev.append(NoEffect(w.active, w.effect))
        _finish_effect(w)
        return
    w.phase = Phase.STEAL


def _finish_effect(w: _Work) -> None:
    w.effect = None
    w.target = None
    w.steal_symbol = None
    w.steals_left = 0
    w.waiting = ()
    if w.phase is Phase.OVER or _check_last_standing(w):
        return
    if not w.in_game[w.active]:
        _end_turn(w)  # the active player fell to the deadly sins (M8)
        return
    if _check_active_victory(w, GuessContext.AFTER_EFFECT):
        return
    if w.remaining:
        w.phase = Phase.RESOLVE
    else:
        _end_turn(w)


def _apply_hit(w: _Work, effect: Effect, target: int) -> None:
    """Drunkenness / Inebriation lands on ``target`` (not cancelled)."""
    if effect is Effect.DRUNKENNESS:
        _lose(w, target, _PEOPLE, 1, TokenCause.DRUNKENNESS)
    else:
        w.skip_turn = _replace(w.skip_turn, target, True)
        w.ev.append(SkipTurnGiven(target))


def _dispatch(w: _Work, seat: int, action: Action) -> None:
    """Apply one legal action (already checked) to ``w``."""
    phase = w.phase
    if phase is Phase.SETUP_TOKEN:
        assert isinstance(action, ChooseStartToken)
        w.stop_waiting(seat)
        _gain(w, seat, action.symbol, 1, TokenCause.SETUP)
        if not w.waiting:
            _begin_turn(w, w.start_player, ())
        return
    if phase is Phase.PRE_ROLL:
        if isinstance(action, GuessRole):
            _two_player_guess(w, seat, action)
            return
        assert isinstance(action, RollDice)
        if action.keep_passed:
            w.dice = (*w.passed, *_roll(w, 3))
            w.kept = True
        else:
            w.dice = _roll(w, 5)
            w.kept = False
        w.ev.append(DiceRolled(seat, w.dice, w.kept))
        _after_roll(w)
        return
    if phase is Phase.LOMBARD:
        assert isinstance(action, UseLombard)
        # Project decision (M10): one Lombard offer per turn; the re-roll is not itself a
        # roll that could be re-rolled again.
        w.lombard_used = True
        if action.reroll:
            w.dice = (*w.dice[:2], *_roll(w, 3)) if w.kept else _roll(w, 5)
            if seat == w.active:
                w.lombard_holder = _right_in_game(w.in_game, seat)
            else:
                w.lombard_holder = w.active
        w.ev.append(LombardDecided(seat, action.reroll, w.dice, w.lombard_holder))
        _special_event(w)
        return
    if phase is Phase.CHOOSE_DICE:
        assert isinstance(action, ChooseDice)
        w.chosen = action.symbols
        unchosen = _multiset_minus(w.dice, action.symbols)
        assert unchosen is not None  # a legal choice is among the dice
        w.unchosen = unchosen
        w.remaining = action.symbols
        w.ev.append(DiceChosen(seat, w.chosen, w.unchosen))
        w.phase = Phase.RESOLVE
        return
    if phase is Phase.RESOLVE:
        assert isinstance(action, ResolveEffect)
        remaining = _multiset_minus(w.remaining, action.dice)
        assert remaining is not None  # a legal effect uses chosen dice not resolved yet
        w.remaining = remaining
        w.ev.append(EffectChosen(seat, action.dice, action.effect))
        _start_effect(w, action.effect)
        return
    if phase is Phase.TARGET:
        assert isinstance(action, ChooseTarget)
        effect = w.effect
        assert effect is not None  # TARGET picks the target of the effect being resolved
        target = action.target
        w.target = target
        w.ev.append(TargetChosen(seat, effect, target, None))
        if effect is Effect.DRUNKENNESS and w.tokens[target][_P] == 0:
            # Project decision (M6): with no People to lose there is nothing to cancel, so the
            # target is not asked to pay.
            w.ev.append(NoEffect(seat, effect))
        elif effect is Effect.INEBRIATION and w.skip_turn[target]:
            # Project decision (M9): a player already holding the Skip Turn token skips one turn only.
            w.ev.append(NoEffect(seat, effect))
        elif w.tokens[target][_M] >= _CANCEL_COST[effect]:
            w.phase = Phase.CANCEL  # M6: the target's own decision
            return
        else:
            _apply_hit(w, effect, target)
        _finish_effect(w)
        return
    if phase is Phase.REVOLUTION_TARGET:
        assert isinstance(action, ChooseRevolution)
        w.ev.append(TargetChosen(seat, Effect.REVOLUTION, action.target, action.symbol))
        if w.tokens[action.target][action.symbol - 1] > 0:
            _lose(w, action.target, action.symbol, 1, TokenCause.REVOLUTION)
        else:
            w.ev.append(NoEffect(seat, Effect.REVOLUTION))  # M6: nothing if the target has none
        _finish_effect(w)
        return
    if phase is Phase.CANCEL:
        assert isinstance(action, PayCancel)
        effect = w.effect
        assert effect is not None  # CANCEL answers the effect being resolved
        w.ev.append(CancelDecided(seat, effect, action.pay))
        if action.pay:
            _lose(w, seat, _MORT, _CANCEL_COST[effect], TokenCause.CANCEL_PAYMENT)
        else:
            _apply_hit(w, effect, seat)
        _finish_effect(w)
        return
    if phase is Phase.PLAGUE:
        assert isinstance(action, PlagueDiscard)
        w.stop_waiting(seat)
        cause = TokenCause.BLACK_DEATH if w.effect is Effect.BLACK_DEATH else TokenCause.PLAGUE
        _lose(w, seat, action.symbol, 1, cause)
        if not w.waiting:
            _finish_effect(w)
        return
    if phase is Phase.STEAL:
        assert isinstance(action, StealFrom)
        symbol = w.steal_symbol
        assert symbol is not None  # a steal names its symbol
        _lose(w, action.victim, symbol, 1, TokenCause.STEAL, seat)
        w.steals_left -= 1
        _gain(w, seat, symbol, 1, TokenCause.STEAL, action.victim)
        _next_steal(w)
        return
    if phase is Phase.MASTER_GUESS:
        assert isinstance(action, GuessRole)
        _master_guess(w, seat, action)
        return
    raise AssertionError(f"no action in phase {phase}")  # pragma: no cover


def _two_player_guess(w: _Work, seat: int, action: GuessRole) -> None:
    """M19: right wins; wrong discards every token, the card leaves face down, a new role is
    drawn from the undealt ones and the turn ends."""
    correct = w.roles[action.target] == action.role
    w.ev.append(GuessMade(seat, action.target, action.role, correct))
    if correct:
        _end_game(w, (seat,), EndReason.TWO_PLAYER_GUESS)
        return
    _record_wrong_guess(w, seat, action)
    for symbol in TOKEN_SYMBOLS:
        held = w.tokens[seat][symbol - 1]
        if held:
            _lose(w, seat, symbol, held, TokenCause.GUESS_PENALTY)
    old = w.roles[seat]
    rng = Rng(w.rng)
    index = rng.below(len(w.undealt))
    w.rng = rng.state
    new = w.undealt[index]
    w.undealt = (*w.undealt[:index], *w.undealt[index + 1 :])
    w.roles = _replace(w.roles, seat, new)
    w.removed_roles = _replace(w.removed_roles, seat, (*w.removed_roles[seat], old))
    w.ev.append(RoleReplaced(seat, old, new))
    _end_turn(w)


def _record_wrong_guess(w: _Work, seat: int, action: GuessRole) -> None:
    """What everybody learns from a wrong guess (M16, M19), kept for the views: the named
    role was neither the target's card nor the guesser's own (sample() relies on it)."""
    target = action.target
    guess = WrongGuess(seat, len(w.removed_roles[seat]), target, len(w.removed_roles[target]), action.role)
    w.wrong_guesses = (*w.wrong_guesses, guess)


def _master_guess(w: _Work, seat: int, action: GuessRole) -> None:
    """M16: right, the Master wins; wrong, he is eliminated (his role stays secret)."""
    correct = w.roles[action.target] == action.role
    w.ev.append(GuessMade(seat, action.target, action.role, correct))
    context = w.guess_context
    w.guess_context = None
    if correct:
        _end_game(w, (seat,), EndReason.MASTER_GUESS)
        return
    _record_wrong_guess(w, seat, action)
    _eliminate(w, seat, EliminationCause.WRONG_GUESS)
    if _check_last_standing(w):
        return
    if context is GuessContext.AFTER_EVENT and _check_everyone(w):
        # Project decision (M15/M16): after Porchetta/Earthquake a wrong guess hands the tie
        # to the next player in turn order whose row is met.
        return
    _end_turn(w)


def _settle(w: _Work) -> None:
    """Take every decision that has exactly one legal action (see the module docstring),
    as ``_legal`` would list it. The other phases (SETUP_TOKEN, LOMBARD, TARGET,
    REVOLUTION_TARGET, CANCEL, MASTER_GUESS) always offer two or more actions."""
    while True:
        phase = w.phase
        if phase is Phase.RESOLVE:
            options = _resolve_options(w.remaining)
            if len(options) != 1:
                return
            _dispatch(w, w.active, options[0])
        elif phase is Phase.PRE_ROLL:
            if w.passed or (w.player_count == 2 and w.undealt):
                return
            _dispatch(w, w.active, _ROLL_FIVE)
        elif phase is Phase.CHOOSE_DICE:
            choices = _dice_choices(w.dice, w.kept)
            if len(choices) != 1:
                return
            _dispatch(w, w.active, choices[0])
        elif phase is Phase.PLAGUE:
            # The first waiting seat (in turn order) without a Tower can only discard People.
            for seat in w.waiting:
                if w.tokens[seat][_T] == 0:
                    _dispatch(w, seat, _DISCARD_PEOPLE)
                    break
            else:
                return
        elif phase is Phase.STEAL:
            victims = _steal_victims(w)
            if len(victims) != 1:
                return
            _dispatch(w, w.active, StealFrom(victims[0]))
        else:
            return


# --------------------------------------------------------------------------- well-formedness


def _is_seat(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_well_formed(action: object) -> None:
    if not isinstance(action, ACTION_TYPES):
        raise MalformedAction("not an action of Il Trono di Mortadella")
    ok = True
    if isinstance(action, ChooseStartToken):
        ok = isinstance(action.symbol, Symbol) and action.symbol in TOKEN_SYMBOLS
    elif isinstance(action, RollDice):
        ok = isinstance(action.keep_passed, bool)
    elif isinstance(action, UseLombard):
        ok = isinstance(action.reroll, bool)
    elif isinstance(action, PayCancel):
        ok = isinstance(action.pay, bool)
    elif isinstance(action, GuessRole):
        ok = _is_seat(action.target) and isinstance(action.role, Role)
    elif isinstance(action, ChooseDice):
        ok = (
            isinstance(action.symbols, tuple)
            and len(action.symbols) == 3
            and all(isinstance(x, Symbol) for x in action.symbols)
        )
    elif isinstance(action, ResolveEffect):
        ok = (
            isinstance(action.dice, tuple)
            and len(action.dice) in (1, 2)
            and all(isinstance(x, Symbol) for x in action.dice)
            and isinstance(action.effect, Effect)
        )
    elif isinstance(action, ChooseTarget):
        ok = _is_seat(action.target)
    elif isinstance(action, ChooseRevolution):
        ok = _is_seat(action.target) and action.symbol in (_TOWER, _BOOK) and isinstance(action.symbol, Symbol)
    elif isinstance(action, PlagueDiscard):
        ok = isinstance(action.symbol, Symbol) and action.symbol in (_PEOPLE, _TOWER)
    elif isinstance(action, StealFrom):
        ok = _is_seat(action.victim)
    if not ok:
        raise MalformedAction("malformed Il Trono di Mortadella action")


def _normalize(action: Action) -> Action:
    """Dice are multisets: accept them in any order."""
    if isinstance(action, ChooseDice):
        return ChooseDice(tuple(sorted(action.symbols)))
    if isinstance(action, ResolveEffect):
        return ResolveEffect(tuple(sorted(action.dice)), action.effect)
    return action


# --------------------------------------------------------------------------- determinization

_SAMPLE_TRIES = 64  # rejection draws before falling back to listing every assignment


def _sample(view: View, rng: Rng) -> State:
    """A state drawn uniformly among the deals consistent with ``view``, with a fresh RNG.

    Hidden are other seats' current cards (M18; an eliminated player's too, M8), their
    removed cards (M19) and the undealt roles. What a view tells about them:
    - the roles it shows (own role and removed cards, the face-up Brigand, M18) are taken;
    - a wrong guess: the target's card then was not the named role, nor the guesser's own
      card (a guess never names one's own role) (M16, M19);
    - with three or more players only the Master guesses (M16): whoever guessed wrong, and
      the active seat of a MASTER_GUESS decision, is the Master.
    Every deal is equally likely a priori (M18, M19's redraws), so the posterior is uniform
    over the consistent ones: rejection sampling, then an exact listing (at most 5! ways).
    """
    n = view.player_count
    # cards[s]: seat s's removed cards then its current one; None where the viewer cannot see.
    cards: list[list[Role | None]] = []
    for sv in view.seats:
        removed: list[Role | None] = list(sv.removed_roles) if len(sv.removed_roles) == sv.removed_role_count else []
        removed += [None] * (sv.removed_role_count - len(removed))
        cards.append([*removed, sv.role])
    pool = list(ROLE_POOLS[n])
    for seat_cards in cards:
        for role in seat_cards:
            if role is not None:
                pool.remove(role)
    forced: dict[tuple[int, int], Role] = {}
    excluded: dict[tuple[int, int], set[Role]] = {}
    for g in view.wrong_guesses:
        excluded.setdefault((g.target, g.target_card), set()).add(g.role)
        excluded.setdefault((g.guesser, g.guesser_card), set()).add(g.role)
        if n > 2:
            forced[(g.guesser, g.guesser_card)] = Role.MASTER
    if view.phase is Phase.MASTER_GUESS:
        forced[(view.active, len(cards[view.active]) - 1)] = Role.MASTER
    for (s, k), role in forced.items():
        if cards[s][k] is None:
            cards[s][k] = role
            pool.remove(role)
    slots = [(s, k) for s in range(n) for k, role in enumerate(cards[s]) if role is None]
    checks = [(i, excluded[slot]) for i, slot in enumerate(slots) if slot in excluded]
    for _ in range(_SAMPLE_TRIES):
        rng.permute(pool)
        if all(pool[i] not in roles for i, roles in checks):
            drawn = pool
            break
    else:
        ways = [p for p in permutations(pool, len(slots)) if all(p[i] not in roles for i, roles in checks)]
        chosen = ways[rng.below(len(ways))]
        drawn = [*chosen, *(r for r in pool if r not in chosen)]
    for (s, k), role in zip(slots, drawn, strict=False):
        cards[s][k] = role
    undealt = tuple(sorted(drawn[len(slots) :]))
    dealt = cast("list[list[Role]]", cards)  # every None slot is filled now
    return State(
        player_count=n,
        max_turns=view.max_turns,
        additional_rules=view.additional_rules,
        rng=rng.next_u64(),  # future chance comes from the sampler's RNG, never the true one
        roles=tuple([c[-1] for c in dealt]),
        removed_roles=tuple([tuple(c[:-1]) for c in dealt]),
        undealt=undealt,
        tokens=tuple([sv.tokens for sv in view.seats]),
        in_game=tuple([sv.in_game for sv in view.seats]),
        skip_turn=tuple([sv.skip_turn for sv in view.seats]),
        start_player=view.start_player,
        active=view.active,
        turn=view.turn,
        lombard_holder=view.lombard_holder,
        lombard_used=view.lombard_used,
        passed=view.passed,
        kept=view.kept,
        dice=view.dice,
        carnival=view.carnival,
        chosen=view.chosen,
        unchosen=view.unchosen,
        remaining=view.remaining,
        phase=view.phase,
        effect=view.effect,
        target=view.target,
        steal_symbol=view.steal_symbol,
        steals_left=view.steals_left,
        waiting=view.waiting,
        guess_context=view.guess_context,
        winners=view.winners,
        end_reason=view.end_reason,
        wrong_guesses=view.wrong_guesses,
    )


# --------------------------------------------------------------------------- the engine


def _role_visible(state: State, viewer: int | None, seat: int) -> bool:
    """M18: a seat sees its own role; the Brigand's is face up; everything at the end."""
    return state.phase is Phase.OVER or viewer == seat or ROLE_INFO[state.roles[seat]].face_up


class MortadellaEngine:
    """The Engine protocol for Il Trono di Mortadella (services.engine.api.Engine)."""

    info = INFO

    def new_game(self, player_count: int, options: Mapping[str, str], seed: int) -> tuple[State, list[Event]]:
        opts = parse_options(INFO, player_count, options)
        n = player_count
        rng = Rng.from_seed(seed)
        events: list[Event] = []
        # M18: deal roles at random from the pool of this player count.
        pool = list(ROLE_POOLS[n])
        rng.shuffle(pool)
        roles = tuple(pool[:n])
        undealt = tuple(sorted(pool[n:]))
        events.extend(RoleDealt(seat, roles[seat]) for seat in range(n))
        # M20: six / seven players start with tokens.
        # A count for each of the four TOKEN_SYMBOLS (how the role data is loaded).
        start_tokens = cast(Tokens, STARTING_TOKENS.get(n, (0, 0, 0, 0)))
        tokens = tuple(start_tokens for _ in range(n))
        for seat in range(n):
            for symbol, count in zip(TOKEN_SYMBOLS, start_tokens, strict=True):
                if count:
                    events.append(TokensChanged(seat, symbol, count, TokenCause.SETUP, None))
        # M17: everyone rolls five dice, most MORTADELLA+WINE starts, ties re-roll.
        contenders = list(range(n))
        while len(contenders) > 1:
            rolls = tuple(tuple(DIE_FACES[rng.below(6)] for _ in range(5)) for _ in contenders)
            events.append(StartRoll(tuple(contenders), rolls))
            scores = [sum(1 for d in roll if d in (_MORT, _WINE)) for roll in rolls]
            best = max(scores)
            contenders = [seat for seat, score in zip(contenders, scores, strict=True) if score == best]
        start = contenders[0]
        # M10: the Lombard token starts with the last player in turn order.
        lombard = (start - 1) % n if opts["additional_rules"] else None
        events.append(StartPlayerChosen(start, lombard))
        state = State(
            player_count=n,
            max_turns=int(opts["max_turns"]),
            additional_rules=bool(opts["additional_rules"]),
            rng=rng.state,
            roles=roles,
            removed_roles=tuple(() for _ in range(n)),
            undealt=undealt,
            tokens=tokens,
            in_game=(True,) * n,
            skip_turn=(False,) * n,
            start_player=start,
            active=start,
            turn=0,
            lombard_holder=lombard,
            lombard_used=False,
            passed=(),
            kept=False,
            dice=(),
            carnival=False,
            chosen=(),
            unchosen=(),
            remaining=(),
            phase=Phase.SETUP_TOKEN,
            effect=None,
            target=None,
            steal_symbol=None,
            steals_left=0,
            waiting=(),
            guess_context=None,
            winners=(),
            end_reason=None,
            wrong_guesses=(),
        )
        w = _Work.thaw(state)
        choices = STARTING_CHOICES.get(n, 0)
        if choices:
            # M20: seven players each choose one more token (a setup decision, all at once).
            # Project decision: the choice is made after the start player is known.
            w.waiting = tuple(_order_from(w.in_game, start))
        else:
            _begin_turn(w, start, ())
        _settle(w)
        events.extend(w.ev)
        return w.freeze(), events

    def player_count(self, state: State) -> int:
        return state.player_count

    def deciders(self, state: State) -> tuple[int, ...]:
        return _deciders(state)

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        return _legal(state, seat)

    def apply(self, state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
        _check_well_formed(action)
        if state.phase is Phase.OVER:
            raise NotYourDecision("the game is over")
        if seat not in _deciders(state):
            raise NotYourDecision(f"seat {seat} need not decide now")
        action = _normalize(action)
        if not _is_legal(state, seat, action):
            raise IllegalAction(f"{self.describe_action(action)} is not allowed now")
        w = _Work.thaw(state)
        _dispatch(w, seat, action)
        _settle(w)
        return w.freeze(), w.ev

    def view(self, state: State, seat: int | None) -> View:
        over = state.phase is Phase.OVER
        seats = tuple(
            [  # a list, not a generator: cheaper for these few seats, at every decision of a search
                SeatView(
                    seat=s,
                    role=state.roles[s] if _role_visible(state, seat, s) else None,
                    tokens=state.tokens[s],
                    in_game=state.in_game[s],
                    skip_turn=state.skip_turn[s],
                    removed_role_count=len(state.removed_roles[s]),
                    removed_roles=state.removed_roles[s] if (over or seat == s) else (),
                )
                for s in range(state.player_count)
            ]
        )
        return View(
            viewer=seat,
            player_count=state.player_count,
            max_turns=state.max_turns,
            additional_rules=state.additional_rules,
            seats=seats,
            undealt_count=len(state.undealt),
            start_player=state.start_player,
            active=state.active,
            turn=state.turn,
            lombard_holder=state.lombard_holder,
            lombard_used=state.lombard_used,
            passed=state.passed,
            kept=state.kept,
            dice=state.dice,
            carnival=state.carnival,
            chosen=state.chosen,
            unchosen=state.unchosen,
            remaining=state.remaining,
            phase=state.phase,
            effect=state.effect,
            target=state.target,
            steal_symbol=state.steal_symbol,
            steals_left=state.steals_left,
            waiting=state.waiting,
            guess_context=state.guess_context,
            deciders=_deciders(state),
            winners=state.winners,
            end_reason=state.end_reason,
            wrong_guesses=state.wrong_guesses,
            rows_met=_rows_met(state) if over and state.end_reason is EndReason.VICTORY_ROW else (),
        )

    def sample(self, view: View, seat: int, rng: Rng) -> State:
        """Determinization (see ``_sample``): what ``seat`` cannot see is redrawn from ``rng``."""
        return _sample(view, rng)

    def project_event(self, event: Event, seat: int | None) -> Event | None:
        # Only role cards are secret (M18): every other event is public as it is.
        kind = type(event)
        if kind is not RoleDealt and kind is not RoleReplaced:
            return event
        if isinstance(event, RoleDealt):
            if event.role is None or seat == event.seat or ROLE_INFO[event.role].face_up:
                return event
            return RoleDealt(event.seat, None)
        if isinstance(event, RoleReplaced):
            if seat == event.seat:
                return event
            return RoleReplaced(event.seat, None, None)
        return event

    def outcome(self, state: State) -> Outcome | None:
        if state.phase is not Phase.OVER:
            return None
        reason = state.end_reason
        if reason is EndReason.TURN_LIMIT:
            summary = f"the table's turn limit of {state.max_turns} turns is reached: nobody wins"
        elif reason is EndReason.ALL_ELIMINATED:
            summary = "every player was eliminated: nobody wins"
        else:
            assert reason is not None  # a game over has its reason
            winner = state.winners[0]
            how = {
                EndReason.VICTORY_ROW: "meets the victory row",
                EndReason.LAST_STANDING: "is the last player standing",
                EndReason.MASTER_GUESS: "guessed a role right",
                EndReason.TWO_PLAYER_GUESS: "guessed the opponent's role",
            }[reason]
            summary = f"seat {winner}, the {role_name(state.roles[winner])}, {how}"
        return Outcome(winners=state.winners, summary=summary)

    def describe_action(self, action: Action) -> str:
        """The action's label, in the game's words (services/mortadella/words.py): an action
        reads the same among a seat's choices as in the event that tells it."""
        if not isinstance(action, typing.get_args(Action)):
            raise MalformedAction("not an Il Trono di Mortadella action")
        return action_label(action)


ENGINE = MortadellaEngine()

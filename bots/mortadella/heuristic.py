"""A heuristic bot for Il Trono di Mortadella, from its own view only (engine values).

It measures how far its tokens are from its role's victory row (M14): the sum of the
missing tokens, plus the excess over a row's exact count. Every choice is scored by how
much that distance shrinks, with:
- the deadly sins (M8): an eighth token of a symbol is elimination, a seventh a risk;
- harm to others (Drunkenness, Inebriation, Revolution, thefts) aimed at the leader, the
  opponent closest to any row its role may have; harm to itself only where it helps (the
  Captain's exactly 0 Book, a seventh token shed);
- cancels paid when the Mortadella costs less than the effect (M6);
- the two-player guess (M19) when few roles remain possible for the opponent, counting the
  wrong guesses the view records; the Master guesses the target with the fewest candidates.
Cheap on purpose: a search bot calls it as its rollout policy. What it can tell of the
others' roles (distances to the rows, candidates, odds) is ``bots.mortadella.roles``; the
moves its view proves winning, ``bots.mortadella.settled``.
"""

import random
from collections.abc import Sequence

from bots.mortadella.hiding import EXPOSED, Exposure, exposure, holds_back
from bots.mortadella.roles import _CACHE_SIZE, candidates, distance, role_odds
from services.engine.api import Game
from services.mortadella.model import (
    DOUBLE_EFFECTS,
    ROLE_INFO,
    SINGLE_EFFECTS,
    ChooseDice,
    ChooseRevolution,
    ChooseStartToken,
    ChooseTarget,
    Effect,
    GuessRole,
    PayCancel,
    Phase,
    PlagueDiscard,
    Role,
    RollDice,
    StealFrom,
    Symbol,
    UseLombard,
    View,
)

P, T, B, M = 0, 1, 2, 3  # token indices
PEOPLE, TOWER, BOOK, MORT, WINE, RAT = tuple(Symbol)
WIN = 20.0  # bonus for meeting the row
ELIMINATED = -100.0
HARM = 0.35  # one token taken from an opponent, in units of our own distance
SKIP = 0.9  # one skipped turn (Inebriation), ours or the leader's

_ACQUIRE = {
    Effect.ACQUIRE_PEOPLE: (P, 1),
    Effect.ACQUIRE_TWO_PEOPLE: (P, 2),
    Effect.ACQUIRE_TOWER: (T, 1),
    Effect.ACQUIRE_BOOK: (B, 1),
    Effect.ACQUIRE_MORTADELLA: (M, 1),
}
_SINGLE, _DOUBLE = SINGLE_EFFECTS, DOUBLE_EFFECTS  # what dice may do (M4, M5): the engine's table


class _Me:
    """What one decision needs about the deciding seat, computed once."""

    __slots__ = ("hidden", "opponents", "role", "seat", "sins", "tokens", "view")

    def __init__(self, view: View, seat: int, hide: bool = False):
        self.view = view
        self.seat = seat
        role = view.seats[seat].role
        assert role is not None  # a seat's view shows its own role
        self.role = role
        self.tokens = view.seats[seat].tokens
        self.sins = view.additional_rules and not ROLE_INFO[self.role].sin_exempt
        self.opponents = [s.seat for s in view.seats if s.in_game and s.seat != seat]
        # The hiding policy: what a reader's next guess would make of our tokens (M19).
        self.hidden: Exposure | None = exposure(view, seat) if hide else None

    def value(self, tokens: Sequence[int]) -> float:
        """Our standing with ``tokens``: higher is better."""
        if self.sins:
            most = max(tokens)
            if most >= 8:
                return ELIMINATED  # M8
            risk = 0.6 if most == 7 else 0.0
        else:
            risk = 0.0
        gap = distance(self.role, tokens)
        if gap == 0:
            return WIN - risk
        if self.hidden is not None:
            risk += EXPOSED * self.hidden(tokens)
        return -gap - risk

    def changed(self, index: int, delta: int) -> float:
        """The gain in value from ``delta`` tokens of ``index`` (never below 0 held)."""
        tokens = list(self.tokens)
        tokens[index] = max(0, tokens[index] + delta)
        return self.value(tokens) - self.value(self.tokens)


def threat(view: View, seat: int, target: int) -> float:
    """How close ``target`` may be to winning: minus its distance under its likeliest role."""
    tokens = view.seats[target].tokens
    return -min(distance(r, tokens) for r in candidates(view, seat, target)) + 0.01 * sum(tokens)


def leader_order(me: _Me) -> dict[int, float]:
    return {s: threat(me.view, me.seat, s) for s in me.opponents}


def effect_value(me: _Me, effect: Effect) -> float:
    """What resolving ``effect`` now is worth to us (the follow-up decisions played well)."""
    acquired = _ACQUIRE.get(effect)
    view = me.view
    if acquired is not None:
        index, n = acquired
        if view.carnival or ROLE_INFO[me.role].steals:
            if not any(view.seats[s].tokens[index] for s in me.opponents):
                return 0.0  # nothing to steal (M13)
            return me.changed(index, n) + HARM * n
        return me.changed(index, n)
    if effect is Effect.REVOLUTION:
        own = max(me.changed(T, -1) if me.tokens[T] else -9.0, me.changed(B, -1) if me.tokens[B] else -9.0)
        others = HARM if any(view.seats[s].tokens[T] or view.seats[s].tokens[B] for s in me.opponents) else 0.0
        return max(own, others)
    if effect is Effect.DRUNKENNESS:
        own = me.changed(P, -1) if me.tokens[P] else -9.0
        others = HARM if any(view.seats[s].tokens[P] for s in me.opponents) else 0.0
        return max(own, others)
    if effect is Effect.INEBRIATION:
        return SKIP
    # Plague / Black Death hit everybody, us included (M7).
    value = 0.0
    if me.tokens[P]:
        value += max(me.changed(P, -1), me.changed(T, -1) if me.tokens[T] else -9.0)
    value += HARM * sum(1 for s in me.opponents if view.seats[s].tokens[P])
    if effect is Effect.BLACK_DEATH:
        if me.tokens[M]:
            value += me.changed(M, -1)
        value += HARM * sum(1 for s in me.opponents if view.seats[s].tokens[M])
    return value


class _Values:
    """What effects and dice are worth in one situation, each computed once (from the
    ``_Me`` of a decision in that situation, not kept: a cache must not hold views)."""

    __slots__ = ("dice", "doubles", "effects", "singles")

    def __init__(self) -> None:
        self.effects: dict[Effect, float] = {}
        self.singles: dict[Symbol, float] = {}  # a die resolved by itself, its best use
        self.doubles: dict[Symbol, float] = {}  # two dice resolved together, their best use
        self.dice: dict[tuple[Symbol, ...], float] = {}

    def effect(self, me: _Me, effect: Effect) -> float:
        value = self.effects.get(effect)
        if value is None:
            value = self.effects[effect] = effect_value(me, effect)
        return value

    def single(self, me: _Me, die: Symbol) -> float:
        value = self.singles.get(die)
        if value is None:
            value = self.singles[die] = max(self.effect(me, e) for e in _SINGLE[die])
        return value

    def double(self, me: _Me, symbol: Symbol) -> float:
        value = self.doubles.get(symbol)
        if value is None:
            value = self.doubles[symbol] = max(self.effect(me, e) for e in _DOUBLE[symbol])
        return value


def _values_for(me: _Me) -> _Values:
    """The values of ``me``'s situation, shared by every decision in the same one: they
    depend only on the role, the tokens on the table and whether Carnival is on, and when
    hiding on what the reader can rule out (a search meets the same situations again and again)."""
    view = me.view
    key: tuple = (me.role, me.tokens, me.sins, view.carnival, tuple([view.seats[s].tokens for s in me.opponents]))
    if me.hidden is not None:
        key += me.hidden.key
    values = _SITUATIONS.get(key)
    if values is None:
        if len(_SITUATIONS) > _CACHE_SIZE // 2:
            _SITUATIONS.clear()
        values = _SITUATIONS[key] = _Values()
    return values


_SITUATIONS: dict[tuple, _Values] = {}


def dice_value(me: _Me, dice: Sequence[Symbol], values: _Values) -> float:
    """The best total of resolving ``dice`` (up to three), one die or one pair at a time,
    each effect valued from the present tokens (cheap, and close enough)."""
    key = tuple(dice)
    known = values.dice.get(key)
    if known is not None:
        return known
    single = values.single
    alone = [single(me, d) for d in key]
    best = sum(alone)
    n = len(key)
    for i in range(n):
        for j in range(i + 1, n):
            pair = _PAIRS[key[i], key[j]]
            if pair:
                rest = sum(v for k, v in enumerate(alone) if k != i and k != j)
                for symbol in pair:
                    best = max(best, values.double(me, symbol) + rest)
    values.dice[key] = best
    return best


# (die, die) -> the double effects' symbols the two dice may resolve together (M4; BOOK as Joker, M5)
_PAIRS = {
    (a, b): tuple(symbol for symbol in _DOUBLE if a in (symbol, BOOK) and b in (symbol, BOOK))
    for a in Symbol
    for b in Symbol
}


def _choose_dice(me: _Me, legal: Sequence[ChooseDice]) -> list[float]:
    values = _values_for(me)
    return [dice_value(me, a.symbols, values) for a in legal]


def _pre_roll(me: _Me, legal: Sequence, rng: random.Random, sharp: bool = False) -> list[float]:
    view = me.view
    guesses = [a for a in legal if isinstance(a, GuessRole)]
    if guesses:
        # M19: right wins at once; wrong costs every token and the card. Worth it when the
        # odds are good, or when we hold little to lose.
        tokens = view.seats[1 - me.seat].tokens
        if sharp:
            # The odds of the deal and of the tokens (role_odds), not a uniform pick.
            by_role = {r: p for r, p in role_odds(view, me.seat, 1 - me.seat).items() if r is not me.role}
            alive = {r: p for r, p in by_role.items() if distance(r, tokens) > 0} or by_role
            odds = max(alive.values(), default=0.0)
            possible = [r for r, p in alive.items() if p >= odds - 1e-9]
            odds += 1e-9  # the thresholds below hold at exactly 1/2, 1/3, 1/4
        else:
            possible = [r for r in candidates(view, me.seat, 1 - me.seat) if r is not me.role]
            # Its row is checked on its own turn (M15): a row its tokens meet now is unlikely its own.
            possible = [r for r in possible if distance(r, tokens) > 0] or possible
            odds = 1.0 / max(1, len(possible))
        held = sum(me.tokens)
        if me.hidden is not None and holds_back(view, me.seat, odds):
            possible = []  # hidden, we let the reader's guess miss first
        if possible and (
            odds >= 0.5 or (odds >= 1 / 3 and held <= 2) or (odds >= 0.25 and distance(me.role, me.tokens) >= 6)
        ):
            likeliest = min(possible, key=lambda r: (distance(r, tokens), rng.random()))
            return [10.0 if isinstance(a, GuessRole) and a.role is likeliest else 0.0 for a in legal]
    cache = _values_for(me)
    scores = []
    for a in legal:
        if isinstance(a, RollDice):
            if a.keep_passed:
                # The two passed dice plus the best of three new ones, against the best three
                # of five: keep them when they are worth clearly more than an average pair.
                faces = sorted((dice_value(me, (f,), cache) for f in Symbol), reverse=True)
                scores.append(dice_value(me, view.passed, cache) - faces[0] - faces[1] + 0.2)
            else:
                scores.append(0.0)
        else:
            scores.append(-1.0)
    return scores


def _lombard(me: _Me, legal: Sequence[UseLombard]) -> list[float]:
    view = me.view
    dice = view.dice
    if view.active == me.seat:
        cache = _values_for(me)
        choices = [(*dice[:2], d) for d in dice[2:]] if view.kept else [dice]
        best = max(_best_three(me, c, cache) for c in choices)
        reroll = best < 0.5
    else:
        # An opponent's roll: spoil a Carnival (thefts) or a roll rich in one token kind.
        counts = [dice.count(s) for s in (PEOPLE, TOWER, BOOK, MORT)]
        reroll = len(set(dice)) == 5 or max(counts) >= 4
    return [1.0 if a.reroll == reroll else 0.0 for a in legal]


def _best_three(me: _Me, dice: Sequence[Symbol], cache: _Values) -> float:
    if len(dice) == 3:
        return dice_value(me, dice, cache)
    n = len(dice)
    return max(
        dice_value(me, (dice[i], dice[j], dice[k]), cache)
        for i in range(n)
        for j in range(i + 1, n)
        for k in range(j + 1, n)
    )


def _target(me: _Me, legal: Sequence[ChooseTarget]) -> list[float]:
    view = me.view
    lead = leader_order(me)
    drunk = view.effect is Effect.DRUNKENNESS
    scores = []
    for a in legal:
        t = a.target
        if t == me.seat:
            scores.append(me.changed(P, -1) if drunk and me.tokens[P] else -5.0)
            continue
        seat = view.seats[t]
        useful = (seat.tokens[P] > 0) if drunk else not seat.skip_turn
        scores.append(lead[t] + (10.0 if useful else 0.0))
    return scores


def _revolution(me: _Me, legal: Sequence[ChooseRevolution]) -> list[float]:
    view = me.view
    lead = leader_order(me)
    scores = []
    for a in legal:
        index = a.symbol - 1
        held = view.seats[a.target].tokens[index]
        if a.target == me.seat:
            scores.append(me.changed(index, -1) * 10 if held else -50.0)
        elif held:
            scores.append(lead[a.target] + 10.0 + 0.1 * held)
        else:
            scores.append(-20.0)
    return scores


def _cancel(me: _Me, legal: Sequence[PayCancel]) -> list[float]:
    effect = me.view.effect
    cost = 1 if effect is Effect.DRUNKENNESS else 2
    paid = me.changed(M, -cost)
    taken = me.changed(P, -1) if effect is Effect.DRUNKENNESS else -SKIP
    return [paid if a.pay else taken for a in legal]


def _plague(me: _Me, legal: Sequence[PlagueDiscard]) -> list[float]:
    return [me.changed(a.symbol - 1, -1) for a in legal]


def _steal(me: _Me, legal: Sequence[StealFrom]) -> list[float]:
    lead = leader_order(me)
    return [lead[a.victim] for a in legal]


def _master_guess(me: _Me, legal: Sequence[GuessRole], rng: random.Random) -> list[float]:
    """M16: a wrong guess eliminates; name the target with the fewest possible roles, and
    among them the role its tokens are closest to."""
    view = me.view
    options: dict[int, list[Role]] = {}
    for a in legal:
        options.setdefault(a.target, [])
    best: tuple[float, int, Role] | None = None
    for target in options:
        possible = [r for r in candidates(view, me.seat, target) if ROLE_INFO[r].guessable and r is not me.role]
        if not possible:
            continue
        tokens = view.seats[target].tokens
        role = min(possible, key=lambda r: (distance(r, tokens), rng.random()))
        key = (len(possible) + rng.random() * 0.1, target, role)
        if best is None or key < best:
            best = key
    return [1.0 if best is not None and (a.target, a.role) == best[1:] else 0.0 for a in legal]


def _setup_token(me: _Me, legal: Sequence[ChooseStartToken]) -> list[float]:
    return [me.changed(a.symbol - 1, 1) for a in legal]


def mortadella_heuristic_policy(game: Game, view: View, seat: int, legal: Sequence, rng: random.Random):
    """One of ``legal``: the best by the heuristic scores, ties broken at random."""
    return _decide(view, seat, legal, rng, sharp=False)


def mortadella_sharp_policy(game: Game, view: View, seat: int, legal: Sequence, rng: random.Random):
    """The heuristic, with its two-player guesses (M19) by the odds the seat can infer
    (``role_odds``: the deal, the wrong guesses, the tokens) instead of a uniform pick among
    the roles not ruled out. A search bot's own rollouts and candidate ranking."""
    return _decide(view, seat, legal, rng, sharp=True)


def mortadella_hiding_policy(game: Game, view: View, seat: int, legal: Sequence, rng: random.Random):
    """The sharp policy, hiding its role from a reader of its tokens (``bots.mortadella.hiding``):
    the chance the opponent's next guess names it costs what a lost game costs, and it rolls
    rather than guess below even odds where the reader's miss would come first (M19).
    ``self_read=on``'s own seat (level 8)."""
    return _decide(view, seat, legal, rng, sharp=True, hide=True)


def open_candidates(game: Game, view: View, seat: int, legal: Sequence, rng: random.Random) -> list:
    """The sharp policy's move, which does not hide, compared beside the hiding one."""
    return [mortadella_sharp_policy(game, view, seat, legal, rng)]


def _decide(view: View, seat: int, legal: Sequence, rng: random.Random, sharp: bool, hide: bool = False):
    if len(legal) == 1:
        return legal[0]
    me = _Me(view, seat, hide)
    phase = view.phase
    if phase is Phase.RESOLVE:
        scores = [effect_value(me, a.effect) for a in legal]
    elif phase is Phase.CHOOSE_DICE:
        scores = _choose_dice(me, legal)
    elif phase is Phase.PRE_ROLL:
        scores = _pre_roll(me, legal, rng, sharp)
    elif phase is Phase.LOMBARD:
        scores = _lombard(me, legal)
    elif phase is Phase.TARGET:
        scores = _target(me, legal)
    elif phase is Phase.REVOLUTION_TARGET:
        scores = _revolution(me, legal)
    elif phase is Phase.CANCEL:
        scores = _cancel(me, legal)
    elif phase is Phase.PLAGUE:
        scores = _plague(me, legal)
    elif phase is Phase.STEAL:
        scores = _steal(me, legal)
    elif phase is Phase.MASTER_GUESS:
        scores = _master_guess(me, legal, rng)
    elif phase is Phase.SETUP_TOKEN:
        scores = _setup_token(me, legal)
    else:
        return legal[rng.randrange(len(legal))]
    top = max(scores)
    best = [a for a, score in zip(legal, scores, strict=True) if score >= top - 1e-9]
    return best[0] if len(best) == 1 else best[rng.randrange(len(best))]

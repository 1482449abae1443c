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
Cheap on purpose: a search bot calls it as its rollout policy.
"""

import math
import random
from collections.abc import Callable, Sequence
from itertools import permutations

from services.engine.api import Game
from services.engine.rng import Rng as _Rng
from services.mortadella.model import (
    DOUBLE_EFFECTS,
    ROLE_INFO,
    ROLE_POOLS,
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
    State,
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


def distance(role: Role, tokens: Sequence[int]) -> float:
    """How far ``tokens`` are from ``role``'s nearest victory row (0: met, M14)."""
    key = (int(role), *tokens)  # plain ints: a key the garbage collector need not track
    known = _DISTANCES.get(key)
    if known is None:
        if len(_DISTANCES) > _CACHE_SIZE:
            _DISTANCES.clear()
        known = _DISTANCES[key] = _distance(role, tokens)
    return known


# (role, *tokens) -> distance: a search asks for the same few thousand again and again
_DISTANCES: dict[tuple, float] = {}
# Entries each cache of this module keeps at most. Small on purpose: every object a cache
# holds is walked by each full garbage collection, whose pauses would grow with it and
# overrun a search's time budget.
_CACHE_SIZE = 4096


def _distance(role: Role, tokens: Sequence[int]) -> float:
    best = 99.0
    for row in ROLE_INFO[role].rows:
        missing = 0.0
        for index, low, high in row:
            count = tokens[index]
            if count < low:
                missing += low - count
            elif high is not None and count > high:
                missing += 1.5 * (count - high)  # shedding tokens is harder than gaining them
        best = min(best, missing)
    return best


class _Me:
    """What one decision needs about the deciding seat, computed once."""

    __slots__ = ("opponents", "role", "seat", "sins", "tokens", "view")

    def __init__(self, view: View, seat: int):
        self.view = view
        self.seat = seat
        role = view.seats[seat].role
        assert role is not None  # a seat's view shows its own role
        self.role = role
        self.tokens = view.seats[seat].tokens
        self.sins = view.additional_rules and not ROLE_INFO[self.role].sin_exempt
        self.opponents = [s.seat for s in view.seats if s.in_game and s.seat != seat]

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
        return (WIN if gap == 0 else -gap) - risk

    def changed(self, index: int, delta: int) -> float:
        """The gain in value from ``delta`` tokens of ``index`` (never below 0 held)."""
        tokens = list(self.tokens)
        tokens[index] = max(0, tokens[index] + delta)
        return self.value(tokens) - self.value(self.tokens)


def candidates(view: View, seat: int, target: int) -> list[Role]:
    """The roles ``seat`` cannot rule out for ``target``'s current card: not a role it can
    see elsewhere (own cards, a face-up role, M18), not one a wrong guess excluded (M16, M19)."""
    shown = view.seats[target].role
    if shown is not None:
        return [shown]
    seen = {s.role for s in view.seats if s.role is not None}
    seen.update(view.seats[seat].removed_roles)
    card = view.seats[target].removed_role_count
    seen.update(g.role for g in view.wrong_guesses if g.target == target and g.target_card == card)
    return [r for r in ROLE_POOLS[view.player_count] if r not in seen]


def deal_odds(view: View, seat: int, target: int) -> dict[Role, float]:
    """How likely each role is to be ``target``'s current card, from what ``seat`` knows of
    the deal alone: every deal consistent with the view is equally likely (M18, M19's
    redraws), as in the engine's determinization. Unlike ``candidates``, this weighs what
    the wrong guesses imply: a player who guessed a role wrong and drew a new card holds
    that very role one time in three (it was among the undealt), more than any other."""
    shown = view.seats[target].role
    if shown is not None:
        return {shown: 1.0}
    key = (
        view.player_count,
        seat,
        target,
        tuple((sv.role, sv.removed_roles, sv.removed_role_count) for sv in view.seats),
        view.wrong_guesses,
        view.active if view.phase is Phase.MASTER_GUESS else None,
    )
    odds = _ODDS.get(key)
    if odds is None:
        if len(_ODDS) > _CACHE_SIZE // 4:
            _ODDS.clear()
        odds = _ODDS[key] = _deal_odds(view, target)
    return odds


_ODDS: dict[tuple, dict[Role, float]] = {}


def _deal_odds(view: View, target: int) -> dict[Role, float]:
    n = view.player_count
    cards: list[list[Role | None]] = []  # each seat's removed cards, then its current one
    for sv in view.seats:
        removed: list[Role | None] = list(sv.removed_roles) if len(sv.removed_roles) == sv.removed_role_count else []
        removed += [None] * (sv.removed_role_count - len(removed))
        cards.append([*removed, sv.role])
    pool = list(ROLE_POOLS[n])
    for held in cards:
        for role in held:
            if role is not None and role in pool:
                pool.remove(role)
    excluded: dict[tuple[int, int], set[Role]] = {}
    for g in view.wrong_guesses:  # neither the target's card then nor the guesser's (M16, M19)
        excluded.setdefault((g.target, g.target_card), set()).add(g.role)
        excluded.setdefault((g.guesser, g.guesser_card), set()).add(g.role)
        if n > 2 and cards[g.guesser][g.guesser_card] is None and Role.MASTER in pool:
            cards[g.guesser][g.guesser_card] = Role.MASTER  # only the Master guesses (M16)
            pool.remove(Role.MASTER)
    if view.phase is Phase.MASTER_GUESS and cards[view.active][-1] is None and Role.MASTER in pool:
        cards[view.active][-1] = Role.MASTER
        pool.remove(Role.MASTER)
    known = cards[target][-1]
    if known is not None:
        return {known: 1.0}
    slots = [(s, k) for s in range(n) for k, role in enumerate(cards[s]) if role is None]
    checks = [(i, excluded[slot]) for i, slot in enumerate(slots) if slot in excluded]
    position = slots.index((target, len(cards[target]) - 1))
    counts: dict[Role, int] = {}
    for deal in permutations(pool, len(slots)):
        if all(deal[i] not in roles for i, roles in checks):
            counts[deal[position]] = counts.get(deal[position], 0) + 1
    total = sum(counts.values())
    if not total:  # an inconsistent view (not reachable in play): every unseen role alike
        return {role: 1 / len(pool) for role in pool}
    return {role: count / total for role, count in counts.items()}


# How sharply a player's tokens point to its role: P(tokens | role) ~ exp(BELIEF_SHARPNESS *
# the progress they make toward its row, i.e. how much nearer they are to it than no tokens
# at all). Fitted by maximum likelihood on 2-player heuristic games (3,900 decisions where the
# opponent held tokens: 1.0 best; with the deal's odds the likeliest role is the true one 87%
# of the time, against 70% from the deal's odds alone). The raw distance instead would favour,
# at few tokens, the roles with the shortest rows (the Captain) whatever was collected.
BELIEF_SHARPNESS = 1.0
_NO_TOKENS = (0, 0, 0, 0)


def progress(role: Role, tokens: Sequence[int]) -> float:
    """How much nearer ``tokens`` are to ``role``'s victory row than no tokens (M14)."""
    return distance(role, _NO_TOKENS) - distance(role, tokens)


def token_weights(tokens: Sequence[int], roles: Sequence[Role]) -> dict[Role, float]:
    """The likelihood of ``tokens`` under each role, relative to the likeliest (in (0, 1])."""
    made = {role: progress(role, tokens) for role in roles}
    best = max(made.values())
    return {role: math.exp(BELIEF_SHARPNESS * (value - best)) for role, value in made.items()}


def role_odds(view: View, seat: int, target: int) -> dict[Role, float]:
    """``target``'s current role as ``seat`` can infer it: the deal's odds (``deal_odds``)
    weighed by how far its tokens went toward each role's row (``token_weights``)."""
    odds = deal_odds(view, seat, target)
    weights = token_weights(view.seats[target].tokens, list(odds))
    total = sum(p * weights[r] for r, p in odds.items())
    return {r: p * weights[r] / total for r, p in odds.items()}


def role_belief(game: Game, view: View, seat: int) -> Callable[[State], float]:
    """A search bot's belief about hidden roles (bots.search.policy.Belief): a sampled role is the
    likelier the further the player's tokens went toward its victory row, since players
    collect toward their own role's row (the sampler itself keeps the deal's odds)."""
    weights: dict[int, dict[Role, float]] = {}
    for target, other in enumerate(view.seats):
        if target == seat or other.role is not None:
            continue
        roles = candidates(view, seat, target)
        if len(roles) > 1:
            weights[target] = token_weights(other.tokens, roles)

    def likelihood(state: State) -> float:
        result = 1.0
        for target, by_role in weights.items():
            result *= by_role.get(state.roles[target], 1.0)
        return result

    return likelihood


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
    depend only on the role, the tokens on the table and whether Carnival is on (a search
    meets the same situations again and again)."""
    view = me.view
    key = (me.role, me.tokens, me.sins, view.carnival, tuple([view.seats[s].tokens for s in me.opponents]))
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


def _decide(view: View, seat: int, legal: Sequence, rng: random.Random, sharp: bool):
    if len(legal) == 1:
        return legal[0]
    me = _Me(view, seat)
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


# --------------------------------------------------------------------------- answers its own view settles

# Decisions that draw no dice (M3, M10 roll them): what they do to the decider's tokens follows
# from the view alone, the tokens being public and its own role known.
_SETTLED_PHASES = (Phase.CHOOSE_DICE, Phase.RESOLVE, Phase.STEAL)
_CERTAIN = 1 - 1e-9


def settled_answer(game: Game, view: View, seat: int, legal: Sequence) -> object | None:
    """A move the seat's own view proves wins at once, else None:
    - a guess (M19, two players; M16, the Master's) of a role the deal leaves certain for
      its target (``deal_odds`` is 1: every other role is held, seen or ruled out by wrong
      guesses), since a right guess wins;
    - on its own turn, a die chosen or resolved (or a theft) that completes its victory row,
      checked after every effect the active player resolves (M15): its tokens are public
      and its role its own, so a draw of what it cannot see decides nothing of it (the
      first such move in ``legal``).
    A search plays it unsearched (``bots.search.ismcts.search``'s ``certain``)."""
    if len(legal) < 2:
        return None
    if view.phase in (Phase.PRE_ROLL, Phase.MASTER_GUESS):
        for action in legal:
            if isinstance(action, GuessRole) and deal_odds(view, seat, action.target).get(action.role, 0.0) >= _CERTAIN:
                return action
        return None
    if view.phase not in _SETTLED_PHASES or view.active != seat or seat not in view.deciders:
        return None
    engine = game.engine
    state = engine.sample(view, seat, _Rng(0))
    for action in legal:
        after, _ = engine.apply(state, seat, action)
        if after.winners == (seat,):
            return action
    return None

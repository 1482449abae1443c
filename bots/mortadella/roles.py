"""What a seat of Il Trono di Mortadella can tell of roles from its own view (engine values):
how far tokens are from a role's victory row (M14), the roles not ruled out for another
seat's card (M16, M18, M19), the deal's odds of each, and the belief that weighs them by the
tokens collected. The heuristic (``bots.mortadella.heuristic``) guesses by them; a search
bot samples the hidden roles with ``role_belief``.
"""

import math
from collections.abc import Callable, Iterator, Sequence
from itertools import permutations

from services.engine.api import Game
from services.mortadella.model import ROLE_INFO, ROLE_POOLS, Phase, Role, State, View


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
# Entries each cache of this module and of the heuristic keeps at most. Small on purpose: every object a cache
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
    counts: dict[Role, int] = {}
    pool = _pool(view)
    for cards in deals(view):
        counts[cards[target][-1]] = counts.get(cards[target][-1], 0) + 1
    total = sum(counts.values())
    if not total:  # an inconsistent view (not reachable in play): every unseen role alike
        return {role: 1 / len(pool) for role in pool}
    return {role: count / total for role, count in counts.items()}


def _pool(view: View) -> list[Role]:
    """The roles of the pool the view does not show (M18)."""
    pool = list(ROLE_POOLS[view.player_count])
    for sv in view.seats:
        for role in (*sv.removed_roles, sv.role):
            if role is not None and role in pool:
                pool.remove(role)
    return pool


def deals(view: View) -> Iterator[list[list[Role]]]:
    """Every deal consistent with the view, equally likely (M18, M19's redraws): each seat's
    cards, its removed ones first, then its current one."""
    n = view.player_count
    cards: list[list[Role | None]] = []  # each seat's removed cards, then its current one
    for sv in view.seats:
        removed: list[Role | None] = list(sv.removed_roles) if len(sv.removed_roles) == sv.removed_role_count else []
        removed += [None] * (sv.removed_role_count - len(removed))
        cards.append([*removed, sv.role])
    pool = _pool(view)
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
    slots = [(s, k) for s in range(n) for k, role in enumerate(cards[s]) if role is None]
    checks = [(i, excluded[slot]) for i, slot in enumerate(slots) if slot in excluded]
    for deal in permutations(pool, len(slots)):
        if all(deal[i] not in roles for i, roles in checks):
            dealt = [list(held) for held in cards]
            for (s, k), role in zip(slots, deal, strict=True):
                dealt[s][k] = role
            yield dealt  # type: ignore[misc]  # every slot filled


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

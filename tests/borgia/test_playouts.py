"""Random-playout property tests for House of Borgia over every player count and variant.

Invariants (per step): influence never negative; dice counts never rise and fall by at most
one per action (B4); rumors per player within the limit (B5, B10); exactly the six
cardinals on the ladder (B1); the bid only rises within a round (B3). Per game: it ends,
and the outcome follows B9/B10, recomputed here independently from the final state.
"""

import itertools

import pytest

from services.borgia import GAME
from services.borgia.model import CARDINALS, BorgiaState, Phase
from tests.engine_harness import random_playout

ENGINE, CODEC = GAME.engine, GAME.codec


def configs():
    """Every legal (player count, options) combination: Shadow Puppets only with 2 players (B10)."""
    for players in range(2, 7):
        shadows = (False, True) if players == 2 else (False,)
        for shadow, flame, poisoned in itertools.product(shadows, (False, True), (False, True)):
            options = {}
            if shadow:
                options["shadow_puppets"] = "true"
            if flame:
                options["flame_of_thy_tongue"] = "true"
            if poisoned:
                options["poisoned_dice"] = "true"
            yield players, options


CONFIGS = list(configs())


def reachable_states(players, options, seed) -> list[BorgiaState]:
    """Every state of one random playout, from the setup to the end."""
    states = [ENGINE.new_game(players, options, seed)[0]]

    def keep(_before, after, *_rest):
        states.append(after)

    random_playout(GAME, players, options, seed, on_step=keep)
    return states


def check_step(before: BorgiaState, after: BorgiaState, seat, action, events) -> None:
    assert all(v >= 0 for v in after.influence), "influence never negative"
    assert len(after.ladder) == 6 and set(after.ladder) == set(CARDINALS), "six cardinals on the ladder"
    for b, a in zip(before.dice, after.dice, strict=True):
        assert len(b) - 1 <= len(a) <= len(b), "dice never rise; fall by at most one per action"
    assert sum(len(b) - len(a) for b, a in zip(before.dice, after.dice, strict=True)) <= 1
    limit = 2 if after.shadow_puppets else 1
    assert all(len(r) <= limit for r in after.rumors), "rumor limit per player"
    placed = [c for r in after.rumors for c in r]
    assert len(placed) == len(set(placed)), "each rumor card lies in one place"
    if after.phase != Phase.OVER and after.round_number == before.round_number and before.bid is not None:
        assert after.bid.count >= before.bid.count, "bids only rise within a round (B3)"
    if after.antipope is not None and before.antipope == after.antipope:
        assert after.influence[after.antipope] == before.influence[before.antipope], "B6: antipope unchanged"


def expected_result(state: BorgiaState):
    """B9 / B10 / lead decision 6 written out again, independently of the engine."""
    n = state.player_count
    influence = dict(zip(CARDINALS, state.influence, strict=True))
    penalties_replace_elimination = state.flame_of_thy_tongue or state.poisoned_dice
    owner = {c: s for s in range(n) for c in state.puppets[s]}

    def matches(seat, cardinal):
        return cardinal in state.rumors[seat]

    for cardinal, seat in owner.items():
        if cardinal == state.antipope:
            continue
        per_die = -2 if state.poisoned_dice and matches(seat, cardinal) else 2
        influence[cardinal] = max(0, influence[cardinal] + per_die * len(state.dice[seat]))
    for cardinal, seat in owner.items():
        if state.flame_of_thy_tongue and matches(seat, cardinal) and cardinal != state.antipope:
            influence[cardinal] = max(0, influence[cardinal] - n)
    off_ladder = set()
    eliminated = set()
    if not penalties_replace_elimination:
        for seat in range(n):
            hit = [c for c in state.puppets[seat] if matches(seat, c)]
            off_ladder.update(hit)
            if hit and len(hit) == len(state.puppets[seat]):
                eliminated.add(seat)
    ladder = [c for c in state.ladder if c not in off_ladder]
    if not ladder:
        return (), None
    best = max(influence[c] for c in ladder)
    pope = next(c for c in ladder if influence[c] == best)
    winner = owner.get(pope)
    winners = () if winner is None or winner in eliminated else (winner,)
    return winners, pope


def check_game(playout) -> None:
    assert playout.outcome is not None, "every game ends"
    state = playout.state
    assert state.phase == Phase.OVER and ENGINE.deciders(state) == ()
    assert any(len(d) == 0 for d in state.dice), "B8: the game ends when a player has no dice"
    winners, pope = expected_result(state)
    assert playout.outcome.winners == winners
    assert ENGINE.view(state, None).result.pope == pope
    assert len(playout.outcome.scores) == state.player_count


@pytest.mark.parametrize(("players", "options"), CONFIGS, ids=[f"{p}p-{'-'.join(o) or 'base'}" for p, o in CONFIGS])
def test_random_playouts_keep_the_invariants(players, options):
    for seed in range(150):
        playout = random_playout(GAME, players, options, seed, on_step=check_step)
        check_game(playout)


@pytest.mark.parametrize(("players", "options"), CONFIGS, ids=[f"{p}p-{'-'.join(o) or 'base'}" for p, o in CONFIGS])
def test_random_playouts_with_views_and_codec(players, options):
    for seed in range(1000, 1015):
        playout = random_playout(GAME, players, options, seed, check_views=True, check_codec=True)
        check_game(playout)


def test_playouts_are_deterministic_from_the_seed():
    for players, options in CONFIGS[:6]:
        first = random_playout(GAME, players, options, 42)
        second = random_playout(GAME, players, options, 42)
        assert first.state == second.state and first.events == second.events and first.actions == second.actions

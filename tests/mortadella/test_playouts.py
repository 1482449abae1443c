"""Random-playout property tests for Il Trono di Mortadella, at every player count and
with the additional rules on and off, plus a few short games with a tiny turn limit.

Invariants (checked after every step): no crash; deciders exist until the end (harness);
no token count below 0; with the additional rules nobody but the Brigand holds more than
7 of one symbol while in play (M8); an eliminated seat holds nothing; the game ends, or
stops at the documented turn limit (table option ``max_turns``, default 500, M21) with
no winner; a winner meets their victory row (M14), is the last player standing (M15) or
guessed right (M16, M19).
"""

import pytest

from services.mortadella import ENGINE, GAME
from services.mortadella.engine import DEFAULT_MAX_TURNS
from services.mortadella.model import (
    ROLE_INFO,
    EndReason,
    GameEnded,
    GuessMade,
    Phase,
    Role,
    meets_row,
)
from tests.engine_harness import random_playout
from tests.scale import games

# (player count, games) with the defaults: additional rules on, max_turns 500.
# (players, games): a third of the games in make test, all in make test-long.
DEFAULT_RUNS = [(n, games(count // 3, count)) for n, count in ((2, 200), (3, 150), (4, 110), (5, 75), (6, 60), (7, 45))]
# Without the additional rules games run longer: a lower turn limit keeps them short.
PLAIN_RUNS = [(n, games(count // 3, count)) for n, count in ((2, 200), (3, 100), (4, 90), (5, 80), (6, 70), (7, 60))]
PLAIN_MAX_TURNS = 120


def check_step(before, after, seat, action, events):
    for s in range(after.player_count):
        tokens = after.tokens[s]
        assert min(tokens) >= 0, f"seat {s} holds a negative count: {tokens}"
        if not after.in_game[s]:
            assert tokens == (0, 0, 0, 0), "an eliminated seat holds nothing (M8)"
        elif after.additional_rules and not ROLE_INFO[after.roles[s]].sin_exempt:
            assert max(tokens) <= 7, f"seat {s} above 7 while in play (M8): {tokens}"
    assert after.turn <= after.max_turns
    if after.phase is Phase.OVER:
        check_end(after, events)


def check_end(state, events):
    ended = [e for e in events if isinstance(e, GameEnded)]
    assert len(ended) == 1 and ended[0].roles == state.roles, "all roles are revealed at the end"
    reason = state.end_reason
    if reason is EndReason.TURN_LIMIT:
        assert state.winners == () and state.turn == state.max_turns
        return
    if reason is EndReason.ALL_ELIMINATED:
        assert state.winners == () and not any(state.in_game)
        return
    (winner,) = state.winners
    assert state.in_game[winner]
    if reason is EndReason.VICTORY_ROW:
        assert meets_row(state.roles[winner], state.tokens[winner]), "the winner meets the row (M14)"
        assert not ROLE_INFO[state.roles[winner]].requires_guess
    elif reason is EndReason.LAST_STANDING:
        assert sum(state.in_game) == 1, "the last player standing (M15)"
    else:
        guess = [e for e in events if isinstance(e, GuessMade)][-1]
        assert guess.seat == winner and guess.correct and state.roles[guess.target] == guess.role
        if reason is EndReason.MASTER_GUESS:
            assert state.roles[winner] is Role.MASTER and meets_row(Role.MASTER, state.tokens[winner])  # M16
        else:
            assert state.player_count == 2  # M19


def run(n, options, seeds, **kwargs):
    reasons = {}
    for seed in seeds:
        playout = random_playout(GAME, n, options, seed, on_step=check_step, **kwargs)
        assert playout.outcome is not None, f"{n} players, seed {seed}: the game neither ended nor hit the limit"
        assert ENGINE.deciders(playout.state) == ()
        limit = int(options.get("max_turns", DEFAULT_MAX_TURNS))
        assert playout.state.turn <= limit
        reason = playout.state.end_reason
        reasons[reason] = reasons.get(reason, 0) + 1
        if reason is EndReason.TURN_LIMIT:
            assert "turn limit" in playout.outcome.summary
    return reasons


@pytest.mark.parametrize(("n", "games"), DEFAULT_RUNS)
def test_random_playouts_with_the_default_options(n, games):
    reasons = run(n, {}, range(games))
    assert sum(reasons.values()) == games
    # The rules' own endings do happen (not only the turn limit).
    assert reasons.get(EndReason.TURN_LIMIT, 0) < games // 4


@pytest.mark.parametrize(("n", "games"), PLAIN_RUNS)
def test_random_playouts_without_the_additional_rules(n, games):
    options = {"additional_rules": "false", "max_turns": str(PLAIN_MAX_TURNS)}
    reasons = run(n, options, range(10_000, 10_000 + games))
    assert sum(reasons.values()) == games


@pytest.mark.parametrize("n", range(2, 8))
@pytest.mark.parametrize("rules", ["true", "false"])
def test_a_tiny_turn_limit_ends_every_game(n, rules):
    reasons = run(n, {"additional_rules": rules, "max_turns": "3"}, range(20_000, 20_040))
    assert set(reasons) <= {
        EndReason.TURN_LIMIT,
        EndReason.TWO_PLAYER_GUESS,
        EndReason.VICTORY_ROW,
        EndReason.LAST_STANDING,
    }


@pytest.mark.parametrize("n", range(2, 8))
@pytest.mark.parametrize("rules", ["true", "false"])
def test_views_events_and_codec_on_every_step(n, rules):
    """The slower check: every view and projected event encodes, every state and action
    round-trips through the codec, on 96 games in all (240 in make test-long)."""
    run(
        n,
        {"additional_rules": rules, "max_turns": "40"},
        range(30_000, 30_000 + games(8, 20)),
        check_views=True,
        check_codec=True,
    )

"""The Mortadella heuristic bot: always a legal action, and clearly better than random."""

import random

import pytest

from bots.lab.offline import view_response
from bots.mortadella.heuristic import mortadella_heuristic_policy
from bots.mortadella.roles import candidates, distance
from bots.search.policy import policy_strategy, random_policy
from services.engine.rng import Rng
from services.mortadella import ENGINE, GAME
from services.mortadella.model import GuessRole, Phase, Role, WrongGuess
from tests.mortadella.builders import make_state


def play(n: int, options: dict, seed: int, bot_seat: int, check=None) -> tuple[int, ...]:
    """One game: the heuristic at ``bot_seat``, random bots elsewhere; the winners."""
    rng = random.Random(seed)
    state, _ = ENGINE.new_game(n, options, seed)
    while deciders := ENGINE.deciders(state):
        seat = rng.choice(deciders)
        legal = ENGINE.legal_actions(state, seat)
        policy = mortadella_heuristic_policy if seat == bot_seat else random_policy
        action = policy(GAME, ENGINE.view(state, seat), seat, legal, rng)
        if check is not None:
            check(state, seat, legal, action)
        state, _ = ENGINE.apply(state, seat, action)
    return state.winners


@pytest.mark.parametrize("n", range(2, 8))
def test_always_a_legal_action(n):
    phases = set()

    def check(state, seat, legal, action):
        assert action in legal
        phases.add(state.phase)
        # Every seat's view gets a legal answer, also on a sampled state (as in a search bot).
        sample = ENGINE.sample(ENGINE.view(state, seat), seat, Rng(len(phases)))
        again = mortadella_heuristic_policy(GAME, ENGINE.view(sample, seat), seat, legal, random.Random(0))
        assert again in legal

    for seed in range(6):
        options = {"additional_rules": "false", "max_turns": "120"} if seed % 3 == 2 else {}
        play(n, options, 100 * n + seed, bot_seat=seed % n, check=check)
    assert Phase.RESOLVE in phases and Phase.CHOOSE_DICE in phases


def test_every_seat_heuristic_games_end_with_legal_actions():
    for n in (2, 4, 7):
        rng = random.Random(n)
        state, _ = ENGINE.new_game(n, {}, n)
        while deciders := ENGINE.deciders(state):
            seat = rng.choice(deciders)
            legal = ENGINE.legal_actions(state, seat)
            action = mortadella_heuristic_policy(GAME, ENGINE.view(state, seat), seat, legal, rng)
            assert action in legal
            state, _ = ENGINE.apply(state, seat, action)
        assert ENGINE.outcome(state) is not None


def test_the_strategy_decodes_what_the_gateway_sends():
    state, _ = ENGINE.new_game(3, {}, 5)
    strategy = policy_strategy(GAME, mortadella_heuristic_policy)
    seat = ENGINE.deciders(state)[0]
    response = view_response(GAME, state, seat)
    chosen = strategy(response, random.Random(1))
    assert chosen in list(response.legal_actions)


def test_wrong_guesses_in_the_view_narrow_the_candidates():
    """M19: roles named wrongly against the opponent's current card are ruled out; own cards too."""
    state = make_state(
        2,
        roles=(Role.CAPTAIN, Role.CARDINAL),
        removed_roles=((Role.PRINCE,), ()),
        undealt=(Role.LORD, Role.RECTOR),
        wrong_guesses=(WrongGuess(0, 0, 1, 0, Role.LORD),),
    )
    view = ENGINE.view(state, 0)
    assert set(candidates(view, 0, 1)) == {Role.RECTOR, Role.CARDINAL}
    # Two candidates left: a coin flip to win at once, worth taking (M19).
    action = mortadella_heuristic_policy(GAME, view, 0, ENGINE.legal_actions(state, 0), random.Random(0))
    assert isinstance(action, GuessRole) and action.role in (Role.RECTOR, Role.CARDINAL)


def test_no_guess_with_many_candidates_and_tokens_to_lose():
    state = make_state(2, tokens={0: (2, 2, 2, 2)})
    action = mortadella_heuristic_policy(
        GAME, ENGINE.view(state, 0), 0, ENGINE.legal_actions(state, 0), random.Random(0)
    )
    assert not isinstance(action, GuessRole)


def test_distance_counts_missing_and_excess_tokens():
    assert distance(Role.PRINCE, (2, 2, 2, 5)) == 0
    assert distance(Role.PRINCE, (0, 2, 2, 5)) == 2
    assert distance(Role.LORD, (4, 6, 0, 1)) > 0  # exactly 0 Mortadella (M14)
    assert distance(Role.BRIGAND, (0, 0, 8, 0)) == 0


@pytest.mark.parametrize(("n", "games", "at_least"), [(2, 60, 0.6), (3, 60, 0.55)])
def test_beats_random_bots(n, games, at_least):
    """A small offline match, the heuristic's seat rotating: random bots would win 1/n."""
    wins = 0.0
    for game in range(games):
        winners = play(n, {}, 7_000 + game, bot_seat=game % n)
        if game % n in winners:
            wins += 1 / len(winners)
    assert wins / games >= at_least

"""The Mortadella heuristic's sharper two-player guessing (M19) and the search belief: the
odds of the deal after wrong guesses, what the tokens say, and the guess they lead to."""

import random
from collections import Counter

import pytest

from bots.mortadella.heuristic import _decide, mortadella_heuristic_policy, mortadella_sharp_policy
from bots.mortadella.roles import deal_odds, role_odds, token_weights
from services.engine.rng import Rng
from services.mortadella import ENGINE, GAME
from services.mortadella.model import ROLE_POOLS, GuessRole, Phase, Role
from tests.mortadella.builders import make_state


def _after_wrong_guess_on_seat_0():
    """2 players: seat 1 (Rector) guesses seat 0 (Prince) is the Lord, wrongly; its card
    leaves the game and it draws one of the undealt (M19). Seat 0 is then to play."""
    state = make_state(2, active=1)
    state, _ = ENGINE.apply(state, 1, GuessRole(0, Role.LORD))
    assert state.active == 0 and state.phase is Phase.PRE_ROLL and state.wrong_guesses
    return state


def test_m19_a_wrong_guesser_holds_the_role_it_named_one_time_in_three():
    """M19: the named role was undealt (neither card), so the guesser draws it one time in
    three; the other roles seat 0 cannot see share the rest (2/9 each)."""
    view = ENGINE.view(_after_wrong_guess_on_seat_0(), 0)
    odds = deal_odds(view, 0, 1)
    assert set(odds) == set(ROLE_POOLS[2]) - {Role.PRINCE}
    assert odds[Role.LORD] == pytest.approx(1 / 3)
    for role in (Role.RECTOR, Role.CAPTAIN, Role.CARDINAL):
        assert odds[role] == pytest.approx(2 / 9)


def test_m19_the_deal_odds_are_the_engine_samplers_odds():
    """The odds count the deals the engine's determinization draws from, uniformly (M18)."""
    state = _after_wrong_guess_on_seat_0()
    wrong = next(a for a in ENGINE.legal_actions(state, 0) if isinstance(a, GuessRole) and a.role != state.roles[1])
    state, _ = ENGINE.apply(state, 0, wrong)
    assert state.active == 1 and len(state.wrong_guesses) == 2
    view = ENGINE.view(state, 1)
    odds = deal_odds(view, 1, 0)
    draws = Counter(ENGINE.sample(view, 1, Rng(seed)).roles[0] for seed in range(4000))
    assert set(draws) == set(odds)
    for role, p in odds.items():
        assert abs(draws[role] / 4000 - p) < 0.03, (role, draws, odds)


def test_no_tokens_tell_nothing_about_the_role():
    """M14: with no tokens no role is likelier; the shortest row (the Captain's) is not."""
    assert set(token_weights((0, 0, 0, 0), list(ROLE_POOLS[2])).values()) == {1.0}


def test_tokens_toward_a_row_make_that_role_likelier():
    """M14: 3 Towers and 3 People point to the Lord of Silk or the Cardinal more than to the
    Rector, and to the Rector more than to the Prince (who needs 5 Mortadella)."""
    weights = token_weights((3, 3, 0, 0), list(ROLE_POOLS[2]))
    assert weights[Role.LORD] == 1.0 and weights[Role.CARDINAL] == 1.0
    assert weights[Role.PRINCE] < weights[Role.RECTOR] < 0.5


def test_role_odds_weigh_the_deal_by_the_tokens():
    state = make_state(2, tokens={1: (3, 3, 0, 0)})
    odds = role_odds(ENGINE.view(state, 0), 0, 1)
    assert sum(odds.values()) == pytest.approx(1.0)
    assert max(odds, key=odds.get) in (Role.LORD, Role.CARDINAL)


def test_m19_the_sharp_guess_names_the_likeliest_role_by_the_deal():
    """M19: after the opponent's wrong guess of the Lord, the sharp policy names the Lord
    (1/3); the plain heuristic names a role from the tokens alone (its shortest row)."""
    view = ENGINE.view(_after_wrong_guess_on_seat_0(), 0)
    legal = ENGINE.legal_actions(_after_wrong_guess_on_seat_0(), 0)
    sharp = {mortadella_sharp_policy(GAME, view, 0, legal, random.Random(seed)) for seed in range(20)}
    assert sharp == {GuessRole(1, Role.LORD)}
    plain = {mortadella_heuristic_policy(GAME, view, 0, legal, random.Random(seed)) for seed in range(20)}
    assert plain == {GuessRole(1, Role.CAPTAIN)}


@pytest.mark.parametrize("sharp", [False, True])
def test_both_policies_play_legal_actions_to_the_end(sharp):
    rng = random.Random(5)
    for seed in range(30):
        state, _ = ENGINE.new_game(2, {}, seed)
        while deciders := ENGINE.deciders(state):
            seat = deciders[0]
            legal = ENGINE.legal_actions(state, seat)
            action = _decide(ENGINE.view(state, seat), seat, legal, rng, sharp)
            assert action in legal
            state, _ = ENGINE.apply(state, seat, action)


def test_the_search_bot_takes_rollout_sharp_in_every_game():
    """``rollout=sharp``: the game's sharper policy for the bot's own seat (Mortadella's,
    Borgia's); a game without one falls back to its heuristic."""
    from bots.borgia.puppets import borgia_sharp_policy
    from bots.lab.offline import play
    from bots.search.makers import heuristic_policy, sharp_policy
    from bots.search.strategies import random_legal
    from bots.worker.registry import make_strategy
    from services.registry import game_ids, get_game

    assert sharp_policy("mortadella") is mortadella_sharp_policy
    assert sharp_policy("borgia") is borgia_sharp_policy
    assert sharp_policy("pecunia") is heuristic_policy("pecunia")
    for game_id in game_ids():
        bot = make_strategy("ismcts:iterations=4,budget_ms=0,paired=4,rollout=sharp", game_id)
        assert play(get_game(game_id), [random_legal, bot], {}, seed=3) is not None

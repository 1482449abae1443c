"""The OpenSpiel adapter (bots/search/openspiel_adapter.py): tavola's games through pyspiel's API,
and OpenSpiel's random and ISMCTS bots playing them. Skipped without the openspiel extra."""

import random

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is an optional extra: pip install 'tavola[openspiel]' to run these tests"
)

import numpy as np  # noqa: E402  (OpenSpiel depends on it)
from open_spiel.python.algorithms import evaluate_bots  # noqa: E402

from bots.lab.offline import play  # noqa: E402
from bots.search import openspiel_adapter as adapter  # noqa: E402
from bots.search import openspiel_bots as os_bots  # noqa: E402
from services.bot_specs import BotError  # noqa: E402
from services.registry import game_ids, get_game  # noqa: E402

GAMES = game_ids()


def _game(game_id: str, players: int = 2, seed: int = 7):
    adapter.register_games()
    return pyspiel.load_game(adapter.short_name(game_id), {"players": players, "seed": seed})


def test_every_hosted_game_is_registered():
    assert adapter.register_games() == tuple(adapter.short_name(game_id) for game_id in GAMES)
    registered = set(pyspiel.registered_names())
    for game_id in GAMES:
        game = _game(game_id, players=3)
        kind = game.get_type()
        assert adapter.short_name(game_id) in registered
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
        assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM
        assert game.num_players() == 3
        assert game.num_distinct_actions() == adapter.MAX_DISTINCT_ACTIONS
        info = get_game(game_id).engine.info
        assert set(kind.parameter_specification) == {"players", "seed", *(o.name for o in info.options)}


@pytest.mark.parametrize("game_id", GAMES)
def test_random_playouts_keep_the_api_contract(game_id):
    game = _game(game_id)
    sampler = pyspiel.UniformProbabilitySampler(11, 0.0, 1.0)
    rng = random.Random(game_id)
    hidden_seen = False
    for _ in range(3):
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            player = state.current_player()
            legal = state.legal_actions()
            assert 0 <= player < game.num_players()
            assert legal and legal == sorted(set(legal))
            assert state.legal_actions(1 - player) == []
            assert state.action_to_string(player, legal[0])
            assert state.returns() == [0.0, 0.0]
            infostates = [state.information_state_string(p) for p in range(2)]
            assert infostates[0] != infostates[1]
            assert state.observation_string(player) == infostates[player]
            if moves % 5 == 0:
                # resampling keeps what the player knows (and so its legal actions) and may
                # change what the other one knows: there is hidden information to redraw
                other = 1 - player
                sampled = state.resample_from_infostate(player, sampler)
                assert sampled.current_player() == player
                assert sampled.information_state_string(player) == infostates[player]
                assert sampled.legal_actions() == legal
                hidden_seen |= sampled.information_state_string(other) != infostates[other]
                # clones are independent, with the same history
                copy = state.clone()
                assert copy.history() == state.history()
                assert copy.information_state_string(other) == infostates[other]
                copy.apply_action(legal[-1])
                assert state.information_state_string(player) == infostates[player]
            state.apply_action(rng.choice(legal))
            moves += 1
        assert state.legal_actions() == []
        assert state.current_player() == pyspiel.PlayerId.TERMINAL
        assert len(state.history()) == moves <= game.max_game_length()
        returns = state.returns()
        assert all(0.0 <= r <= 1.0 for r in returns)
        assert sum(returns) == pytest.approx(1.0) or sum(returns) == 0.0
    assert hidden_seen


@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_ismcts_and_random_bots_play_every_game(game_id):
    game = _game(game_id)
    bots = [
        os_bots.ismcts_bot(iterations=4, budget_ms=0)(game, 0, random.Random(0)),
        os_bots.random_bot(game, 1, random.Random(1)),
    ]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(5))
    assert len(returns) == 2 and sum(returns) in (0.0, 1.0)


@pytest.mark.parametrize("game_id", GAMES)
def test_adapter_strategies_play_from_the_seat_view(game_id):
    """The arena's path: each strategy gets the seat's GetViewResponse only."""
    ismcts = os_bots.adapter_strategy(game_id, os_bots.ismcts_bot(iterations=4, budget_ms=0))
    uniform = os_bots.adapter_strategy(game_id, os_bots.random_bot)
    outcome = play(get_game(game_id), [uniform, ismcts], {}, seed=3)
    assert set(outcome.winners) <= {0, 1}


def test_the_time_budget_stops_the_search():
    game = _game("borgia")
    state = game.new_initial_state()
    bot = os_bots.ismcts_bot(budget_ms=30)(game, state.current_player(), random.Random(1))
    action = bot.step(state)
    assert action in state.legal_actions()
    assert bot.simulations >= 2


def test_codebook_numbers_actions_by_their_proto():
    book = adapter.codebook("borgia")
    engine = get_game("borgia").engine
    state, _ = engine.new_game(2, {}, 1)
    actions = engine.legal_actions(state, engine.deciders(state)[0])
    numbers = book.numbers(actions)
    assert len(set(numbers)) == len(actions)
    assert book.numbers(actions) == numbers
    assert [book.number(a) for a in actions] == numbers
    assert all(book.action(n) == a for n, a in zip(numbers, actions, strict=True))


def test_bots_are_registered_and_checked():
    from bots.search import specs
    from bots.worker import registry
    from services import bot_specs

    bots = bot_specs.load_bots()
    if "openspiel-ismcts" not in bots:
        pytest.skip("the openspiel bots are not in this install's tavola.bots entry points (reinstall the project)")
    spec, options = bot_specs.resolve("openspiel-ismcts:budget_ms=20,c=1.5", "borgia")
    assert spec is specs.OPENSPIEL_ISMCTS and options["c"] == 1.5
    with pytest.raises(BotError):
        bot_specs.resolve("openspiel-ismcts:budget_ms=0,iterations=0")
    assert registry.make_strategy("openspiel-random", "pecunia")


def test_without_openspiel_the_bots_say_what_to_install(monkeypatch):
    monkeypatch.setattr(adapter, "pyspiel", None)
    with pytest.raises(BotError, match=r"tavola\[openspiel\]"):
        os_bots.make_ismcts("borgia", {"budget_ms": 10, "iterations": 0, "c": 0.7})
    with pytest.raises(adapter.OpenSpielMissing):
        adapter.TavolaGame("borgia")

"""The game-agnostic ISMCTS bot (bots/search/ismcts.py) plays only legal actions in every hosted
game, from its seat's view, and beats random play. Budgets here are iteration counts, so
every run is deterministic (no timing)."""

import math
import random
from collections import Counter
from types import SimpleNamespace

import pytest

from bots.lab.offline import play
from bots.mortadella.roles import BELIEF_SHARPNESS, candidates, progress, role_belief
from bots.search.determinizations import sampler
from bots.search.ismcts import Node, _overruled, _ranking, search
from bots.search.makers import heuristic_policy
from bots.search.strategies import random_legal
from bots.worker.registry import make_strategy
from services.engine.api import Outcome
from services.engine.rng import Rng
from services.mortadella.model import GuessRole
from services.registry import game_ids, get_game


@pytest.mark.parametrize("game_id", game_ids())
@pytest.mark.parametrize(
    "variant", ["plain", "heuristic rollouts", "modelled opponents", "flat with a prior", "all", "no widening"]
)
def test_it_chooses_a_legal_action_from_its_view_in_every_game(game_id, variant):
    game = get_game(game_id)
    engine = game.engine
    heuristic = heuristic_policy(game_id)
    options = {
        "plain": {},
        "heuristic rollouts": {"rollout": heuristic},
        "modelled opponents": {"opponent": heuristic},
        "flat with a prior": {"prior": heuristic, "depth": 1},
        "all": {"rollout": heuristic, "opponent": heuristic, "prior": heuristic, "bias": 1.0},
        "no widening": {"opponent": heuristic, "prior": heuristic, "widen": 0},
    }[variant]
    rng = random.Random(3)
    for players in (2, 4):
        state, _ = engine.new_game(players, {}, players)
        searched = 0
        while (deciders := engine.deciders(state)) and searched < 4:
            seat = rng.choice(deciders)
            legal = engine.legal_actions(state, seat)
            if len(legal) > 1 and rng.random() < 0.5:
                result = search(game, engine.view(state, seat), seat, legal, rng, iterations=15, budget_ms=0, **options)
                assert result.action in legal
                assert result.iterations == 15
                assert set(result.visits) <= set(legal) and sum(result.visits.values()) == 15
                searched += 1
                action = result.action
            else:
                action = rng.choice(legal)
            state, _ = engine.apply(state, seat, action)


@pytest.mark.parametrize("game_id", game_ids())
def test_the_bot_plays_whole_games_through_what_the_gateway_sends(game_id):
    """As the worker runs it: from the GetViewResponse, decoded with the game's codec."""
    ismcts = make_strategy("ismcts:level=5,iterations=8,budget_ms=0", game_id)
    outcome = play(get_game(game_id), [random_legal, ismcts], {}, seed=11)
    assert outcome is not None


@pytest.mark.slow
def test_it_beats_random_play_at_borgia():
    games = 16
    ismcts = make_strategy("ismcts:level=5,iterations=60,budget_ms=0", "borgia")
    borgia = get_game("borgia")
    wins = 0.0
    for seed in range(games):
        seats = [ismcts, random_legal] if seed % 2 == 0 else [random_legal, ismcts]
        winners = play(borgia, seats, {}, seed).winners
        if seats.index(ismcts) in winners:
            wins += 1 / len(winners)
    assert wins >= 0.65 * games, wins


def test_the_ranking_lists_the_heuristics_choices_in_order():
    game = get_game("pecunia")
    state, _ = game.engine.new_game(2, {}, 4)
    seat = game.engine.deciders(state)[0]
    legal = game.engine.legal_actions(state, seat)
    view = game.engine.view(state, seat)
    order = _ranking(heuristic_policy("pecunia"), game, view, seat, legal, random.Random(0))
    assert order[0] == heuristic_policy("pecunia")(game, view, seat, legal, random.Random(0))
    assert len(set(order)) == len(order) == min(len(legal), 16) and set(order) <= set(legal)


def test_a_single_legal_action_is_played_without_searching():
    game = get_game("borgia")
    state, _ = game.engine.new_game(2, {}, 1)
    seat = game.engine.deciders(state)[0]
    only = game.engine.legal_actions(state, seat)[:1]
    result = search(game, game.engine.view(state, seat), seat, only, random.Random(0), iterations=10, budget_ms=0)
    assert (result.action, result.iterations) == (only[0], 0)


def _searched_positions(game_id: str, count: int) -> list[tuple]:
    """(view, seat, legal) at decisions with a choice along a seeded random game."""
    engine = get_game(game_id).engine
    rng = random.Random(5)
    state, _ = engine.new_game(2, {}, 5)
    found = []
    while (deciders := engine.deciders(state)) and len(found) < count:
        seat = rng.choice(deciders)
        legal = engine.legal_actions(state, seat)
        if len(legal) > 1:
            found.append((engine.view(state, seat), seat, legal))
        state, _ = engine.apply(state, seat, rng.choice(legal))
    return found


@pytest.mark.parametrize("game_id", game_ids())
def test_a_slip_is_a_legal_action_played_without_searching(game_id):
    """slips=1: every unsettled decision is a uniformly random legal action, unsearched."""
    game = get_game(game_id)
    heuristic = heuristic_policy(game_id)
    for view, seat, legal in _searched_positions(game_id, 12):
        result = search(
            game, view, seat, legal, random.Random(1), iterations=8, budget_ms=0, prior=heuristic, slips=1.0
        )
        assert result.action in legal
        assert (result.iterations, result.visits) == (0, {})


@pytest.mark.parametrize("game_id", game_ids())
def test_slips_0_plays_exactly_as_the_search_without_them(game_id):
    """No draw is made at 0: the same choices, playouts and random state as before the option."""
    game = get_game(game_id)
    heuristic = heuristic_policy(game_id)
    settings = {"iterations": 6, "budget_ms": 0, "opponent": heuristic, "prior": heuristic, "overrule": 2.0}
    for view, seat, legal in _searched_positions(game_id, 4):
        before, after = random.Random(2), random.Random(2)
        plain = search(game, view, seat, legal, before, **settings)
        slipless = search(game, view, seat, legal, after, **settings, slips=0.0)
        assert slipless == plain
        assert after.getstate() == before.getstate()


def _node(visits: int, wins: float) -> Node:
    node = Node()
    node.visits, node.total = visits, wins
    return node


def test_the_heuristics_choice_stands_against_a_lead_within_the_noise():
    # 12/20 against 10/20 is a lead of 0.1, about 0.6 standard errors.
    kids = {"favourite": _node(20, 10), "other": _node(20, 12)}
    assert _overruled(kids, "favourite", 2.0) == "favourite"
    assert _overruled(kids, "favourite", 0.5) == "other"


def test_a_clear_lead_overrules_the_heuristic_and_the_largest_lead_wins():
    kids = {"favourite": _node(40, 10), "better": _node(40, 24), "best": _node(40, 30), "rare": _node(1, 1)}
    assert _overruled(kids, "favourite", 2.0) == "best"  # "rare" has one playout: not evidence


def test_search_with_overrule_keeps_the_priors_choice_when_playouts_are_few():
    game = get_game("pecunia")
    heuristic = heuristic_policy("pecunia")
    engine = game.engine
    state, _ = engine.new_game(2, {}, 4)
    seat = engine.deciders(state)[0]
    legal, view = engine.legal_actions(state, seat), engine.view(state, seat)
    favourite = _ranking(heuristic, game, view, seat, legal, random.Random(0))[0]
    # Two playouts can never lead by two standard errors.
    result = search(game, view, seat, legal, random.Random(0), iterations=2, budget_ms=0, prior=heuristic, overrule=2.0)
    assert result.action == favourite


class _Draw:
    """A one-decision game: seat 0 picks an action, then the hidden seed decides, a win
    when ``seed % 100`` is below that action's chance. Every determinization redraws the seed."""

    def __init__(self, chances: tuple[int, ...]):
        self.chances = chances

    def sample(self, view, seat, rng):
        return ("to play", rng.next_u64())

    def player_count(self, state):
        return 2

    def deciders(self, state):
        return (0,) if state[0] == "to play" else ()

    def legal_actions(self, state, seat):
        return list(range(len(self.chances)))

    def apply(self, state, seat, action):
        return ("won" if state[1] % 100 < self.chances[action] else "lost", state[1]), []

    def outcome(self, state):
        return None if state[0] == "to play" else Outcome(winners=(0,) if state[0] == "won" else (1,), summary="")

    def view(self, state, seat):
        return None


def _first(game, view, seat, legal, rng):
    return legal[0]


def _paired(chances: tuple[int, ...], iterations: int) -> object:
    game = SimpleNamespace(engine=_Draw(chances))
    legal = list(range(len(chances)))
    return search(
        game, None, 0, legal, random.Random(5), iterations=iterations, budget_ms=0, prior=_first, overrule=2, paired=4
    )  # type: ignore[arg-type]


def test_paired_playouts_overrule_the_heuristic_for_a_clearly_better_action():
    result = _paired((30, 30, 60, 30), iterations=60)
    assert result.action == 2 and result.iterations == 60


def test_paired_playouts_keep_the_heuristics_choice_when_no_action_differs():
    """Every candidate meets the same seeds: equal chances give equal outcomes, no lead at all."""
    assert _paired((40, 40, 40, 40), iterations=60).action == 0


def _clocked_paired_search(monkeypatch, step: float, budget_ms: float, candidates: int):
    """A paired search on a clock that reads ``step`` seconds later at every reading; the
    result and the readings."""
    readings: list[float] = []

    def perf_counter() -> float:
        readings.append(step * (len(readings) + 1))
        return readings[-1]

    monkeypatch.setattr("bots.search.clock._now", perf_counter)
    game = SimpleNamespace(engine=_Draw((40,) * candidates))
    legal = list(range(candidates))
    result = search(game, None, 0, legal, random.Random(5), budget_ms=budget_ms, prior=_first, paired=candidates)  # type: ignore[arg-type]
    return result, readings


def test_paired_search_begins_a_round_only_when_the_time_left_covers_one(monkeypatch):
    """Two candidates, each clock reading 20 ms later, 100 ms: the deadline is read at 20 ms
    (so 120 ms), the start at 40 ms, the two playouts end at 60 and 80 ms and the round at
    100 ms; a round as long (60 ms) would end past the deadline: none is begun."""
    result, readings = _clocked_paired_search(monkeypatch, 0.02, 100, 2)
    assert result.iterations == 1 and readings[-1] == pytest.approx(0.10)


def test_paired_search_out_of_time_in_its_first_round_plays_the_favourite(monkeypatch):
    """Four candidates, each clock reading 80 ms later, 100 ms: the first playout ends past the
    deadline (240 ms against 180 ms); the round is dropped uncounted and the prior's choice
    stands."""
    result, _ = _clocked_paired_search(monkeypatch, 0.08, 100, 4)
    assert result.iterations == 0 and result.action == 0 and not any(result.visits.values())


@pytest.mark.parametrize("game_id", game_ids())
def test_paired_search_chooses_among_the_heuristics_first_choices_in_every_game(game_id):
    game = get_game(game_id)
    engine = game.engine
    heuristic = heuristic_policy(game_id)
    rng = random.Random(4)
    state, _ = engine.new_game(3, {}, 3)
    searched = 0
    while (deciders := engine.deciders(state)) and searched < 4:
        seat = rng.choice(deciders)
        legal = engine.legal_actions(state, seat)
        view = engine.view(state, seat)
        action = rng.choice(legal)
        if len(legal) > 2:
            settings = {"rollout": heuristic, "opponent": heuristic, "prior": heuristic, "overrule": 2.0}
            result = search(game, view, seat, legal, rng, iterations=6, budget_ms=0, paired=2, **settings)
            assert result.iterations == 6
            assert result.action in _ranking(heuristic, game, view, seat, legal, random.Random(0), limit=len(legal))
            searched += 1
            action = result.action
        state, _ = engine.apply(state, seat, action)


def _mortadella_view_with_opponent_tokens(game, tokens: int):
    """Seat 0's view in a 2-player game where the opponent's role is hidden and it holds
    at least ``tokens`` tokens."""
    engine = game.engine
    rng = random.Random(8)
    for seed in range(100):
        state, _ = engine.new_game(2, {}, seed)
        while deciders := engine.deciders(state):
            seat = deciders[0]
            view = engine.view(state, seat)
            if seat == 0 and view.seats[1].role is None and sum(view.seats[1].tokens) >= tokens:
                return view
            legal = [a for a in engine.legal_actions(state, seat) if not isinstance(a, GuessRole)]
            state, _ = engine.apply(state, seat, rng.choice(legal))
    raise AssertionError("no such state in 100 games")


def test_the_mortadella_belief_draws_roles_that_the_tokens_point_to():
    """M14, M18: a hidden role is redrawn among those the seat cannot rule out, weighted by how
    far the player's tokens went toward that role's victory row."""
    game = get_game("mortadella")
    view = _mortadella_view_with_opponent_tokens(game, 4)
    likelihood = role_belief(game, view, 0)
    roles = candidates(view, 0, 1)
    made = {role: progress(role, view.seats[1].tokens) for role in roles}
    weights = {role: math.exp(BELIEF_SHARPNESS * (value - max(made.values()))) for role, value in made.items()}
    assert len(roles) > 1 and min(weights.values()) < 0.5  # the tokens tell the roles apart
    draw = sampler(game, view, 0, random.Random(9), role_belief)
    counts = Counter(draw().roles[1] for _ in range(3000))
    assert set(counts) <= set(roles)
    for role in roles:
        expected = weights[role] / sum(weights.values())
        assert abs(counts[role] / 3000 - expected) < 0.04, (role, counts, weights)
    assert max(likelihood(game.engine.sample(view, 0, Rng(seed))) for seed in range(50)) == 1.0

"""The search's decisions, pinned: for fixed positions, seeds and iteration counts,
``bots.search.ismcts.search`` picks the actions (and gives the root actions the visits) recorded
in ``search_golden.json`` from the code before its steps were split into named functions.
A change that alters what the bot plays shows here; one that only reorganises does not.

Re-record only for a change meant to alter the decisions:

    python -m tests.bots.test_search_golden --record
"""

import json
import random
import sys
from pathlib import Path

import pytest

from bots.search.ismcts import search
from bots.search.makers import heuristic_policy, search_belief, sharp_policy
from services.registry import get_game

GOLDEN = Path(__file__).with_name("search_golden.json")
GAMES = ("borgia", "mortadella", "pecunia")
VARIANTS = (
    "plain",
    "heuristic rollouts",
    "modelled opponents",
    "flat with a prior",
    "the default bot",
    "deep, no widening",
    "belief",
    "paired",
)
ITERATIONS = 16
# Variants whose playouts call a heuristic at every step run fewer iterations, to keep the test short.
HEAVY = {"heuristic rollouts": 6, "belief": 6, "paired": 3}
POSITIONS = 3  # per player count


def _settings(game_id: str, variant: str) -> dict:
    heuristic, sharp = heuristic_policy(game_id), sharp_policy(game_id)
    default = {"opponent": heuristic, "prior": heuristic, "overrule": 2.0}
    return {
        "plain": {},
        "heuristic rollouts": {"rollout": heuristic, "c": 1.2},
        "modelled opponents": {"opponent": heuristic, "epsilon": 0.3},
        "flat with a prior": {"prior": heuristic, "depth": 1, "bias": 2.0},
        "the default bot": default,
        "deep, no widening": {**default, "widen": 0, "depth": 3, "overrule": 0.0},
        "belief": {**default, "rollout": sharp, "prior": sharp, "belief": search_belief(game_id)},
        "paired": {**default, "rollout": sharp, "prior": sharp, "paired": 4},
    }[variant]


def decisions(game_id: str, variant: str) -> list[dict]:
    """Positions along a few random games, each searched with a seed of its own."""
    game = get_game(game_id)
    engine = game.engine
    settings = _settings(game_id, variant)
    iterations = HEAVY.get(variant, ITERATIONS)
    recorded: list[dict] = []
    for players in (2, 3):
        rng = random.Random(players)
        state, _ = engine.new_game(players, {}, players)
        step, searched = 0, 0
        while (deciders := engine.deciders(state)) and searched < POSITIONS:
            seat = rng.choice(deciders)
            legal = engine.legal_actions(state, seat)
            step += 1
            if len(legal) > 1 and step % 3 == 0:
                seed = 1000 * players + step
                result = search(
                    game,
                    engine.view(state, seat),
                    seat,
                    legal,
                    random.Random(seed),
                    iterations=iterations,
                    budget_ms=0,
                    **settings,
                )
                searched += 1
                recorded.append(
                    {
                        "players": players,
                        "step": step,
                        "seed": seed,
                        "action": repr(result.action),
                        "visits": sorted((repr(a), n) for a, n in result.visits.items()),
                    }
                )
            state, _ = engine.apply(state, seat, rng.choice(legal))
    return recorded


def _recorded() -> dict:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("game_id", GAMES)
def test_the_search_decides_as_recorded(game_id, variant):
    expected = _recorded()[game_id][variant]
    assert expected, "nothing recorded"
    got = json.loads(json.dumps(decisions(game_id, variant)))
    assert got == expected


if __name__ == "__main__" and "--record" in sys.argv:
    table = {game_id: {variant: decisions(game_id, variant) for variant in VARIANTS} for game_id in GAMES}
    GOLDEN.write_text(json.dumps(table, indent=1) + "\n")
    print(f"recorded {sum(len(v) for g in table.values() for v in g.values())} decisions in {GOLDEN.name}")

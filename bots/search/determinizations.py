"""How a search draws its determinizations: full states consistent with what its seat sees
(``engine.sample``), uniform or weighed by a per-game belief (``bots.search.policy.Belief``)."""

import random
from collections.abc import Callable
from typing import Any

from bots.search.policy import Belief
from services.engine.api import Game
from services.engine.rng import Rng


def sampler(game: Game, view: Any, seat: int, rng: random.Random, belief: "Belief | None") -> Callable[[], Any]:
    """Draws determinizations: uniform among the states consistent with the view
    (``engine.sample``), or, with a ``belief``, kept with the probability it gives each draw
    (rejection sampling), so the hidden information follows what the seat can infer from
    the others' play (e.g. which role a player's tokens point to)."""
    sample = game.engine.sample
    if belief is None:
        return lambda: sample(view, seat, Rng(rng.getrandbits(64)))
    likelihood = belief(game, view, seat)

    def draw() -> Any:
        for _ in range(_MAX_REJECTIONS):
            state = sample(view, seat, Rng(rng.getrandbits(64)))
            if rng.random() < likelihood(state):
                return state
        return state  # an unlikely view: take the last draw rather than stall

    return draw


_MAX_REJECTIONS = 32

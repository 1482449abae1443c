"""Coin guess's playbook for tavola's search bot, from the game's own distribution: one
entry point (``tavola.playbooks``: ``coin = coin_playbook:PLAYBOOK``) and no tavola file
naming it, as a game from another package would give its own.

- heuristic ``tell``: guess one's own face. What a player guesses then shows the coin it
  holds (a tell);
- belief ``reads_tells``: the others play so, so a state whose coins disagree with their
  guesses is unlikely;
- levels: a schedule of its own (halving the share of random decisions level by level).
"""

import random
from collections.abc import Callable, Sequence
from typing import Any

from coin_game import State, View

from bots.search.playbooks import Levels, Playbook

UNLIKELY = 0.01  # a determinization the others' guesses contradict


def tell(game: Any, view: View, seat: int, legal: Sequence[int], rng: random.Random) -> int:
    return view.own_coin if view.own_coin in legal else legal[0]


def reads_tells(game: Any, view: View, seat: int) -> Callable[[State], float]:
    def likelihood(state: State) -> float:
        told = [other for other in (0, 1) if other != seat and view.guesses[other]]
        return 1.0 if all(view.guesses[other] == state.coins[other] for other in told) else UNLIKELY

    return likelihood


PLAYBOOK = Playbook(
    game_id="coin",
    heuristic=tell,
    belief="coin_playbook:reads_tells",
    levels=Levels(("1", "0.5", "0.25", "0.12", "0.06", "0.03", "0.01", "0")),
)

"""A game-agnostic search bot: single-observer information-set MCTS (SO-ISMCTS, Cowling,
Powley & Whitehouse 2012), built only on the engine protocol, so it plays any hosted game.

Each iteration draws one determinization, a full state consistent with what the bot's seat
sees (``engine.sample``), and walks one shared tree with it:

- selection: at each node the seat to decide is the bot's at the root and a random one of
  ``engine.deciders`` below it; among that seat's legal actions *in this determinization*
  it expands an untried one, or picks the child with the best UCB score, where the
  exploration term counts how often the child was available rather than the parent's
  visits (availability counts: an action legal in few determinizations is not starved);
- rollout: to the end of the game, with random actions or the game's heuristic policy
  (fed ``engine.view`` of the sampled state, so it sees only what its seat would);
- backpropagation: every seat's reward is ``1/len(winners)`` if it won, else 0; each node
  adds the reward of the seat whose action led to it, so every seat maximises its own.

Children are keyed by (seat, action): engine actions are hashable values. The answer is
the root action of the bot's seat visited most often.
"""

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bots.policy import Policy
from services.engine.api import Game
from services.engine.rng import Rng


class Node:
    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.avail = 1  # times this node's action was legal when its parent chose among its siblings
        self.total = 0.0  # summed reward of the seat whose action leads here
        self.children: dict[int, dict[Any, Node]] = {}  # deciding seat -> action -> child


@dataclass(frozen=True)
class SearchResult:
    action: Any
    iterations: int
    visits: dict[Any, int]  # root action -> visits


def search(
    game: Game,
    view: Any,
    seat: int,
    legal: Sequence[Any],
    rng: random.Random,
    *,
    iterations: int = 0,
    budget_ms: float = 200,
    c: float = 0.7,
    rollout: Policy | None = None,
) -> SearchResult:
    """Search from ``seat``'s view until ``iterations`` (0: no limit) or ``budget_ms``
    (0: no limit) runs out, whichever comes first; at least one iteration runs."""
    if not legal:
        raise ValueError("the seat has no legal action")
    if len(legal) == 1:
        return SearchResult(legal[0], 0, {})
    engine = game.engine
    deciders_of, legal_of, apply, outcome = engine.deciders, engine.legal_actions, engine.apply, engine.outcome
    observe = engine.view
    uniform = rng.random  # int(uniform() * n) is a cheaper randrange(n) for these small n
    root = Node()
    root_legal = tuple(legal)  # the same in every determinization (the sample's contract)
    deadline = time.perf_counter() + budget_ms / 1000 if budget_ms > 0 else math.inf
    done = 0
    while True:
        state = engine.sample(view, seat, Rng(rng.getrandbits(64)))
        node, path, players = root, [], engine.player_count(state)

        # Selection and expansion, down the tree while every child of the decider was tried.
        decider, actions = seat, root_legal
        while True:
            kids = node.children.get(decider)
            if kids is None:
                kids = node.children[decider] = {}
            untried = []
            best, best_score = None, -math.inf
            for action in actions:
                child = kids.get(action)
                if child is None:
                    untried.append(action)
                    continue
                child.avail += 1
                if not untried:
                    score = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                    if score > best_score:
                        best, best_score = action, score
            if untried:
                action = untried[int(uniform() * len(untried))]
                child = kids[action] = Node()
            else:
                action, child = best, kids[best]
            state, _ = apply(state, decider, action)
            path.append((child, decider))
            node = child
            deciders = deciders_of(state)
            if not deciders or untried:
                break
            decider = deciders[int(uniform() * len(deciders))] if len(deciders) > 1 else deciders[0]
            actions = legal_of(state, decider)

        # Rollout to the end of the game.
        while deciders:
            decider = deciders[int(uniform() * len(deciders))] if len(deciders) > 1 else deciders[0]
            actions = legal_of(state, decider)
            if rollout is None or len(actions) == 1:
                action = actions[int(uniform() * len(actions))]
            else:
                action = rollout(game, observe(state, decider), decider, actions, rng)
            state, _ = apply(state, decider, action)
            deciders = deciders_of(state)

        # Backpropagation: each node scores the reward of the seat that chose it.
        winners = outcome(state).winners
        share = 1.0 / len(winners) if winners else 0.0
        rewards = [share if s in winners else 0.0 for s in range(players)]
        for child, chooser in path:
            child.visits += 1
            child.total += rewards[chooser]

        done += 1
        if (iterations and done >= iterations) or time.perf_counter() >= deadline:
            break
    kids = root.children[seat]
    visits = {action: child.visits for action, child in kids.items()}
    best = max(visits.values())
    return SearchResult(rng.choice([a for a in root_legal if visits.get(a) == best]), done, visits)


def ismcts_policy(
    *, iterations: int = 0, budget_ms: float = 200, c: float = 0.7, rollout: Policy | None = None
) -> Policy:
    """An engine-level policy that searches each decision."""

    def policy(game: Game, view: Any, seat: int, legal: Sequence[Any], rng: random.Random) -> Any:
        return search(
            game, view, seat, legal, rng, iterations=iterations, budget_ms=budget_ms, c=c, rollout=rollout
        ).action

    return policy

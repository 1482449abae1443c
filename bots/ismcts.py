"""A game-agnostic search bot: information-set MCTS (after SO-ISMCTS, Cowling, Powley &
Whitehouse 2012), built only on the engine protocol, so it plays any hosted game.

Each iteration draws one determinization, a full state consistent with what the bot's seat
sees (``engine.sample``), and walks one shared tree with it:

- selection: where the bot's seat decides, among its legal actions *in this
  determinization* it expands an untried one, or picks the child with the best UCB score,
  where the exploration term counts how often the child was available rather than the
  parent's visits (availability counts: an action legal in few determinizations is not
  starved). Where another seat decides, either
  - ``opponent`` (an opponent model, usually the game's heuristic policy) chooses for it
    from *that seat's own view of the determinization*, so opponents act on their sampled
    dice and hands instead of one choice shared by every determinization; the tree then
    branches on the bot's decisions only; or, without a model,
  - the tree branches on that seat's actions too, with UCB on its own reward (plain SO-ISMCTS);
- ``depth`` caps how many of the bot's decisions the tree holds (1: flat Monte Carlo over
  the root actions, which is often better when a decision gets few playouts);
- rollout: to the end of the game, with random actions or the ``rollout`` policy (fed
  ``engine.view`` of the sampled state, so it sees only what its seat would);
- backpropagation: every seat's reward is ``1/len(winners)`` if it won, else 0; each node
  adds the reward of the seat whose action led to it, so every seat maximises its own.

``prior`` (usually the game's heuristic) gives, at the bot's own nodes, the action it would
choose a bonus worth ``bias`` wins that fades as the child is visited (progressive bias).

Children are keyed by (seat, action): engine actions are hashable values. The answer is
the root action of the bot's seat visited most often; with ``overrule`` and a ``prior``, it
is the prior's favourite unless another root action's mean reward leads it by more than
``overrule`` standard errors (at a few dozen playouts per decision, visit counts alone
follow noise, and a sound heuristic's choice is the better bet).

Two further settings:
- ``paired``: no tree; the prior's first N choices are each played out from the same
  determinization with the same rollout seed (common random numbers), so their outcomes
  differ only through the choice; the favourite stands unless another's mean paired lead
  clears ``overrule`` standard errors (see ``_compare``);
- ``belief``: a per-game likelihood of each determinization (``bots.policy.Belief``);
  draws are kept in proportion to it, so hidden information follows what the others'
  play reveals, not only what the rules allow.
"""

import inspect
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bots import clock
from bots.policy import Belief, Policy
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
    opponent: Policy | None = None,
    epsilon: float = 0.1,
    prior: Policy | None = None,
    bias: float = 1.0,
    depth: int = 0,
    widen: float = 1.0,
    overrule: float = 0.0,
    paired: int = 0,
    belief: "Belief | None" = None,
) -> SearchResult:
    """Search from ``seat``'s view until ``iterations`` (0: no limit) or ``budget_ms``
    (0: no limit) runs out, whichever comes first; at least one iteration runs (a paired
    comparison keeps to the budget: out of time in its first round, the prior's favourite stands).
    ``opponent`` plays other seats in the tree (with a random action one time in
    ``1/epsilon``); ``depth`` 0 lets the tree grow without limit."""
    if not legal:
        raise ValueError("the seat has no legal action")
    if len(legal) == 1:
        return SearchResult(legal[0], 0, {})
    engine = game.engine
    deciders_of, legal_of, apply, outcome = engine.deciders, engine.legal_actions, engine.apply, engine.outcome
    observe = engine.view
    uniform = rng.random  # int(uniform() * n) is a cheaper randrange(n) for these small n
    sqrt, log = math.sqrt, math.log
    root = Node()
    root_legal = tuple(legal)  # the same in every determinization (the sample's contract)
    root_order = _ranking(prior, game, view, seat, root_legal, rng) if prior is not None else []
    deadline = clock.now() + budget_ms / 1000 if budget_ms > 0 else math.inf
    draw = _sampler(game, view, seat, rng, belief)
    if paired > 0:
        candidates = (root_order + [a for a in root_legal if a not in root_order])[:paired]
        return _compare(game, draw, seat, candidates, rng, iterations, deadline, rollout, opponent, epsilon, overrule)
    max_depth = depth if depth > 0 else math.inf
    done = 0
    while True:
        state = draw()
        node, path, players = root, [], engine.player_count(state)

        # Selection and expansion, down the tree while every child of the decider was tried.
        decider, own = seat, 0
        actions: Sequence[Any] = root_legal
        while True:
            if decider != seat and opponent is not None:
                # A modelled opponent: no node, it acts from its own view of this determinization.
                if len(actions) == 1:
                    action = actions[0]
                elif uniform() < epsilon:
                    action = actions[int(uniform() * len(actions))]
                else:
                    action = opponent(game, observe(state, decider), decider, actions, rng)
                state, _ = apply(state, decider, action)
                deciders = deciders_of(state)
                if not deciders:
                    break
                decider = deciders[int(uniform() * len(deciders))] if len(deciders) > 1 else deciders[0]
                actions = legal_of(state, decider)
                continue
            if decider == seat:
                if own >= max_depth:
                    break
                own += 1
            kids = node.children.get(decider)
            if kids is None:
                kids = node.children[decider] = {}
            favoured = None
            if prior is not None and decider == seat:
                favoured = (
                    (root_order[0] if root_order else None)
                    if node is root
                    else prior(game, observe(state, seat), seat, actions, rng)
                )
            # Progressive widening: a node holds about widen * sqrt(visits) children, so few
            # playouts are not spread over dozens of actions, each tried once.
            room = len(kids) < widen * sqrt(node.visits + 1) if widen > 0 else True
            untried = []
            best, best_score = None, -math.inf
            for action in actions:
                child = kids.get(action)
                if child is None:
                    untried.append(action)
                    continue
                child.avail += 1
                visits = child.visits
                score = child.total / visits + c * sqrt(log(child.avail) / visits)
                if action == favoured:
                    score += bias / (visits + 1)
                if score > best_score:
                    best, best_score = action, score
            expand = untried and (room or best is None)
            if expand:
                # The heuristic's choices first, so the prior is tried before the others.
                if node is root and root_order:
                    action = next((a for a in root_order if a not in kids), None)
                    if action is None:
                        action = untried[int(uniform() * len(untried))]
                elif favoured is not None and favoured in untried:
                    action = favoured
                else:
                    action = untried[int(uniform() * len(untried))]
                child = kids[action] = Node()
            else:
                action, child = best, kids[best]
            node.visits += node is root
            state, _ = apply(state, decider, action)
            path.append((child, decider))
            node = child
            deciders = deciders_of(state)
            if not deciders or expand:
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
        ended = outcome(state)
        assert ended is not None  # no seat decides: the game is over
        winners = ended.winners
        share = 1.0 / len(winners) if winners else 0.0
        rewards = [share if s in winners else 0.0 for s in range(players)]
        for child, chooser in path:
            child.visits += 1
            child.total += rewards[chooser]

        done += 1
        if (iterations and done >= iterations) or clock.now() >= deadline:
            break
    kids = root.children[seat]
    root_visits = {action: child.visits for action, child in kids.items()}
    if overrule > 0 and root_order and root_order[0] in kids:
        return SearchResult(_overruled(kids, root_order[0], overrule), done, root_visits)
    best = max(root_visits.values())
    tied = [a for a in root_legal if root_visits.get(a) == best]
    preferred = [a for a in root_order if a in tied]  # a tie goes to the heuristic's favourite
    return SearchResult(preferred[0] if preferred else rng.choice(tied), done, root_visits)


def _sampler(game: Game, view: Any, seat: int, rng: random.Random, belief: "Belief | None") -> Callable[[], Any]:
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


def _compare(
    game: Game,
    draw: Callable[[], Any],
    seat: int,
    candidates: Sequence[Any],
    rng: random.Random,
    iterations: int,
    deadline: float,
    rollout: Policy | None,
    opponent: Policy | None,
    epsilon: float,
    z: float,
) -> SearchResult:
    """Flat search with common random numbers: each iteration draws one determinization and
    one rollout seed, and plays every candidate root action out from that same state with
    that same seed. Outcomes of the candidates then differ only through the candidate (and
    what it changes downstream), so their paired differences tell a better action apart
    from a worse one with far fewer playouts than independent samples would. The first
    candidate (the prior's favourite) stands unless another's mean paired lead exceeds
    ``z`` standard errors (the largest such lead wins). The budget holds: a round is begun
    only when the time left covers one as long as the mean so far, and one that runs out of
    time (a playout checks the clock every 64 decisions) is dropped uncounted."""
    engine = game.engine
    deciders_of, legal_of, apply, outcome, observe = (
        engine.deciders,
        engine.legal_actions,
        engine.apply,
        engine.outcome,
        engine.view,
    )
    count = len(candidates)
    lead, lead_squares, played = [0.0] * count, [0.0] * count, [0] * count
    alive = list(range(count))  # the favourite (0) is always played: the others are measured against it
    done = 0
    started = clock.now()
    while True:
        sampled = draw()
        seed = rng.getrandbits(64)
        rewards = {}
        for i in alive:
            playout = random.Random(seed)
            uniform = playout.random
            state, _ = apply(sampled, seat, candidates[i])
            deciders = deciders_of(state)
            steps = 0
            while deciders:
                steps += 1
                if not steps % 64 and clock.now() > deadline:
                    break  # a long game out of time
                decider = deciders[int(uniform() * len(deciders))] if len(deciders) > 1 else deciders[0]
                actions = legal_of(state, decider)
                policy = rollout if decider == seat else (opponent or rollout)
                if len(actions) == 1:
                    action = actions[0]
                elif policy is None or (decider != seat and uniform() < epsilon):
                    action = actions[int(uniform() * len(actions))]
                else:
                    action = policy(game, observe(state, decider), decider, actions, playout)
                state, _ = apply(state, decider, action)
                deciders = deciders_of(state)
            if deciders:
                break  # out of time: this round is left unfinished and uncounted
            ended = outcome(state)
            assert ended is not None  # no seat decides: the game is over
            rewards[i] = 1.0 / len(ended.winners) if seat in ended.winners else 0.0
            if clock.now() > deadline:
                break  # out of time: this round is left unfinished and uncounted
        if len(rewards) < len(alive):
            break
        for i, reward in rewards.items():
            difference = reward - rewards[0]
            lead[i] += difference
            lead_squares[i] += difference * difference
            played[i] += 1
        done += 1
        # A candidate clearly behind the favourite gets no more playouts: they go to the contenders.
        alive = [i for i in alive if i == 0 or _paired_lead(lead[i], lead_squares[i], played[i], z) > -math.inf]
        if iterations and done >= iterations:
            break
        # A round plays every candidate to the end, so it can be long: one is begun only when
        # the time left covers a round as long as the mean so far, so the budget holds.
        now = clock.now()
        if now + (now - started) / done > deadline:
            break
    choice, best = 0, 0.0
    for i in alive[1:]:
        margin = _paired_lead(lead[i], lead_squares[i], played[i], z)
        if margin > best:
            choice, best = i, margin
    return SearchResult(candidates[choice], done, {a: played[i] for i, a in enumerate(candidates)})


_MIN_PAIRED = 3  # paired playouts before a candidate's lead or lag counts


def _paired_lead(total: float, squares: float, count: int, z: float) -> float:
    """How a candidate stands against the favourite after ``count`` paired playouts whose
    differences sum to ``total`` (and their squares to ``squares``): its mean lead when that
    exceeds ``z`` standard errors, -inf when its mean lag does, else 0 (undecided)."""
    if count < _MIN_PAIRED:
        return 0.0
    mean = total / count
    error = math.sqrt(max(squares / count - mean * mean, 0.0) / (count - 1))
    if mean > z * error and mean > 0:
        return mean
    if mean < -z * error and mean < 0:
        return -math.inf
    return 0.0


def _overruled(kids: dict[Any, Node], favourite: Any, z: float) -> Any:
    """The prior's favourite, unless another root action's mean reward beats it by more
    than ``z`` standard errors (the largest such lead wins): with a few dozen playouts per
    decision the visit counts are mostly noise, and a sound heuristic's choice is the
    better bet until the playouts clearly say otherwise."""
    anchor = kids[favourite]
    anchor_mean = anchor.total / anchor.visits
    choice, lead = favourite, 0.0
    for action, child in kids.items():
        if child is anchor or child.visits < 2:
            continue
        mean = child.total / child.visits
        p = min(max((mean + anchor_mean) / 2, 0.05), 0.95)  # a win rate's variance, kept off 0
        error = math.sqrt(p * (1 - p) * (1 / child.visits + 1 / anchor.visits))
        if mean - anchor_mean > max(z * error, lead):
            choice, lead = action, mean - anchor_mean
    return choice


def _ranking(
    policy: Policy, game: Game, view: Any, seat: int, legal: Sequence[Any], rng: random.Random, limit: int = 16
) -> list[Any]:
    """The policy's first ``limit`` choices in order: its choice, then its choice without it..."""
    left, order = list(legal), list[Any]()
    while left and len(order) < limit:
        try:
            action = policy(game, view, seat, left, rng) if len(left) > 1 else left[0]
        except Exception:  # a policy may assume actions a subset lacks: rank no further
            break
        if action not in left:
            break
        order.append(action)
        left.remove(action)
    return order


def ismcts_policy(**settings: Any) -> Policy:
    """An engine-level policy that searches each decision; ``settings`` are ``search``'s
    keyword arguments (budget, exploration, rollout and opponent policies...)."""
    inspect.signature(search).bind_partial(**settings)  # a misspelt setting fails here, not mid-game

    def policy(game: Game, view: Any, seat: int, legal: Sequence[Any], rng: random.Random) -> Any:
        return search(game, view, seat, legal, rng, **settings).action

    return policy

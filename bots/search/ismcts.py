"""A game-agnostic search bot: information-set MCTS (after SO-ISMCTS, Cowling, Powley &
Whitehouse 2012), built only on the engine protocol, so it plays any hosted game.

Each iteration draws one determinization, a full state consistent with what the bot's seat
sees (``engine.sample``), and walks one shared tree with it (the steps are the methods of
``_Tree``: ``select`` with ``descend``/``expand``, ``simulate``, ``back_up``, ``choose``):

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
- ``belief``: a per-game likelihood of each determinization (``bots.search.policy.Belief``);
  draws are kept in proportion to it (``bots.search.determinizations``), so hidden
  information follows what the others' play reveals, not only what the rules allow;
- ``extra``: further root candidates beside the prior's ranking (e.g. Borgia's decoy and
  quiet performs, ``self_read``), always among those compared; like any candidate, one
  replaces the prior's favourite only when the playouts clearly prefer it. With an
  ``opponent`` that reads the bot's own public play as the bot reads theirs, a move that
  gives the bot's hidden information away then costs what it costs in the playouts.
"""

import inspect
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bots.search import clock
from bots.search.determinizations import sampler
from bots.search.policy import Belief, Certain, Policy
from services.engine.api import Game


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
    certain: "Certain | None" = None,
    extra: Policy | None = None,
    slips: float = 0.0,
) -> SearchResult:
    """Search from ``seat``'s view until ``iterations`` (0: no limit) or ``budget_ms``
    (0: no limit) runs out, whichever comes first; at least one iteration runs (a paired
    comparison keeps to the budget: out of time in its first round, the prior's favourite stands).
    ``opponent`` plays other seats in the tree (with a random action one time in
    ``1/epsilon``); ``depth`` 0 lets the tree grow without limit. Where ``certain`` names
    the action the seat's own view proves right, that is played unsearched: noisy playouts
    must not overrule a certainty. ``extra`` (same arguments as a policy, returning a list
    of legal actions) names root candidates to compare beside the prior's first ``paired``.
    ``slips`` is the share of decisions played as a uniformly random legal action without
    searching (the search bot's weaker levels); a settled answer is never slipped on, so a
    slip never plays a move the seat's own view refutes. At 0 no draw is made: the search
    plays exactly as without it."""
    if not legal:
        raise ValueError("the seat has no legal action")
    if len(legal) == 1:
        return SearchResult(legal[0], 0, {})
    if certain is not None and (settled := certain(game, view, seat, legal)) is not None:
        return SearchResult(settled, 0, {})
    if slips > 0 and rng.random() < slips:
        return SearchResult(legal[int(rng.random() * len(legal))], 0, {})
    root_legal = tuple(legal)  # the same in every determinization (the sample's contract)
    root_order = _ranking(prior, game, view, seat, root_legal, rng) if prior is not None else []
    extras = [a for a in extra(game, view, seat, root_legal, rng) if a in root_legal] if extra is not None else []
    budget = clock.Budget(budget_ms / 1000)
    draw = sampler(game, view, seat, rng, belief)
    if paired > 0:
        candidates = (root_order + [a for a in root_legal if a not in root_order])[:paired]
        candidates += [a for a in dict.fromkeys(extras) if a not in candidates]
        compared = _compare(game, draw, seat, candidates, rng, iterations, budget, rollout, opponent, epsilon, overrule)
        clock.searched(compared.iterations)
        return compared
    if root_order:  # expanded early, after the prior's favourite (which stays the one overruled)
        root_order += [a for a in dict.fromkeys(extras) if a not in root_order]
    tree = _Tree(game, seat, root_legal, root_order, rng, c, rollout, opponent, epsilon, prior, bias, depth, widen)
    done = 0
    while True:
        state = draw()
        players = game.engine.player_count(state)
        state, path, deciders = tree.select(state)
        ended = tree.simulate(state, deciders)
        tree.back_up(path, ended, players)
        done += 1
        if (iterations and done >= iterations) or budget.over():
            break
    clock.searched(done)
    return tree.choose(done, overrule)


class _Tree:
    """One search's tree and the steps of an iteration on it: ``select`` (down the tree,
    expanding one node), ``simulate`` (a rollout to the end of the game), ``back_up`` (the
    rewards up the path) and, once the budget is spent, ``choose`` (the root action)."""

    def __init__(
        self,
        game: Game,
        seat: int,
        root_legal: tuple[Any, ...],
        root_order: list[Any],
        rng: random.Random,
        c: float,
        rollout: Policy | None,
        opponent: Policy | None,
        epsilon: float,
        prior: Policy | None,
        bias: float,
        depth: int,
        widen: float,
    ) -> None:
        engine = game.engine
        self.game, self.seat, self.rng = game, seat, rng
        self.deciders_of, self.legal_of, self.apply = engine.deciders, engine.legal_actions, engine.apply
        self.outcome, self.observe = engine.outcome, engine.view
        self.uniform = rng.random  # int(uniform() * n) is a cheaper randrange(n) for these small n
        self.root = Node()
        self.root_legal, self.root_order = root_legal, root_order
        self.c, self.bias, self.widen, self.epsilon = c, bias, widen, epsilon
        self.rollout, self.opponent, self.prior = rollout, opponent, prior
        self.max_depth = depth if depth > 0 else math.inf

    def pick_decider(self, deciders: Sequence[int]) -> int:
        return deciders[int(self.uniform() * len(deciders))] if len(deciders) > 1 else deciders[0]

    def select(self, state: Any) -> tuple[Any, list[tuple[Node, int]], Sequence[int]]:
        """Down the tree from the root while every child of the decider was tried, adding
        one node where one is untried; ``depth`` of the bot's own decisions at most. A
        modelled opponent acts from its own view of the determinization and adds no node.
        Returns the state reached, the path of (node, the seat that chose it) and who
        decides next (none: the game is over)."""
        seat, apply = self.seat, self.apply
        node, path = self.root, list[tuple[Node, int]]()
        decider, own = seat, 0
        actions: Sequence[Any] = self.root_legal
        deciders: Sequence[int] = ()
        while True:
            expanded = False
            if decider != seat and self.opponent is not None:
                state, _ = apply(state, decider, self.modelled(state, decider, actions))
            else:
                if decider == seat:
                    if own >= self.max_depth:
                        return state, path, deciders
                    own += 1
                action, child, expanded = self.descend(node, state, decider, actions)
                node.visits += node is self.root
                state, _ = apply(state, decider, action)
                path.append((child, decider))
                node = child
            deciders = self.deciders_of(state)
            if not deciders or expanded:
                return state, path, deciders
            decider = self.pick_decider(deciders)
            actions = self.legal_of(state, decider)

    def modelled(self, state: Any, decider: int, actions: Sequence[Any]) -> Any:
        """A modelled opponent's action: the model's choice from that seat's view, or one
        time in ``1/epsilon`` a random one."""
        uniform = self.uniform
        if len(actions) == 1:
            return actions[0]
        if uniform() < self.epsilon:
            return actions[int(uniform() * len(actions))]
        assert self.opponent is not None
        return self.opponent(self.game, self.observe(state, decider), decider, actions, self.rng)

    def descend(self, node: Node, state: Any, decider: int, actions: Sequence[Any]) -> tuple[Any, Node, bool]:
        """The child ``decider`` takes from ``node``: a new one (``expand``) while the node
        has room and an untried action, else the best by UCB. Returns (action, child, expanded)."""
        kids = node.children.get(decider)
        if kids is None:
            kids = node.children[decider] = {}
        favoured = self.favoured(node, state, decider, actions)
        best, untried = self.best_by_ucb(kids, actions, favoured)
        # Progressive widening: a node holds about widen * sqrt(visits) children, so few
        # playouts are not spread over dozens of actions, each tried once.
        room = len(kids) < self.widen * math.sqrt(node.visits + 1) if self.widen > 0 else True
        if untried and (room or best is None):
            action = self.expand(node, kids, untried, favoured)
            child = kids[action] = Node()
            return action, child, True
        return best, kids[best], False

    def favoured(self, node: Node, state: Any, decider: int, actions: Sequence[Any]) -> Any:
        """The prior's choice at the bot's own node (None elsewhere or without a prior)."""
        if self.prior is None or decider != self.seat:
            return None
        if node is self.root:
            return self.root_order[0] if self.root_order else None
        return self.prior(self.game, self.observe(state, self.seat), self.seat, actions, self.rng)

    def best_by_ucb(self, kids: dict[Any, Node], actions: Sequence[Any], favoured: Any) -> tuple[Any, list[Any]]:
        """The tried action with the best UCB score (availability counts: each child legal
        here is counted available once more), plus a progressive bias for the prior's
        choice; and the untried actions."""
        c, bias, sqrt, log = self.c, self.bias, math.sqrt, math.log
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
        return best, untried

    def expand(self, node: Node, kids: dict[Any, Node], untried: list[Any], favoured: Any) -> Any:
        """Which untried action gets a node: the heuristic's choices first, so the prior is
        tried before the others, then one at random."""
        if node is self.root and self.root_order:
            action = next((a for a in self.root_order if a not in kids), None)
            if action is not None:
                return action
        elif favoured is not None and favoured in untried:
            return favoured
        return untried[int(self.uniform() * len(untried))]

    def simulate(self, state: Any, deciders: Sequence[int]) -> Any:
        """A rollout to the end of the game, by random actions or the ``rollout`` policy
        (fed the view of the seat deciding); returns the game's outcome."""
        uniform, rollout, legal_of, apply, deciders_of = (
            self.uniform,
            self.rollout,
            self.legal_of,
            self.apply,
            self.deciders_of,
        )
        while deciders:
            decider = self.pick_decider(deciders)
            actions = legal_of(state, decider)
            if rollout is None or len(actions) == 1:
                action = actions[int(uniform() * len(actions))]
            else:
                action = rollout(self.game, self.observe(state, decider), decider, actions, self.rng)
            state, _ = apply(state, decider, action)
            deciders = deciders_of(state)
        ended = self.outcome(state)
        assert ended is not None  # no seat decides: the game is over
        return ended

    @staticmethod
    def back_up(path: list[tuple[Node, int]], ended: Any, players: int) -> None:
        """Each node on the path scores the reward of the seat that chose it: 1/len(winners)
        if that seat won, else 0, so every seat maximises its own."""
        winners = ended.winners
        share = 1.0 / len(winners) if winners else 0.0
        rewards = [share if s in winners else 0.0 for s in range(players)]
        for child, chooser in path:
            child.visits += 1
            child.total += rewards[chooser]

    def choose(self, done: int, overrule: float) -> SearchResult:
        """The root action visited most (a tie to the heuristic's favourite), or with
        ``overrule`` the prior's favourite unless the playouts clearly prefer another."""
        kids = self.root.children[self.seat]
        root_visits = {action: child.visits for action, child in kids.items()}
        if overrule > 0 and self.root_order and self.root_order[0] in kids:
            return SearchResult(_overruled(kids, self.root_order[0], overrule), done, root_visits)
        best = max(root_visits.values())
        tied = [a for a in self.root_legal if root_visits.get(a) == best]
        preferred = [a for a in self.root_order if a in tied]  # a tie goes to the heuristic's favourite
        return SearchResult(preferred[0] if preferred else self.rng.choice(tied), done, root_visits)


def _compare(
    game: Game,
    draw: Callable[[], Any],
    seat: int,
    candidates: Sequence[Any],
    rng: random.Random,
    iterations: int,
    budget: clock.Budget,
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
    started = budget.spent()
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
                if not steps % 64 and budget.over():
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
            if budget.over():
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
        spent = budget.spent()
        if spent + (spent - started) / done > budget.seconds:
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

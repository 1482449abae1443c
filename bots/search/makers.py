"""How the game-agnostic bots play: the functions that build their strategies, named by
their specs (``bots/search/specs.py``, registered in ``pyproject.toml`` under ``tavola.bots``
like any other), and ``<game>-heuristic`` bots, which play their game's playbook's heuristic.

What a game knows (its heuristic, its sharper variant, its beliefs, the answers its view
settles) comes from its playbook (``bots/search/playbooks.py``, the ``tavola.playbooks``
entry points), imported only when a bot plays the game, so loading the list of bots stays
cheap and a game without a playbook still gets the game-agnostic bots.
"""

from collections.abc import Mapping

from bots.search.ismcts import ismcts_policy
from bots.search.playbooks import code, playbook
from bots.search.policy import Belief, Certain, Policy, Strategy, policy_strategy
from bots.search.strategies import random_legal
from services.engine.api import OptionValue
from services.registry import get_game


def heuristic_policy(game_id: str) -> Policy | None:
    """The game's heuristic policy, or None for a game that has none."""
    target = playbook(game_id).heuristic
    return None if target is None else code(target)


def sharp_policy(game_id: str) -> Policy | None:
    """The game's sharper heuristic for a search bot's own seat, else its heuristic."""
    target = playbook(game_id).sharp
    return heuristic_policy(game_id) if target is None else code(target)


def search_belief(game_id: str) -> Belief | None:
    """The game's search belief, or None where the search draws hidden information uniformly."""
    target = playbook(game_id).belief
    return None if target is None else code(target)


def settled_answers(game_id: str) -> Certain | None:
    """The answers the game's views settle, or None for a game whose playbook has none."""
    target = playbook(game_id).settled
    return None if target is None else code(target)


def make_random(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    return random_legal


def make_heuristic(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    policy = heuristic_policy(game_id)
    assert policy is not None  # each heuristic bot's spec names only the games it has one for
    return policy_strategy(get_game(game_id), policy)


def _belief(game_id: str, kind: str) -> Belief | None:
    wary = playbook(game_id).wary_belief
    if kind == "wary":
        return search_belief(game_id) if wary is None else code(wary)
    return search_belief(game_id) if kind == "inferred" else None


def make_ismcts(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    # guide=none: no heuristic anywhere (plain SO-ISMCTS with random playouts), for low levels.
    heuristic = heuristic_policy(game_id) if options["guide"] == "heuristic" else None
    # rollout=sharp: the bot's own seat plays (and ranks its candidates) by the game's sharper
    # heuristic, while the others are still modelled by the plain one.
    own = (sharp_policy(game_id) if heuristic is not None else None) if options["rollout"] == "sharp" else heuristic
    # self_read=on: the others in its playouts read the bot's own public play as it reads
    # theirs (a reader policy models them); its own seat plays out and ranks its candidates
    # by a policy that hides from such readers, and the open moves and decoys are compared too.
    reading = options.get("self_read") == "on"
    book = playbook(game_id)
    self_read = book.self_read if reading and heuristic is not None else None
    opponent = code(self_read.reader) if self_read is not None else heuristic
    extra = code(self_read.candidates) if self_read is not None else None
    if self_read is not None and options["rollout"] != "random":
        own = code(self_read.hider)
    policy = ismcts_policy(
        iterations=int(options["iterations"]),
        budget_ms=float(options["budget_ms"]),
        c=float(options["c"]),
        rollout=own if options["rollout"] in ("heuristic", "sharp") else None,
        # Other seats act by the heuristic from their own view of each sampled state, and the
        # heuristic orders which of the bot's own actions are tried first. Without a heuristic
        # the opponents branch in the tree (plain SO-ISMCTS): a random model would be weaker.
        opponent=opponent,
        prior=own,
        overrule=float(options["overrule"]),
        # Paired playouts rank the candidates by the heuristic: without one, the tree.
        paired=int(options["paired"]) if heuristic is not None else 0,
        belief=_belief(game_id, str(options["belief"])) if heuristic is not None else None,
        certain=settled_answers(game_id),
        extra=extra,
        slips=float(options["slips"]),
    )
    return policy_strategy(get_game(game_id), policy)

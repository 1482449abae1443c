"""How tavola's own bots play: the functions that build their strategies, named by their
specs (``bots/specs.py``, registered in ``pyproject.toml`` under ``tavola.bots`` like any
other).

Each game's heuristic policy is imported only when a bot needs it, so loading the list of
bots stays cheap and a game without a heuristic still gets the game-agnostic bots.
"""

import importlib
from collections.abc import Mapping
from typing import Any

from bots.ismcts import ismcts_policy
from bots.policy import Belief, Policy, Strategy, policy_strategy
from bots.strategies import random_legal
from services.engine.api import OptionValue
from services.registry import get_game

# game id -> "module:attribute" of its engine-level heuristic policy (bots.policy.Policy)
HEURISTICS = {
    "borgia": "bots.borgia_heuristic:borgia_heuristic_policy",
    "mortadella": "bots.mortadella_heuristic:mortadella_heuristic_policy",
    "pecunia": "bots.pecunia_heuristic:pecunia_heuristic_policy",
}

# game id -> "module:attribute" of a sharper variant of its heuristic for the search bot's own
# seat (rollouts and candidate ranking, ``rollout=sharp``), where the game has one
SHARP = {
    "borgia": "bots.borgia_puppets:borgia_sharp_policy",
    "mortadella": "bots.mortadella_heuristic:mortadella_sharp_policy",
}

# game id -> "module:attribute" of its search belief (bots.policy.Belief): how likely each
# determinization is, from what the others' play so far reveals
BELIEFS = {
    "borgia": "bots.borgia_puppets:puppet_belief",
    "mortadella": "bots.mortadella_heuristic:role_belief",
}


# game id -> "module:attribute" of a search belief that expects deception (``belief=wary``):
# a mixture of an honest and a deceptive reading, weighed per player by its play
WARY_BELIEFS = {
    "borgia": "bots.borgia_puppets:wary_puppet_belief",
}

# game id -> ("module:attribute" of a policy that reads every seat's hidden information from its
# public play, "module:attribute" of the extra root candidates, "module:attribute" of the policy
# that plays and ranks the bot's own seat) for ``self_read=on``: the search's playouts model the
# others by the reader, so they read the bot as it reads them; its own seat plays out by a policy
# that keeps its secret from such readers, and the open moves are compared too, so it gives its
# secret away only where the playouts say that pays
SELF_READ = {
    "borgia": (
        "bots.borgia_puppets:borgia_sharp_policy",
        "bots.borgia_stealth:stealth_candidates",
        "bots.borgia_stealth:borgia_stealth_policy",
    ),
}

# game id -> "module:attribute" of the answers its own view settles (bots.policy.Certain), which
# the search plays without searching
CERTAIN = {
    "borgia": "bots.borgia_endgame:settled_answer",
    "mortadella": "bots.mortadella_heuristic:settled_answer",
    "pecunia": "bots.pecunia_heuristic:settled_answer",
}


def _load(targets: Mapping[str, str], game_id: str) -> Any:
    target = targets.get(game_id)
    if target is None:
        return None
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def heuristic_policy(game_id: str) -> Policy | None:
    """The game's heuristic policy, or None for a game that has none."""
    return _load(HEURISTICS, game_id)


def sharp_policy(game_id: str) -> Policy | None:
    """The game's sharper heuristic for a search bot's own seat, else its heuristic."""
    return _load(SHARP, game_id) or heuristic_policy(game_id)


def search_belief(game_id: str) -> Belief | None:
    """The game's search belief, or None where the search draws hidden information uniformly."""
    return _load(BELIEFS, game_id)


def make_random(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    return random_legal


def make_heuristic(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    policy = heuristic_policy(game_id)
    assert policy is not None  # each heuristic bot's spec names only the games it has one for
    return policy_strategy(get_game(game_id), policy)


def make_borgia_odds(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    from bots.borgia_odds import borgia_odds_policy

    return policy_strategy(get_game(game_id), borgia_odds_policy)


def _belief(game_id: str, kind: str) -> Belief | None:
    if kind == "wary":
        return _load(WARY_BELIEFS, game_id) or search_belief(game_id)
    return search_belief(game_id) if kind == "inferred" else None


def make_borgia_sly(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    from bots.borgia_stealth import borgia_stealth_policy

    return policy_strategy(get_game(game_id), borgia_stealth_policy)


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
    reader, hiding, hider = SELF_READ.get(game_id, (None, None, None)) if reading else (None, None, None)
    opponent = _load({game_id: reader}, game_id) if reader is not None and heuristic is not None else heuristic
    extra = _load({game_id: hiding}, game_id) if hiding is not None and heuristic is not None else None
    if hider is not None and heuristic is not None and options["rollout"] != "random":
        own = _load({game_id: hider}, game_id)
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
        certain=_load(CERTAIN, game_id),
        extra=extra,
        slips=float(options["slips"]),
    )
    return policy_strategy(get_game(game_id), policy)

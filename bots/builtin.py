"""tavola's own bots, registered in ``pyproject.toml`` under ``tavola.bots`` like any other.

Each game's heuristic policy is imported only when a bot needs it, so loading the list of
bots stays cheap and a game without a heuristic still gets the game-agnostic bots.
"""

import importlib
from collections.abc import Mapping
from typing import Any

from bots.ismcts import ismcts_policy
from bots.policy import Belief, Policy, Strategy, policy_strategy
from bots.registry import BAD_BOT_OPTION, BotError, BotOption, BotSpec, OptionValue
from bots.strategies import random_legal
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


# game id -> "module:attribute" of the answers its own view settles (bots.policy.Certain), which
# the search plays without searching
CERTAIN = {
    "borgia": "bots.borgia_odds:settled_answer",
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


def _make_random(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    return random_legal


def _make_heuristic(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    policy = heuristic_policy(game_id)
    assert policy is not None  # each heuristic bot's spec names only the games it has one for
    return policy_strategy(get_game(game_id), policy)


def _make_borgia_odds(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    from bots.borgia_odds import borgia_odds_policy

    return policy_strategy(get_game(game_id), borgia_odds_policy)


def _make_ismcts(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    heuristic = heuristic_policy(game_id)
    # rollout=sharp: the bot's own seat plays (and ranks its candidates) by the game's sharper
    # heuristic, while the others are still modelled by the plain one.
    own = sharp_policy(game_id) if options["rollout"] == "sharp" else heuristic
    policy = ismcts_policy(
        iterations=int(options["iterations"]),
        budget_ms=float(options["budget_ms"]),
        c=float(options["c"]),
        rollout=own if options["rollout"] in ("heuristic", "sharp") else None,
        # Other seats act by the heuristic from their own view of each sampled state, and the
        # heuristic orders which of the bot's own actions are tried first. Without a heuristic
        # the opponents branch in the tree (plain SO-ISMCTS): a random model would be weaker.
        opponent=heuristic,
        prior=own,
        overrule=float(options["overrule"]),
        # Paired playouts rank the candidates by the heuristic: without one, the tree.
        paired=int(options["paired"]) if heuristic is not None else 0,
        belief=search_belief(game_id) if options["belief"] == "inferred" else None,
        certain=_load(CERTAIN, game_id),
    )
    return policy_strategy(get_game(game_id), policy)


def _check_ismcts(options: Mapping[str, OptionValue]) -> None:
    if not options["budget_ms"] and not options["iterations"]:
        raise BotError(BAD_BOT_OPTION, "bot 'ismcts' needs budget_ms or iterations above 0, or it never stops")


RANDOM = BotSpec(
    name="random",
    description="Plays one of its legal actions uniformly at random.",
    strength=0,
    strength_note="The baseline every other bot is measured against.",
    make=_make_random,
)

BORGIA_ODDS = BotSpec(
    name="borgia-odds",
    description="Reads its own dice and puppet and plays the odds: calls unlikely bids, bids its best margin, "
    "helps its puppet up the ladder.",
    strength=30,
    strength_note="Beats random bots clearly; borgia-heuristic beats it four games to one.",
    make=_make_borgia_odds,
    games=("borgia",),
)

BORGIA_HEURISTIC = BotSpec(
    name="borgia-heuristic",
    description="Plays the odds like borgia-odds, and weighs what each action does to the standings: bids the "
    "action worth most to its puppet among bids likely to hold, and performs what leaves its puppet best placed.",
    strength=40,
    strength_note="Wins 90% of 2-player games against a random bot and about three times its fair share with more "
    "players; a search bot beats it.",
    make=_make_heuristic,
    games=("borgia",),
)

MORTADELLA_HEURISTIC = BotSpec(
    name="mortadella-heuristic",
    description="Hand-written rules for Il Trono di Mortadella, from its own view only.",
    strength=40,
    strength_note="Beats random bots; a search bot beats it.",
    make=_make_heuristic,
    games=("mortadella",),
)

PECUNIA_HEURISTIC = BotSpec(
    name="pecunia-heuristic",
    description="Hand-written rules for Pecunia non olet, from its own view only.",
    strength=40,
    strength_note="Beats random bots; a search bot beats it.",
    make=_make_heuristic,
    games=("pecunia",),
)

ISMCTS = BotSpec(
    name="ismcts",
    description="Information-set Monte Carlo tree search: plays out many games from states consistent with "
    "what it sees and picks the action that wins most. Plays every game.",
    strength=70,
    strength_note="At its default budget it beats random bots in every game (Borgia: 96% of 2-player games, "
    "about three times its fair share with 3 to 6 players) and is even with the Pecunia heuristic; the Mortadella "
    "heuristic still wins 55-45. Against heuristic players choose paired=8,rollout=sharp,belief=inferred in "
    "Borgia and Mortadella (Borgia: 90% against borgia-heuristic, whose performs give its puppet away; Mortadella: "
    "57%, 800 games), paired=8,rollout=heuristic in Pecunia (58%, 400 games). More time plays better.",
    make=_make_ismcts,
    check=_check_ismcts,
    options=(
        BotOption("budget_ms", "Thinking time per decision in milliseconds (0: no limit).", "int", "200", (), 0, 60000),
        BotOption("iterations", "Playouts per decision (0: no limit).", "int", "0", (), 0, 1_000_000),
        BotOption("c", "UCB exploration constant.", "float", "0.7", (), 0, 100),
        BotOption(
            "rollout",
            "How playouts choose: random, or the game's heuristic (random where the game has none), or "
            "sharp: the bot's own seat by a sharper heuristic where the game has one (Mortadella: two-player "
            "guesses by the odds of the deal and the tokens; Borgia: rumors aimed at the puppets the others' "
            "performs point to), which also ranks its candidates.",
            "enum",
            "random",
            ("random", "heuristic", "sharp"),
        ),
        BotOption(
            "overrule",
            "How sure the search must be to overrule the game's heuristic: the lead, in standard errors, "
            "another action's playouts need over the heuristic's choice (0: follow the playouts alone).",
            "float",
            "2.0",
            (),
            0,
            10,
        ),
        BotOption(
            "paired",
            "Where the game has a heuristic, compare only its first N choices, each played out from the "
            "same sampled states with the same dice (0: grow a search tree over every action instead). "
            "Stronger against heuristic players, weaker against random ones.",
            "int",
            "0",
            (),
            0,
            16,
        ),
        BotOption(
            "belief",
            "How it redraws what it cannot see: uniform, or inferred (weighted by what the others' play "
            "reveals, where the game has such a belief: Mortadella's roles from their tokens, Borgia's puppets "
            "from their performs; fitted on heuristic players).",
            "enum",
            "uniform",
            ("uniform", "inferred"),
        ),
    ),
)

"""An example third-party bot for tavola: the smallest complete plug-in.

It plays every game, from what the gateway sends its seat (the GetViewResponse): the first
of its legal actions, or the last with ``lazy:pick=last``. A real bot would read
``response.view`` (or decode it into the game's own values with ``bots.search.policy``).
"""

import random
from collections.abc import Mapping

from services.bot_specs import BotOption, BotSpec
from services.engine.api import OptionValue
from tavola.gateway.v1 import gateway_pb2
from tavola.rules.v1 import rules_pb2


def make(game_id: str, options: Mapping[str, OptionValue]):
    """Called once per game and options; returns the strategy the worker calls per decision."""
    index = 0 if options["pick"] == "first" else -1

    def strategy(response: gateway_pb2.GetViewResponse, rng: random.Random) -> rules_pb2.LegalAction:
        return response.legal_actions[index]

    return strategy


BOT = BotSpec(
    name="lazy",
    description="Plays the first (or last) of its legal actions, without looking at the table.",
    strength=0,
    strength_note="About as strong as a random bot.",
    make=make,
    options=(BotOption("pick", "Which legal action to play.", "enum", "first", ("first", "last")),),
)

"""How a bot chooses, at its simplest. A strategy sees exactly what its seat's player sees
(the GetViewResponse: the table, the seat's view and its legal actions), never the true state.

Bots are registered as plug-ins (``bots/worker/registry.py``, entry-point group
``tavola.bots``); the worker finds every bot there. These two play every game: ``random``,
the baseline, and the probe ``first-legal``.
"""

import random
from collections.abc import Mapping

from bots.search.policy import Strategy
from services.engine.api import OptionValue
from tavola.gateway.v1 import gateway_pb2
from tavola.rules.v1 import rules_pb2


def random_legal(view: gateway_pb2.GetViewResponse, rng: random.Random) -> rules_pb2.LegalAction:
    """Uniformly one of the seat's legal actions."""
    return rng.choice(list(view.legal_actions))


def first_legal(response: gateway_pb2.GetViewResponse, rng: random.Random) -> rules_pb2.LegalAction:
    """Always the seat's first legal action: a bot that loses to it is broken, not merely weak."""
    return response.legal_actions[0]


def make_first_legal(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    return first_legal

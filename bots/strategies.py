"""How a bot chooses. A strategy sees exactly what its seat's player sees (the
GetViewResponse: the table, the seat's view and its legal actions), never the true state.

Bots are registered as plug-ins (``bots/registry.py``, entry-point group ``tavola.bots``);
the worker finds every bot there. ``STRATEGIES`` names the bots the local stack and its
deploy files run a queue for by default.
"""

import random

from bots.borgia_odds import borgia_odds
from bots.policy import Strategy
from tavola.gateway.v1 import gateway_pb2
from tavola.rules.v1 import rules_pb2


def random_legal(view: gateway_pb2.GetViewResponse, rng: random.Random) -> rules_pb2.LegalAction:
    """Uniformly one of the seat's legal actions."""
    return rng.choice(list(view.legal_actions))


STRATEGIES: dict[str, Strategy] = {"random": random_legal, "borgia-odds": borgia_odds}

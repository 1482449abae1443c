"""How a bot chooses. A strategy sees exactly what its seat's player sees (the
GetViewResponse: the table, the seat's view and its legal actions), never the true state.

Add a bot by adding a function here (or in your own worker) and naming it in
TAVOLA_BOTS on the gateway; its seats are routed to the queue ``bots.<name>``.
"""

import random
from collections.abc import Callable

from bots.borgia_odds import borgia_odds
from tavola.gateway.v1 import gateway_pb2
from tavola.rules.v1 import rules_pb2

Strategy = Callable[[gateway_pb2.GetViewResponse, random.Random], rules_pb2.LegalAction]


def random_legal(view: gateway_pb2.GetViewResponse, rng: random.Random) -> rules_pb2.LegalAction:
    """Uniformly one of the seat's legal actions."""
    return rng.choice(list(view.legal_actions))


STRATEGIES: dict[str, Strategy] = {"random": random_legal, "borgia-odds": borgia_odds}

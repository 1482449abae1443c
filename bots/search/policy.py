"""Bots that think in a game's own values instead of protos.

A ``Policy`` chooses among a seat's legal actions from the engine's view of that seat
(``engine.view(state, seat)``), never the true state. The same policy therefore serves as
a bot through the gateway (``policy_strategy`` decodes what the gateway sends) and as the
rollout policy of a search bot, which calls it on the views of sampled states.
"""

import random
from collections.abc import Callable, Sequence
from typing import Any

from services.engine.api import Game
from tavola.gateway.v1 import gateway_pb2
from tavola.rules.v1 import rules_pb2

# (game, the seat's view, the seat, its legal actions, rng) -> one of those actions
Policy = Callable[[Game, Any, int, Sequence[Any], random.Random], Any]

# (game, the seat's view, the seat, its legal actions) -> the action the seat's own view
# proves right (e.g. calling a bid its own dice prove false), or None where it settles nothing.
Certain = Callable[[Game, Any, int, Sequence[Any]], Any]

# (game, a seat's view, the seat) -> how likely each state drawn by ``engine.sample`` for
# that view is, in (0, 1], relative to the likeliest: what the seat can infer beyond the
# rules' uniform redraw, e.g. from the others' play so far.
Belief = Callable[[Game, Any, int], Callable[[Any], float]]

# What the worker calls: the seat's GetViewResponse and a seeded rng -> one of its legal actions.
Strategy = Callable[[gateway_pb2.GetViewResponse, random.Random], rules_pb2.LegalAction]


def random_policy(game: Game, view: Any, seat: int, legal: Sequence[Any], rng: random.Random) -> Any:
    return legal[rng.randrange(len(legal))]


def decode_view(game: Game, response: gateway_pb2.GetViewResponse) -> Any:
    message = game.codec.view_type()()
    response.view.Unpack(message)
    return game.codec.view_from_proto(message)


def decode_legal(game: Game, response: gateway_pb2.GetViewResponse) -> list[Any]:
    """The engine actions of the response's legal actions, in the same order."""
    actions = []
    for option in response.legal_actions:
        message = game.codec.action_type()()
        option.action.Unpack(message)
        actions.append(game.codec.action_from_proto(message))
    return actions


def policy_strategy(game: Game, policy: Policy) -> Strategy:
    """A worker strategy from an engine-level policy."""

    def strategy(response: gateway_pb2.GetViewResponse, rng: random.Random) -> rules_pb2.LegalAction:
        legal = decode_legal(game, response)
        chosen = policy(game, decode_view(game, response), response.seat, legal, rng)
        return response.legal_actions[legal.index(chosen)]

    return strategy

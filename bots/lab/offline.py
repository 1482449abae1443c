"""Play strategies against each other on the pure engines, without the platform.

A strategy sees exactly the GetViewResponse the gateway would send (the seat's view and
its labelled legal actions), so what wins here plays the same through the gateway. Bot
authors use this to measure a strategy before deploying it.
"""

import random
from collections.abc import Sequence

from google.protobuf import any_pb2

from bots.search.strategies import Strategy
from services.engine.api import Game, Outcome
from tavola.gateway.v1 import gateway_pb2
from tavola.rules.v1 import rules_pb2


def _pack(message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def view_response(game: Game, state, seat: int) -> gateway_pb2.GetViewResponse:
    engine, codec = game.engine, game.codec
    deciders = engine.deciders(state)
    table = gateway_pb2.Table(
        game_id=engine.info.game_id,
        player_count=engine.player_count(state),
        status=gateway_pb2.TABLE_STATUS_IN_PROGRESS if deciders else gateway_pb2.TABLE_STATUS_FINISHED,
        deciding_seats=deciders,
    )
    return gateway_pb2.GetViewResponse(
        table=table,
        seat=seat,
        view=_pack(codec.view_to_proto(engine.view(state, seat))),
        must_decide=seat in deciders,
        legal_actions=[
            rules_pb2.LegalAction(action=_pack(codec.action_to_proto(a)), label=engine.describe_action(a))
            for a in engine.legal_actions(state, seat)
        ],
    )


def play(game: Game, strategies: Sequence[Strategy], options: dict[str, str], seed: int) -> Outcome:
    """One game with ``strategies[seat]`` choosing for each seat."""
    engine, codec = game.engine, game.codec
    rng = random.Random(seed)
    state, _ = engine.new_game(len(strategies), options, seed)
    while deciders := engine.deciders(state):
        seat = rng.choice(deciders)
        choice = strategies[seat](view_response(game, state, seat), rng)
        message = codec.action_type()()
        choice.action.Unpack(message)
        state, _ = engine.apply(state, seat, codec.action_from_proto(message))
    outcome = engine.outcome(state)
    assert outcome is not None  # nobody decides: the game is over
    return outcome

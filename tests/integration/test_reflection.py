"""The gateway describes itself: a reflection client with no local proto files decodes
every hosted game's views, actions and events from what the gateway serves."""

import grpc
import pytest
from google.protobuf import descriptor_pool, message_factory
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from common import auth
from services.registry import game_ids
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


def decode(pool: descriptor_pool.DescriptorPool, packed):
    """An Any decoded with a message class built from the reflected descriptor alone."""
    descriptor = pool.FindMessageTypeByName(packed.type_url.rsplit("/", 1)[-1])
    message = message_factory.GetMessageClass(descriptor)()
    message.ParseFromString(packed.value)
    return message


@pytest.mark.parametrize("game", game_ids())
def test_reflection_decodes_the_game_messages(stack, game):
    with grpc.insecure_channel(stack.gateway_address) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        assert "tavola.gateway.v1.GatewayService" in database.get_services()
        pool = descriptor_pool.DescriptorPool(database)
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        description = next(g for g in stub.ListGames(gw.ListGamesRequest()).games if g.game_id == game)
        for name in (description.view_type, description.action_type, description.event_type):
            assert pool.FindMessageTypeByName(name).full_name == name

        created = stub.CreateTable(
            gw.CreateTableRequest(game_id=game, player_count=2, bot_seats=[gw.BotSeat(seat=1, bot="random")], seed=3)
        )
        table_id = created.table.table_id
        token = auth.metadata(stub.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=0)).seat_token)
        stub.StartTable(gw.StartTableRequest(table_id=table_id), metadata=token)
        reply = stub.GetView(gw.GetViewRequest(table_id=table_id), metadata=token)
        view = decode(pool, reply.view)
        assert view.DESCRIPTOR.full_name == description.view_type
        assert view.ByteSize() > 0
        # Seat 0 is the viewer: a field named viewer or viewer_seat, set to 0.
        viewer_field = next(f for f in view.DESCRIPTOR.fields if f.name.startswith("viewer"))
        assert view.HasField(viewer_field.name) and getattr(view, viewer_field.name) == 0
        for legal in reply.legal_actions:
            assert decode(pool, legal.action).DESCRIPTOR.full_name == description.action_type
        stream = stub.WatchTable(gw.WatchTableRequest(table_id=table_id), metadata=token, timeout=10)
        first_game_event = next(m.event for m in stream if m.event.HasField("game_event"))
        stream.cancel()
        assert decode(pool, first_game_event.game_event).DESCRIPTOR.full_name == description.event_type

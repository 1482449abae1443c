"""A dependency down is UNAVAILABLE with a reason, and the table is left as it was."""

import grpc
import pytest

from common.errors import reason_of
from deploy.redis_local import free_port, start_private_redis
from deploy.stack import Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


def test_a_rules_service_down_is_unavailable(redis_url, key_prefix, tmp_path):
    nobody = f"127.0.0.1:{free_port()}"  # nothing listens here
    with (
        Stack(
            redis_url=redis_url,
            key_prefix=key_prefix,
            games=(),
            external_rules={"borgia": nobody},
            with_worker=False,
            log_dir=tmp_path,
        ) as stack,
        grpc.insecure_channel(stack.gateway_address) as channel,
    ):
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=3))
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        assert reason_of(caught.value) == "DEPENDENCY_UNAVAILABLE"
        assert list(stub.ListGames(gw.ListGamesRequest()).games) == []  # a game that is down is left out


def test_redis_down_is_unavailable(key_prefix, tmp_path):
    redis = start_private_redis()
    try:
        with (
            Stack(redis_url=redis.url, key_prefix=key_prefix, with_worker=False, log_dir=tmp_path) as stack,
            grpc.insecure_channel(stack.gateway_address) as channel,
        ):
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            table_id = stub.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
            redis.stop()
            with pytest.raises(grpc.RpcError) as caught:
                stub.GetTable(gw.GetTableRequest(table_id=table_id), timeout=30)
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
            assert reason_of(caught.value) == "STORE_UNAVAILABLE"
    finally:
        redis.stop()

"""An open table nobody starts expires after TAVOLA_OPEN_TABLE_TTL_SECONDS and leaves the
lobby; a started table keeps the full TTL."""

import time

import grpc
import pytest

from common import auth
from common.errors import reason_of
from deploy.stack import Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


def test_an_abandoned_open_table_expires_and_leaves_the_lobby(redis_url, key_prefix, tmp_path):
    with (
        Stack(
            redis_url=redis_url,
            key_prefix=f"{key_prefix}-open",
            games=("borgia",),
            with_worker=False,
            gateway_env={"TAVOLA_OPEN_TABLE_TTL_SECONDS": "1"},
            log_dir=tmp_path,
        ) as stack,
        grpc.insecure_channel(stack.gateway_address) as channel,
    ):
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        abandoned = stub.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
        started = stub.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2))
        for _ in range(2):
            stub.TakeSeat(gw.TakeSeatRequest(table_id=started.table.table_id))
        request = gw.StartTableRequest(table_id=started.table.table_id)
        stub.StartTable(request, metadata=auth.metadata(started.host_token))
        time.sleep(2.5)
        with pytest.raises(grpc.RpcError) as caught:
            stub.GetTable(gw.GetTableRequest(table_id=abandoned))
        assert reason_of(caught.value) == "TABLE_NOT_FOUND"
        assert abandoned not in [t.table_id for t in stub.ListTables(gw.ListTablesRequest()).tables]
        assert stub.GetTable(gw.GetTableRequest(table_id=started.table.table_id)).table.status == (
            gw.TABLE_STATUS_IN_PROGRESS
        )
        stack.delete_keys()

"""Reads that need no rules service: while a game's rules service is down, its tables'
records, the lobby and finished tables' replays still answer from the store (the view is
left out and said to be), and the verifier still checks a finished table. Only what must
run the rules (a replay with views, a command) is UNAVAILABLE."""

import time
from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from common.errors import reason_of
from deploy.stack import NO_QUOTAS, Stack
from services.verify import verify_table
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def health_of(channel: grpc.Channel, service: str) -> int:
    return health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=service), timeout=5).status


@pytest.fixture(scope="module")
def stack(redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[Stack]:
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-rules-down",
        games=("borgia",),
        bots=("random",),
        worker_bots=("random",),
        gateway_env={**NO_QUOTAS, "TAVOLA_RULES_HEALTH_SECONDS": "0.2"},
        log_dir=tmp_path_factory.mktemp("rules-down"),
    ) as running:
        yield running


def test_reads_answer_from_the_store_while_the_rules_service_is_down(stack):
    with grpc.insecure_channel(stack.gateway_address) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        bots = [gw.BotSeat(seat=seat, bot="random") for seat in range(2)]
        finished = stub.CreateTable(
            gw.CreateTableRequest(game_id="borgia", player_count=2, bot_seats=bots, auto_start=True)
        ).table.table_id
        for _ in stub.SpectateTable(gw.SpectateTableRequest(table_id=finished), timeout=60):
            pass
        playing = stub.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2))
        seats = [stub.TakeSeat(gw.TakeSeatRequest(table_id=playing.table.table_id)) for _ in range(2)]
        stub.StartTable(
            gw.StartTableRequest(table_id=playing.table.table_id),
            metadata=(("authorization", f"Bearer {playing.host_token}"),),
        )
        before = {
            table_id: stub.GetTable(gw.GetTableRequest(table_id=table_id))
            for table_id in (finished, playing.table.table_id)
        }
        assert all(response.HasField("spectator_view") for response in before.values())

        assert health_of(channel, "rules/borgia") == SERVING

        rules = next(process for process in stack.processes if process.name == "rules-borgia")
        rules.popen.kill()
        rules.popen.wait(10)
        time.sleep(0.5)
        # The game's health entry tells it (once it said SERVING with every replica dead);
        # the gateway's own stays SERVING: its reads still answer, and every gateway
        # shares the rules service, so a balancer must not drop them all for it.
        deadline = time.monotonic() + 10
        while health_of(channel, "rules/borgia") != NOT_SERVING:
            assert time.monotonic() < deadline, "the gateway's health still says the rules service serves"
            time.sleep(0.1)
        assert health_of(channel, "") == SERVING

        for table_id, earlier in before.items():
            answer = stub.GetTable(gw.GetTableRequest(table_id=table_id), timeout=10)
            assert answer.view_unavailable and not answer.HasField("spectator_view")
            assert answer.table == earlier.table
        lobby = stub.ListTables(gw.ListTablesRequest(status=gw.TABLE_STATUS_IN_PROGRESS, game_id="borgia"))
        assert playing.table.table_id in {table.table_id for table in lobby.tables}

        for seat in (None, 0, 1):
            request = gw.GetReplayRequest(table_id=finished, seat=seat)
            replay = stub.GetReplay(request, timeout=10)
            assert replay.view_unavailable and not replay.HasField("view")
            assert replay.steps[-1].event.HasField("game_finished")
        verdict = verify_table(stack.gateway_address, finished)  # the engines run in the verifier's process
        assert verdict.ok, verdict.problems

        with pytest.raises(grpc.RpcError) as caught:
            stub.GetReplay(gw.GetReplayRequest(table_id=finished, with_views=True), timeout=10)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        with pytest.raises(grpc.RpcError) as caught:
            stub.GetView(
                gw.GetViewRequest(table_id=playing.table.table_id),
                metadata=(("authorization", f"Bearer {seats[0].seat_token}"),),
                timeout=10,
            )
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        assert reason_of(caught.value) == "DEPENDENCY_UNAVAILABLE"

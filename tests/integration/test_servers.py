"""Every server answers health checks and lists its services through reflection; the
rules service rejects a state that is not its game's."""

import time
import urllib.request

import grpc
import pytest
from google.protobuf import any_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from common.errors import reason_of
from deploy.stack import Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2, rules_pb2_grpc
from tests.integration.conftest import HumanTable


def servers(stack) -> dict[str, str]:
    return {"gateway": stack.gateway_address, **{f"rules-{g}": a for g, a in stack.rules_addresses.items()}}


def test_every_server_is_healthy_and_reflects(stack):
    for name, address in servers(stack).items():
        with grpc.insecure_channel(address) as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
            assert health.status == health_pb2.HealthCheckResponse.SERVING, name
            reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
            replies = list(
                reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
            )
            names = {service.name for service in replies[0].list_services_response.service}
            expected = "tavola.gateway.v1.GatewayService" if name == "gateway" else "tavola.rules.v1.RulesService"
            assert expected in names and "grpc.health.v1.Health" in names


def test_list_games_describes_borgia(gateway):
    games = {game.game_id: game for game in gateway.ListGames(gw.ListGamesRequest()).games}
    borgia = games["borgia"]
    assert (borgia.min_players, borgia.max_players) == (2, 6)
    assert {option.name for option in borgia.options} == {"shadow_puppets", "flame_of_thy_tongue", "poisoned_dice"}
    assert borgia.action_type == "tavola.borgia.v1.Action"
    assert borgia.view_type == "tavola.borgia.v1.View"


def test_the_rules_service_rejects_a_foreign_state(stack):
    with grpc.insecure_channel(stack.rules_addresses["borgia"]) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        foreign = any_pb2.Any()
        foreign.Pack(gw.Table(table_id="x"))
        with pytest.raises(grpc.RpcError) as caught:
            stub.GetView(rules_pb2.GetViewRequest(state=foreign))
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(caught.value) == "BAD_STATE"


def test_the_gateway_exports_prometheus_metrics(stack, gateway):
    with pytest.raises(grpc.RpcError):
        gateway.GetTable(gw.GetTableRequest(table_id="0123456789abcdef"))
    gateway.ListGames(gw.ListGamesRequest())
    text = urllib.request.urlopen(f"http://{stack.metrics_address}/metrics", timeout=5).read().decode()
    assert 'tavola_gateway_requests_total{code="NOT_FOUND",method="GetTable",protocol="grpc"}' in text
    assert 'tavola_gateway_requests_total{code="OK",method="ListGames",protocol="grpc"}' in text
    assert "tavola_gateway_request_seconds_bucket" in text


def test_every_process_drains_and_exits_cleanly_on_sigterm(redis_url, key_prefix, tmp_path):
    stack = Stack(redis_url=redis_url, key_prefix=f"{key_prefix}-drain", log_dir=tmp_path)
    stack.start()
    processes = list(stack.processes)
    stack.stop()  # SIGTERM to each, then a wait
    stack.delete_keys()
    assert {p.name: p.popen.returncode for p in processes} == {p.name: 0 for p in processes}


def test_list_tables_pages_through_open_and_started_tables(gateway):
    open_ids = {HumanTable(gateway, players=2, seed=i, game="pecunia").table_id for i in range(3)}
    started = HumanTable(gateway, players=2, seed=9, game="pecunia")
    started.start()

    def listed(status, game="pecunia", page_size=2) -> list[str]:
        ids, token = [], ""
        while True:
            page = gateway.ListTables(
                gw.ListTablesRequest(status=status, game_id=game, page_size=page_size, page_token=token)
            )
            assert len(page.tables) <= page_size
            ids += [table.table_id for table in page.tables]
            if not page.next_page_token:
                return ids
            token = page.next_page_token

    # The indexes follow each commit in the background: allow them a moment.
    deadline = time.monotonic() + 5
    while started.table_id not in listed(gw.TABLE_STATUS_IN_PROGRESS) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.table_id in listed(gw.TABLE_STATUS_IN_PROGRESS)
    lobby = listed(gw.TABLE_STATUS_OPEN)
    assert open_ids <= set(lobby) and started.table_id not in lobby
    assert len(lobby) == len(set(lobby))
    assert not open_ids & set(listed(gw.TABLE_STATUS_OPEN, game="borgia"))
    with pytest.raises(grpc.RpcError) as caught:
        gateway.ListTables(gw.ListTablesRequest(status=gw.TABLE_STATUS_FINISHED))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT and reason_of(caught.value) == "BAD_STATUS"

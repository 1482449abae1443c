"""A bot author's worker on a Redis user of its own (deploy/redis_users.py) plays its
bot's seats to the end and can reach nothing else: no table, log or index key, no other
bot's queue, no channel. The platform runs on its own ACL user. Against a private
redis-server started with an ACL file (the shared Redis's users are never touched)."""

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from common import auth
from deploy import redis_users
from deploy.processes import terminate
from deploy.redis_local import start_private_redis
from deploy.stack import ROOT, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.bot_tables import create_bot_table, spectate, stub_for

PLATFORM_PASSWORD = "p" * 40
BOT_PASSWORD = "b" * 40


@pytest.fixture(scope="module")
def acl_redis(tmp_path_factory, key_prefix) -> Iterator[tuple[int, str]]:
    prefix = f"{key_prefix}-acl"
    acl = tmp_path_factory.mktemp("acl") / "users.acl"
    acl.write_text(
        "\n".join(
            [
                redis_users.default_user(),
                redis_users.platform_user(PLATFORM_PASSWORD),
                redis_users.bot_user("random", BOT_PASSWORD, prefix),
            ]
        )
        + "\n"
    )
    handle = start_private_redis(args=("--aclfile", str(acl)))
    try:
        yield int(handle.url.rsplit(":", 1)[1].split("/")[0]), prefix
    finally:
        handle.stop()


def external_worker(stack: Stack, broker_url: str, log: Path) -> subprocess.Popen:
    """The author's worker as its author would run it: the bot's key, the broker URL of its
    own Redis user, the gateway's address, and nothing of the platform's."""
    ready = log.with_suffix(".ready")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("TAVOLA_", "REDIS_"))}
    env.update(
        REDIS_URL=broker_url,
        TAVOLA_KEY_PREFIX=stack.key_prefix,
        TAVOLA_WORKER_BOTS="random",
        TAVOLA_WORKER_TIMERS="false",
        TAVOLA_WORKER_EXTERNAL="true",
        TAVOLA_GATEWAY=stack.gateway_address,
        TAVOLA_BOT_KEY=auth.bot_key(stack.bot_secret, "random"),
        TAVOLA_READY_FILE=str(ready),
    )
    with open(log, "wb") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "bots.worker", "--pool", "threads", "--concurrency", "2"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert worker.poll() is None, log.read_text()[-2000:]
        assert time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.1)
    return worker


def test_a_bot_authors_worker_plays_its_seats_and_reaches_nothing_else(acl_redis, tmp_path):
    port, prefix = acl_redis
    platform_url = f"redis://{redis_users.PLATFORM_USER}:{PLATFORM_PASSWORD}@127.0.0.1:{port}/0"
    bot_url = redis_users.bot_broker_url("random", BOT_PASSWORD, f"127.0.0.1:{port}")
    # The platform's worker plays another bot only: the random seats are the author's.
    with Stack(
        redis_url=platform_url,
        key_prefix=prefix,
        bots=("random",),
        worker_bots=("borgia-odds",),
        log_dir=tmp_path / "stack",
    ) as stack:
        worker = external_worker(stack, bot_url, tmp_path / "author-worker.log")
        try:
            channel, stub = stub_for(stack.gateway_address)
            with channel:
                table_id = create_bot_table(stub, "borgia", players=2)
                spectate(stub, table_id, timeout=120)
                table = stub.GetTable(gw.GetTableRequest(table_id=table_id)).table
                assert table.status == gw.TABLE_STATUS_FINISHED
                assert table.version > 3
        finally:
            terminate(worker)

        author = redis.Redis.from_url(bot_url)
        platform = redis.Redis.from_url(platform_url)
        try:
            table_keys = [key.decode() for key in platform.scan_iter(match=f"{prefix}:*{table_id}*")]
            assert table_keys, "the table's keys are where the platform wrote them"
            denied = [
                lambda: author.get(table_keys[0]),
                lambda: author.type(table_keys[0]),
                lambda: author.delete(table_keys[0]),
                lambda: author.keys("*"),
                lambda: author.scan(0),
                lambda: author.lpush(f"{prefix}:celery:bots.ismcts", "a task for another bot"),
                lambda: author.llen(f"{prefix}:celery:timers"),
                lambda: author.publish(f"{prefix}:celery:/0.celery.pidbox", "shutdown"),
                lambda: author.flushall(),
            ]
            for call in denied:
                with pytest.raises(redis.exceptions.NoPermissionError):
                    call()
            assert author.llen(f"{prefix}:celery:bots.random") == 0  # its own queue, drained
            anonymous = redis.Redis(host="127.0.0.1", port=port)
            assert anonymous.ping()  # the probes' PING, and nothing else
            with pytest.raises(redis.exceptions.NoPermissionError):
                anonymous.get(table_keys[0])
            anonymous.close()
        finally:
            author.close()
            platform.close()
        stack.delete_keys()

"""Lost tasks are sent again (gateway/sweeper.py): a table whose bot or timer task is
overdue is woken within seconds, unless its bot's queue explains the wait, and the walk
wakes a quiet table that lost its due time. No worker runs: the tasks stay in their
queues to be counted, and a test loses one by deleting its queue."""

import time
from collections.abc import Iterator

import grpc
import pytest
import redis

from deploy.stack import NO_QUOTAS, Stack
from gateway.bots import BotCatalog
from gateway.wakeups import due_time
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc
from tavola.store.v1 import store_pb2
from tests.integration.conftest import HumanTable

GRACE = 1.0


@pytest.fixture(scope="module")
def swept(redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[tuple[Stack, redis.Redis]]:
    stack = Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-sweep",
        games=("borgia",),
        bots=("held",),  # no worker serves bots.held
        with_worker=False,
        gateway_env={
            **NO_QUOTAS,
            "TAVOLA_SWEEP_SECONDS": "1",
            "TAVOLA_DUE_SWEEP_SECONDS": "0.2",
            "TAVOLA_TASK_GRACE_SECONDS": str(GRACE),
        },
        log_dir=tmp_path_factory.mktemp("sweep"),
    )
    client = redis.Redis.from_url(redis_url)
    try:
        with stack:
            yield stack, client
            stack.delete_keys()
    finally:
        client.close()


@pytest.fixture(scope="module")
def stub(swept) -> Iterator[gateway_pb2_grpc.GatewayServiceStub]:
    with grpc.insecure_channel(swept[0].gateway_address) as channel:
        yield gateway_pb2_grpc.GatewayServiceStub(channel)


def held_table(stub) -> str:
    created = stub.CreateTable(
        gw.CreateTableRequest(
            game_id="borgia",
            player_count=2,
            bot_seats=[gw.BotSeat(seat=0, bot="held"), gw.BotSeat(seat=1, bot="held")],
            auto_start=True,
        )
    )
    return created.table.table_id


def tasks_for(client: redis.Redis, queue: str, table_id: str) -> int:
    return sum(table_id.encode() in message for message in client.lrange(queue, 0, -1))


def wait_for_task(client: redis.Redis, queue: str, table_id: str, timeout: float) -> float:
    """Seconds until a task of the table is in the queue; fails after ``timeout``."""
    started = time.monotonic()
    while not tasks_for(client, queue, table_id):
        assert time.monotonic() - started < timeout, f"no task of {table_id} in {queue}"
        time.sleep(0.05)
    return time.monotonic() - started


def test_a_lost_bot_task_is_sent_again_within_seconds(swept, stub):
    stack, client = swept
    queue = f"{stack.key_prefix}:celery:bots.held\x06\x169"  # an all-bot table's tasks
    table_id = held_table(stub)
    assert tasks_for(client, queue, table_id) == 1
    client.delete(queue)  # the task is lost
    assert wait_for_task(client, queue, table_id, timeout=10) <= GRACE + 2
    # Lost each time: the table is looked at again after as long as it has been quiet, so
    # the waits double rather than repeat a grace.
    client.delete(queue)
    second = wait_for_task(client, queue, table_id, timeout=10)
    client.delete(queue)
    third = wait_for_task(client, queue, table_id, timeout=10)
    assert third >= 1.5 * second >= 1.5 * GRACE


def test_a_lost_timer_is_sent_again_soon_after_its_deadline(swept, stub):
    stack, client = swept
    queue = f"{stack.key_prefix}:celery:timers"
    table = HumanTable(
        stub, players=2, decision_timer=gw.DecisionTimer(seconds=2, policy=gw.TIMEOUT_POLICY_RANDOM_ACTION)
    )
    started = table.start()
    deadline = started.decision_deadline.ToNanoseconds() / 1e9
    assert tasks_for(client, queue, table.table_id) == 1  # sent with its countdown
    client.delete(queue)  # lost with a worker that held it until its deadline
    wait_for_task(client, queue, table.table_id, timeout=10)
    assert deadline <= time.time() <= deadline + GRACE + 2  # after its deadline, within seconds


def test_a_table_behind_a_long_queue_is_not_woken_again(swept, stub):
    stack, client = swept
    queue = f"{stack.key_prefix}:celery:bots.held\x06\x169"  # an all-bot table's tasks
    client.delete(queue)
    table_id = held_table(stub)
    client.rpush(queue, *[b"another table's task"] * 200)  # 4 s of work at 20 ms a task
    time.sleep(GRACE + 1.5)
    assert tasks_for(client, queue, table_id) == 1, "woken again while its task could still be queued"
    client.delete(queue)


def test_the_walk_wakes_a_quiet_table_that_lost_its_due_time(swept, stub):
    stack, client = swept
    queue = f"{stack.key_prefix}:celery:bots.held\x06\x169"  # an all-bot table's tasks
    client.delete(queue)
    table_id = held_table(stub)
    client.delete(queue)  # lost between the commit and the enqueue...
    client.zrem(f"{stack.key_prefix}:due", table_id)  # ...by a gateway that stopped before its due time
    wait_for_task(client, queue, table_id, timeout=10)
    assert client.zscore(f"{stack.key_prefix}:due", table_id) is not None


def test_due_times_cover_a_bot_s_thinking_and_a_timer_s_deadline():
    thinking_seconds = BotCatalog().thinking_seconds
    assert thinking_seconds("random") == 0
    assert thinking_seconds("ismcts") == 0.2  # the default budget
    assert thinking_seconds("ismcts:budget_ms=60000") == 60
    assert thinking_seconds("ismcts:budget_ms=0,iterations=1000") == 60  # unbounded in time: the maximum
    assert thinking_seconds("somebody-elses-bot") == 0
    record = store_pb2.TableRecord()
    table = record.table
    table.status = gw.TABLE_STATUS_IN_PROGRESS
    table.update_time.FromSeconds(1000)
    table.seats.add(kind=gw.SEAT_KIND_BOT, bot="ismcts:budget_ms=3000")
    table.seats.add(kind=gw.SEAT_KIND_HUMAN)
    table.deciding_seats.append(0)
    assert due_time(record, 5, thinking_seconds) == 1000 + 5 + 2 * 3
    table.deciding_seats[:] = [1]
    assert due_time(record, 5, thinking_seconds) is None  # an untimed human: no task to wait on
    table.decision_deadline.FromSeconds(1300)
    assert due_time(record, 5, thinking_seconds) == 1305
    table.deciding_seats[:] = [0, 1]
    assert due_time(record, 5, thinking_seconds) == 1011
    table.status = gw.TABLE_STATUS_FINISHED
    assert due_time(record, 5, thinking_seconds) is None

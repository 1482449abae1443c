"""Lost tasks are sent again (gateway/sweeper.py): a table whose bot or timer task is
overdue is woken within seconds, unless its bot's queue explains the wait, and the walk
wakes a quiet table that lost its due time. No worker runs: the tasks stay in their
queues to be counted, and a test loses one by deleting its queue."""

import json
import time
from collections.abc import Iterator

import grpc
import pytest
import redis

from common import auth
from deploy.stack import NO_QUOTAS, Stack
from gateway.bots import BotCatalog
from gateway.sweeper import SENT_SLACK_SECONDS
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


def forget(stack: Stack, client: redis.Redis, *table_ids: str) -> None:
    """Deletes the tables, so the sweeps no longer send their tasks into the next tests' queues."""
    for table_id in table_ids:
        keys = list(client.scan_iter(match=f"{stack.key_prefix}:{{{table_id}}}:*"))
        if keys:
            client.delete(*keys)


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
    queue = f"{stack.key_prefix}:celery:bots.held\x06\x169"  # an all-bot table's first tasks
    again = f"{stack.key_prefix}:celery:bots.held\x06\x166"  # ... and those sent again
    table_id = held_table(stub)
    assert tasks_for(client, queue, table_id) == 1
    client.delete(queue)  # the task is lost
    assert wait_for_task(client, again, table_id, timeout=10) <= GRACE + 2
    # Lost each time: the table is looked at again after as long as it has been quiet, so
    # the waits double rather than repeat a grace.
    client.delete(again)
    second = wait_for_task(client, again, table_id, timeout=10)
    client.delete(again)
    third = wait_for_task(client, again, table_id, timeout=10)
    assert third >= 1.5 * second >= 1.5 * GRACE
    forget(stack, client, table_id)
    client.delete(again)


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
    forget(stack, client, table_id)
    client.delete(queue)


def test_a_table_behind_older_tasks_is_not_woken_again_however_long_it_waits(swept, stub):
    """An all-bot table that waits to begin waits behind whole games: its queue is looked
    at for a task sent no later than its commit, not counted."""
    stack, client = swept
    queue = f"{stack.key_prefix}:celery:bots.held\x06\x169"
    again = f"{stack.key_prefix}:celery:bots.held\x06\x166"
    client.delete(queue, again)
    ahead = held_table(stub)  # its task, sent first, is the next one taken
    table_id = held_table(stub)
    time.sleep(GRACE + 2)  # far past what two tasks could take
    assert tasks_for(client, queue, table_id) == 1
    assert tasks_for(client, again, table_id) == tasks_for(client, again, ahead) == 0, "woken again while queued"
    forget(stack, client, ahead, table_id)
    client.delete(queue, again)


def test_a_table_whose_queue_has_moved_past_its_task_is_woken_again(swept, stub):
    """However many tasks wait, none sent after a table's commit can be ahead of its task:
    the task was taken, and lost."""
    stack, client = swept
    queue = f"{stack.key_prefix}:celery:bots.held\x06\x169"
    again = f"{stack.key_prefix}:celery:bots.held\x06\x166"
    client.delete(queue, again)
    table_id = held_table(stub)
    # Its task taken by a worker that died with it, and 300 tasks sent after it (18 s of
    # work by count): other tables' tasks, as the gateway stamps them (their send time).
    message = json.loads(client.rpop(queue))
    message["properties"]["delivery_tag"] = f"{time.time_ns() + int(SENT_SLACK_SECONDS * 2e9)}.later"
    client.lpush(queue, *[json.dumps(message).replace(table_id, "another-table")] * 300)
    assert wait_for_task(client, again, table_id, timeout=10) <= GRACE + 2
    forget(stack, client, table_id)
    client.delete(queue, again)


def test_the_walk_wakes_a_quiet_table_that_lost_its_due_time(swept, stub):
    stack, client = swept
    queue = f"{stack.key_prefix}:celery:bots.held\x06\x169"  # an all-bot table's first tasks
    again = f"{stack.key_prefix}:celery:bots.held\x06\x166"  # ... and those sent again
    client.delete(queue, again)
    # In progress (a walk takes the tables in progress): started by its host.
    created = stub.CreateTable(
        gw.CreateTableRequest(
            game_id="borgia", player_count=2, bot_seats=[gw.BotSeat(seat=seat, bot="held") for seat in range(2)]
        )
    )
    table_id = created.table.table_id
    stub.StartTable(gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(created.host_token))
    client.delete(queue)  # lost between the commit and the enqueue...
    client.zrem(f"{stack.key_prefix}:due", table_id)  # ...by a gateway that stopped before its due time
    wait_for_task(client, again, table_id, timeout=10)
    assert client.zscore(f"{stack.key_prefix}:due", table_id) is not None
    forget(stack, client, table_id)
    client.delete(again)


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
    # An auto-started table of bots only waits, open, on its first seat's begin task.
    table.status = gw.TABLE_STATUS_OPEN
    record.auto_start = True
    table.seats[1].kind = gw.SEAT_KIND_BOT
    table.seats[1].bot = "random"
    assert due_time(record, 5, thinking_seconds) == 1000 + 5 + 2 * 3
    record.auto_start = False  # a host starts it: no task to wait on
    assert due_time(record, 5, thinking_seconds) is None

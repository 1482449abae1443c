"""All-bot tables take turns fairly, and a person's table goes first (common/tasks.py): an
auto-started all-bot table waits open for a worker to begin it, its begin task behind the
tasks of the all-bot tables under way, its later ones before them, and a task plays on at
its all-bot table to the end unless a task of a table with people waits for a worker
(bots/worker/tasks.py). The 'held' bot has no worker, so
the tests look at its queues and run its tasks by hand."""

import json
import random
from collections.abc import Iterator

import pytest
import redis

from bots.worker import tasks
from common import auth
from common.tasks import (
    ALL_BOT_BEGUN_AT_VERSION,
    ALL_BOT_PRIORITY,
    ALL_BOT_UNDER_WAY_PRIORITY,
    BEGIN_TASK,
    DECIDE_TASK,
    queue_for,
    queue_key,
)
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.conftest import HumanTable


@pytest.fixture
def broker(stack) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(stack.redis_url)
    yield client
    client.close()


def held_list(stack, priority: int = 0) -> str:
    return f"{stack.key_prefix}:celery:{queue_key(queue_for('held'), priority)}"


def tasks_for(client: redis.Redis, key: str, table_id: str) -> int:
    return sum(table_id.encode() in message for message in client.lrange(key, 0, -1))


def all_held(gateway, players: int = 2) -> str:
    created = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="borgia",
            player_count=players,
            bot_seats=[gw.BotSeat(seat=seat, bot="held") for seat in range(players)],
            auto_start=True,
        )
    )
    return created.table.table_id


@pytest.fixture
def held_worker(stack, broker, monkeypatch) -> None:
    """This process plays the held bot's tasks (tasks.decide) against the stack's gateway,
    looking for waiting people's tasks in the held queue's list, every decision."""
    monkeypatch.setenv("TAVOLA_GATEWAY", stack.gateway_address)
    monkeypatch.setenv("TAVOLA_BOT_KEY", auth.bot_key(stack.bot_secret, "held"))
    monkeypatch.setenv("TAVOLA_BOT_CHAIN_SECONDS", "0")
    monkeypatch.setattr(tasks, "_broker", broker)
    monkeypatch.setattr(tasks, "_waiting_lists", [held_list(stack)])


def task_names(client: redis.Redis, key: str, table_id: str) -> list[str]:
    return [json.loads(m)["headers"]["task"] for m in client.lrange(key, 0, -1) if table_id.encode() in m]


def act(gateway, stack, table_id: str) -> None:
    """A held seat that must decide acts, by hand (no continuing)."""
    table = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
    seat = table.deciding_seats[0]
    token = auth.metadata(auth.bot_token(auth.bot_key(stack.bot_secret, "held"), table_id, seat))
    view = gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=token)
    gateway.SubmitAction(
        gw.SubmitActionRequest(
            table_id=table_id, action=view.legal_actions[0].action, expected_version=table.version, request_id="first"
        ),
        metadata=token,
    )


def test_an_all_bot_table_waits_open_for_a_worker_to_begin_it(gateway, stack, broker):
    table_id = all_held(gateway)
    table = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
    assert table.status == gw.TABLE_STATUS_OPEN and all(seat.taken for seat in table.seats)
    assert table.version == 1 and not table.deciding_seats
    # Its first seat's bot gets the begin task, behind the tasks of the tables under way.
    assert task_names(broker, held_list(stack, ALL_BOT_PRIORITY), table_id) == [BEGIN_TASK]
    assert tasks_for(broker, held_list(stack, ALL_BOT_UNDER_WAY_PRIORITY), table_id) == 0


def test_a_worker_begins_its_table_and_plays_on_from_its_first_decision(
    gateway, stack, broker, held_worker, monkeypatch
):
    monkeypatch.setenv("TAVOLA_BOT_CHAIN", "1")  # one decision a task
    table_id = all_held(gateway)
    assert tasks.begin(table_id, 0, "held") not in ("stale", "begun")
    table = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
    assert table.status == gw.TABLE_STATUS_IN_PROGRESS
    assert table.version == ALL_BOT_BEGUN_AT_VERSION + 1  # begun, and its first decision played in the same task
    # Under way from its begin: its next decision goes before the tables waiting to begin.
    assert task_names(broker, held_list(stack, ALL_BOT_UNDER_WAY_PRIORITY), table_id) == [DECIDE_TASK]
    # A copy of the begin task (the due sweep's) finds the table begun and changes nothing.
    assert tasks.begin(table_id, 0, "held") == "stale"
    assert gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.version == table.version


def test_a_host_started_all_bot_table_s_first_task_waits_behind_those_under_way(gateway, stack, broker):
    created = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="borgia", player_count=2, bot_seats=[gw.BotSeat(seat=seat, bot="held") for seat in range(2)]
        )
    )
    table_id = created.table.table_id
    assert tasks_for(broker, held_list(stack, ALL_BOT_PRIORITY), table_id) == 0  # no auto start: no begin task
    gateway.StartTable(gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(created.host_token))
    assert task_names(broker, held_list(stack, ALL_BOT_PRIORITY), table_id) == [DECIDE_TASK]
    assert tasks_for(broker, held_list(stack, ALL_BOT_UNDER_WAY_PRIORITY), table_id) == 0
    act(gateway, stack, table_id)  # the table is under way, its next task goes first
    assert tasks_for(broker, held_list(stack, ALL_BOT_UNDER_WAY_PRIORITY), table_id) == 1
    assert tasks_for(broker, held_list(stack, ALL_BOT_PRIORITY), table_id) == 1  # the first, never run


def test_a_table_with_people_goes_first(gateway, stack, broker):
    table = HumanTable(gateway, players=2, seed=46, bots={0: "held"})
    table.start()
    chooser = random.Random(4)
    while 0 not in table.table().deciding_seats:
        table.submit(1, chooser.choice(list(table.view(1).legal_actions)).action)
    assert tasks_for(broker, held_list(stack), table.table_id) == 1
    for priority in (ALL_BOT_UNDER_WAY_PRIORITY, ALL_BOT_PRIORITY):
        assert tasks_for(broker, held_list(stack, priority), table.table_id) == 0


def test_a_task_plays_its_all_bot_table_to_the_end_when_no_person_waits(gateway, stack, broker, held_worker):
    broker.delete(held_list(stack))  # no person's task waits
    table_id = all_held(gateway, players=3)
    tasks.begin(table_id, 0, "held")
    finished = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
    assert finished.status == gw.TABLE_STATUS_FINISHED
    assert finished.version > ALL_BOT_BEGUN_AT_VERSION + 3  # many decisions, of every seat, in one task
    # No task was sent for a decision it continued to.
    assert tasks_for(broker, held_list(stack, ALL_BOT_UNDER_WAY_PRIORITY), table_id) == 0


def test_a_task_gives_up_its_worker_to_a_person_s_table(gateway, stack, broker, held_worker):
    table_id = all_held(gateway, players=3)
    broker.lpush(held_list(stack), b"a task of a table with people")
    try:
        tasks.begin(table_id, 0, "held")
    finally:
        broker.delete(held_list(stack))
    after = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
    assert after.version == ALL_BOT_BEGUN_AT_VERSION + 1  # begun, one decision, then the worker slot is free
    assert after.status == gw.TABLE_STATUS_IN_PROGRESS
    # The table's next decision is a task, ahead of the all-bot tables not yet begun.
    assert tasks_for(broker, held_list(stack, ALL_BOT_UNDER_WAY_PRIORITY), table_id) == len(after.deciding_seats)


def test_a_broker_that_cannot_be_asked_stops_the_chain(monkeypatch):
    monkeypatch.setattr(tasks, "_broker", redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.5))
    monkeypatch.setattr(tasks, "_waiting_lists", ["nothing-here"])
    assert tasks.people_wait("held")

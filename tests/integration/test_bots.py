"""Bot seats are played by a real Celery worker through the gateway, as ordinary
clients; a retried bot task changes nothing twice."""

import random

import pytest

from bots.search.strategies import random_legal
from bots.worker import tasks
from common import auth
from common.tasks import ALL_BOT_BEGUN_AT_VERSION
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.conftest import HumanTable
from tests.integration.games import CASES


def spectate_to_end(gateway, table_id: str, timeout: float = 180) -> list[gw.TableEvent]:
    stream = gateway.SpectateTable(gw.SpectateTableRequest(table_id=table_id), timeout=timeout)
    return [message.event for message in stream]


BOT_TABLES = [(game, players) for game in CASES for players in (2, 4, 6)]


@pytest.mark.parametrize(("game", "players"), BOT_TABLES, ids=[f"{g}-{p}p" for g, p in BOT_TABLES])
def test_a_table_of_bots_plays_to_the_end(gateway, game, players):
    created = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id=game,
            player_count=players,
            bot_seats=[gw.BotSeat(seat=seat, bot="random") for seat in range(players)],
            auto_start=True,
            seed=players,
        )
    )
    assert created.table.status == gw.TABLE_STATUS_OPEN  # until a bot worker with room begins it
    events = spectate_to_end(gateway, created.table.table_id)
    assert sum(event.HasField("table_started") for event in events) == 1
    assert events[-1].HasField("game_finished")
    table = gateway.GetTable(gw.GetTableRequest(table_id=created.table.table_id)).table
    assert table.status == gw.TABLE_STATUS_FINISHED
    assert table.version > ALL_BOT_BEGUN_AT_VERSION  # created, begun, then at least one action


def test_humans_and_bots_share_a_table(gateway):
    table = HumanTable(gateway, players=3, seed=33, bots={1: "random", 2: "random"})
    table.start()
    chooser = random.Random(1)
    for _ in range(2000):
        view = table.view(0)
        if view.table.status == gw.TABLE_STATUS_FINISHED:
            break
        if view.must_decide:
            choice = chooser.choice(list(view.legal_actions))
            table.submit(0, choice.action, expected_version=view.table.version)
        else:
            # Wait for the bots: the next change of the table wakes this stream.
            stream = gateway.WatchTable(
                gw.WatchTableRequest(table_id=table.table_id, after_seq=view.table.last_seq),
                metadata=auth.metadata(table.tokens[0]),
                timeout=30,
            )
            next(iter(stream))
            stream.cancel()
    assert table.table().status == gw.TABLE_STATUS_FINISHED


def test_a_retried_bot_task_changes_nothing(gateway, stack, monkeypatch):
    """The 'held' bot has no worker, so the test runs its task by hand, twice."""
    monkeypatch.setenv("TAVOLA_GATEWAY", stack.gateway_address)
    key = auth.bot_key(stack.bot_secret, "held")
    monkeypatch.setenv("TAVOLA_BOT_KEY", key)  # a worker given the held bot's key alone
    table = HumanTable(gateway, players=2, seed=44, bots={0: "held"})
    table.start()
    chooser = random.Random(2)
    while 0 not in table.table().deciding_seats:  # play the human until the bot must decide
        view = table.view(1)
        table.submit(1, chooser.choice(list(view.legal_actions)).action)
    version = table.table().version
    token = auth.metadata(auth.bot_token(key, table.table_id, 0))
    before = gateway.GetView(gw.GetViewRequest(table_id=table.table_id), metadata=token)
    expected_choice = random_legal(before, tasks._seeded_rng(table.table_id, 0, version))

    label = tasks.decide(table.table_id, 0, version, "random")
    after = table.table()
    assert label == expected_choice.label
    assert after.version == version + 1

    # Run again (a retry after success): it sees the table moved on and does nothing.
    assert tasks.decide(table.table_id, 0, version, "random") == "stale"
    # A retry that raced past that check submits the same action under the same request
    # id: the gateway answers from its idempotency record and nothing changes.
    replay = gateway.SubmitAction(
        gw.SubmitActionRequest(
            table_id=table.table_id,
            action=expected_choice.action,
            expected_version=version,
            request_id=f"bot-0-{version}",
        ),
        metadata=token,
    )
    assert replay.replayed
    assert table.table() == after

"""A bot worker killed (SIGKILL) mid-game takes the tasks it held with it; the broker would
hand them on only after its visibility timeout, so the gateway's due sweep wakes their
tables again: every table finishes, no action is applied twice, and no table waits more
than a few seconds past the worker's restart. Default sweep settings: the walk (30 s)
plays no part."""

import asyncio
import json
import os
import signal
import time

import redis
import redis.asyncio

from deploy.stack import NO_QUOTAS, Stack
from gateway.log_record import StoredEntry
from gateway.store import TableStore
from services.verify import verify_table
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.bot_tables import stub_for

# Games long enough to be live when the worker dies (a second or more each on two cores).
TABLES = [("borgia", 4, {}), ("mortadella", 4, {"max_turns": "40"}), ("pecunia", 3, {"target": "20"})] * 2
# A correctness bound, not a benchmark: the grace (5 s) plus a sweep, on a busy machine.
MAX_WAIT_AFTER_RESTART = 10.0


def _create(stub, game: str, players: int, options: dict[str, str]) -> str:
    request = gw.CreateTableRequest(
        game_id=game,
        player_count=players,
        options=options,
        bot_seats=[gw.BotSeat(seat=seat, bot="random") for seat in range(players)],
        auto_start=True,
    )
    return stub.CreateTable(request).table.table_id


async def _read_log(redis_url: str, prefix: str, table_id: str) -> list[StoredEntry]:
    async_client = redis.asyncio.Redis.from_url(redis_url)
    try:
        return await TableStore(async_client, prefix, 0).read_log(table_id, 0, 100_000)
    finally:
        await async_client.aclose()


def _log(redis_url: str, prefix: str, table_id: str) -> tuple[list[int], list[int | None]]:
    """The table's log from Redis: every entry's seq, the version the game began at (its
    creation's, then its begin's), and the version each action made (the version of the
    events anyone saw in its commit; None when nobody saw one)."""
    seqs: list[int] = []
    actions: list[list[int]] = [[]]  # the versions seen in each commit, the creation's and begin's first
    for entry in asyncio.run(_read_log(redis_url, prefix, table_id)):
        seqs.append(entry.seq)
        if entry.action:  # an action's commit begins with its own entry
            actions.append([])
        if seen := entry.seen():
            actions[-1].append(gw.TableEvent.FromString(seen).version)
    return seqs, [versions[-1] if versions else None for versions in actions]


def test_a_worker_killed_mid_game_stalls_no_table(redis_url, key_prefix, tmp_path):
    prefix = f"{key_prefix}-worker-death"
    client = redis.Redis.from_url(redis_url)
    try:
        with Stack(
            redis_url=redis_url,
            key_prefix=prefix,
            bots=("random",),
            worker_bots=("random",),
            gateway_env=dict(NO_QUOTAS),
            log_dir=tmp_path,
        ) as stack:
            channel, stub = stub_for(stack.gateway_address)
            with channel:
                tables = [_create(stub, *table) for table in TABLES]

                def tables_now() -> dict[str, gw.Table]:
                    return {t: stub.GetTable(gw.GetTableRequest(table_id=t)).table for t in tables}

                # Killed once at least three tables are under way and not over: random bots
                # play a game in a second or two, so waiting for all six to be under way let
                # the quick ones finish first on a quiet machine.
                begun = time.monotonic()
                while time.monotonic() - begun < 10:
                    under_way = [
                        t
                        for t, table in tables_now().items()
                        if table.version >= 5 and table.status == gw.TABLE_STATUS_IN_PROGRESS
                    ]
                    if len(under_way) >= 3:
                        break
                    time.sleep(0.05)
                worker = next(process for process in stack.processes if process.name == "bot-worker")
                os.kill(worker.popen.pid, signal.SIGKILL)  # mid-task: its held tasks are not acknowledged
                worker.popen.wait()
                killed = tables_now()
                live = [t for t, table in killed.items() if table.status == gw.TABLE_STATUS_IN_PROGRESS]
                assert len(live) >= 3, "too few tables were live when the worker died"

                stack._spawn_worker("bot-worker-restarted", ["random"], "threads", stack.worker_concurrency, True)
                restarted = time.monotonic()
                at_restart = tables_now()
                resumed: dict[str, float] = {}
                finished: set[str] = set()
                deadline = restarted + 60
                while len(finished) < len(tables) and time.monotonic() < deadline:
                    for table_id, table in tables_now().items():
                        if table.version != at_restart[table_id].version and table_id not in resumed:
                            resumed[table_id] = time.monotonic() - restarted
                        if table.status == gw.TABLE_STATUS_FINISHED:
                            finished.add(table_id)
                    time.sleep(0.1)

                assert finished == set(tables), "a table never finished"
                at_end = tables_now()
                waiting = [t for t in tables if at_restart[t].status == gw.TABLE_STATUS_IN_PROGRESS]
                waits = {t: resumed[t] for t in waiting}
                assert max(waits.values(), default=0) <= MAX_WAIT_AFTER_RESTART, waits

                for table_id in tables:
                    seqs, versions = _log(redis_url, prefix, table_id)
                    assert seqs == list(range(1, len(seqs) + 1)), "a seq twice or missing"
                    # The k-th action made version start + k: each decision applied once.
                    start, made = versions[0], versions[1:]
                    assert start is not None and len(made) == at_end[table_id].version - start
                    assert all(version in (None, start + k) for k, version in enumerate(made, 1)), versions
                    verdict = verify_table(stack.gateway_address, table_id)
                    assert verdict.ok, verdict

                # The tasks the worker held were lost: the due sweep, not the broker, sent them again.
                gateway_log = (tmp_path / "gateway.log").read_text().splitlines()
                woken = sum(json.loads(line).get("woken", 0) for line in gateway_log if '"woken_overdue"' in line)
                assert woken >= 1, "no task was lost with the worker"
            stack.delete_keys()
    finally:
        client.close()

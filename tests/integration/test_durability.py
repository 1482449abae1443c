"""With AOF on (an fsync per write), a Redis killed mid-game and restarted on the same
data folder loses no committed action: every table goes on from its last version to the
end, every watcher resumes without a gap, and each finished game replays exactly from its
revealed seed and its logged actions."""

import threading
import time

import grpc

from deploy.redis_local import start_private_redis
from deploy.stack import Stack
from services.verify import verify_table
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.bot_tables import assert_complete, create_bot_table, spectator_log, stub_for


def test_a_redis_restart_mid_game_loses_no_committed_action(redis_url, key_prefix, tmp_path, monkeypatch):
    # One bot decision a task: played several a task, random games can all end before the restart.
    monkeypatch.setenv("TAVOLA_BOT_CHAIN", "1")
    store = start_private_redis(appendonly=True)
    try:
        with Stack(
            redis_url=store.url,
            broker_url=redis_url,  # the broker stays up: this is about the tables' store
            key_prefix=f"{key_prefix}-durability",
            bots=("random",),
            worker_bots=("random",),
            gateway_env={"TAVOLA_SWEEP_SECONDS": "1"},
            log_dir=tmp_path,
        ) as stack:
            channel, stub = stub_for(stack.gateway_address)
            with channel:
                tables = [create_bot_table(stub, game) for game in ("borgia", "mortadella", "pecunia") * 2]
                seen: dict[str, list[gw.TableEvent]] = {table_id: [] for table_id in tables}
                failures: list[BaseException] = []

                def watch(table_id: str) -> None:
                    deadline = time.monotonic() + 150
                    while time.monotonic() < deadline:
                        after = seen[table_id][-1].seq if seen[table_id] else 0
                        request = gw.SpectateTableRequest(table_id=table_id, after_seq=after)
                        try:
                            for message in stub.SpectateTable(request, timeout=60):
                                seen[table_id].append(message.event)
                            return
                        except grpc.RpcError as error:  # the store went away: resume from the last seq
                            if error.code() != grpc.StatusCode.UNAVAILABLE:
                                failures.append(error)
                                return
                            time.sleep(0.2)
                    failures.append(TimeoutError(table_id))

                watchers = [threading.Thread(target=watch, args=(table_id,)) for table_id in tables]
                for thread in watchers:
                    thread.start()
                # Kill as soon as some game is well under way: bot games are fast, and one that
                # ended before the kill tests nothing.
                deadline = time.monotonic() + 30
                while True:
                    before = {t: stub.GetTable(gw.GetTableRequest(table_id=t)).table for t in tables}
                    playing = [t for t in tables if before[t].status == gw.TABLE_STATUS_IN_PROGRESS]
                    if any(before[t].version >= 8 for t in playing):
                        break
                    assert playing and time.monotonic() < deadline, "no game was under way before the restart"
                    time.sleep(0.02)
                server = store.servers[0]
                server.kill()  # SIGKILL mid-game: only what AOF holds survives
                time.sleep(0.5)
                server.start()  # same port, same data folder
                for thread in watchers:
                    thread.join(timeout=180)
                assert not failures, failures
                for table_id in tables:
                    table = stub.GetTable(gw.GetTableRequest(table_id=table_id)).table
                    assert table.status == gw.TABLE_STATUS_FINISHED
                    if table_id in playing:
                        assert table.version > before[table_id].version, "the table went on after the restart"
                    assert_complete(seen[table_id], spectator_log(stub, table_id))
                    verdict = verify_table(stack.gateway_address, table_id)
                    assert verdict.ok, verdict
            stack.delete_keys()
    finally:
        store.stop()

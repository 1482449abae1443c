"""What a finished table keeps in Redis: within the goal of 16 KB for a 3-player Borgia
game, the request ids only for a retry window, no event text (told as the log is read),
and every reader still served."""

import time

import redis

from gateway.archive_format import archived_entries
from gateway.store import KEY_SUFFIXES
from services.verify import verify_table
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2
from tests.integration.bot_tables import create_bot_table

# 20 KB while every game event's text was stored with it (about 7 KB a game); it is told
# as the log is read since.
FINISHED_BYTES = 16 * 1024


def test_finished_borgia_tables_stay_small_and_readable(gateway, stack, redis_url, key_prefix) -> None:
    table_ids = [create_bot_table(gateway, "borgia", players=3) for _ in range(3)]
    deadline = time.monotonic() + 180
    tables = {}
    while len(tables) < len(table_ids):
        assert time.monotonic() < deadline, "the bots did not finish the games"
        for table_id in table_ids:
            table = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
            if table.status == gw.TABLE_STATUS_FINISHED:
                tables[table_id] = table
        time.sleep(0.2)
    client = redis.Redis.from_url(redis_url)
    totals = []
    try:
        for table_id in table_ids:
            keys = {suffix: f"{key_prefix}:{{{table_id}}}:{suffix}" for suffix in KEY_SUFFIXES}
            sizes = {suffix: client.memory_usage(key, samples=0) or 0 for suffix, key in keys.items()}
            assert not client.exists(keys["log"]), "a finished game's log is archived"
            for _, data in archived_entries(client.get(keys["archive"]) or b""):
                record = store_pb2.LogRecord.FromString(data)
                # Words are kept as phrases (ids and terms by index), never as text.
                assert record.public.WhichOneof("body") and "text" not in record.public.DESCRIPTOR.fields_by_name
            # What stays once the retry window is over, even for a long game.
            assert sizes["table"] + sizes["archive"] <= FINISHED_BYTES, sizes
            totals.append(sum(sizes.values()))
            assert 0 < client.ttl(keys["requests"]) <= 3600  # the retry window, not the table's week
            assert client.ttl(keys["archive"]) > 3600
    finally:
        client.close()
    # With the request ids still there, on average: a long random game takes more.
    assert sum(totals) / len(totals) <= FINISHED_BYTES, totals
    table_id, table = next(iter(tables.items()))
    replays = [gateway.GetReplay(gw.GetReplayRequest(table_id=table_id, seat=seat)) for seat in (None, 0, 1, 2)]
    assert all(replay.steps[-1].event.HasField("game_finished") for replay in replays)
    assert [step.seq for step in replays[0].steps] == list(range(1, table.last_seq + 1))
    verdict = verify_table(stack.gateway_address, table_id)
    assert verdict.ok, verdict.problems

"""What a finished table keeps in Redis: its keys within the goal of 16 KB for a 3-player
Borgia game, the request ids only for a retry window, and every reader still served."""

import time

import redis

from gateway.verify import verify_table
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.bot_tables import create_bot_table

FINISHED_BYTES = 16 * 1024


def test_a_finished_borgia_table_stays_small_and_readable(gateway, stack, redis_url, key_prefix) -> None:
    table_id = create_bot_table(gateway, "borgia", players=3)
    deadline = time.monotonic() + 120
    while (table := gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table).status != gw.TABLE_STATUS_FINISHED:
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.2)
    client = redis.Redis.from_url(redis_url)
    try:
        keys = {suffix: f"{key_prefix}:{{{table_id}}}:{suffix}" for suffix in ("table", "log", "requests")}
        sizes = {suffix: client.memory_usage(key, samples=0) or 0 for suffix, key in keys.items()}
        assert sum(sizes.values()) <= FINISHED_BYTES, sizes
        assert 0 < client.ttl(keys["requests"]) <= 3600  # the retry window, not the table's week
        assert client.ttl(keys["log"]) > 3600
    finally:
        client.close()
    replays = [gateway.GetReplay(gw.GetReplayRequest(table_id=table_id, seat=seat)) for seat in (None, 0, 1, 2)]
    assert all(replay.steps[-1].event.HasField("game_finished") for replay in replays)
    assert [step.seq for step in replays[0].steps] == list(range(1, table.last_seq + 1))
    verdict = verify_table(stack.gateway_address, table_id)
    assert verdict.ok, verdict.problems

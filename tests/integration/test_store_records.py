"""The store against a real Redis: a finishing commit gives the table the finished tables'
TTL and its request ids the retry window, a finished game's log is archived in one value
and reads back alike, and a used request id is answered and refused."""

import asyncio
import contextlib
import secrets

import redis.asyncio
from google.protobuf import any_pb2, timestamp_pb2

from gateway.archive_format import archived_entries
from gateway.log_record import LogEntry
from gateway.store import KEY_SUFFIXES, RequestKey, RequestUsed, TableStore
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2

EVENT_TYPE = "type.tavola.dev/tavola.borgia.v1.Event"


async def _scenario(redis_url: str, prefix: str) -> None:
    client = redis.asyncio.Redis.from_url(redis_url)
    store = TableStore(client, prefix, 7 * 24 * 3600, finished_ttl_seconds=86400, retry_seconds=600)
    table_id = secrets.token_hex(8)
    table_key, log_key, requests_key = (f"{prefix}:{{{table_id}}}:{suffix}" for suffix in ("table", "log", "requests"))
    try:
        # A table in play, its first entry committed: each viewer's own event.
        stamp = timestamp_pb2.Timestamp(seconds=1_796_000_000, nanos=5)
        spec = gw.TableEvent(seq=1, version=1, time=stamp, game_event=any_pb2.Any(type_url=EVENT_TYPE, value=b"p"))
        own = gw.TableEvent(seq=1, version=1, time=stamp, game_event=any_pb2.Any(type_url=EVENT_TYPE, value=b"0"))
        table = gw.Table(table_id=table_id, status=gw.TABLE_STATUS_IN_PROGRESS, version=1, last_seq=1)
        record = store_pb2.TableRecord(table=table)
        record.table.update_time.CopyFrom(stamp)
        await store.commit(
            record, 0, [LogEntry(spectator=spec.SerializeToString(), seats={0: own.SerializeToString()})]
        )

        # The commit that ends the game.
        record, _ = await store.load(table_id)
        record.table.version, record.table.last_seq = 2, 2
        record.table.status = gw.TABLE_STATUS_FINISHED
        record.table.update_time.FromNanoseconds(1_796_000_001 * 10**9)
        last = gw.TableEvent(seq=2, version=2, time=record.table.update_time, game_finished=gw.GameFinished())
        action = store_pb2.SeatAction(seat=0, action=any_pb2.Any(type_url="type.example/A", value=b"a"))
        entry = LogEntry(spectator=last.SerializeToString(), end=True, action=action.SerializeToString())
        stored = store_pb2.StoredResponse(command_sha256=b"c" * 8, seat=0, first_seq=2, last_seq=2, version=2)
        request = RequestKey.of(b"t" * 32, "r1")
        await store.commit(record, 1, [entry], request, stored)

        # The finished game's log is archived; both entries read back as written.
        assert not await client.exists(log_key) and await client.exists(log_key[: -len("log")] + "archive")
        first, second = await store.read_log(table_id, 0)
        assert first.for_viewer(0) == own.SerializeToString()
        assert first.for_viewer(None) == first.for_viewer(1) == spec.SerializeToString()
        assert not first.is_end and first.action == b""
        assert second.for_viewer(None) == second.for_viewer(0) == last.SerializeToString()
        assert second.is_end and second.action == action.SerializeToString()
        assert second.time_ns == 1_796_000_001 * 10**9

        reloaded, found = await store.load(table_id, request)
        assert list(reloaded.type_urls) == [EVENT_TYPE, "type.example/A"] and found == stored
        assert await client.hkeys(requests_key) == [request.field] and len(request.field) == 16
        raw = store_pb2.TableRecord.FromString(await client.hget(table_key, "record"))
        assert not raw.type_urls  # kept once, beside the record
        archive_key = log_key[: -len("log")] + "archive"
        assert 86000 < await client.ttl(table_key) <= 86400 and 86000 < await client.ttl(archive_key) <= 86400
        assert 0 < await client.ttl(requests_key) <= 600
    finally:
        await client.delete(table_key, log_key, requests_key, log_key[: -len("log")] + "archive")
        await client.aclose()


def test_a_finished_tables_log_and_ttls(redis_url, key_prefix) -> None:
    asyncio.run(_scenario(redis_url, f"{key_prefix}-records"))


@contextlib.asynccontextmanager
async def _fresh_table(redis_url: str, prefix: str, **store_options):
    """A store on the real Redis, a new table id and its keys by suffix (deleted after)."""
    client = redis.asyncio.Redis.from_url(redis_url)
    store = TableStore(client, prefix, 3600, **store_options)
    table_id = secrets.token_hex(8)
    keys = dict(zip(KEY_SUFFIXES, store._keys(table_id), strict=True))
    try:
        yield client, store, table_id, keys
    finally:
        await client.delete(*keys.values())
        await client.aclose()


async def _used_request(redis_url: str, prefix: str) -> None:
    async with _fresh_table(redis_url, prefix) as (client, store, table_id, keys):
        table = gw.Table(table_id=table_id, status=gw.TABLE_STATUS_IN_PROGRESS, version=1, last_seq=1)
        await store.commit(store_pb2.TableRecord(table=table), 0, [])
        request = RequestKey.of(b"t" * 32, "r1")
        stored = store_pb2.StoredResponse(command_sha256=b"c" * 8, seat=0, first_seq=1, last_seq=1, version=2)
        record, found = await store.load(table_id, request)
        assert found is None
        record.table.version = 2
        await store.commit(record, 1, [], request, stored)
        assert await client.hkeys(keys["requests"]) == [request.field] and len(request.field) == 16

        record, found = await store.load(table_id, request)
        assert found == stored  # a retry gets its first answer
        record.table.version = 3
        try:
            await store.commit(record, 2, [], request, stored)
        except RequestUsed as used:
            assert used.stored == stored
        else:
            raise AssertionError("the commit script took a request id already used")
        assert await client.hget(keys["table"], "version") == b"2"  # nothing written
        # Another token's same request id is another request.
        _, other = await store.load(table_id, RequestKey.of(b"u" * 32, "r1"))
        assert other is None


def test_a_used_request_id_is_answered_and_refused(redis_url, key_prefix) -> None:
    asyncio.run(_used_request(redis_url, f"{key_prefix}-used-request"))


def _event(seq: int, version: int, stamp: timestamp_pb2.Timestamp, value: bytes) -> bytes:
    return gw.TableEvent(
        seq=seq, version=version, time=stamp, game_event=any_pb2.Any(type_url=EVENT_TYPE, value=value)
    ).SerializeToString()


async def _archive(redis_url: str, prefix: str) -> None:
    async with _fresh_table(redis_url, prefix, finished_ttl_seconds=86400) as (client, store, table_id, keys):
        # A game of three commands, the last of which ends it; each command's entries.
        table = gw.Table(table_id=table_id, status=gw.TABLE_STATUS_IN_PROGRESS)
        record = store_pb2.TableRecord(table=table)
        expected, seq, sent = 0, 0, {}
        for version, (count, status) in enumerate(
            [(2, gw.TABLE_STATUS_IN_PROGRESS), (1, gw.TABLE_STATUS_IN_PROGRESS), (3, gw.TABLE_STATUS_FINISHED)], 1
        ):
            record.table.version, record.table.status = version, status
            record.table.update_time.FromNanoseconds((1_796_000_000 + version) * 10**9)
            entries = []
            for _ in range(count):
                seq += 1
                public = _event(seq, version, record.table.update_time, b"p%d" % seq)
                own = _event(seq, version, record.table.update_time, b"own%d" % seq)
                entries.append(LogEntry(spectator=public, seats={0: own}, end=seq == 6))
                sent[seq] = (public, own)
            record.table.last_seq = seq
            await store.commit(record, expected, entries)
            expected = version
            if status == gw.TABLE_STATUS_IN_PROGRESS:
                assert await client.exists(keys["log"]) and not await client.exists(keys["archive"])

        # The finished game's log is one value now, read as the stream was.
        assert not await client.exists(keys["log"]) and await client.type(keys["archive"]) == b"string"
        assert 86000 < await client.ttl(keys["archive"]) <= 86400
        archive = await client.get(keys["archive"])
        assert [seq for seq, _ in archived_entries(archive)] == [1, 2, 3, 4, 5, 6]
        entries = await store.read_log(table_id, 0)
        assert [entry.seq for entry in entries] == [1, 2, 3, 4, 5, 6] and entries[-1].is_end
        for entry in entries:
            assert entry.for_viewer(None) == entry.for_viewer(1) == sent[entry.seq][0]
            assert entry.for_viewer(0) == sent[entry.seq][1]
        assert [entry.seq for entry in await store.read_log(table_id, 2, count=3)] == [3, 4, 5]
        assert await store.read_log(table_id, 6) == []

        # An entry committed after the end goes on the archive's end.
        record.table.version, record.table.last_seq = 4, 7
        late = _event(7, 4, record.table.update_time, b"late")
        await store.commit(record, 3, [LogEntry(spectator=late)])
        assert not await client.exists(keys["log"])
        assert [(entry.seq, entry.for_viewer(None)) for entry in await store.read_log(table_id, 5)] == [
            (6, sent[6][0]),
            (7, late),
        ]


def test_a_finished_games_log_is_archived_in_one_value_and_reads_back_alike(redis_url, key_prefix) -> None:
    asyncio.run(_archive(redis_url, f"{key_prefix}-archive"))


async def _archived_meanwhile(redis_url: str, prefix: str) -> None:
    async with _fresh_table(redis_url, prefix) as (client, store, table_id, keys):
        record = store_pb2.LogRecord(version=1, time_ns=5, end=True).SerializeToString()
        # A read that came between the end's two moves: no archive yet, the stream gone.
        await client.hset(keys["table"], mapping={"version": 1, "seq": 1})
        first_read = store.redis.pipeline

        def pipeline(**kwargs):
            pipe = first_read(**kwargs)
            execute = pipe.execute

            async def execute_then_archive():
                replies = await execute()
                await client.set(keys["archive"], (1).to_bytes(4, "big") + len(record).to_bytes(2, "big") + record)
                store.redis.pipeline = first_read  # once
                return replies

            pipe.execute = execute_then_archive
            return pipe

        store.redis.pipeline = pipeline
        entries = await store.read_log(table_id, 0)
        assert [(entry.seq, entry.is_end) for entry in entries] == [(1, True)]  # read again, not lost


def test_a_log_read_that_meets_the_archiving_midway_reads_again(redis_url, key_prefix) -> None:
    asyncio.run(_archived_meanwhile(redis_url, f"{key_prefix}-archived-meanwhile"))

"""The archiver: copies finished tables from Redis into the archive (gateway/archive.py),
exactly once, then trims them from Redis after the retry window.

The outbox is a sorted set in Redis, ``<prefix>:archive:outbox`` (table id -> when its copy
is due), written by the commit script itself (gateway/commit_script.py) on every commit of a
finished table: the game's end cannot be committed without it, so a gateway that dies
right after the finishing commit loses nothing. On a Redis Cluster the outbox is in a slot
of its own and the gateway writes it right after the commit.

``python -m gateway.archiver backfill`` files the finished tables of a site that ran
without an archive. Each round (every gateway runs one; ``python -m gateway.archiver run``
runs it alone):

1. **copy**: takes the due entries, each leased for ``lease_seconds`` (its score moved on,
   so other archivers leave it while this one copies), reads the table from Redis in one
   transaction and writes it to PostgreSQL in one transaction. The archive's row is keyed
   by table id and written only if it holds an older version: a copy repeated (the
   archiver killed after PostgreSQL committed, before Redis heard) writes nothing twice;
   a copy cut short (killed, or PostgreSQL away) rolled back and its lease runs out, so it
   is copied again. A rated table waits until its rating update is applied, so the
   seats' rating changes go with it. Then the table moves from the outbox to
   ``<prefix>:archive:trim``, scored by the end of its retry window.
2. **trim**: for each table past its retry window, deletes its keys from Redis by a script
   that first checks Redis still holds the version the archive holds; a table committed
   again since (an entry appended after the end) goes back to the outbox instead.

Redis restarted from its persistence has the tables, the outbox and the trim set as they
were together, so the rounds carry on; a Redis that kept nothing has lost the tables it
had not yet copied along with their outbox.
"""

import argparse
import asyncio
import json
import sys
import time
from typing import cast

import psycopg
import structlog
from psycopg_pool import PoolTimeout

from common import ratings
from common.errors import ApiError
from gateway.archive import Archive, migrate
from gateway.archive_format import outbox_key
from gateway.chat_store import ChatStore
from gateway.store import TableStore
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2

log = structlog.get_logger()

# Tables one archiver copies at once: each copy waits mostly on its PostgreSQL commit.
COPIES_AT_ONCE = 8

# Leases a due table: moves its score on unless another archiver or a newer commit has.
_CLAIM = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0
"""


class Archiver:
    def __init__(
        self,
        store: TableStore,
        archive: Archive,
        retry_seconds: float,
        interval: float = 1.0,
        lease_seconds: float = 60.0,
        batch: int = 100,
    ):
        self.store = store
        self.redis = store.redis
        self.archive = archive
        self.retry_seconds = retry_seconds
        self.interval = interval
        self.lease_seconds = lease_seconds
        self.batch = batch
        self.outbox = outbox_key(store.prefix)
        self.trim_set = f"{store.prefix}:archive:trim"
        self.rating_keys = ratings.Keys(store.prefix)
        self.chat = ChatStore(store.redis, store.prefix, history=0, fallback_ttl=0)  # read only
        self._claim_one = self.redis.register_script(_CLAIM)
        # The archive's URL while its schema waits to be brought up to date (PostgreSQL was
        # away as the gateway started): done before the first copy.
        self.schema_url: str | None = None
        self._task: asyncio.Task | None = None

    async def _claim(self, now: float) -> list[str]:
        """Up to ``batch`` due tables, each leased for ``lease_seconds``."""
        raw = await self.redis.zrangebyscore(self.outbox, "-inf", now, start=0, num=self.batch)
        claimed = []
        for member in cast("list[bytes]", raw):
            table_id = member.decode()
            if await self._claim_one(keys=[self.outbox], args=[table_id, repr(now), repr(now + self.lease_seconds)]):
                claimed.append(table_id)
        return claimed

    async def _rating_changes(self, finished_table) -> dict[int, float] | None:
        """Each seat's rating change at a rated table (None: its update is pending)."""
        table = finished_table.record.table
        if not table.rated:
            return {}
        if await self.redis.hexists(self.rating_keys.jobs, table.table_id):
            return None
        changes: dict[int, float] = {}
        for seat in table.seats:
            who = ratings.participant(seat)
            if who is None:
                continue
            for raw in await self.redis.lrange(self.rating_keys.recent(who), 0, -1):
                entry = json.loads(raw)
                if entry.get("t") == table.table_id:
                    changes[seat.seat] = float(entry["d"])
                    break
        return changes

    async def copy_due(self) -> int:
        """Copies the due tables, a few at once; returns how many it wrote to the archive."""
        gate = asyncio.Semaphore(COPIES_AT_ONCE)

        async def one(table_id: str) -> bool:
            async with gate:
                return await self._copy(table_id)

        done = await asyncio.gather(
            *(one(table_id) for table_id in await self._claim(time.time())), return_exceptions=True
        )
        failed = next((result for result in done if isinstance(result, BaseException)), None)
        if failed is not None:  # the others are done: their leases run out, they are taken again
            raise failed
        return sum(bool(result) for result in done)

    async def _copy(self, table_id: str) -> bool:
        finished = await self.store.snapshot(table_id)
        if finished is None:  # expired, or not finished (cannot be: finished is final)
            await self.redis.zrem(self.outbox, table_id)
            return False
        changes = await self._rating_changes(finished)
        if changes is None:  # its lease runs out and it is tried again
            return False
        written = await self.archive.copy(finished, changes, await self.chat.to_archive(table_id))
        if written:
            log.info("table_archived", table_id=table_id, version=finished.version)
        finish = finished.record.table.update_time.seconds
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(self.trim_set, {table_id: max(finish + self.retry_seconds, 0)})
            pipe.zrem(self.outbox, table_id)
            await pipe.execute()
        return written

    async def trim_due(self) -> int:
        """Deletes from Redis the archived tables past their retry window; returns how many."""
        raw = await self.redis.zrangebyscore(self.trim_set, "-inf", time.time(), start=0, num=self.batch)
        trimmed = 0
        for member in cast("list[bytes]", raw):
            table_id = member.decode()
            version = await self.archive.version(table_id)
            outcome = "newer" if version is None else await self.store.trim(table_id, version)
            async with self.redis.pipeline(transaction=False) as pipe:
                if outcome == "newer":  # committed again since its copy: copy it again first
                    pipe.zadd(self.outbox, {table_id: time.time()})
                pipe.zrem(self.trim_set, table_id)
                await pipe.execute()
            trimmed += outcome == "trimmed"
        return trimmed

    async def archive_now(self, table_id: str) -> bool:
        """Copies a finished table now and trims it from Redis at once, without waiting
        for its retry window (an account deleted: reads then come from the archive, which
        holds the table without the player). Whether this copy wrote it to the archive."""
        finished = await self.store.snapshot(table_id)
        if finished is None:
            return False
        changes = await self._rating_changes(finished) or {}
        copied = await self.archive.copy(finished, changes, await self.chat.to_archive(table_id))
        version = await self.archive.version(table_id)
        if version is None or await self.store.trim(table_id, version) == "newer":
            await self.redis.zadd(self.outbox, {table_id: time.time()})
        return copied

    async def backfill(self) -> int:
        """Files in the outbox every finished table Redis holds that is neither there nor
        archived (the tables of a site that ran without an archive); how many it filed."""
        prefix = f"{self.store.prefix}:{{"
        filed = 0
        async for key in self.redis.scan_iter(match=f"{prefix}*}}:table", count=1000):
            name = key.decode() if isinstance(key, bytes) else key
            table_id = name[len(prefix) : -len("}:table")]
            data = cast("bytes | None", await self.redis.hget(name, "record"))
            if not data or store_pb2.TableRecord.FromString(data).table.status != gw.TABLE_STATUS_FINISHED:
                continue
            if await self.redis.zscore(self.trim_set, table_id) is None:  # else archived already
                filed += int(await self.redis.zadd(self.outbox, {table_id: time.time()}, nx=True) or 0)
        return filed

    async def run_once(self) -> tuple[int, int]:
        if self.schema_url is not None:
            await asyncio.to_thread(migrate, self.schema_url)
            self.schema_url = None
            log.info("archive_schema_ready")
        return await self.copy_due(), await self.trim_due()

    def start(self) -> None:
        async def loop() -> None:
            pause = self.interval
            while True:
                await asyncio.sleep(pause)
                try:
                    copied, trimmed = await self.run_once()
                    pause = 0 if copied + trimmed >= self.batch else self.interval  # a backlog: go on
                except (psycopg.Error, PoolTimeout, ApiError) as error:
                    log.warning("archive_round_failed", error=str(error)[:200])
                    pause = min(max(pause * 2, self.interval), 30.0)
                except Exception:
                    log.error("archive_round_failed", exc_info=True)
                    pause = min(max(pause * 2, self.interval), 30.0)

        self._task = asyncio.create_task(loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


async def _run(command: str) -> int:
    from common import redis_client
    from common.settings import number
    from gateway.config import Settings

    settings = Settings.from_env()
    url = settings.database_url
    if not url:
        print("set TAVOLA_DATABASE_URL to the archive's PostgreSQL", file=sys.stderr)
        return 2
    migrate(url)
    client = redis_client.connect_async(settings.redis_url)
    store = TableStore(client, settings.key_prefix, settings.table_ttl_seconds, retry_seconds=0)
    archive = Archive(url)
    await archive.open()
    archiver = Archiver(
        store,
        archive,
        settings.retry_window_seconds,
        settings.archive_seconds or 1.0,
        number("TAVOLA_ARCHIVE_LEASE_SECONDS"),
    )
    try:
        if command == "backfill":
            print(f"filed {await archiver.backfill()} finished tables in the outbox")
            return 0
        if command == "once":
            copied, trimmed = await archiver.run_once()
            print(f"archived {copied} tables, trimmed {trimmed} from Redis")
            return 0
        archiver.start()
        assert archiver._task is not None
        await archiver._task
        return 0
    finally:
        await archiver.stop()
        await archive.close()
        await client.aclose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Copy finished tables to the archive and trim them from Redis.")
    parser.add_argument(
        "command",
        choices=["run", "once", "backfill", "migrate"],
        help="run the rounds; one round; file every finished table Redis holds in the outbox; migrate the schema",
    )
    args = parser.parse_args(argv)
    if args.command == "migrate":
        from common.settings import text

        url = text("TAVOLA_DATABASE_URL")
        if not url:
            print("set TAVOLA_DATABASE_URL to the archive's PostgreSQL", file=sys.stderr)
            return 2
        migrate(url)
        return 0
    return asyncio.run(_run(args.command))


if __name__ == "__main__":
    sys.exit(main())

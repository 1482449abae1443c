"""Tables in Redis.

Per table, four keys sharing the hash tag ``{table_id}`` (so the layout works on Redis
Cluster) and one pub/sub channel:
  <prefix>:{id}:table     hash: record (TableRecord proto), version, seq, types (TypeUrls:
                          the Any type URLs the log refers to by index, and the seats'
                          names its game events' text writes in, from which seq on)
  <prefix>:{id}:log       stream: the durable event log, entry id "<seq>-0", one field "e":
                          a LogRecord (gateway/log_record.py)
  <prefix>:{id}:archive   string: the log of a finished game, frozen in one value
                          (gateway/archive_format.py)
  <prefix>:{id}:requests  hash: RequestKey.field -> StoredResponse (compact:
                          where the action's events are in the log, the table's new
                          version and status), for idempotency; once the game is over it
                          expires after a retry window, the table and its log after the
                          finished tables' TTL
  <prefix>:{id}:wake      channel: the new last seq, published on every commit

The sorted sets across tables (the status indexes and the due set) are TableSets'
(gateway/store_sets.py).

On a Redis Cluster (``redis+cluster://``, common/redis_client.py) a table's keys live in
one slot, so the commit script runs on one node; the indexes and the sweep cursor are keys
of their own, written outside the script. The wake-up is a plain PUBLISH, which a cluster
forwards to every node, so a gateway's one subscription hears every table (sharded
pub/sub, SPUBLISH, needs Redis 7 and would spare that fan-out).

Every change goes through ``commit``: one Lua script (gateway/commit_script.py) that checks
the version (a compare-and-set), refuses a used request id, writes the record, appends the
log entries, stores the response, refreshes the TTL and publishes, all or nothing.

With an archive (gateway/archive.py, ``use_archive``), every commit of a finished table
also files it in ``<prefix>:archive:outbox`` (a sorted set, table id -> the commit's time:
its copy is due), in the script on a single Redis, right after it on a cluster; the
archiver (gateway/archiver.py) copies it, then ``trim`` deletes its keys once the retry
window is over, and ``load``, ``load_many`` and ``read_log`` read a table Redis no longer
holds from the archive: the same bytes.
"""

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import cast

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError

from gateway.archive_format import TRIM, ArchivedTables, FinishedTable, archived_entries, outbox_key
from gateway.commit_script import (
    NO_DUE_WRITE,
    SCRIPT,
    CommitArgs,
    CommitKeys,
    RatingJobWrite,
    record_field,
    script_args,
    types_field,
)
from gateway.log_record import LogEntry, SeatNames, StoredEntry, decode_types, nanos
from gateway.store_sets import TableSets
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2


@dataclass(frozen=True)
class RequestKey:
    """Where a request id's response is kept in its table's requests hash: 16 bytes of the
    request id digested with the caller's token digest as the key (request ids are scoped
    to the token)."""

    field: bytes

    @classmethod
    def of(cls, token_digest: bytes, request_id: str) -> "RequestKey":
        return cls(hashlib.blake2b(request_id.encode(), digest_size=16, key=token_digest).digest())


class TableExists(Exception):
    pass


class TableMissing(Exception):
    pass


# The keys of a table, after "<prefix>:{<table id>}:" (TableStore._keys).
KEY_SUFFIXES = ("table", "log", "requests", "archive")


class VersionConflict(Exception):
    def __init__(self, current: int):
        super().__init__(f"table is at version {current}")
        self.current = current


class RequestUsed(Exception):
    def __init__(self, stored: store_pb2.StoredResponse):
        super().__init__("request id already used")
        self.stored = stored


def _refusal(table_id: str, result: list) -> Exception:
    """Why the commit script wrote nothing, from its reply."""
    status = int(result[0])
    if status == -1:
        return TableExists(table_id)
    if status == -2:
        return TableMissing(table_id)
    if status == -3:
        return VersionConflict(int(result[1]))
    return RequestUsed(store_pb2.StoredResponse.FromString(result[1]))


class TableStore(TableSets):
    """A table's record, log and request ids, with TableSets' sets across tables."""

    def __init__(
        self,
        client: Redis | RedisCluster,
        prefix: str,
        ttl_seconds: int,
        open_ttl_seconds: int | None = None,
        finished_ttl_seconds: int | None = None,
        retry_seconds: int = 3600,
        recent_records: int = 4096,
    ):
        super().__init__(client, prefix)
        self.ttl = ttl_seconds
        # An open table nobody starts expires sooner, and so leaves the lobby.
        self.open_ttl = ttl_seconds if open_ttl_seconds is None else min(open_ttl_seconds, ttl_seconds)
        # A finished table changes no more: kept for replays and checks, as long as wanted.
        self.finished_ttl = ttl_seconds if finished_ttl_seconds is None else finished_ttl_seconds
        # A finished table's request ids answer retries this long (0: as long as the table
        # is kept); nothing else reads them.
        self.retry_seconds = retry_seconds
        self._commit = client.register_script(SCRIPT)
        # On a Redis Cluster the due set is in a slot of its own: written outside the commit.
        self.due_in_commit = not isinstance(client, RedisCluster)
        # So are the rating jobs (gateway/ratings.py).
        self.jobs_in_commit = self.due_in_commit
        self._trim = client.register_script(TRIM)
        # The records this gateway loaded or committed last, by table: (record bytes, type
        # URLs). A command may start from one instead of a load (``recent``); its commit's
        # compare-and-set on the version tells whether it was still the table's record.
        self.recent_records: dict[str, tuple[bytes, tuple[str, ...], SeatNames]] = {}
        self.recent_limit = recent_records
        # Decoded "types" fields, by their bytes (_types).
        self.known_types: dict[bytes, tuple[tuple[str, ...], SeatNames]] = {}
        # The archive (gateway/archive.py): finished tables trimmed from Redis are read from
        # it, and finished tables' commits file them in its outbox (``use_archive``).
        self.archive: ArchivedTables | None = None
        self.archive_outbox: str | None = None

    def use_archive(self, archive: "ArchivedTables") -> None:
        """Reads fall through to ``archive`` for a table Redis no longer holds, and every
        commit of a finished table files it in the archive's outbox."""
        self.archive = archive
        self.archive_outbox = outbox_key(self.prefix)

    def _types(self, data: bytes) -> tuple[tuple[str, ...], SeatNames]:
        """A table's "types" field, its type URLs and seats' names, decoded once for every
        table that has the same (a game's tables share a few lists of type URLs)."""
        known = self.known_types.get(data)
        if known is None:
            if len(self.known_types) >= 1024:
                self.known_types.clear()
            known = self.known_types[data] = decode_types(data)
        return known

    def _remember(self, table_id: str, data: bytes, type_urls: Sequence[str], names: SeatNames = ()) -> None:
        if self.recent_limit <= 0:
            return
        recent = self.recent_records
        recent.pop(table_id, None)  # the newest last
        while len(recent) >= self.recent_limit:
            del recent[next(iter(recent))]  # the oldest
        recent[table_id] = (data, type_urls if isinstance(type_urls, tuple) else tuple(type_urls), names)

    def recent(self, table_id: str) -> store_pb2.TableRecord | None:
        """The record this gateway last loaded or committed for the table, if it has one:
        possibly no longer the table's (another gateway or command may have committed since),
        which only a commit's compare-and-set tells."""
        known = self.recent_records.get(table_id)
        if known is None:
            return None
        record = store_pb2.TableRecord.FromString(known[0])
        record.type_urls.extend(known[1])
        for from_seq, names in known[2]:
            record.seat_names.add(from_seq=from_seq, names=names)
        return record

    def _keys(self, table_id: str) -> tuple[str, str, str, str]:
        """The table's keys: its record, log, requests and archive (KEY_SUFFIXES)."""
        table, log, requests, archive = (f"{self.prefix}:{{{table_id}}}:{suffix}" for suffix in KEY_SUFFIXES)
        return table, log, requests, archive

    def channel(self, table_id: str) -> str:
        return f"{self.prefix}:{{{table_id}}}:wake"

    async def load(
        self, table_id: str, request_key: RequestKey | None = None
    ) -> tuple[store_pb2.TableRecord, store_pb2.StoredResponse | None]:
        """The table's record, and the stored response for ``request_key`` if any, in one trip."""
        table_key, _, requests_key, _ = self._keys(table_id)
        if request_key:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hmget(table_key, ["record", "types"])
                pipe.hget(requests_key, request_key.field)
                replies = await pipe.execute()
        else:  # one command: no pipeline's own cost
            replies = [await self.redis.hmget(table_key, ["record", "types"])]
        data, types = replies[0]
        if data is None and self.archive is not None:
            data, types = await self.archive.stored(table_id)
        if data is None:
            raise TableMissing(table_id)
        record = store_pb2.TableRecord.FromString(data)
        if types:
            type_urls, names = self._types(types)
            record.ClearField("type_urls")
            record.type_urls.extend(type_urls)
            for from_seq, listed in names:
                record.seat_names.add(from_seq=from_seq, names=listed)
            self._remember(table_id, data, type_urls, names)
        else:
            self._remember(table_id, data, tuple(record.type_urls))
        stored = None
        if request_key:
            stored = store_pb2.StoredResponse.FromString(replies[1]) if replies[1] is not None else None
        return record, stored

    async def commit(
        self,
        record: store_pb2.TableRecord,
        expected_version: int,
        entries: list[LogEntry],
        request_key: RequestKey | None = None,
        stored: store_pb2.StoredResponse | None = None,
        due: object = NO_DUE_WRITE,
        written: list[StoredEntry] | None = None,
        rating_job: RatingJobWrite | None = None,
    ) -> bool:
        """Writes ``record`` (whose table.version/last_seq are already the new ones) if the
        table is still at ``expected_version`` (0: create it). Raises TableExists,
        TableMissing, VersionConflict or RequestUsed, and then nothing was written.

        ``due``: the table's new due time (a float, or None: it waits on no task), written
        with the rest when ``due_in_commit`` (one trip, and no window between the commit and
        its due time). Returns whether it was written: on a cluster the caller writes it.
        ``written``: filled with the entries as the log now holds them (for watchers here).
        ``rating_job``: written with the rest when ``jobs_in_commit`` (else the caller's)."""
        table = record.table
        first_seq = table.last_seq - len(entries) + 1
        known_types = len(record.type_urls)
        stamp = nanos(table.update_time)  # the time of every entry of the command
        encoded = [entry.fields(record.type_urls, table.version, stamp) for entry in entries]
        types = types_field(record, known_types, first_seq, len(entries))
        data, type_urls, seat_names = record_field(record)
        due_written = due is not NO_DUE_WRITE and self.due_in_commit
        job = rating_job if self.jobs_in_commit else None
        # A finished table's every commit files it in the archive's outbox.
        outbox = self.archive_outbox is not None and table.status == gw.TABLE_STATUS_FINISHED
        across = due_written or job is not None or (outbox and self.due_in_commit)
        keys = self._commit_keys(table.table_id, across, job)
        args = self._commit_args(record, expected_version, data, types, len(entries), request_key, stored)
        args = replace(
            args,
            due=("rem" if due is None else repr(due)) if due_written else "",
            job=job.job if job is not None else b"",
            send_at=repr(job.send_at) if job is not None else "",
            outbox_at=repr(stamp / 1e9) if outbox and self.due_in_commit else "",
        )
        result = await self._run_commit(keys, script_args(args, encoded, first_seq))
        if int(result[0]) != 1:
            self.recent_records.pop(table.table_id, None)
            raise _refusal(table.table_id, result)
        if outbox and not self.due_in_commit:
            # On a cluster the outbox is in a slot of its own: written after the commit.
            await self.redis.zadd(cast(str, self.archive_outbox), {table.table_id: stamp / 1e9})
        self._remember(table.table_id, data, type_urls, seat_names)
        if written is not None:
            written += [
                StoredEntry(seq=first_seq + offset, data=fields[1], type_urls=type_urls, names=seat_names)
                for offset, fields in enumerate(encoded)
                if isinstance(fields[1], bytes)
            ]
        return due_written

    def _commit_keys(self, table_id: str, across: bool, job: RatingJobWrite | None) -> CommitKeys:
        """The commit's keys: the table's own, and on a single Redis, when ``across`` (it
        writes a due time, a rating job or the outbox), the keys across tables (the due
        set's name again for the rating job's where there is none: the script does not
        touch them)."""
        table, log, requests, archive = self._keys(table_id)
        if not across:
            return CommitKeys(table, log, requests, archive)
        return CommitKeys(
            table,
            log,
            requests,
            archive,
            due=self.due_key,
            jobs=job.jobs_key if job is not None else self.due_key,
            pending=job.pending_key if job is not None else self.due_key,
            outbox=self.archive_outbox,
        )

    def _commit_args(
        self,
        record: store_pb2.TableRecord,
        expected_version: int,
        data: bytes,
        types: bytes,
        entry_count: int,
        request_key: RequestKey | None,
        stored: store_pb2.StoredResponse | None,
    ) -> CommitArgs:
        """The commit's named arguments but those across tables (left unwritten)."""
        table = record.table
        ttl = requests_ttl = self.ttl
        if table.status == gw.TABLE_STATUS_OPEN:
            ttl = requests_ttl = self.open_ttl
        elif table.status == gw.TABLE_STATUS_FINISHED:
            ttl = requests_ttl = self.finished_ttl
            if self.retry_seconds > 0 and not 0 < ttl <= self.retry_seconds:
                requests_ttl = self.retry_seconds
        return CommitArgs(
            expected_version=expected_version,
            record=data,
            version=table.version,
            last_seq=table.last_seq,
            ttl=ttl,
            request_field=request_key.field if request_key else b"",
            response=stored.SerializeToString() if stored is not None else b"",
            channel=self.channel(table.table_id),
            types=types,
            requests_ttl=requests_ttl,
            entry_count=entry_count,
            finished="1" if table.status == gw.TABLE_STATUS_FINISHED else "0",
            table_id=table.table_id,
        )

    async def _run_commit(self, keys: CommitKeys, args: list[bytes | str | int]) -> list:
        key_list = keys.values()
        try:  # EVALSHA itself: redis-py's Script call checks for a pipeline at every call
            return await self.redis.evalsha(self._commit.sha, len(key_list), *key_list, *args)
        except NoScriptError:  # a Redis that lost its scripts (restarted, flushed): loads it
            return await self._commit(keys=key_list, args=args)

    async def read_log(self, table_id: str, after_seq: int, count: int = 500) -> list[StoredEntry]:
        """Up to ``count`` entries after ``after_seq``, from the archive of a finished game
        and then the stream."""
        table_key, log_key, _, archive_key = self._keys(table_id)
        for _ in range(3):
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.get(archive_key)
                pipe.xrange(log_key, min=f"({after_seq}-0", max="+", count=count)
                # After the entries: the list only grows, so it covers every entry read.
                pipe.hmget(table_key, ["types", "seq"])
                archive, stream, (types, last) = await pipe.execute()
            # The game's end moved the stream into the archive between the two reads, which
            # then found neither: read again (the seq is written with the entries).
            if archive is None and not stream and int(last or 0) > after_seq:
                continue
            break
        if last is None and archive is None and not stream and self.archive is not None:
            types, rows = await self.archive.log(table_id, after_seq, count)  # trimmed from Redis
        else:
            rows = archived_entries(archive or b"")
        type_urls, names = self._types(types) if types else ((), ())
        entries = [
            StoredEntry(seq=seq, data=record, type_urls=type_urls, names=names)
            for seq, record in rows
            if seq > after_seq
        ][:count]
        last_seq = entries[-1].seq if entries else after_seq
        # redis-py types replies for every client flavour at once; this one does not decode.
        raw = cast("list[tuple[bytes, dict[bytes, bytes]]]", stream)
        for entry_id, fields in raw:
            seq = int(entry_id.split(b"-")[0])
            if seq > last_seq and len(entries) < count:
                entries.append(StoredEntry(seq=seq, data=fields[b"e"], type_urls=type_urls, names=names))
        return entries

    # -- indexes across tables ---------------------------------------------------------
    async def load_many(self, table_ids: list[str]) -> list[store_pb2.TableRecord | None]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                pipe.hget(self._keys(table_id)[0], "record")
            replies = await pipe.execute()
        if self.archive is not None and None in replies:
            archived = await self.archive.records(
                [tid for tid, reply in zip(table_ids, replies, strict=True) if reply is None]
            )
            replies = [
                archived.get(tid) if reply is None else reply for tid, reply in zip(table_ids, replies, strict=True)
            ]
        return [store_pb2.TableRecord.FromString(reply) if reply else None for reply in replies]

    # -- the archive's side in Redis (gateway/archiver.py) --------------------------------

    async def snapshot(self, table_id: str) -> "FinishedTable | None":
        """A finished table as Redis holds it, read in one transaction on a single Redis
        (on a cluster in one trip: the rare entry appended meanwhile makes a newer version,
        which the trim sees): None when it is gone or not finished."""
        table_key, log_key, _, archive_key = self._keys(table_id)
        async with self.redis.pipeline(transaction=self.due_in_commit) as pipe:
            pipe.hmget(table_key, ["record", "types", "version"])
            pipe.get(archive_key)
            pipe.xrange(log_key, "-", "+")
            (data, types, version), archive, stream = await pipe.execute()
        if data is None:
            return None
        record = store_pb2.TableRecord.FromString(data)
        if record.table.status != gw.TABLE_STATUS_FINISHED:
            return None
        entries = archived_entries(archive or b"")
        raw = cast("list[tuple[bytes, dict[bytes, bytes]]]", stream)
        entries += [(int(entry_id.split(b"-")[0]), fields[b"e"]) for entry_id, fields in raw]
        return FinishedTable(record, data, types or b"", int(version), sorted(entries))

    async def file_finished(self, table_id: str) -> None:
        """Files a finished table in the archive's outbox where its commit could not (a
        cluster: the gateway writes it after the commit, and may have died in between)."""
        if self.archive_outbox is not None and not self.due_in_commit:
            await self.redis.zadd(self.archive_outbox, {table_id: time.time()}, nx=True)

    async def trim(self, table_id: str, archived_version: int) -> str:
        """Deletes a table's keys if Redis holds the version the archive holds:
        "trimmed", "gone" (nothing to delete) or "newer" (a later commit: copy it again)."""
        result = await self._trim(keys=list(self._keys(table_id)), args=[archived_version])
        return {1: "trimmed", 0: "gone", -1: "newer"}[int(result)]

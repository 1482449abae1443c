"""Tables in Redis.

Per table, three keys sharing the hash tag ``{table_id}`` (so the layout works on Redis
Cluster) and one pub/sub channel:
  <prefix>:{id}:table     hash: record (TableRecord proto), version, seq
  <prefix>:{id}:log       stream: the durable event log, entry id "<seq>-0"; fields
                          "spec" (TableEvent bytes for spectators), "s<n>" (seat n's
                          projection where it differs; empty = nothing for that seat),
                          "end" on the last entry of a finished game, "revoke" (a
                          seat whose token stops working at this entry), "act" (the
                          SeatAction that made this entry, for replays; never streamed)
  <prefix>:{id}:requests  hash: "<token digest>:<request_id>" -> StoredResponse (compact:
                          where the action's events are in the log, the table's new
                          version and status), for idempotency
  <prefix>:{id}:wake      channel: the new last seq, published on every commit

Two indexes across tables, sorted sets scored by the time a table took its status, and
written only when the status changes (never on the path of an ordinary action):
``<prefix>:index:open`` (tables waiting for players, for ListTables) and
``<prefix>:index:in-progress`` (tables being played, for ListTables and the sweep).
A third sorted set, ``<prefix>:due``, holds each table that waits on a bot or timer task,
scored by the time that task should have acted by; the gateway's sweep
(gateway/sweeper.py) wakes a table again once its time has passed.

On a Redis Cluster (``redis+cluster://``, common/redis_client.py) a table's keys live in
one slot, so the commit script runs on one node; the indexes and the sweep cursor are keys
of their own, written outside the script. The wake-up is a plain PUBLISH, which a cluster
forwards to every node, so a gateway's one subscription hears every table (sharded
pub/sub, SPUBLISH, needs Redis 7 and would spare that fan-out).

Every change goes through ``commit``: one Lua script that checks the version (a
compare-and-set), refuses a used request id, writes the record, appends the log entries,
stores the response, refreshes the TTL and publishes, all or nothing.
"""

from dataclasses import dataclass, field
from typing import cast

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2

_COMMIT = """
local current = redis.call('HGET', KEYS[1], 'version')
if ARGV[1] == '0' then
  if current then return {-1} end
else
  if not current then return {-2} end
  if current ~= ARGV[1] then return {-3, current} end
end
if ARGV[6] ~= '' then
  local prior = redis.call('HGET', KEYS[3], ARGV[6])
  if prior then return {-4, prior} end
end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'version', ARGV[3], 'seq', ARGV[4])
local i = 10
for e = 1, tonumber(ARGV[9]) do
  local id = ARGV[i]
  local n = tonumber(ARGV[i + 1])
  local fields = {}
  for k = 1, n * 2 do fields[k] = ARGV[i + 1 + k] end
  redis.call('XADD', KEYS[2], id, unpack(fields))
  i = i + 2 + n * 2
end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[3], ARGV[6], ARGV[7]) end
local ttl = tonumber(ARGV[5])
if ttl > 0 then
  for k = 1, 3 do redis.call('EXPIRE', KEYS[k], ttl) end
end
redis.call('PUBLISH', ARGV[8], ARGV[4])
return {1}
"""


# Forgets a table's due time only if nobody moved it later meanwhile (a newer commit did).
_FORGET_DUE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


class TableExists(Exception):
    pass


class TableMissing(Exception):
    pass


class VersionConflict(Exception):
    def __init__(self, current: int):
        super().__init__(f"table is at version {current}")
        self.current = current


class RequestUsed(Exception):
    def __init__(self, stored: store_pb2.StoredResponse):
        super().__init__("request id already used")
        self.stored = stored


@dataclass
class LogEntry:
    """One event log entry: the spectator's bytes and each seat's where they differ."""

    spectator: bytes
    seats: dict[int, bytes] = field(default_factory=dict)
    end: bool = False
    # A seat whose token stops working here (a bot took it): its watchers are let go.
    revoked_seat: int | None = None
    # The SeatAction that made this entry (bytes), read back only by replays.
    action: bytes = b""

    def fields(self) -> list[bytes | str]:
        flat: list[bytes | str] = ["spec", self.spectator]
        for seat, data in sorted(self.seats.items()):
            flat += [f"s{seat}", data]
        if self.end:
            flat += ["end", "1"]
        if self.revoked_seat is not None:
            flat += ["revoke", str(self.revoked_seat)]
        if self.action:
            flat += ["act", self.action]
        return flat


@dataclass
class StoredEntry:
    seq: int
    fields: dict[bytes, bytes]

    def for_viewer(self, seat: int | None) -> bytes:
        """The entry as ``seat`` (None: spectator) sees it; b'' when it sees nothing."""
        if seat is not None:
            own = self.fields.get(f"s{seat}".encode())
            if own is not None:
                return own
        return self.fields.get(b"spec", b"")

    @property
    def action(self) -> bytes:
        return self.fields.get(b"act", b"")

    @property
    def is_end(self) -> bool:
        return b"end" in self.fields

    def revokes(self, seat: int | None) -> bool:
        return seat is not None and self.fields.get(b"revoke") == str(seat).encode()


class TableStore:
    def __init__(
        self, client: Redis | RedisCluster, prefix: str, ttl_seconds: int, open_ttl_seconds: int | None = None
    ):
        self.redis = client
        self.prefix = prefix
        self.ttl = ttl_seconds
        # An open table nobody starts expires sooner, and so leaves the lobby.
        self.open_ttl = ttl_seconds if open_ttl_seconds is None else min(open_ttl_seconds, ttl_seconds)
        self._commit = client.register_script(_COMMIT)
        self._forget_due = client.register_script(_FORGET_DUE)
        self.due_key = f"{prefix}:due"

    def _keys(self, table_id: str) -> tuple[str, str, str]:
        base = f"{self.prefix}:{{{table_id}}}"
        return f"{base}:table", f"{base}:log", f"{base}:requests"

    def channel(self, table_id: str) -> str:
        return f"{self.prefix}:{{{table_id}}}:wake"

    async def load(
        self, table_id: str, request_key: str | None = None
    ) -> tuple[store_pb2.TableRecord, store_pb2.StoredResponse | None]:
        """The table's record, and the stored response for ``request_key`` if any, in one trip."""
        table_key, _, requests_key = self._keys(table_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(table_key, "record")
            if request_key:
                pipe.hget(requests_key, request_key)
            replies = await pipe.execute()
        if replies[0] is None:
            raise TableMissing(table_id)
        record = store_pb2.TableRecord.FromString(replies[0])
        stored = None
        if request_key and replies[1] is not None:
            stored = store_pb2.StoredResponse.FromString(replies[1])
        return record, stored

    async def commit(
        self,
        record: store_pb2.TableRecord,
        expected_version: int,
        entries: list[LogEntry],
        request_key: str = "",
        stored: store_pb2.StoredResponse | None = None,
    ) -> None:
        """Writes ``record`` (whose table.version/last_seq are already the new ones) if the
        table is still at ``expected_version`` (0: create it). Raises TableExists,
        TableMissing, VersionConflict or RequestUsed, and then nothing was written."""
        table = record.table
        first_seq = table.last_seq - len(entries) + 1
        args: list[bytes | str | int] = [
            expected_version,
            record.SerializeToString(),
            table.version,
            table.last_seq,
            self.open_ttl if table.status == gw.TABLE_STATUS_OPEN else self.ttl,
            request_key,
            stored.SerializeToString() if stored is not None else b"",
            self.channel(table.table_id),
            len(entries),
        ]
        for offset, entry in enumerate(entries):
            fields = entry.fields()
            args += [f"{first_seq + offset}-0", len(fields) // 2, *fields]
        result = await self._commit(keys=self._keys(table.table_id), args=args)
        status = int(result[0])
        if status == 1:
            return
        if status == -1:
            raise TableExists(table.table_id)
        if status == -2:
            raise TableMissing(table.table_id)
        if status == -3:
            raise VersionConflict(int(result[1]))
        raise RequestUsed(store_pb2.StoredResponse.FromString(result[1]))

    async def read_log(self, table_id: str, after_seq: int, count: int = 500) -> list[StoredEntry]:
        _, log_key, _ = self._keys(table_id)
        # redis-py types replies for every client flavour at once; this one does not decode.
        raw = cast(
            "list[tuple[bytes, dict[bytes, bytes]]]",
            await self.redis.xrange(log_key, min=f"({after_seq}-0", max="+", count=count),
        )
        return [StoredEntry(seq=int(entry_id.split(b"-")[0]), fields=fields) for entry_id, fields in raw]

    # -- indexes across tables ---------------------------------------------------------

    def _index(self, status: str) -> str:
        return f"{self.prefix}:index:{status}"

    async def index(self, table_id: str, status: str | None, now: float) -> None:
        """Files the table under its status ("open" or "in-progress"; None: neither, for a
        finished or expired table), scored by ``now``."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for name in ("open", "in-progress"):
                if name == status:
                    pipe.zadd(self._index(name), {table_id: now})
                else:
                    pipe.zrem(self._index(name), table_id)
            await pipe.execute()

    async def listed(self, status: str, offset: int, count: int) -> list[str]:
        """Tables under ``status``, the newest to it first."""
        # redis-py types replies for every client flavour at once; this one does not decode.
        raw = cast("list[bytes]", await self.redis.zrevrange(self._index(status), offset, offset + count - 1))
        return [table_id.decode() for table_id in raw]

    async def load_many(self, table_ids: list[str]) -> list[store_pb2.TableRecord | None]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                pipe.hget(self._keys(table_id)[0], "record")
            replies = await pipe.execute()
        return [store_pb2.TableRecord.FromString(reply) if reply else None for reply in replies]

    async def sweep_batch(self, count: int) -> list[str]:
        """The next ``count`` tables in progress for the sweep, which walks the index
        round and round from a cursor shared by every gateway."""
        cursor_key = f"{self.prefix}:sweep:cursor"
        offset = int(await self.redis.get(cursor_key) or 0)
        # redis-py types replies for every client flavour at once; this one does not decode.
        raw = cast("list[bytes]", await self.redis.zrange(self._index("in-progress"), offset, offset + count - 1))
        await self.redis.set(cursor_key, offset + len(raw) if len(raw) == count else 0)
        return [table_id.decode() for table_id in raw]

    async def try_lock(self, name: str, seconds: float) -> bool:
        """A lock that expires by itself, so one gateway of many does a periodic job."""
        milliseconds = max(1, int(seconds * 1000))
        return bool(await self.redis.set(f"{self.prefix}:lock:{name}", "1", nx=True, px=milliseconds))

    # -- due times: tables waiting on a task ---------------------------------------------

    async def set_due(self, table_id: str, when: float | None) -> None:
        """The time by which the table's pending task should have acted (None: it waits
        on no task)."""
        if when is None:
            await self.redis.zrem(self.due_key, table_id)
        else:
            await self.redis.zadd(self.due_key, {table_id: when})

    async def overdue(self, now: float, count: int) -> list[tuple[str, float]]:
        """Up to ``count`` tables whose due time has passed, the longest overdue first."""
        # redis-py types replies for every client flavour at once; this one does not decode.
        raw = cast(
            "list[tuple[bytes, float]]",
            await self.redis.zrangebyscore(self.due_key, "-inf", now, start=0, num=count, withscores=True),
        )
        return [(table_id.decode(), score) for table_id, score in raw]

    async def forget_due(self, table_id: str, seen: float) -> None:
        """Drops the table's due time unless a newer commit set a later one than ``seen``."""
        await self._forget_due(keys=[self.due_key], args=[table_id, repr(seen)])

    async def due_times(self, table_ids: list[str]) -> list[float | None]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                pipe.zscore(self.due_key, table_id)
            return await pipe.execute()

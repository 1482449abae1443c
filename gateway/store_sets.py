"""The store's sorted sets across tables, a part of TableStore (gateway/store.py).

Two indexes, scored by the time a table took its status, and written only when the status
changes (never on the path of an ordinary action): ``<prefix>:index:open`` (tables waiting
for players, for ListTables) and ``<prefix>:index:in-progress`` (tables being played, for
ListTables and the sweep), walked by the sweep from a cursor shared by every gateway. A
third sorted set, ``<prefix>:due``, holds each table that waits on a bot or timer task,
scored by the time that task should have acted by (written by the commit script on a
single Redis); the gateway's sweep (gateway/sweeper.py) wakes a table again once its time
has passed. And the locks by which one gateway of many does a periodic job.
"""

from typing import cast

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

# Forgets a table's due time only if nobody moved it later meanwhile (a newer commit did).
_FORGET_DUE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


class TableSets:
    """The indexes, the due set, the sweep's cursor and the locks."""

    def __init__(self, client: Redis | RedisCluster, prefix: str):
        self.redis = client
        self.prefix = prefix
        self.due_key = f"{prefix}:due"
        self._forget_due = client.register_script(_FORGET_DUE)

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

    async def opened_before(self, when: float, count: int) -> list[str]:
        """Up to ``count`` open tables filed as open before ``when``, the oldest first."""
        raw = cast("list[bytes]", await self.redis.zrangebyscore(self._index("open"), "-inf", when, start=0, num=count))
        return [table_id.decode() for table_id in raw]

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

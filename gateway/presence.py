"""Where players are, for their friends: online, away or at a table, across gateways.

A player's presence is one Redis hash (``<prefix>:presence:<player>``: state, table, when
set) that lives PRESENCE_TTL_SECONDS: SetPresence writes it, and a gateway refreshes it for
every player holding a WatchInvitations stream there, all of them in one pipelined trip
every REFRESH_SECONDS. A player with neither is offline. One update is one pipelined
HSET + EXPIRE; ``python -m bench --only presence`` measures what it costs.
"""

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Iterator

import structlog
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from gateway.players import text
from tavola.gateway.v1 import social_pb2 as so

log = structlog.get_logger()

PRESENCE_TTL_SECONDS = 90
REFRESH_SECONDS = 30.0


class PresenceBook:
    def __init__(self, redis: "Redis | RedisCluster", key_prefix: str):
        self.redis = redis
        self.base = f"{key_prefix}:presence"
        # Players with a stream open on this gateway (how many streams each).
        self.streaming: Counter[str] = Counter()
        self._loop: asyncio.Task | None = None

    def _key(self, player_id: str) -> str:
        return f"{self.base}:{player_id}"

    async def set(self, player_id: str, state: int, table_id: str = "") -> so.Presence:
        now = time.time_ns()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(self._key(player_id), mapping={"state": state, "table": table_id, "seen": now})
            pipe.expire(self._key(player_id), PRESENCE_TTL_SECONDS)
            await pipe.execute()
        presence = so.Presence(state=state, table_id=table_id)  # type: ignore[arg-type]
        presence.seen_time.FromNanoseconds(now)
        return presence

    async def forget(self, player_id: str) -> None:
        await self.redis.delete(self._key(player_id))

    async def read(self, player_ids: list[str]) -> list[so.Presence]:
        if not player_ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid in player_ids:
                pipe.hmget(self._key(pid), ["state", "table", "seen"])
            replies = await pipe.execute()
        found = []
        for state, table, seen in replies:
            if state is None:
                found.append(so.Presence(state=so.PRESENCE_STATE_OFFLINE))
                continue
            presence = so.Presence(state=int(state), table_id=text(table or b""))  # type: ignore[arg-type]
            presence.seen_time.FromNanoseconds(int(seen))
            found.append(presence)
        return found

    @contextlib.contextmanager
    def online_while(self, player_id: str) -> Iterator[None]:
        """Keeps the player online (unless they said otherwise) while the block runs."""
        self.streaming[player_id] += 1
        try:
            yield
        finally:
            self.streaming[player_id] -= 1
            if self.streaming[player_id] <= 0:
                del self.streaming[player_id]

    async def refresh(self, players: list[str] | None = None) -> int:
        """Marks ``players`` (by default every streaming player) online in one trip: a
        player who set AWAY or AT_TABLE keeps that state, only its expiry moves. Returns
        how many."""
        players = list(self.streaming) if players is None else players
        if not players:
            return 0
        now = time.time_ns()
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid in players:
                pipe.hsetnx(self._key(pid), "state", so.PRESENCE_STATE_ONLINE)
                pipe.hset(self._key(pid), "seen", now)
                pipe.expire(self._key(pid), PRESENCE_TTL_SECONDS)
            await pipe.execute()
        return len(players)

    def start(self) -> None:
        async def loop() -> None:
            while True:
                try:
                    await self.refresh()
                except Exception:
                    log.error("presence_refresh_failed", exc_info=True)
                await asyncio.sleep(REFRESH_SECONDS)

        self._loop = asyncio.create_task(loop(), name="presence-refresh")

    async def stop(self) -> None:
        if self._loop is not None:
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop

"""Wakes the watchers of a table when its log grows.

One pub/sub connection per gateway process, subscribed to the channels of the tables
someone here is watching. Each table has a generation counter; a watcher notes the
generation, reads the log, and waits only if the generation has not moved since, so no
wake-up between reading and waiting is lost. Watchers also re-read on a timeout, which
covers a dropped pub/sub message or a Redis reconnect.
"""

import asyncio
import contextlib

import redis.asyncio as redis
import structlog

log = structlog.get_logger()


class _Table:
    __slots__ = ("changed", "generation", "watchers")

    def __init__(self) -> None:
        self.generation = 0
        self.watchers = 0
        self.changed = asyncio.Event()


class Hub:
    def __init__(self, client: redis.Redis, control_channel: str):
        self.redis = client
        self.control_channel = control_channel
        self.tables: dict[str, _Table] = {}
        self.pubsub = client.pubsub(ignore_subscribe_messages=True)
        self.task: asyncio.Task | None = None
        self.lock = asyncio.Lock()

    async def start(self) -> None:
        # A standing subscription keeps the connection open while no table is watched.
        await self.pubsub.subscribe(self.control_channel)
        self.task = asyncio.create_task(self._listen(), name="hub-listen")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        await self.pubsub.aclose()

    async def _listen(self) -> None:
        while True:
            try:
                message = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:  # a reconnect: watchers poll on their timeout meanwhile
                log.warning("pubsub_error", exc_info=True)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            channel = message["channel"].decode()
            table = self.tables.get(channel)
            if table is not None:
                table.generation += 1
                table.changed.set()
                table.changed = asyncio.Event()

    async def join(self, channel: str) -> None:
        async with self.lock:
            table = self.tables.get(channel)
            if table is None:
                table = self.tables[channel] = _Table()
                await self.pubsub.subscribe(channel)
            table.watchers += 1

    async def leave(self, channel: str) -> None:
        async with self.lock:
            table = self.tables.get(channel)
            if table is None:
                return
            table.watchers -= 1
            if table.watchers == 0:
                del self.tables[channel]
                await self.pubsub.unsubscribe(channel)

    def generation(self, channel: str) -> int:
        return self.tables[channel].generation

    async def wait(self, channel: str, seen_generation: int, timeout: float) -> None:
        table = self.tables[channel]
        if table.generation != seen_generation:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(table.changed.wait(), timeout)

"""Nothing waits for a lost task: a sweep re-enqueues the tasks of quiet tables.

A bot or timer task can be lost between a commit and its enqueue (the broker down at
that moment, or the gateway stopped in between). Every ``interval`` seconds one gateway
(by a self-expiring lock) looks at the tables in progress that have not changed for an
interval and enqueues again the tasks their current version needs. That is harmless when
the first task was not lost: a bot task for a version already played, or a timer for a
seat that decided, does nothing (``bots/tasks.py``, ``TimerService``).
"""

import asyncio
import time

import structlog
from redis.exceptions import RedisError

from gateway import metrics
from gateway.service import GatewayServicer
from gateway.store import TableMissing

log = structlog.get_logger()

BATCH = 500


class Sweeper:
    def __init__(self, gateway: GatewayServicer, interval: float):
        self.gateway = gateway
        self.interval = interval
        self.task: asyncio.Task | None = None

    def start(self) -> None:
        if self.interval > 0:
            self.task = asyncio.create_task(self._run(), name="sweeper")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.sweep()
            except RedisError:
                log.warning("sweep_failed", exc_info=True)

    async def sweep(self) -> int:
        """Re-enqueues the tasks of quiet tables; returns how many tables it looked at."""
        store = self.gateway.store
        if not await store.try_lock("sweep", int(self.interval)):
            return 0
        quiet = await store.quiet_since(time.time() - self.interval, BATCH)
        for table_id in quiet:
            try:
                record, _ = await store.load(table_id)
            except TableMissing:  # expired
                await store.index(table_id, None, 0)
                continue
            await self.gateway._after_commit(record)
        if quiet:
            metrics.SWEPT.inc(len(quiet))
            log.info("swept", tables=len(quiet))
        return len(quiet)

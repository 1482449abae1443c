"""Nothing waits for a lost task: a sweep re-enqueues the tasks of quiet tables.

A bot or timer task can be lost between a commit and its enqueue (the broker down at
that moment, or the gateway stopped in between). Every ``interval`` seconds one gateway
(by a self-expiring lock) takes the next batch of tables in progress, round and round
the index, and for each that has not changed for an interval enqueues again the tasks
its current version needs. That is harmless when
the first task was not lost: a bot task for a version already played, or a timer for a
seat that decided, does nothing (``bots/tasks.py``, ``TimerService``).
"""

import asyncio
import time

import structlog
from redis.exceptions import RedisError

from gateway import metrics
from gateway.core import TableCore
from tavola.gateway.v1 import gateway_pb2 as gw

log = structlog.get_logger()

BATCH = 500


class Sweeper:
    def __init__(self, core: TableCore, interval: float):
        self.core = core
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
        """Re-enqueues the tasks of the quiet tables among the next batch of tables in
        progress; returns how many tables it woke."""
        store = self.core.store
        if not await store.try_lock("sweep", int(self.interval)):
            return 0
        batch = await store.sweep_batch(BATCH)
        records = await store.load_many(batch)
        quiet_before = time.time() - self.interval
        woken = 0
        for table_id, record in zip(batch, records, strict=True):
            if record is None or record.table.status != gw.TABLE_STATUS_IN_PROGRESS:
                await store.index(table_id, None, 0)  # expired or finished: no longer played
            elif record.table.update_time.ToNanoseconds() / 1e9 < quiet_before:
                await self.core.wake(record)
                woken += 1
        if woken:
            metrics.SWEPT.inc(woken)
            log.info("swept", tables=len(batch), woken=woken)
        return woken

"""Nothing waits for a lost task: the gateway wakes again a table whose task is overdue.

A bot or timer task can be lost between a commit and its enqueue (the broker down at that
moment, or the gateway stopped in between), or with a worker killed while it held the
task: tasks are acknowledged late, but a worker keeps those it holds in its memory only
(bots/worker/app.py: no copy in the broker to hand on after a visibility timeout, which would in
any case come far too late for a game).

So every wake-up (``Wakeups.wake``) first records when the table's task should have
acted by (``due_time``): a bot's by the commit plus the grace (TAVOLA_TASK_GRACE_SECONDS)
plus twice its thinking budget (a task may wait one budget for a busy pool process, then
think one), a timer's by its deadline plus the grace. Two jobs, each run by one gateway
at a time (a self-expiring lock):

- every ``due_interval`` seconds (TAVOLA_DUE_SWEEP_SECONDS, 1) the due sweep takes the
  tables whose time has passed and wakes them again, unless the table moved on meanwhile
  or its bot's queue may still hold its task (a queue is taken oldest first: it may while
  its oldest task was sent no later than the table's last commit; then it looks again
  once the tasks in the queue should be done). A table woken again is next looked at after as long again as it
  has been quiet (doubling, at most a minute), so a task that keeps getting lost does not
  flood its queue;
- every ``interval`` seconds (TAVOLA_SWEEP_SECONDS, 30) the walk takes the next batch of
  tables in progress, round and round the index, and wakes those quiet that long that
  have no due time: a gateway stopped between a commit and its wake-up recorded none.

Waking a table whose task was not lost is harmless: a bot task for a version already
played, or a timer for a seat that decided, does nothing (``bots/worker/tasks.py``,
``TimerService``); the bot's copy submits under the same request id and expected version.
"""

import asyncio
import time
from collections.abc import Awaitable, Callable

import structlog
from redis.exceptions import RedisError

from common.tasks import ALL_BOT_PRIORITY, ALL_BOT_UNDER_WAY_PRIORITY, queue_for, queue_key
from gateway import metrics
from gateway.abandoned import Abandonment
from gateway.commands import TableCore
from gateway.publisher import Backlog
from gateway.wakeups import awaits_begin, due_time, waiting_bot_seats
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2

log = structlog.get_logger()

BATCH = 500  # tables per walk
DUE_BATCH = 500  # overdue tables per due sweep
BACKOFF_CAP = 60.0
# What a task ahead in a bot's queue may take, generously: workers on two cores play a
# random bot's decision in about 4 ms; a search bot's task adds its budget. A task of an
# all-bot table plays its table on, often to its end (bots/worker/tasks.py), so no count of such
# tasks bounds the wait: for them the figure only sets how soon a table whose task may
# still be queued is looked at again (whether it may be is read by time: may_hold).
QUEUED_TASK_SECONDS = 0.02
QUEUED_CONTINUING_TASK_SECONDS = 0.06
# How long after a table's commit its task may be sent (the commit's wake-up, on a busy
# gateway): a queue whose oldest task was sent later no longer holds it.
SENT_SLACK_SECONDS = 2.0
RESENT_KEPT = 100_000


class Sweeper:
    def __init__(
        self, core: TableCore, interval: float, due_interval: float = 1.0, abandonment: Abandonment | None = None
    ):
        self.core = core
        # Ends the tables nobody plays (gateway/abandoned.py), as the walk comes by them.
        self.abandonment = abandonment
        self.interval = interval
        self.due_interval = due_interval
        self.tasks: list[asyncio.Task] = []
        # When the sweeps last sent a table's task again (this gateway's; bounded).
        self.resent: dict[str, float] = {}

    def _sent_again(self, table_id: str, now: float) -> None:
        if len(self.resent) >= RESENT_KEPT:
            self.resent.clear()  # a gateway that lost track looks for a task sent at the commit: one copy too many
        self.resent[table_id] = now

    def start(self) -> None:
        if self.interval > 0:
            self.tasks.append(asyncio.create_task(self._every(self.interval, self.sweep), name="sweeper"))
        if self.due_interval > 0:
            self.tasks.append(asyncio.create_task(self._every(self.due_interval, self.sweep_due), name="due-sweeper"))

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.tasks.clear()

    @staticmethod
    async def _every(seconds: float, job: Callable[[], Awaitable[int]]) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await job()
            except RedisError:
                log.warning("sweep_failed", job=job.__name__, exc_info=True)
            except Exception:  # a fault in one round must not end the sweeps for good
                log.exception("sweep_error", job=job.__name__)

    async def sweep_due(self) -> int:
        """Wakes again the tables whose task is overdue; returns how many it woke."""
        store = self.core.store
        if not await store.try_lock("sweep-due", self.due_interval):
            return 0
        now = time.time()
        overdue = await store.overdue(now, DUE_BATCH)
        if not overdue:
            return 0
        records = await store.load_many([table_id for table_id, _ in overdue])
        wakeups = self.core.wakeups
        grace = wakeups.grace_seconds
        backlogs: dict[str, Backlog] = {}
        woken = 0
        for (table_id, seen), record in zip(overdue, records, strict=True):
            due = None if record is None else due_time(record, grace, wakeups.bots.thinking_seconds)
            if record is None or due is None:  # expired, finished, or it waits on no task now
                await store.forget_due(table_id, seen)
                self.resent.pop(table_id, None)
                continue
            if due > now:  # it moved on since; its own time stands
                await store.set_due(table_id, due)
                self.resent.pop(table_id, None)
                continue
            queued = await self._queued_wait(record, backlogs)
            if queued:  # its task may still be in the queue behind the others: look again later
                await store.set_due(table_id, max(due + queued, now + min(queued, BACKOFF_CAP)))
                continue
            quiet = now - record.table.update_time.ToNanoseconds() / 1e9
            await self.core.wakeups.wake(record, not_before=now + min(BACKOFF_CAP, max(grace, quiet)))
            self._sent_again(table_id, now)
            woken += 1
        if woken:
            metrics.SWEPT.inc(woken)
            log.info("woken_overdue", tables=len(overdue), woken=woken)
        return woken

    async def _queued_wait(self, record: store_pb2.TableRecord, backlogs: dict[str, Backlog]) -> float:
        """0 when no queue of the table's deciding bots may still hold its task; else how
        long the tasks now in those queues may take: those of tables with people, and for
        an all-bot table those of all-bot tables too.

        A task of an all-bot table that waits to begin waits behind whole games (common/tasks.py
        ALL_BOT_PRIORITY), longer than any estimate by task: so it is looked for by time
        rather than counted. A queue is taken oldest first, so it may still hold the task
        (sent just after the table's last commit) only while its oldest task was sent no
        later than that."""
        publisher = self.core.tasks.publisher
        if publisher is None:  # a broker read only through Celery: no backlog known
            return 0.0
        table = record.table
        # Its task was sent just after its last commit, or when a sweep sent it again.
        sent = max(table.update_time.ToNanoseconds() / 1e9, self.resent.get(table.table_id, 0.0))
        people = any(info.kind == gw.SEAT_KIND_HUMAN for info in table.seats)
        wait = 0.0
        for seat in waiting_bot_seats(record):
            info = table.seats[seat]
            queue = queue_for(info.bot)
            lists = [queue_key(queue)]
            if not people:
                # A begin task, and the first task of a table a host started, wait with
                # those of the tables not yet begun (at the table's first versions), unless
                # a sweep sent them again.
                first = awaits_begin(record) or table.version <= 2
                waiting = [ALL_BOT_PRIORITY] if first and table.table_id not in self.resent else []
                lists += [queue_key(queue, priority) for priority in [ALL_BOT_UNDER_WAY_PRIORITY, *waiting]]
            for name in lists:
                if name not in backlogs:
                    backlogs[name] = await publisher.backlog(name)
            own = lists[:1] if people else lists[1:]  # where the table's task went
            if not any(backlogs[name].may_hold(sent, SENT_SLACK_SECONDS) for name in own):
                continue
            people_tasks = backlogs[lists[0]].length
            bot_tasks = sum(backlogs[name].length for name in lists[1:])
            each = self.core.bots.thinking_seconds(info.bot)
            wait = max(
                wait,
                people_tasks * (QUEUED_TASK_SECONDS + each) + bot_tasks * (QUEUED_CONTINUING_TASK_SECONDS + each),
                self.due_interval,
            )
        return wait

    async def sweep(self) -> int:
        """The walk: wakes the tables among the next batch of tables in progress that have
        been quiet for an interval and have no due time (or all quiet ones when the due
        sweep is off); returns how many it woke."""
        store = self.core.store
        if not await store.try_lock("sweep", self.interval):
            return 0
        batch = await store.sweep_batch(BATCH)
        records = await store.load_many(batch)
        dues = await store.due_times(batch) if self.due_interval > 0 else [None] * len(batch)
        quiet_before = time.time() - self.interval
        woken = 0
        for table_id, record, due in zip(batch, records, dues, strict=True):
            if record is None or record.table.status != gw.TABLE_STATUS_IN_PROGRESS:
                rated = record is not None and record.table.status == gw.TABLE_STATUS_FINISHED and record.table.rated
                hook = None if store.jobs_in_commit else self.core.on_rated_finish
                # Left here by a gateway that died before writing its rating job (a cluster:
                # the commit could not): written now (gateway/ratings.py); the table stays
                # for the next walk if it could not be.
                if record is not None and rated and hook is not None and not await hook(record, False):
                    continue
                if record is not None and record.table.status == gw.TABLE_STATUS_FINISHED:
                    await store.file_finished(table_id)  # a cluster's outbox, the same way
                await store.index(table_id, None, 0)  # expired or finished: no longer played
            elif self.abandonment is not None and await self.abandonment.check(record):
                continue
            elif due is None and record.table.update_time.ToNanoseconds() / 1e9 < quiet_before:
                await self.core.wakeups.wake(record)
                self._sent_again(table_id, time.time())
                woken += 1
        if self.abandonment is not None:
            await self.abandonment.close_open()
        if woken:
            metrics.SWEPT.inc(woken)
            log.info("swept", tables=len(batch), woken=woken)
        return woken

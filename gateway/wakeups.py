"""Wake-ups: after a commit, who must act is told so. A bot seat that must decide gets a
task (``gateway/publisher.py``) carrying its view, a human seat on a timed table a timer,
an all-bot table waiting to begin its first seat's bot a begin task; and the table's due
time, when the task it now waits on should have acted by, is recorded first, so that the
due sweep (``gateway/sweeper.py``) wakes the table again should the task be lost.
"""

import base64
import time
from collections.abc import Callable

import structlog

from common.errors import ApiError
from common.tasks import (
    ALL_BOT_PRIORITY,
    ALL_BOT_UNDER_WAY_PRIORITY,
    BEGIN_TASK,
    DECIDE_TASK,
    EXPIRE_TASK,
    TIMER_QUEUE,
    queue_for,
)
from gateway import metrics
from gateway.bots import BotCatalog
from gateway.clocks import seat_deadline_ns
from gateway.commit_script import NO_DUE_WRITE
from gateway.log_record import nanos
from gateway.publisher import Tasks
from gateway.reads import view_request, view_response
from gateway.rules import RulesDirectory
from gateway.store import TableStore
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2
from tavola.store.v1 import store_pb2

log = structlog.get_logger()

# A timer task waits in a worker's memory until its deadline; one further off than this is
# not sent: the table's due time (its deadline plus the grace) wakes it then, and the
# timer goes with no wait (a correspondence clock's days would outlast a worker).
TIMER_HORIZON_SECONDS = 3600.0


def awaits_begin(record: store_pb2.TableRecord) -> bool:
    """Whether the table waits for a bot worker to begin it: open, auto-started, every
    seat a bot's. Its first seat's bot gets the begin task (common/tasks.py BEGIN_TASK)."""
    table = record.table
    return (
        table.status == gw.TABLE_STATUS_OPEN
        and record.auto_start
        and bool(table.seats)
        and all(info.kind == gw.SEAT_KIND_BOT for info in table.seats)
    )


def waiting_bot_seats(record: store_pb2.TableRecord) -> list[int]:
    """The bot seats whose tasks the table waits on: the one that begins it, or those that
    must decide."""
    table = record.table
    if awaits_begin(record):
        return [0]
    if table.status != gw.TABLE_STATUS_IN_PROGRESS:
        return []
    return [seat for seat in table.deciding_seats if table.seats[seat].kind == gw.SEAT_KIND_BOT]


def due_time(record: store_pb2.TableRecord, grace: float, thinking: Callable[[str], float]) -> float | None:
    """When the tasks the table waits on now should have acted by (epoch seconds); None
    when it waits on none (open and not waiting to begin, finished, or only untimed human
    seats decide): a bot's (deciding or beginning) by the last commit plus ``grace`` plus
    twice its thinking budget (``thinking``, by bot), a timer's by its deadline plus
    ``grace``. The wake-ups record it, the sweeps act on it."""
    table = record.table
    changed = nanos(table.update_time) / 1e9
    if awaits_begin(record):
        return changed + grace + 2 * thinking(table.seats[0].bot)
    if table.status != gw.TABLE_STATUS_IN_PROGRESS:
        return None
    times = []
    for seat in table.deciding_seats:
        info = table.seats[seat]
        if info.kind == gw.SEAT_KIND_BOT:
            times.append(changed + grace + 2 * thinking(info.bot))
        elif (deadline := seat_deadline_ns(table, seat)) is not None:
            times.append(deadline / 1e9 + grace)
    return min(times, default=None)


def next_of_same_bot(record: store_pb2.TableRecord, seat: int) -> int | None:
    """A seat of the bot that holds ``seat`` that must decide now (the first), if any: a
    bot worker that continues at the table plays it instead of a task (``wake``'s ``keep``)."""
    table = record.table
    own = table.seats[seat]
    if own.kind != gw.SEAT_KIND_BOT or table.status != gw.TABLE_STATUS_IN_PROGRESS:
        return None
    for other in table.deciding_seats:
        info = table.seats[other]
        if info.kind == gw.SEAT_KIND_BOT and info.bot == own.bot:
            return other
    return None


class Wakeups:
    # How long past its expected time a pending task is waited for before the due sweep
    # wakes its table again; the gateway sets TAVOLA_TASK_GRACE_SECONDS.
    grace_seconds = 5.0

    def __init__(self, store: TableStore, rules: RulesDirectory, tasks: Tasks, bots: BotCatalog):
        self.store = store
        self.rules = rules
        self.tasks = tasks
        self.bots = bots

    async def wake(
        self,
        record: store_pb2.TableRecord,
        not_before: float | None = None,
        views: dict[int, rules_pb2.GetViewResponse] | None = None,
        keep: int | None = None,
        due_written: bool = False,
        starting: bool = False,
        phrased: bool = False,
    ) -> bytes | None:
        """Enqueue a task per bot seat that must decide now, and a timer per human seat that
        must decide on a timed table. A bot's task carries the seat's view, exactly what
        GetView would answer that seat's token at this version, so the worker asks the
        gateway nothing before it submits. The sweeps call it too, with ``not_before``: the
        earliest time to look at the table again. ``views``: the bot seats' views the rules
        service sent with the applied action, by seat (the others are asked for). ``keep``:
        a bot seat whose view is returned instead of sent in a task (the caller plays it).
        ``phrased``: ``views`` have their labels' phrases (reads.view_response).

        The table's due time is written first (``due_written``: the commit wrote it, in the
        same script): should this gateway stop before the enqueue, or a worker die holding
        the task, the due sweep finds the table within seconds.

        An all-bot table waiting to begin gets its begin task instead, behind the tasks of the
        all-bot tables under way (common/tasks.py ALL_BOT_PRIORITY), as do the first tasks
        of one a host started (``starting``: the commit started the game); later tasks, and
        those the sweeps send again, go before them (ALL_BOT_UNDER_WAY_PRIORITY). An
        auto-started one is begun by a worker with room to play it: under way from its start."""
        table = record.table
        if not due_written:
            await self._set_due(record, not_before)
        if awaits_begin(record):
            bot = table.seats[0].bot
            priority = ALL_BOT_UNDER_WAY_PRIORITY if not_before is not None else ALL_BOT_PRIORITY
            await self.tasks.publish(
                BEGIN_TASK, table.table_id, 0, queue_for(bot), [table.table_id, 0, bot], {}, priority
            )
            return None
        if table.status != gw.TABLE_STATUS_IN_PROGRESS:
            return None
        kept = None
        # A bot answers a person first: the tasks of all-bot tables wait behind theirs, and
        # those of all-bot tables not yet begun behind those under way.
        people = any(info.kind == gw.SEAT_KIND_HUMAN for info in table.seats)
        first = starting and not record.auto_start
        priority = 0 if people else ALL_BOT_PRIORITY if first else ALL_BOT_UNDER_WAY_PRIORITY
        for seat in table.deciding_seats:
            info = table.seats[seat]
            if info.kind == gw.SEAT_KIND_BOT:
                args = [table.table_id, seat, table.version, info.bot]
                view = await self._bot_view(record, seat, views.get(seat) if views else None, phrased)
                if seat == keep and view is not None:
                    kept = view  # its due time is set: should the caller not play it, the sweep sends it
                    metrics.ENQUEUED.labels(DECIDE_TASK, "continued").inc()
                    continue
                kwargs = {"view": base64.b64encode(view).decode()} if view is not None else {}
                await self.tasks.publish(DECIDE_TASK, table.table_id, seat, queue_for(info.bot), args, kwargs, priority)
            elif (deadline := seat_deadline_ns(table, seat)) is not None:
                countdown = max(0.0, deadline / 1e9 - time.time())
                if countdown > TIMER_HORIZON_SECONDS:
                    continue  # a clock of days: the due sweep wakes the table at its deadline
                task = {"args": [table.table_id, seat, table.version], "queue": TIMER_QUEUE, "countdown": countdown}
                await self.tasks.enqueue(EXPIRE_TASK, table.table_id, seat, **task)
        return kept

    def due_of(self, record: store_pb2.TableRecord, not_before: float | None = None) -> object:
        """The table's due time to write (None: it waits on no task), or NO_DUE_WRITE."""
        due = due_time(record, self.grace_seconds, self.bots.thinking_seconds)
        if due is None and record.table.status == gw.TABLE_STATUS_OPEN:
            return NO_DUE_WRITE  # an open table never waited on a task
        if due is not None and not_before is not None:
            due = max(due, not_before)
        return due

    async def _set_due(self, record: store_pb2.TableRecord, not_before: float | None) -> None:
        table = record.table
        due = self.due_of(record, not_before)
        if due is NO_DUE_WRITE:
            return
        assert due is None or isinstance(due, float)
        try:
            await self.store.set_due(table.table_id, due)
        except Exception:  # the command stands; the sweep's walk finds a table without a due time
            log.warning("due_time_failed", table_id=table.table_id, exc_info=True)

    async def _bot_view(
        self,
        record: store_pb2.TableRecord,
        seat: int,
        view: rules_pb2.GetViewResponse | None = None,
        phrased: bool = False,
    ) -> bytes | None:
        """The GetViewResponse of a bot seat that must decide, serialized; None when the rules service
        does not answer (the worker then asks GetView itself). ``view``: the rules
        service's view of the seat at this state, when it came with the applied action."""
        table = record.table
        if view is None:
            try:
                request = view_request(record.state, seat)
                view = await self.rules.call(table.game_id, "GetView", request)
                phrased = not request.omit_label_phrases
            except ApiError as error:
                log.warning("bot_view_failed", table_id=table.table_id, seat=seat, reason=error.reason)
                return None
        return view_response(table, seat, view, True, phrased)

"""Tables nobody plays end, and say so: the lobby lists only tables that are alive.

Two kinds of table would otherwise linger until their keys expire, unannounced:

- an open table nobody starts: it is closed ``open_seconds`` after it was opened
  (TAVOLA_ABANDON_OPEN_SECONDS), before its record's own expiry
  (TAVOLA_OPEN_TABLE_TTL_SECONDS) would drop it without a word;
- a game with no decision timer whose deciding seats are all people, none of whom acted
  for ``idle_seconds`` (TAVOLA_ABANDON_IDLE_SECONDS). A timed game never stalls (its timer
  plays for a silent seat) and a bot's decision is the sweeps' to wake
  (gateway/sweeper.py), so neither is ended here. Whether a person is still there is read
  from the table alone (its last accepted command), the same on every gateway.

Either ends with a TableAbandoned event every viewer sees: the table is finished, marked
``abandoned``, with no winner; a rated one is not rated (Commit.finishes_rated). The walk
of the sweeper calls ``check`` for each table in progress it looks at, and ``close_open``
once a round.
"""

import time

import structlog

from gateway.commands import TableCore
from gateway.commit import Commit, NothingToDo
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2
from tavola.store.v1 import store_pb2

log = structlog.get_logger()

OPEN_BATCH = 100  # open tables closed per round at most
REASON_WORDS = {
    gw.TableAbandoned.REASON_NEVER_STARTED: "the table was never started",
    gw.TableAbandoned.REASON_NOBODY_PLAYING: "nobody played",
}


def idle_seconds(table: gw.Table, now: float) -> float:
    return now - table.update_time.ToNanoseconds() / 1e9


def stalled(table: gw.Table, now: float, idle_limit: float) -> bool:
    """Whether a game in progress waits on people alone, with no timer, for too long."""
    return (
        idle_limit > 0
        and table.status == gw.TABLE_STATUS_IN_PROGRESS
        and table.decision_timer.seconds <= 0
        and len(table.deciding_seats) > 0
        and all(table.seats[seat].kind == gw.SEAT_KIND_HUMAN for seat in table.deciding_seats)
        and idle_seconds(table, now) >= idle_limit
    )


def never_started(table: gw.Table, now: float, open_limit: float) -> bool:
    created = table.create_time.ToNanoseconds() / 1e9
    return open_limit > 0 and table.status == gw.TABLE_STATUS_OPEN and now - created >= open_limit


class Abandonment:
    def __init__(self, core: TableCore, open_seconds: float, idle_seconds: float):
        self.core = core
        self.open_seconds = open_seconds
        self.idle_seconds = idle_seconds

    async def check(self, record: store_pb2.TableRecord) -> bool:
        """Ends the table if nobody plays it; whether it did."""
        if not stalled(record.table, time.time(), self.idle_seconds):
            return False
        return await self.end(record.table.table_id, gw.TableAbandoned.REASON_NOBODY_PLAYING)

    async def close_open(self) -> int:
        """Closes the open tables opened too long ago; returns how many."""
        if self.open_seconds <= 0:
            return 0
        table_ids = await self.core.store.opened_before(time.time() - self.open_seconds, OPEN_BATCH)
        closed = 0
        for table_id in table_ids:
            closed += await self.end(table_id, gw.TableAbandoned.REASON_NEVER_STARTED)
        return closed

    async def end(self, table_id: str, reason: "gw.TableAbandoned.Reason") -> bool:
        """One commit, from a fresh load: the table is ended only if it is still as found
        (a seat that acted, or a start, since the look keeps it alive)."""

        async def change(record: store_pb2.TableRecord, commit: Commit, _stored) -> None:
            table = record.table
            now = time.time()
            if reason == gw.TableAbandoned.REASON_NEVER_STARTED:
                if not never_started(table, now, self.open_seconds):
                    raise NothingToDo
                since = table.create_time.ToNanoseconds() / 1e9
            else:
                if not stalled(table, now, self.idle_seconds):
                    raise NothingToDo
                since = table.update_time.ToNanoseconds() / 1e9
            waited = int(now - since)
            table.status = gw.TABLE_STATUS_FINISHED
            table.abandoned = True
            del table.deciding_seats[:]
            table.ClearField("decision_deadline")
            table.outcome.CopyFrom(rules_pb2.GameOutcome(summary=f"abandoned: {REASON_WORDS[reason]}"))
            event = gw.TableAbandoned(reason=reason, idle_seconds=waited)
            commit.public(table_abandoned=event).end = True

        try:
            await self.core.transact(table_id, change)
        except NothingToDo:
            return False
        except Exception:  # gone since it was listed, or contended: the next round looks again
            log.warning("abandon_failed", table_id=table_id, exc_info=True)
            return False
        log.info("table_abandoned", table_id=table_id, reason=gw.TableAbandoned.Reason.Name(reason))
        return True

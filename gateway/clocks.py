"""Per-seat clocks (clocks.proto): each human seat has its own time, from seconds to days.

A clock is either a bank with an increment (the seat spends its bank while it must
decide and gains the increment after each decision) or a fixed time per move. Every time
the table's deciding seats change (``commit.set_deadline``), ``run`` charges the seats
that stopped deciding and starts the time of those that began, and the table's
``decision_deadline`` becomes the earliest running deadline: the timer task, the due
sweep and ``ExpireDecision`` then act on a clock exactly as on a decision timer, by seat
(``seat_deadline_ns``).
"""

import time

from common.errors import invalid
from tavola.gateway.v1 import clocks_pb2 as ck
from tavola.gateway.v1 import gateway_pb2 as gw

HOUR = 3600
DAY = 24 * HOUR
# Bounds by mode, in seconds: (bank minimum, bank maximum, move minimum, move maximum).
BOUNDS = {
    ck.CLOCK_MODE_REAL_TIME: (10, 3 * HOUR, 1, HOUR),
    ck.CLOCK_MODE_CORRESPONDENCE: (HOUR, 30 * DAY, HOUR, 14 * DAY),
}
MODE_NAMES = {ck.CLOCK_MODE_REAL_TIME: "real-time", ck.CLOCK_MODE_CORRESPONDENCE: "correspondence"}


def _span(seconds: int) -> str:
    for unit, size in (("days", DAY), ("hours", HOUR), ("minutes", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds // size} {unit}"
    return f"{seconds} seconds"


def check_clock(request: gw.CreateTableRequest) -> None:
    """A CreateTable clock within its mode's bounds, and not beside a decision timer."""
    if not request.HasField("clock"):
        return
    clock = request.clock
    if clock.mode not in BOUNDS:
        raise invalid("BAD_CLOCK", "a clock needs a mode: CLOCK_MODE_REAL_TIME or CLOCK_MODE_CORRESPONDENCE")
    if request.decision_timer.seconds:
        raise invalid("BAD_CLOCK", "a table has a clock or a decision timer, not both (decision_timer.seconds 0)")
    if request.decision_timer.policy == gw.TIMEOUT_POLICY_UNSPECIFIED:
        raise invalid("BAD_CLOCK", "a clock needs a timeout policy: decision_timer.policy")
    if clock.remaining_ms or clock.deadline_unix_ms:
        raise invalid("BAD_CLOCK", "remaining_ms and deadline_unix_ms are the gateway's to set")
    bank_low, bank_high, move_low, move_high = BOUNDS[clock.mode]
    mode = MODE_NAMES[clock.mode]
    if (clock.bank_seconds > 0) == (clock.move_seconds > 0):
        raise invalid("BAD_CLOCK", "a clock has either bank_seconds (with increment_seconds) or move_seconds")
    if clock.bank_seconds < 0 or clock.move_seconds < 0 or clock.increment_seconds < 0:
        raise invalid("BAD_CLOCK", "clock times are not negative")
    if clock.move_seconds and not move_low <= clock.move_seconds <= move_high:
        raise invalid("BAD_CLOCK", f"a {mode} clock gives {_span(move_low)} to {_span(move_high)} a move")
    if clock.move_seconds and clock.increment_seconds:
        raise invalid("BAD_CLOCK", "increment_seconds goes with a bank, not with a time per move")
    if clock.bank_seconds and not bank_low <= clock.bank_seconds <= bank_high:
        raise invalid("BAD_CLOCK", f"a {mode} clock's bank is {_span(bank_low)} to {_span(bank_high)}")
    if clock.increment_seconds > move_high:
        raise invalid("BAD_CLOCK", f"a {mode} clock's increment is at most {_span(move_high)}")


def new_clock(request: gw.CreateTableRequest, seats: int) -> ck.TableClock:
    """The table's clock as it opens: every seat's full time, nobody's running."""
    clock = ck.TableClock()
    clock.CopyFrom(request.clock)
    full = (clock.bank_seconds or clock.move_seconds) * 1000
    clock.remaining_ms.extend([full] * seats)
    clock.deadline_unix_ms.extend([0] * seats)
    return clock


def _charge(clock: ck.TableClock, seat: int, now_ms: int) -> None:
    """Stops the seat's running time: a bank keeps what was left, plus the increment."""
    running = clock.deadline_unix_ms[seat]
    if clock.bank_seconds:
        clock.remaining_ms[seat] = max(0, running - now_ms) + clock.increment_seconds * 1000
    clock.deadline_unix_ms[seat] = 0


def decided(table: gw.Table, seat: int, now_ms: int | None = None) -> None:
    """A seat's decision is made: its time stops (``run`` starts it afresh should the seat
    still have to decide: each decision is a move, its increment and its move time)."""
    if table.HasField("clock") and seat < len(table.clock.deadline_unix_ms) and table.clock.deadline_unix_ms[seat]:
        _charge(table.clock, seat, time.time_ns() // 1_000_000 if now_ms is None else now_ms)


def run(table: gw.Table, now_ms: int | None = None) -> None:
    """Charges the seats that stopped deciding, starts the time of the human seats that
    began, and sets the table's decision_deadline to the earliest running deadline."""
    clock = table.clock
    now_ms = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    playing = table.status == gw.TABLE_STATUS_IN_PROGRESS
    deciding = set(table.deciding_seats) if playing else set()
    for seat, info in enumerate(table.seats):
        running = clock.deadline_unix_ms[seat]
        must = seat in deciding and info.kind == gw.SEAT_KIND_HUMAN
        if running and not must:  # it need not decide any more (a bot took its seat...)
            _charge(clock, seat, now_ms)
        elif must and not running:
            if clock.move_seconds:
                clock.remaining_ms[seat] = clock.move_seconds * 1000
            clock.deadline_unix_ms[seat] = now_ms + clock.remaining_ms[seat]
    table.ClearField("decision_deadline")
    deadlines = [deadline for deadline in clock.deadline_unix_ms if deadline]
    if deadlines:
        table.decision_deadline.FromMilliseconds(min(deadlines))


def timed(table: gw.Table) -> bool:
    """Whether the table's human decisions have deadlines: a decision timer or a clock."""
    return table.decision_timer.seconds > 0 or table.HasField("clock")


def seat_deadline_ns(table: gw.Table, seat: int) -> int | None:
    """When ``seat``'s decision runs out (epoch nanoseconds): its clock's deadline, or the
    table's common decision deadline; None when none runs."""
    if table.HasField("clock"):
        deadline = table.clock.deadline_unix_ms[seat] if seat < len(table.clock.deadline_unix_ms) else 0
        return deadline * 1_000_000 if deadline else None
    if table.HasField("decision_deadline"):
        return table.decision_deadline.ToNanoseconds()
    return None

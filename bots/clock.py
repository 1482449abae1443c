"""The clock that bots' thinking budgets count (``budget_ms``).

By default it is the wall clock: a live table waits in wall time. The arena can switch a
process to its own CPU time (``python -m bots.arena --clock cpu``), so that a budget buys
the same search on a machine whose cores are shared as on an idle one, and a strength
figure does not depend on what else the machine was doing.
"""

import time
from collections.abc import Callable

_now: Callable[[], float] = time.perf_counter


def now() -> float:
    """Seconds on the budget clock (only differences mean anything)."""
    return _now()


def use(kind: str) -> None:
    """``wall`` (the default) or ``cpu``: this thread's CPU time."""
    global _now
    clocks = {"wall": time.perf_counter, "cpu": time.thread_time}
    if kind not in clocks:
        raise ValueError(f"no clock {kind!r} (clocks: {', '.join(clocks)})")
    _now = clocks[kind]

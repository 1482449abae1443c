"""The clock that bots' thinking budgets count (``budget_ms``), and the search a decision did.

Two clocks: ``wall`` and ``cpu``, the deciding thread's own CPU time. A budget in CPU time
buys the same search on a host whose cores are shared as on an idle one, so the bot people
meet live is the bot the arena measured (``python -m bots.lab.arena --clock cpu``). The worker
counts CPU time by default (TAVOLA_BOT_CLOCK), under a wall-clock ceiling: a decision ends
when its CPU budget is spent or when ``ceiling`` times the budget has passed on the wall
clock, whichever comes first, so a worker starved of CPU still answers its table in a
bounded time. A process that never calls ``use`` counts wall time, with no ceiling.

A search reports the iterations it made (``searched``) and the worker reads them per
decision with the CPU and wall seconds it took (``measure``), for its metrics.
"""

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}

_now: Callable[[], float] = time.perf_counter
_ceiling = 0.0  # a multiple of the budget on the wall clock (0: none)


def now() -> float:
    """Seconds on the budget clock (only differences mean anything)."""
    return _now()


def use(kind: str, ceiling: float = 0.0) -> None:
    """``wall`` (the default) or ``cpu``: this thread's CPU time; with ``cpu``, ``ceiling``
    above 0 ends a budget once that many times its length has passed on the wall clock."""
    global _now, _ceiling
    if kind not in CLOCKS:
        raise ValueError(f"no clock {kind!r} (clocks: {', '.join(CLOCKS)})")
    if not (ceiling == 0 or 1 <= ceiling < math.inf):
        raise ValueError(f"a wall-clock ceiling is 0 (none) or a multiple of at least 1, not {ceiling}")
    _now = CLOCKS[kind]
    _ceiling = ceiling if kind == "cpu" else 0.0


class Budget:
    """A decision's thinking budget, started when made: ``seconds`` on the budget clock (0
    or less: none), or, with a ceiling, until ``ceiling * seconds`` of wall time."""

    __slots__ = ("_ceiling", "_started", "_wall_started", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds if seconds > 0 else math.inf
        self._ceiling = _ceiling
        self._started = _now()
        self._wall_started = time.perf_counter()

    def spent(self) -> float:
        """Seconds of the budget spent: the clock's, or the wall's divided by the ceiling
        when that is more (the thread gets less than 1/ceiling of a core)."""
        spent = _now() - self._started
        if self._ceiling:
            walled = (time.perf_counter() - self._wall_started) / self._ceiling
            if walled > spent:
                if walled >= self.seconds:
                    _tally().ceiling_reached = True
                return walled
        return spent

    def over(self) -> bool:
        return self.spent() >= self.seconds


@dataclass
class Effort:
    """What one decision took: its thread's CPU seconds, wall seconds, the search
    iterations it made, and whether the wall-clock ceiling ended a budget."""

    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    iterations: int = 0
    ceiling_reached: bool = False


_local = threading.local()


def _tally() -> Effort:
    tally = getattr(_local, "tally", None)
    if tally is None:
        tally = _local.tally = Effort()
    return tally


def searched(iterations: int) -> None:
    """A search of this thread made ``iterations`` iterations (playouts or paired rounds)."""
    _tally().iterations += iterations


@contextmanager
def measure() -> Iterator[Effort]:
    """Measures what the decision in the ``with`` block takes, in this thread; the Effort
    yielded is filled in as the block ends."""
    effort = Effort()
    outer = getattr(_local, "tally", None)
    _local.tally = effort
    cpu, wall = time.thread_time(), time.perf_counter()
    try:
        yield effort
    finally:
        effort.cpu_seconds = time.thread_time() - cpu
        effort.wall_seconds = time.perf_counter() - wall
        _local.tally = outer

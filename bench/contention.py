"""The bench's contention mode: a fixed background load, the same for every side.

``BackgroundLoad`` starts ``processes`` (2 by default) CPU-bound busy loops, each a Python
process spinning ``while True: pass`` at normal priority (nice 0, as the bench's own
processes and the stack's), and stops them by their pids when the block ends. On the
two-core machine the bench was written for, two of them ask for both cores: every process
of the measured side then shares a core with a busy loop, as on a host busy with other
work. The load is on for a whole pass of the bench, so tavola's slices and the
references' interleaved with them run under it alike.

Each busy loop runs in a session of its own, as every measured server does (tavola's,
started by deploy/stack.py, and the references', bench/bare.py and bench/echo.py): with
the kernel's autogroup scheduling (``/proc/sys/kernel/sched_autogroup_enabled``), CPU is
shared between sessions first, so a busy loop in the bench's own session would take CPU
from the bench's clients and from any server in that session alone, not from the others.
"""

import subprocess
import sys

from deploy.processes import terminate

BUSY_LOOP = "while True: pass"
PROCESSES = 2


class BackgroundLoad:
    def __init__(self, processes: int = PROCESSES):
        self.count = processes
        self.processes: list[subprocess.Popen] = []

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.processes]

    def __enter__(self) -> "BackgroundLoad":
        for _ in range(self.count):
            self.processes.append(
                subprocess.Popen(
                    [sys.executable, "-c", BUSY_LOOP],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,  # weighs as one more job of the host (autogroup)
                )
            )
        return self

    def __exit__(self, *exc) -> None:
        terminate(*self.processes, timeout=5)
        self.processes = []

"""The bench's report and profiles: each figure beside its reference and their ratio,
the sizes of every part (full and --quick), and what every part prints alike."""

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from deploy.stack import Stack


@dataclass(frozen=True)
class Profile:
    engine_seconds: float
    submit_seconds: float
    clients: tuple[int, ...]
    bot_tables: int  # borgia 3-player tables for the bot path
    live_tables: int  # tables of mixed games
    watch_tables: int
    watchers_per_table: int
    timeout: float  # the most any one part waits for its tables
    reply_tables: int  # tables of one paced client against a bot
    reply_seconds: float
    watch_seconds: float  # how long the watched tables are played at the paced rate
    watch_rate: float = 2000.0  # deliveries a second over every stream (committed/s x watchers a table)
    watch_readers: int = 4  # processes reading the streams, tavola's and the references' alike
    watch_batched: bool = True  # a command's events to a stream in one message (every side alike)
    heuristic_games: int = 200  # bot strength: arena games of each heuristic bot against random
    search_games: int = 40  # ... and of the search bot, at search_ms a decision
    search_ms: int = 50
    engine_rounds: int = 5  # engine samples: engine_seconds a game, in this many rounds
    floor_seconds: float = 3.0  # echo calls a measure of the floor (and half as long of commits)


PROFILES = {
    "full": Profile(5.0, 8.0, (1, 16, 64), 100, 300, 20, 50, 900.0, 100, 30.0, 20.0),
    "quick": Profile(
        1.0,
        3.0,
        (1, 16, 64),
        30,
        30,
        4,
        50,
        60.0,
        20,
        8.0,
        8.0,
        heuristic_games=40,
        search_games=10,
        search_ms=20,
        engine_rounds=3,
        floor_seconds=1.5,
    ),
}

# The SubmitAction part runs each side in this many slices, in turn; the watchers part too.
SLICES = 4
WATCH_SLICES = 4
LIVE_MIX = [("borgia", 3), ("pecunia", 3), ("borgia", 4), ("mortadella", 3)]


def run_dir(stack: Stack) -> Path:
    """This run's folder (the stack's logs), for the bare references' port files too."""
    assert stack.log_dir is not None
    return stack.log_dir


class Report:
    """Prints each figure beside its reference and their ratio, and keeps them for --json."""

    def __init__(self, quiet: bool):
        self.out = sys.stderr if quiet else sys.stdout
        self.figures: dict[str, dict] = {}

    def section(self, title: str) -> None:
        print(f"\n{title}", file=self.out, flush=True)

    def row(
        self,
        key: str,
        label: str,
        value: float,
        unit: str,
        reference: float | None = None,
        ref_label: str = "",
        ratio: float | None = None,
    ):
        """A figure, and beside it its reference and their ratio (``ratio`` when it is not
        the two's quotient: a median of ratios)."""
        entry: dict[str, object] = {"label": label.strip(), "value": round(value, 4), "unit": unit}
        text = f"  {label:<44} {value:10.2f} {unit:<10}"
        if reference:
            ratio = value / reference if ratio is None else ratio
            entry.update(reference=round(reference, 4), reference_label=ref_label, ratio=round(ratio, 3))
            text += f" ref {reference:10.2f} ({ref_label})  ratio {ratio:5.2f}"
        self.figures[key] = entry
        print(text, file=self.out, flush=True)

    def note(self, key: str, text: str, **values) -> None:
        self.figures[key] = values
        print(f"  {text}", file=self.out, flush=True)


def stack_errors(stack: Stack) -> int:
    errors = 0
    for process in stack.processes:
        for line in process.log_path.read_text(errors="replace").splitlines():
            if '"level": "error"' in line or '"level": "critical"' in line or "Traceback" in line:
                errors += 1
    return errors


def load_average() -> str:
    """The machine's load average (1, 5, 15 minutes): how much else ran beside the bench."""
    return " ".join(f"{value:.1f}" for value in os.getloadavg())

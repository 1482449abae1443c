"""The bench's runs, summed up: each ratio's median and range over the runs, and under
the contention mode beside its quiet value."""

import statistics
from dataclasses import dataclass, field

QUIET, CONTENDED = "quiet", "contended"


@dataclass
class Run:
    """One pass of the bench's parts: its figures (``Report.figures``), how it ran, and
    the load average (1, 5, 15 minutes) at its start and end."""

    number: int
    mode: str
    figures: dict[str, dict]
    load_start: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_end: tuple[float, float, float] = (0.0, 0.0, 0.0)
    seconds: float = 0.0

    def as_json(self) -> dict:
        return {
            "number": self.number,
            "mode": self.mode,
            "load_start": [round(value, 2) for value in self.load_start],
            "load_end": [round(value, 2) for value in self.load_end],
            "seconds": round(self.seconds, 1),
            "figures": self.figures,
        }


@dataclass
class Spread:
    median: float
    low: float
    high: float
    count: int

    @classmethod
    def of(cls, values: list[float]) -> "Spread | None":
        if not values:
            return None
        return cls(statistics.median(values), min(values), max(values), len(values))

    def text(self) -> str:
        return f"{self.median:5.2f} [{self.low:.2f}-{self.high:.2f}]"


@dataclass
class Line:
    """One figure with a ratio, over every run: its values and ratios by mode."""

    key: str
    label: str
    unit: str
    reference_label: str
    values: dict[str, list[float]] = field(default_factory=dict)
    references: dict[str, list[float]] = field(default_factory=dict)
    ratios: dict[str, list[float]] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """The label, after its part's name (the key's first word): two parts print alike labels."""
        return f"{self.key.split('.')[0]}: {self.label}"

    def ratio(self, mode: str = QUIET) -> Spread | None:
        return Spread.of(self.ratios.get(mode, []))

    def value(self, mode: str = QUIET) -> Spread | None:
        return Spread.of(self.values.get(mode, []))

    def reference(self, mode: str = QUIET) -> Spread | None:
        return Spread.of(self.references.get(mode, []))

    def against_quiet(self) -> float | None:
        """The contended ratio's median over the quiet one's: how far the load moved it."""
        quiet, contended = self.ratio(QUIET), self.ratio(CONTENDED)
        if quiet is None or contended is None or not quiet.median:
            return None
        return contended.median / quiet.median

    def as_json(self) -> dict:
        entry: dict[str, object] = {"label": self.label, "unit": self.unit, "reference_label": self.reference_label}
        for mode in self.ratios:
            ratio, value, reference = self.ratio(mode), self.value(mode), self.reference(mode)
            assert ratio is not None and value is not None and reference is not None
            entry[mode] = {
                "ratio_median": round(ratio.median, 3),
                "ratio_min": round(ratio.low, 3),
                "ratio_max": round(ratio.high, 3),
                "value_median": round(value.median, 4),
                "reference_median": round(reference.median, 4),
                "runs": ratio.count,
            }
        if (moved := self.against_quiet()) is not None:
            entry["contended_over_quiet"] = round(moved, 3)
        return entry


def summarize(runs: list[Run]) -> list[Line]:
    """Every figure that has a ratio in any run, in the order the runs first printed them."""
    lines: dict[str, Line] = {}
    for run in runs:
        for key, entry in run.figures.items():
            if "ratio" not in entry:
                continue
            line = lines.get(key)
            if line is None:
                line = lines[key] = Line(key, entry.get("label", key), entry["unit"], entry["reference_label"])
            line.values.setdefault(run.mode, []).append(entry["value"])
            line.references.setdefault(run.mode, []).append(entry["reference"])
            line.ratios.setdefault(run.mode, []).append(entry["ratio"])
    return list(lines.values())


def _load(values: tuple[float, float, float]) -> str:
    return " ".join(f"{value:.1f}" for value in values)


def format_summary(runs: list[Run]) -> list[str]:
    """The summary's lines: each ratio's median [min-max] over the runs (and, when some ran
    under the background load, beside it the contended one and their quotient), then each
    run's load average at its start and end."""
    lines = summarize(runs)
    contended = any(run.mode == CONTENDED for run in runs)
    quiet_runs = sum(run.mode == QUIET for run in runs)
    head = f"summary: ratio median [min-max] over {quiet_runs} run{'s' if quiet_runs != 1 else ''}"
    if contended:
        head += ", quiet | under the background load (contention mode) | the latter over the former"
    out = [head + ":"]
    for line in lines:
        quiet = line.ratio(QUIET)
        value, reference = line.value(QUIET), line.reference(QUIET)
        text = f"  {line.title[:54]:<54} "
        text += f"{quiet.text()}" if quiet else f"{'-':>16}"
        if contended:
            busy = line.ratio(CONTENDED)
            moved = line.against_quiet()
            text += f" | {busy.text() if busy else '-':>16} | " + (f"x{moved:.2f}" if moved is not None else "  -  ")
        if value and reference:
            text += f"  ({value.median:.2f} beside {reference.median:.2f} {line.unit}, {line.reference_label})"
        else:
            text += f"  ({line.reference_label})"
        out.append(text)
    for run in runs:
        out.append(
            f"  run {run.number + 1} {run.mode}: {run.seconds:.0f}s, load average {_load(run.load_start)} "
            f"at its start, {_load(run.load_end)} at its end"
        )
    return out

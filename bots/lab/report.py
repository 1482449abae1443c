"""The arena's report (``bots.lab.arena``, ``bench.live``): each game's result, the win rates
per bot and per seat with their 95% Wilson intervals and the platform's rating of each bot
over the games, as JSON or a table, and the progress bar a run draws meanwhile."""

import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from bots.worker.rating_model import rate_games

TIES = "a shared win counts 1/len(winners) for each winner"


@dataclass(frozen=True)
class GameResult:
    index: int
    seating: tuple[int, ...]  # bot index per seat
    winners: tuple[int, ...]
    decisions: tuple[int, ...]  # per bot index
    seconds: tuple[float, ...]  # time spent deciding, per bot index
    iterations: tuple[int, ...] = ()  # search iterations made, per bot index (none: not counted)

    @classmethod
    def from_json(cls, entry: dict) -> "GameResult":
        """A result as ``dataclasses.asdict`` wrote it to JSON (its tuples as lists)."""
        return cls(
            index=entry["index"],
            seating=tuple(entry["seating"]),
            winners=tuple(entry["winners"]),
            decisions=tuple(entry["decisions"]),
            seconds=tuple(entry["seconds"]),
            iterations=tuple(entry.get("iterations", ())),
        )


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


class _Tally(TypedDict):
    games: int
    wins: float  # a shared win counts 1/winners


class _BotTally(_Tally):
    decisions: int
    seconds: float
    iterations: int
    seats: dict[int, _Tally]


def _rate(wins: float, games: int) -> dict:
    low, high = wilson(wins, games)
    return {
        "games": games,
        "wins": round(wins, 4),
        "win_rate": round(wins / games, 4) if games else 0.0,
        "ci95": [round(low, 4), round(high, 4)],
    }


def summarize(
    game_id: str,
    players: int,
    bots: Sequence[str],
    seed: int,
    options: dict[str, str],
    results: Sequence[GameResult],
    clock_kind: str = "wall",
) -> dict:
    """The report: per bot (keyed by the bot as given; a bot given twice is merged) and per seat."""
    labels = list(dict.fromkeys(bots))
    rated = rate_games(([bots[bot] for bot in result.seating], result.winners) for result in results)
    per_bot: dict[str, _BotTally] = {
        label: {"games": 0, "wins": 0.0, "decisions": 0, "seconds": 0.0, "iterations": 0, "seats": {}}
        for label in labels
    }
    per_seat: list[_Tally] = [{"games": 0, "wins": 0.0} for _ in range(players)]
    no_winner = 0
    for result in results:
        share = 1.0 / len(result.winners) if result.winners else 0.0
        no_winner += not result.winners
        for bot, (decisions, seconds) in enumerate(zip(result.decisions, result.seconds, strict=True)):
            per_bot[bots[bot]]["decisions"] += decisions
            per_bot[bots[bot]]["seconds"] += seconds
        for bot, iterations in enumerate(result.iterations):
            per_bot[bots[bot]]["iterations"] += iterations
        for seat, bot in enumerate(result.seating):
            won = share if seat in result.winners else 0.0
            entry = per_bot[bots[bot]]
            entry["games"] += 1
            entry["wins"] += won
            at_seat = entry["seats"].setdefault(seat, {"games": 0, "wins": 0.0})
            at_seat["games"] += 1
            at_seat["wins"] += won
            per_seat[seat]["games"] += 1
            per_seat[seat]["wins"] += won
    return {
        "game": game_id,
        "players": players,
        "games": len(results),
        "seed": seed,
        "options": options,
        "clock": clock_kind,
        "ties": TIES,
        "no_winner": no_winner,
        "bots": {
            label: {
                **_rate(entry["wins"], entry["games"]),
                "mean_decision_ms": round(1000 * entry["seconds"] / entry["decisions"], 3) if entry["decisions"] else 0,
                "decisions": entry["decisions"],
                "mean_iterations": round(entry["iterations"] / entry["decisions"], 1) if entry["decisions"] else 0,
                # the platform's rating model over these games, in order (None: never rated,
                # e.g. a bot that only met itself)
                "rating": round(rated[label].rating, 1) if label in rated else None,
                "uncertainty": round(rated[label].uncertainty, 1) if label in rated else None,
                "seats": {str(seat): _rate(s["wins"], s["games"]) for seat, s in sorted(entry["seats"].items())},
            }
            for label, entry in per_bot.items()
        },
        "seats": [{"seat": seat, **_rate(s["wins"], s["games"])} for seat, s in enumerate(per_seat)],
    }


def format_report(report: dict) -> str:
    def pct(x: float) -> str:
        return f"{100 * x:5.1f}%"

    width = max(12, *(len(label) for label in report["bots"]))
    lines = [
        f"{report['game']}, {report['players']} players, {report['games']} games, seed {report['seed']}"
        + (f", options {report['options']}" if report["options"] else "")
        + (", budgets in CPU time" if report.get("clock") == "cpu" else ""),
        f"ties: {report['ties']}; games nobody won: {report['no_winner']}",
        "rating: the platform's rating model (OpenSkill Plackett-Luce, 1500 for a new player) over these games",
        "",
        f"{'bot':<{width}} {'games':>6} {'wins':>8} {'win rate':>9}  {'95% CI':<16} {'ms/decision':>11}"
        f"  {'rating':>11}",
    ]
    for label, entry in report["bots"].items():
        low, high = entry["ci95"]
        rating = f"{entry['rating']:.0f} ± {entry['uncertainty']:.0f}" if entry.get("rating") is not None else "-"
        # "-": decisions not timed here (the live arena reads them from the workers' metrics)
        ms = f"{entry['mean_decision_ms']:.2f}" if entry["decisions"] else "-"
        lines.append(
            f"{label:<{width}} {entry['games']:>6} {entry['wins']:>8.1f} {pct(entry['win_rate']):>9}  "
            f"[{pct(low)}, {pct(high)}] {ms:>11}  {rating:>11}"
        )
    lines += ["", f"{'seat':<{width}} {'games':>6} {'wins':>8} {'win rate':>9}  {'95% CI':<16}"]
    for entry in report["seats"]:
        low, high = entry["ci95"]
        lines.append(
            f"{entry['seat']:<{width}} {entry['games']:>6} {entry['wins']:>8.1f} {pct(entry['win_rate']):>9}  "
            f"[{pct(low)}, {pct(high)}]"
        )
    return "\n".join(lines)


class ProgressBar:
    """A one-line progress bar on stderr, redrawn in place on a terminal only: into a pipe
    or a file (CI logs) it writes one line when the games are done, no carriage returns."""

    def __init__(self, label: str, width: int = 30):
        self.label, self.width, self.started = label, width, time.monotonic()
        self.live = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.monotonic() - self.started
        if not self.live:
            if done == total:
                sys.stderr.write(f"{self.label}: {done}/{total} games in {elapsed:.0f}s\n")
            return
        filled = self.width * done // max(total, 1)
        left = elapsed / done * (total - done) if done else 0
        sys.stderr.write(
            f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} games"
            f"  {elapsed:5.0f}s elapsed, ~{left:.0f}s left "
        )
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

"""Calibrates the search bot's levels: each pair of neighbouring levels plays two-player
games on the pure engines (as ``bots.lab.arena`` plays them), the results rate every level
with the platform's own rating model (OpenSkill Plackett-Luce, as the rating task applies
it, on the 1500 scale), and each pair's measured win rate is set beside the one the
ratings predict.

    python -m bots.lab.calibrate --game mortadella --games 200 --clock cpu
    python -m bots.lab.calibrate --game borgia --games 200 --levels 5-8 --json

The levels are meant to sit 100 to 200 rating points apart (a 57% to 63% head-to-head win
rate for the stronger of two neighbours, once their ratings are settled); a pair whose prediction differs from its
measurement by more than 5 points says the model does not describe those two bots well.
Results are rated in an interleaved order (one game of each pair in turn), as a ladder
playing all pairs at once would see them, so no pair's games come last and weigh most.
A game nobody won places both seats level.
"""

import argparse
import dataclasses
import hashlib
import itertools
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from bots.lab import arena
from bots.lab.report import wilson
from bots.search.levels import LEVELS, preset
from bots.worker.rating_model import Rated, predicted_win, rate_games
from common import ratings

GAP_LOW, GAP_HIGH = 100.0, 200.0  # rating points between neighbouring levels
PREDICTION_TOLERANCE = 0.05


def level_bot(level: int) -> str:
    return f"ismcts:level={level}"


def parse_levels(text: str) -> list[int]:
    """``1-8`` or ``3,4,5``: at least two levels, each one the bot has."""
    if "-" in text:
        low, high = (int(part) for part in text.split("-", 1))
        levels = list(range(low, high + 1))
    else:
        levels = sorted({int(part) for part in text.split(",")})
    unknown = [level for level in levels if level not in LEVELS]
    if unknown or len(levels) < 2:
        raise ValueError(f"levels must be at least two of {min(LEVELS)}-{max(LEVELS)}, got {text!r}")
    return levels


def upper_share(result: arena.GameResult) -> float:
    """The upper level's (bot index 1) share of a two-player game: 1, 0, or 1/2 for no winner."""
    if not result.winners:
        return 0.5
    upper_seats = [seat for seat, bot in enumerate(result.seating) if bot == 1]
    return sum(1.0 for seat in result.winners if seat in upper_seats) / len(result.winners)


def interleaved(games: dict[tuple[int, int], list[arena.GameResult]]) -> Iterator[tuple[list[str], tuple[int, ...]]]:
    """The games as the rating model takes them (the bot at each seat, the winners), one
    game of each pair in turn."""
    longest = max((len(results) for results in games.values()), default=0)
    for index in range(longest):
        for pair, results in games.items():
            if index < len(results):
                result = results[index]
                yield [level_bot(pair[bot]) for bot in result.seating], result.winners


def rate(levels: Sequence[int], games: dict[tuple[int, int], list[arena.GameResult]]) -> dict[int, Rated]:
    """Every level's rating after all games."""
    rated = rate_games(interleaved(games))
    return {level: rated.get(level_bot(level), Rated(ratings.DEFAULT_MU * ratings.SCALE, 0.0, 0)) for level in levels}


def report(game_id: str, levels: Sequence[int], games: dict[tuple[int, int], list[arena.GameResult]], **meta) -> dict:
    rated = rate(levels, games)
    pairs = []
    for (lower, upper), results in games.items():
        share = sum(upper_share(result) for result in results)
        measured = share / len(results) if results else 0.0
        low, high = wilson(share, len(results))
        predicted = predicted_win(rated[upper], rated[lower])
        gap = rated[upper].rating - rated[lower].rating
        pairs.append(
            {
                "lower": lower,
                "upper": upper,
                "games": len(results),
                "no_winner": sum(1 for result in results if not result.winners),
                "gap": round(gap, 1),
                "gap_ok": GAP_LOW <= gap <= GAP_HIGH,
                "measured": round(measured, 4),
                "ci95": [round(low, 4), round(high, 4)],
                "predicted": round(predicted, 4),
                "prediction_ok": abs(predicted - measured) <= PREDICTION_TOLERANCE,
            }
        )
    return {
        "game": game_id,
        **meta,
        "levels": [
            {
                "level": level,
                "bot": level_bot(level),
                "slips": float(preset(level, game_id)["slips"]),  # the game's share for the level
                "rating": round(rated[level].rating, 1),
                "uncertainty": round(rated[level].uncertainty, 1),
                "games": rated[level].games,
            }
            for level in levels
        ],
        "pairs": pairs,
    }


def print_report(data: dict) -> None:
    print(
        f"{data['game']}, 2 players, {data['games_per_pair']} games a pair, seed {data['seed']}, "
        f"budgets in {data['clock']} time; ratings on the 1500 scale (OpenSkill Plackett-Luce)"
    )
    print()
    print(f"{'level':<8}{'slips':>6}{'rating':>8}{'±':>7}{'games':>7}")
    for level in data["levels"]:
        print(
            f"{level['level']:<8}{level['slips']:>6g}{level['rating']:>8.0f}{level['uncertainty']:>7.0f}"
            f"{level['games']:>7}"
        )
    print()
    print(
        f"{'pair':<7}{'gap':>6}  {'100-200':<8}{'measured':>9}  {'95% CI':<16}{'predicted':>10}"
        f"{'off by':>8}  {'≤5 pts':<7}{'no winner':>10}"
    )
    for pair in data["pairs"]:
        low, high = pair["ci95"]
        off = (pair["predicted"] - pair["measured"]) * 100
        print(
            f"{pair['lower']}-{pair['upper']:<5}{pair['gap']:>6.0f}  {'yes' if pair['gap_ok'] else 'NO':<8}"
            f"{pair['measured'] * 100:>8.1f}%  [{low * 100:5.1f}%, {high * 100:5.1f}%]"
            f"{pair['predicted'] * 100:>9.1f}%{off:>+7.1f}   {'yes' if pair['prediction_ok'] else 'NO':<7}"
            f"{pair['no_winner']:>10}"
        )
    print()
    print("measured and predicted: the upper level's win rate against the lower one (no winner counts half)")


def kept_pair(folder: Path, game_id: str, lower: int, upper: int, games: int, seed: int, clock_kind: str) -> Path:
    """Where a pair's games are kept: named by everything that decides them, the two levels'
    settings included, so a changed preset is played again rather than read back."""
    settings = json.dumps([preset(lower, game_id), preset(upper, game_id), games, seed, clock_kind], sort_keys=True)
    digest = hashlib.sha256(settings.encode()).hexdigest()[:12]
    return folder / f"{game_id}-{lower}-{upper}-{digest}.json"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.lab.calibrate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, help="game id, e.g. mortadella")
    parser.add_argument("--levels", default=f"{min(LEVELS)}-{max(LEVELS)}", help="e.g. 1-8 or 4,5,6")
    parser.add_argument("--games", type=int, default=200, help="games per pair of neighbouring levels")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=None, help="parallel processes (default: cores)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="cpu", help="what thinking budgets count")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument(
        "--keep",
        type=Path,
        help="a folder where each pair's games are kept as they finish, and taken from on the next run "
        "with the same game, levels' settings, games, seed and clock (a long calibration resumes)",
    )
    args = parser.parse_args(argv)
    try:
        levels = parse_levels(args.levels)
    except ValueError as error:
        parser.error(str(error))
    if args.games < 1:
        parser.error("--games must be at least 1")
    jobs = max(1, args.jobs or os.cpu_count() or 1)
    games: dict[tuple[int, int], list[arena.GameResult]] = {}
    for lower, upper in itertools.pairwise(levels):
        bots = [level_bot(lower), level_bot(upper)]
        seed = args.seed + 1_000_000 * lower  # each pair its own deals

        def progress(done: int, total: int, pair: str = f"{lower}-{upper}") -> None:
            print(f"\r{args.game} levels {pair}: {done}/{total} games", end="", file=sys.stderr, flush=True)

        kept = kept_pair(args.keep, args.game, lower, upper, args.games, seed, args.clock) if args.keep else None
        if kept is not None and kept.exists():
            games[(lower, upper)] = [arena.GameResult.from_json(entry) for entry in json.loads(kept.read_text())]
            print(f"{args.game} levels {lower}-{upper}: {args.games} games kept in {kept}", file=sys.stderr)
            continue
        games[(lower, upper)] = arena.play_games(
            args.game, 2, bots, args.games, seed, jobs=jobs, progress=progress, clock_kind=args.clock
        )
        print(file=sys.stderr)
        if kept is not None:
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.write_text(json.dumps([dataclasses.asdict(result) for result in games[(lower, upper)]]))
    data = report(args.game, levels, games, games_per_pair=args.games, seed=args.seed, clock=args.clock)
    if args.json:
        print(json.dumps(data))
    else:
        print_report(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

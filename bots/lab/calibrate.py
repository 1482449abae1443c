"""Calibrates the search bot's levels: each pair of neighbouring levels plays two-player
games on the pure engines (as ``bots.lab.arena`` plays them), the levels' ratings are fitted
to every pair's results at once (maximum likelihood under the platform's rating model's win
curve, ``bots/lab/fit.py``, on the 1500 scale), and each pair's measured win rate is set
beside the one the fitted ratings predict.

    python -m bots.lab.calibrate --game mortadella --games 200 --clock cpu --keep DIR
    python -m bots.lab.calibrate --game borgia --games 200 --levels 5-8 --json
    python -m bots.lab.calibrate --game mortadella --games 200 --clock cpu --keep DIR --write
    python -m bots.lab.calibrate --game pecunia --games 200 --tallies 1-2=116,2-3=118,... --write

The levels are meant to sit 100 to 200 rating points apart (a 57% to 63% head-to-head win
rate for the stronger of two neighbours); a pair whose prediction differs from its
measurement by more than 5 points says the model does not describe those levels well (a
chain of neighbouring pairs is fitted exactly, so there it can only differ for a pair won
or lost whole). A game nobody won counts half. ``--write`` ships the result as the game's
calibration (``bots/search/calibration.py``); ``--tallies`` takes each pair's upper-level
wins out of ``--games`` instead of playing them.
"""

import argparse
import dataclasses
import datetime
import hashlib
import itertools
import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from bots.lab import arena
from bots.lab.fit import Tally, fit, prediction
from bots.lab.report import wilson
from bots.search import calibration
from bots.search.levels import LEVELS, preset
from services.bot_specs import settings_digest

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


def tally(results: Sequence[arena.GameResult]) -> Tally:
    """A pair's games as the fit takes them: the upper level's share of them."""
    return Tally(sum(upper_share(result) for result in results), len(results))


def fitted_tally(counted: Tally) -> Tally:
    """A pair won or lost whole is taken as won or lost by all but half a game (else its gap
    would be infinite); every other tally as it is."""
    share = min(max(counted.upper_share, 0.5), counted.games - 0.5)
    return Tally(share, counted.games)


def report(game_id: str, levels: Sequence[int], games: dict[tuple[int, int], list[arena.GameResult]], **meta) -> dict:
    tallies = {pair: tally(results) for pair, results in games.items()}
    no_winner = {pair: sum(1 for result in results if not result.winners) for pair, results in games.items()}
    return tally_report(game_id, levels, tallies, no_winner, **meta)


def tally_report(
    game_id: str,
    levels: Sequence[int],
    tallies: dict[tuple[int, int], Tally],
    no_winner: dict[tuple[int, int], int] | None = None,
    **meta,
) -> dict:
    """Each level's fitted rating and each pair's measured rate beside the fit's prediction."""
    rated = fit(levels, {pair: fitted_tally(counted) for pair, counted in tallies.items()})
    pairs = []
    for (lower, upper), counted in tallies.items():
        measured = counted.upper_share / counted.games
        low, high = wilson(counted.upper_share, counted.games)
        predicted = prediction(rated, lower, upper)
        gap = rated[upper].rating - rated[lower].rating
        pairs.append(
            {
                "lower": lower,
                "upper": upper,
                "games": counted.games,
                "upper_share": counted.upper_share,
                "no_winner": (no_winner or {}).get((lower, upper)),
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
        f"budgets in {data['clock']} time; ratings fitted to every pair at once on the 1500 scale "
        "(Plackett-Luce's curve), ± its standard error"
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
            f"{'' if pair['no_winner'] is None else pair['no_winner']:>10}"
        )
    print()
    print("measured and predicted: the upper level's win rate against the lower one (no winner counts half)")


def kept_pair(folder: Path, game_id: str, lower: int, upper: int, games: int, seed: int, clock_kind: str) -> Path:
    """Where a pair's games are kept: named by everything that decides them, the two levels'
    settings included, so a changed preset is played again rather than read back."""
    settings = json.dumps([preset(lower, game_id), preset(upper, game_id), games, seed, clock_kind], sort_keys=True)
    digest = hashlib.sha256(settings.encode()).hexdigest()[:12]
    return folder / f"{game_id}-{lower}-{upper}-{digest}.json"


UNCERTAINTY = (
    "the standard error of the fitted rating relative to the levels' mean (set at 1500), from the "
    "likelihood's curvature: what the games measured pin down; a rated game starts from it as the model's sigma"
)


def calibration_file(data: dict, command: str, note: str) -> dict:
    """The game's shipped calibration from a report: each level's rating, uncertainty, games
    and the digest of the settings it was measured with."""
    game_id = data["game"]
    return {
        "game": game_id,
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "command": command,
        "note": note,
        "uncertainty": UNCERTAINTY,
        "levels": {
            str(level["level"]): {
                "bot": level["bot"],
                "rating": level["rating"],
                "uncertainty": level["uncertainty"],
                "games": level["games"],
                "digest": settings_digest(level["bot"], game_id),
            }
            for level in data["levels"]
        },
        "pairs": [
            {key: pair[key] for key in ("lower", "upper", "games", "upper_share", "no_winner", "measured", "predicted")}
            for pair in data["pairs"]
        ],
    }


def parse_tallies(text: str, levels: Sequence[int], games: int) -> dict[tuple[int, int], Tally]:
    """``1-2=109,2-3=106.5``: each neighbouring pair's upper-level wins out of ``games``."""
    tallies = {}
    for item in text.split(","):
        pair, _, wins = item.partition("=")
        lower, _, upper = pair.partition("-")
        tallies[(int(lower), int(upper))] = Tally(float(wins), games)
    if set(tallies) != set(itertools.pairwise(levels)):
        raise ValueError(f"--tallies must give each neighbouring pair of {levels} once, got {text!r}")
    if any(not 0 <= counted.upper_share <= games for counted in tallies.values()):
        raise ValueError(f"each pair's wins must lie between 0 and {games}")
    return tallies


def play_pairs(args: argparse.Namespace, levels: Sequence[int]) -> dict[tuple[int, int], list[arena.GameResult]]:
    """Each neighbouring pair's games: played, or read back from ``--keep``."""
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
    return games


def arguments() -> argparse.ArgumentParser:
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
    parser.add_argument(
        "--tallies", help="each pair's upper-level wins out of --games, e.g. 1-2=109,2-3=106.5: no games played"
    )
    parser.add_argument("--write", action="store_true", help="write the result as the game's shipped calibration")
    parser.add_argument("--note", default="", help="with --write: a note kept in the file (where the games came from)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments()
    args = parser.parse_args(argv)
    try:
        levels = parse_levels(args.levels)
        if args.games < 1:
            raise ValueError("--games must be at least 1")
        tallies = parse_tallies(args.tallies, levels, args.games) if args.tallies else None
        if args.write and levels != sorted(LEVELS):
            raise ValueError("--write ships every level's rating: it needs --levels 1-8")
    except ValueError as error:
        parser.error(str(error))
    meta = {"games_per_pair": args.games, "seed": args.seed, "clock": args.clock}
    if tallies is not None:
        data = tally_report(args.game, levels, tallies, **meta)
    else:
        data = report(args.game, levels, play_pairs(args, levels), **meta)
    if args.write:
        command = shlex.join(["python", "-m", "bots.lab.calibrate", *(sys.argv[1:] if argv is None else argv)])
        path = calibration.write(args.game, calibration_file(data, command, args.note))
        print(f"calibration of {args.game} written to {path}", file=sys.stderr)
    if args.json:
        print(json.dumps(data))
    else:
        print_report(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

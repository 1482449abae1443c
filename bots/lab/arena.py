"""Bots against bots, offline on the pure engines: how often each wins, with confidence.

    python -m bots.lab.arena --game borgia --players 2 --bots ismcts,random --games 200 --seed 1
    python -m bots.lab.arena --game pecunia --players 3 --bots ismcts:budget_ms=50,pecunia-heuristic --json
    python -m bots.lab.arena --gauntlet --games 200 --clock cpu
    python -m bots.lab.arena --game mortadella --bots ismcts,random --games 1000 --keep runs/mortadella.jsonl

``--gauntlet`` plays each strong bot (``--bots``, else ``GAUNTLET``'s per game) against
each probe bot that plays the game (``bots/borgia/probes.py``), two players, and prints the strong
bot's win rate against each with its interval and the games nobody won.

Seats rotate among the bots from game to game (game g seats bot (seat + g) mod len(bots)),
so no bot keeps the advantage of a seat. Each bot sees exactly what the gateway would send
its seat (``bots.lab.offline.view_response``). A shared win counts 1/len(winners) for each
winner. Win rates come with 95% Wilson intervals (the report: ``bots.lab.report``); games
run in parallel processes.
``--clock cpu`` makes thinking budgets (``budget_ms``) count each process's CPU time
instead of the wall clock, so a figure measured while other work shares the cores is the
one an idle core would give. ``python -m bench.live`` plays the same tables through a local
platform instead (real Celery workers and gateway) and compares the search its bots did per
decision with the same games played offline.
"""

import argparse
import dataclasses
import json
import multiprocessing
import os
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from bots.lab.offline import view_response
from bots.lab.report import GameResult, ProgressBar, format_report, summarize
from bots.search import clock
from bots.search.specs import PROBE_NOTE
from bots.worker import registry
from services import bot_specs
from services.engine.api import parse_options
from services.engine.errors import InvalidConfig
from services.registry import game_ids, get_game


def seating(index: int, players: int, bots: int) -> tuple[int, ...]:
    return tuple((seat + index) % bots for seat in range(players))


# Each process builds the game and the bots' strategies once.
_setup: dict = {}


def _init(
    game_id: str, bots: Sequence[str], options: dict[str, str], players: int, seed: int, clock_kind: str = "wall"
) -> None:
    clock.use(clock_kind)
    _setup.update(
        game=get_game(game_id),
        strategies=[registry.make_strategy(bot, game_id) for bot in bots],
        options=options,
        players=players,
        seed=seed,
    )


def _play(index: int) -> GameResult:
    game, strategies = _setup["game"], _setup["strategies"]
    engine, codec = game.engine, game.codec
    seats = seating(index, _setup["players"], len(strategies))
    decisions, seconds, iterations = [0] * len(strategies), [0.0] * len(strategies), [0] * len(strategies)
    seed = _setup["seed"] + index
    rng = random.Random(seed)
    state, _ = engine.new_game(len(seats), _setup["options"], seed)
    while deciders := engine.deciders(state):
        seat = deciders[rng.randrange(len(deciders))]
        bot = seats[seat]
        response = view_response(game, state, seat)
        started = clock.now()
        with clock.measure() as effort:
            choice = strategies[bot](response, rng)
        seconds[bot] += clock.now() - started
        iterations[bot] += effort.iterations
        decisions[bot] += 1
        message = codec.action_type()()
        choice.action.Unpack(message)
        state, _ = engine.apply(state, seat, codec.action_from_proto(message))
    winners = tuple(engine.outcome(state).winners)
    return GameResult(index, seats, winners, tuple(decisions), tuple(seconds), tuple(iterations))


class KeptGamesMismatch(ValueError):
    """A file of kept games written for other settings."""


def _kept_games(path: Path, text: str, header: dict) -> list[GameResult]:
    """The games a file of kept games (``text``, read from ``path``) holds for these
    settings (none when it is new)."""
    if not text:
        return []
    lines = text.splitlines()
    if json.loads(lines[0]) != header:
        raise KeptGamesMismatch(f"{path} keeps games of other settings: {lines[0]}")
    kept = []
    for line in lines[1:]:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:  # a line cut short when the run was stopped
            continue
        kept.append(GameResult.from_json(entry))
    return kept


def play_games(
    game_id: str,
    players: int,
    bots: Sequence[str],
    games: int,
    seed: int,
    jobs: int = 1,
    options: dict[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    clock_kind: str = "wall",
    keep: Path | None = None,
) -> list[GameResult]:
    """Play ``games`` games, in ``jobs`` processes; ``progress(done, games)`` after each.
    Thinking budgets and decision times count ``clock_kind`` (``bots.search.clock.use``). With
    ``keep``, a JSON Lines file, each game is written there as it finishes, and the games
    it already holds for the same settings are read back rather than played again, so a
    long run that was stopped goes on where it was."""
    setup = (game_id, list(bots), dict(options or {}), players, seed, clock_kind)
    results: list[GameResult] = []
    kept_file = None
    if keep is not None:
        header = {"game": game_id, "bots": list(bots), "options": dict(options or {}), "players": players}
        header |= {"seed": seed, "clock": clock_kind}
        text = keep.read_text() if keep.exists() else ""
        results = [result for result in _kept_games(keep, text, header) if result.index < games]
        keep.parent.mkdir(parents=True, exist_ok=True)
        kept_file = keep.open("a")
        if not text:
            kept_file.write(json.dumps(header) + "\n")
        elif not text.endswith("\n"):
            kept_file.write("\n")  # after a line cut short
    done = {result.index for result in results}
    to_play = [index for index in range(games) if index not in done]
    _init(*setup)  # here first: a bot that cannot be built fails once, not in every process
    outcomes: Iterator[GameResult]
    if jobs <= 1:
        outcomes = map(_play, to_play)
    else:
        pool = multiprocessing.get_context().Pool(jobs, initializer=_init, initargs=setup)
        outcomes = pool.imap_unordered(_play, to_play)
    try:
        if progress and results:
            progress(len(results), games)
        for result in outcomes:
            results.append(result)
            if kept_file is not None:
                kept_file.write(json.dumps(dataclasses.asdict(result)) + "\n")
                kept_file.flush()
            if progress:
                progress(len(results), games)
    finally:
        if jobs > 1:
            pool.terminate()
        if kept_file is not None:
            kept_file.close()
    return sorted(results, key=lambda r: r.index)


# game id -> the strong bots the gauntlet tries by default: the default search bot, and
# where others are documented as strong, those too
GAUNTLET: dict[str, tuple[str, ...]] = {
    "borgia": ("ismcts", "ismcts:paired=8,rollout=sharp,belief=inferred"),
}


def strong_bots(game_id: str, given: Sequence[str] | None = None) -> tuple[str, ...]:
    return tuple(given) if given else GAUNTLET.get(game_id, ("ismcts",))


def probes() -> list[bot_specs.BotSpec]:
    """Every registered probe (its spec carries ``PROBE_NOTE``), by name."""
    return [spec for spec in bot_specs.load_bots().values() if spec.strength_note == PROBE_NOTE]


def gauntlet(
    game_ids_: Sequence[str],
    strong: Sequence[str] | None,
    games: int,
    seed: int,
    jobs: int,
    clock_kind: str,
    progress: bool = True,
) -> list[dict]:
    """Each strong bot against each probe that plays the game, ``games`` 2-player games a
    cell: the strong bot's share of wins (Wilson 95%) and the games nobody won."""
    cells = []
    for game_id in game_ids_:
        for bot in strong_bots(game_id, strong):
            for probe in (p for p in probes() if p.plays(game_id)):
                label = f"{game_id}: {bot} vs {probe.name}"
                results = play_games(
                    game_id,
                    2,
                    [bot, probe.name],
                    games,
                    seed,
                    jobs,
                    progress=ProgressBar(label) if progress else None,
                    clock_kind=clock_kind,
                )
                report = summarize(game_id, 2, [bot, probe.name], seed, {}, results, clock_kind)
                cells.append(
                    {"game": game_id, "bot": bot, "probe": probe.name, "no_winner": report["no_winner"]}
                    | {key: report["bots"][bot][key] for key in ("games", "wins", "win_rate", "ci95")}
                )
    return cells


def format_gauntlet(cells: Sequence[dict], clock_kind: str) -> str:
    width = max(10, *(len(c["bot"]) for c in cells))
    probe_width = max(len(c["probe"]) for c in cells)
    lines = [
        "the gauntlet: 2 players, each strong bot's share of wins against each probe"
        + (", budgets in CPU time" if clock_kind == "cpu" else ""),
        "",
        f"{'game':<10} {'bot':<{width}} {'probe':<{probe_width}} {'games':>6} {'win rate':>9}  "
        f"{'95% CI':<16} {'no winner':>9}",
    ]
    for c in cells:
        low, high = c["ci95"]
        lines.append(
            f"{c['game']:<10} {c['bot']:<{width}} {c['probe']:<{probe_width}} {c['games']:>6} "
            f"{100 * c['win_rate']:8.1f}%  [{100 * low:5.1f}%, {100 * high:5.1f}%] {c['no_winner']:>9}"
        )
    return "\n".join(lines)


def _options(text: str) -> dict[str, str]:
    pairs = [item.partition("=") for item in text.split(",") if item.strip()]
    return {key.strip(): value.strip() for key, _, value in pairs}


def make_parser(prog: str = "python -m bots.lab.arena", description: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description or __doc__.split("\n\n")[0])
    parser.add_argument("--game", help="game id, e.g. borgia (with --gauntlet: every game if left out)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--bots", help="comma-separated bots, each name or name:key=value,...")
    parser.add_argument(
        "--gauntlet", action="store_true", help="each strong bot (--bots, else the defaults) against each probe bot"
    )
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel processes (default: cores)")
    parser.add_argument("--options", default="", help="table options, key=value,...")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument(
        "--keep",
        type=Path,
        help="a JSON Lines file: each game is written there as it finishes, and the games it holds for the "
        "same settings are read back, so a stopped run goes on where it was",
    )
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="what thinking budgets and ms/decision count: wall time (default) or each process's CPU time, "
        "for figures that do not depend on other work sharing the cores",
    )
    return parser


def checked(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    """The bots and table options of a run that is not a gauntlet (parser.error where wrong)."""
    if not args.game or not args.bots:
        parser.error("--game and --bots are required (or --gauntlet)")
    bots = bot_specs.split_bots(args.bots)
    if not bots:
        parser.error("--bots names no bot")
    try:
        game = get_game(args.game)
    except KeyError:
        parser.error(f"no game {args.game!r} (games: {', '.join(game_ids())})")
    options = _options(args.options)
    try:
        parse_options(game.engine.info, args.players, options)
        for bot in bots:
            bot_specs.resolve(bot, args.game)
    except (InvalidConfig, bot_specs.BotError) as error:
        parser.error(str(error))
    if args.games < 1:
        parser.error("--games must be at least 1")
    return bots, options


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.gauntlet:
        return _run_gauntlet(parser, args)
    bots, options = checked(parser, args)
    progress = ProgressBar(f"{args.game} {args.players}p")
    try:
        results = play_games(
            args.game,
            args.players,
            bots,
            args.games,
            args.seed,
            max(1, args.jobs),
            options,
            progress,
            args.clock,
            keep=args.keep,
        )
    except KeptGamesMismatch as error:
        parser.error(str(error))
    report = summarize(args.game, args.players, bots, args.seed, options, results, args.clock)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


def _run_gauntlet(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.game and args.game not in game_ids():
        parser.error(f"no game {args.game!r} (games: {', '.join(game_ids())})")
    games = [args.game] if args.game else list(game_ids())
    strong = bot_specs.split_bots(args.bots) if args.bots else None
    try:
        for game_id in games:
            for bot in strong_bots(game_id, strong):
                bot_specs.resolve(bot, game_id)
    except bot_specs.BotError as error:
        parser.error(str(error))
    cells = gauntlet(games, strong, args.games, args.seed, max(1, args.jobs), args.clock)
    print(json.dumps(cells, indent=2) if args.json else format_gauntlet(cells, args.clock))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""make bench: tavola's figures, each beside a reference measured in the same run.

- engines: random playouts, decisions per CPU second of each game, beside OpenSpiel's
  python_liars_poker and python_kuhn_poker (with the [openspiel] extra), in rounds: each
  round a sample of every engine and of OpenSpiel's in turn, the ratio of each round;
- bot strength: the arena's (bots.lab.arena) 2-player win rates of each game's heuristic bot
  and of the search bot against a random bot, beside the fair share;
- SubmitAction at 1, 16 and 64 clients, beside the bare pipeline of bench/bare.py (the
  same hops with no tavola code); and the same moves over seat sessions (bench/sessions.py:
  one message in, an update out to each seat), beside the unary path (a GetView and a
  SubmitAction a move);
- the bot path: CPU per bot action of every process, bot actions/s and turn latency,
  beside the bare pipeline's CPU (its client standing for the bot worker) and latency
  for a view and a submit, and beside the floor (bench/echo.py, measured just before and
  just after the tables): two bare gRPC echo calls of a view's and a submit's sizes and
  one bare commit script a bot action, and bot actions/s beside the gRPC-bound ceiling
  (echo calls/s over two);
- bot replies: N tables of one paced client (a person who thinks) against a bot, the
  time from the client's move to the bot's answer, beside the bare submit latency;
- live tables: N all-bot tables of mixed games to the end, beside the time the bare
  pipeline would take for as many submits; Redis bytes per live and finished table;
- watchers: spectator streams on one gateway, 50 on each table, while a client plays the
  tables' seated players at a paced rate (``--watch-rate`` deliveries/s over all streams,
  2,000 by default); delivery latency beside the bare pipeline's streams (a paced client's
  view and submit make each event, stamped when the submit begins as tavola stamps a
  command's events, PUBLISHed by the commit script and sent on by one subscriber to the
  table's streams: the same hops), beside a bare gRPC server streaming as many events a
  second to as many streams (the fan-out alone), and beside Redis PUBLISH alone. Every
  side's streams are read alike, by ``--watch-readers`` processes (4 by default), all
  three sides' streams are open at once, and their tables are played in turn, at the same
  pace, in four slices each. The references make the commands tavola's tables made in the
  same slice (as many events each, of the same size), and every side sends a command's
  events in one message (batched streams; ``--watch-one-a-message``: one an event).
  tavola's latency is measured from each event's stamp (its command's start, like the bare
  pipeline's), and from its commit (Redis's time of the log append, read off MONITOR),
  beside the bare gRPC stream's from its send: both from when the event came to be.
- a peer: boardgame.io (bench/peer.py), an open-source game server playing a 3-player
  hidden-dice game, its moves beside tavola's SubmitAction at 16 and 64 clients, in
  slices in turn: moves/s, latency and server CPU per move of each.

Every part runs ``--runs`` times (3 by default), then a summary prints each ratio's
median and range over the runs, with the load average at each run's start and end.
``--contention`` runs each pass twice, quiet and then under a fixed background load
(bench/contention.py: two CPU-bound busy processes at normal priority, started and
stopped by the bench), and prints each ratio under the load beside its quiet value.

``--quick`` (make bench-quick) runs every part small; ``--json`` prints the figures as
one JSON object on stdout (progress goes to stderr). The machine is shared: read the
ratios, which compare runs made minutes apart on the same machine.
"""

import argparse
import asyncio
import contextlib
import json
import os
import platform
import secrets
import statistics
import sys
import time
from collections.abc import Callable

from bench.contention import PROCESSES, BackgroundLoad
from bench.echo import EchoServer, Floor, Sizes
from bench.engines import REFERENCES, interleaved_rounds, round_ratios
from bench.gateway import message_sizes
from bench.peer import peer
from bench.pipeline import bot_path, live_tables, replies, submits
from bench.report import PROFILES, Profile, Report, load_average, run_dir
from bench.summary import CONTENDED, QUIET, Run, format_summary, summarize
from bench.tables import stack_pids
from bench.watch_part import watchers
from bots.lab import arena
from deploy.stack import NO_QUOTAS, ROOT, Stack
from services import bot_specs
from services.registry import game_ids


def engines(report: Report, profile: Profile) -> None:
    rounds = profile.engine_rounds
    sample = profile.engine_seconds / rounds
    report.section(
        f"engine random playouts (decisions per CPU second, one core, this process): {rounds} rounds, each a "
        f"{sample:.2f} s sample of every engine and of OpenSpiel's in turn; median of the rounds' ratios:"
    )
    games = list(game_ids())
    samples = interleaved_rounds(games, rounds, sample)
    engine_rows(report, samples, games)


def engine_rows(report: Report, samples: list[dict[str, float]], games: list[str]) -> None:
    """Each engine's median rate beside python_liars_poker's, at the median of the rounds'
    ratios, and its worst round (the goal holds in every round)."""
    liars, kuhn = REFERENCES
    if not all(liars in sample for sample in samples):
        for game in games:
            report.row(f"engine.{game}", game, statistics.median(s[game] for s in samples), "dec/cpu-s")
        report.note("engine.openspiel", "OpenSpiel is not installed (pip install -e '.[openspiel]'): no reference")
        return
    reference = statistics.median(sample[liars] for sample in samples)
    for name in [*games, kuhn]:
        ratios = round_ratios(samples, name)
        rate = statistics.median(sample[name] for sample in samples)
        label = f"OpenSpiel {name}" if name == kuhn else name
        key = f"engine.openspiel.{name}" if name == kuhn else f"engine.{name}"
        report.row(key, label, rate, "dec/cpu-s", reference, "liars_poker", ratio=statistics.median(ratios))
        if name == kuhn:
            continue
        worst = min(range(len(ratios)), key=ratios.__getitem__)
        report.row(
            f"engine.{name}.worst_round",
            f"  {name}, its worst of {len(ratios)} rounds",
            samples[worst][name],
            "dec/cpu-s",
            samples[worst][liars],
            "liars_poker, that round",
        )
    report.row("engine.openspiel.python_liars_poker", "OpenSpiel python_liars_poker", reference, "dec/cpu-s")


def strength(report: Report, profile: Profile) -> None:
    """Offline on the engines (bots.lab.arena): seats rotated, thinking budgets in CPU time so the
    machine's load does not weaken the search."""
    report.section(
        f"bot strength (python -m bots.lab.arena, 2 players, against random; seats rotated; "
        f"ismcts:budget_ms={profile.search_ms} in CPU time; 95% CI):"
    )
    bots = bot_specs.load_bots()
    for game in game_ids():
        heuristic = f"{game}-heuristic"
        entrants = [(f"ismcts:budget_ms={profile.search_ms}", profile.search_games)]
        if heuristic in bots and bots[heuristic].plays(game):
            entrants.insert(0, (heuristic, profile.heuristic_games))
        for bot, games in entrants:
            lineup = [bot, "random"]
            results = arena.play_games(game, 2, lineup, games, seed=1, jobs=os.cpu_count() or 1, clock_kind="cpu")
            won = arena.summarize(game, 2, lineup, 1, {}, results, "cpu")["bots"][bot]
            low, high = won["ci95"]
            kind = "heuristic" if bot == heuristic else "ismcts"
            label = f"{game} {kind} ({games} games, CI {100 * low:.0f}-{100 * high:.0f})"
            report.row(f"strength.{game}.{bot}", label, 100 * won["win_rate"], "% wins", 50.0, "fair share")


def run_parts(report: Report, profile: Profile, parts: set[str], stack: Stack, floor: Callable[[], Floor]) -> None:
    """One pass of the parts asked for, on the running stack, each part's time printed."""

    def timed(name: str, part: Callable[..., object], *args) -> None:
        began = time.perf_counter()
        part(*args)
        took = time.perf_counter() - began
        report.note(
            f"{name}.part_seconds", f"({name}: {took:.0f}s, load average {load_average()})", seconds=round(took, 1)
        )

    if "engines" in parts:
        timed("engines", engines, report, profile)
    references: dict[int, dict] = {}
    if parts & {"submits", "bots", "replies", "tables"}:
        timed("submits", lambda: references.update(submits(report, profile, stack)))
    if "bots" in parts:
        timed("bots", bot_path, report, profile, stack, references, floor)
    if "replies" in parts:
        timed("replies", replies, report, profile, stack, references)
    if "tables" in parts:
        timed("tables", live_tables, report, profile, stack, references, floor)
    if "watchers" in parts:
        timed("watchers", watchers, report, profile, stack)
    if "peer" in parts:
        # Each side's slices half as long as the SubmitAction part's whole side.
        timed("peer", peer, report, profile.submit_seconds / 2, stack, run_dir(stack))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every part small")
    parser.add_argument("--json", action="store_true", help="the figures as JSON on stdout")
    parser.add_argument(
        "--runs", type=int, default=3, help="passes of every part; the summary gives each ratio's median and range"
    )
    parser.add_argument(
        "--contention",
        action="store_true",
        help=f"each pass twice: quiet, then beside {PROCESSES} CPU-bound busy processes the bench starts and stops",
    )
    parser.add_argument("--tables", type=int, help="live tables (default 300; 30 with --quick)")
    parser.add_argument("--bot-tables", type=int, help="tables for the bot path (default 100; 30 with --quick)")
    parser.add_argument(
        "--watch-rate",
        type=float,
        help="watchers: deliveries/s over all streams (committed events/s x 50 watchers a table; default 2000)",
    )
    parser.add_argument(
        "--watch-readers",
        type=int,
        help="watchers: processes reading the streams, tavola's and the references' alike (default 4)",
    )
    parser.add_argument(
        "--watch-one-a-message",
        action="store_true",
        help="watchers: every side sends a command's events one message each (not batched, as before)",
    )
    parser.add_argument(
        "--only", default="engines,strength,submits,bots,replies,tables,watchers,peer", help="parts to run"
    )
    args = parser.parse_args()
    profile = PROFILES["quick" if args.quick else "full"]
    if args.tables:
        profile = Profile(**{**profile.__dict__, "live_tables": args.tables})
    if args.bot_tables:
        profile = Profile(**{**profile.__dict__, "bot_tables": args.bot_tables})
    if args.watch_rate:
        profile = Profile(**{**profile.__dict__, "watch_rate": args.watch_rate})
    if args.watch_readers:
        profile = Profile(**{**profile.__dict__, "watch_readers": args.watch_readers})
    if args.watch_one_a_message:
        profile = Profile(**{**profile.__dict__, "watch_batched": False})
    parts = set(args.only.split(","))
    out = sys.stderr if args.json else sys.stdout
    started = time.perf_counter()
    print(
        f"tavola bench on {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load average {load_average()}; {args.runs} run{'s' if args.runs != 1 else ''}"
        + (f", each quiet and then beside {PROCESSES} busy processes" if args.contention else ""),
        file=out,
    )
    prefix = f"tavola-bench-{secrets.token_hex(4)}"
    # A folder of this run's own (logs, port files): two runs in one checkout never share one.
    log_dir = ROOT / ".run" / "bench" / f"{time.strftime('%Y%m%d-%H%M%S')}-{prefix.rsplit('-', 1)[1]}"
    modes = [QUIET, CONTENDED] if args.contention else [QUIET]
    runs: list[Run] = []
    # Win rates, not times: the bot strength part runs once, before the stack starts (its
    # arena forks workers), its figures in the first run's.
    first = Report(quiet=args.json)
    if "strength" in parts:
        began = time.perf_counter()
        strength(first, profile)
        took = time.perf_counter() - began
        first.note(
            "strength.part_seconds", f"(strength: {took:.0f}s, load average {load_average()})", seconds=round(took, 1)
        )
    with (
        Stack(key_prefix=prefix, worker_bots=("random",), log_dir=log_dir, gateway_env=dict(NO_QUOTAS)) as stack,
        EchoServer(log_dir) as echo,
    ):
        print(f"  {stack.describe()[0]}; logs in {log_dir.relative_to(ROOT)}/", file=out)
        redis_pid = stack_pids(stack).get("redis")
        sizes = Sizes()
        if parts & {"bots", "tables"}:
            sizes = Sizes(*asyncio.run(message_sizes(stack.gateway_address)))
            print(f"  echo sizes (request, response): a view {sizes.view}, a submit {sizes.submit} bytes", file=out)

        def floor() -> Floor:
            return echo.floor(stack.redis_url, f"{prefix}:floor", redis_pid, profile.floor_seconds, sizes)

        for number in range(args.runs):
            for mode in modes:
                report = first if not runs else Report(quiet=args.json)
                load_start = os.getloadavg()
                began = time.perf_counter()
                print(
                    f"\n== run {number + 1} of {args.runs}, {mode}: load average {load_average()}", file=out, flush=True
                )
                load = BackgroundLoad() if mode == CONTENDED else contextlib.nullcontext()
                with load:
                    run_parts(report, profile, parts, stack, floor)
                run = Run(number, mode, report.figures, load_start, os.getloadavg(), time.perf_counter() - began)
                runs.append(run)
                print(f"== run {number + 1} {mode} done in {run.seconds:.0f}s, load average {load_average()}", file=out)
        stack.delete_keys()
    print("", file=out)
    for line in format_summary(runs):
        print(line, file=out)
    print(f"\nbench done in {time.perf_counter() - started:.0f}s, load average {load_average()}", file=out)
    if args.json:
        summary = {line.key: line.as_json() for line in summarize(runs)}
        document = {
            "profile": "quick" if args.quick else "full",
            "contention": {"processes": PROCESSES} if args.contention else None,
            "runs": [run.as_json() for run in runs],
            "summary": summary,
        }
        print(json.dumps(document, indent=1))


if __name__ == "__main__":
    main()

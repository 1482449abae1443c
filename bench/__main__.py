"""make bench: tavola's figures, each beside a reference measured in the same run.

- engines: random playouts, decisions per CPU second of each game, beside OpenSpiel's
  python_liars_poker and python_kuhn_poker (with the [openspiel] extra), in rounds: each
  round a sample of every engine and of OpenSpiel's in turn, the ratio of each round;
- bot strength: the arena's (bots.arena) 2-player win rates of each game's heuristic bot
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
from dataclasses import dataclass
from pathlib import Path

from bench.bare import BarePipeline, BareStreams, Commands, run_clients
from bench.contention import PROCESSES, BackgroundLoad
from bench.echo import EchoServer, Floor, Sizes, combine_floors
from bench.engines import REFERENCES, interleaved_rounds, round_ratios
from bench.gateway import combined, message_sizes, submit_action
from bench.replies import bot_replies
from bench.sessions import session_moves, session_rows
from bench.summary import CONTENDED, QUIET, Run, format_summary, summarize
from bench.tables import print_progress, run_tables, stack_pids
from bench.watchers import GAME as WATCH_GAME
from bench.watchers import Spectated, percentile, redis_publish_latency, spread_of
from bots import arena
from deploy.stack import NO_QUOTAS, ROOT, Stack
from services import bot_specs
from services.registry import game_ids


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
    """Offline on the engines (bots.arena): seats rotated, thinking budgets in CPU time so the
    machine's load does not weaken the search."""
    report.section(
        f"bot strength (python -m bots.arena, 2 players, against random; seats rotated; "
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


def submits(report: Report, profile: Profile, stack: Stack) -> dict[int, dict]:
    report.section(
        f"SubmitAction (borgia, 3 players, a GetView before each) beside the bare pipeline, "
        f"{SLICES} slices of each in turn:"
    )
    bare_prefix = f"{stack.key_prefix}:bare"
    references: dict[int, dict] = {}
    slice_seconds = profile.submit_seconds / SLICES
    # Each side's processes, to weigh their CPU per submit (the bench's own process runs
    # the clients, one side at a time: "client").
    tavola_pids = {name: pid for name, pid in stack_pids(stack).items() if name in ("gateway", "rules-borgia", "redis")}
    with BarePipeline(stack.redis_url, bare_prefix, run_dir(stack)) as bare:
        bare_pids = {**bare.pids, **{name: pid for name, pid in tavola_pids.items() if name == "redis"}}
        for clients in profile.clients:
            # In turn, in short slices: a machine whose load drifts weighs on both alike.
            bare_slices, slices, session_slices = [], [], []
            for _ in range(SLICES):
                bare_slices.append(
                    asyncio.run(
                        run_clients(
                            bare.address, stack.redis_url, bare_prefix, clients, slice_seconds, 20_000, bare_pids
                        )
                    )
                )
                slices.append(
                    asyncio.run(
                        submit_action(stack.gateway_address, "borgia", 3, clients, slice_seconds, 20_000, tavola_pids)
                    )
                )
                session_slices.append(
                    asyncio.run(
                        session_moves(stack.gateway_address, "borgia", 3, clients, slice_seconds, 20_000, tavola_pids)
                    )
                )
            reference, figures = combined(bare_slices), combined(slices)
            bare_cpu, tavola_cpu = reference.cpu, figures.cpu
            # The bare side's CPU per view+submit by process: the bot path's reference, its
            # client standing for the bot worker (both decide and call the gateway).
            by_process = {name: used * 1000 / max(1, reference.submits) for name, used in bare_cpu.items()}
            references[clients] = {
                "per_second": reference.per_second,
                "p50": reference.p50_ms,
                "cpu_ms": by_process["client"] + by_process["gateway"] + by_process["rules"],
                "cpu_ms_by_process": by_process,
            }
            report.row(
                f"submit.{clients}.per_second",
                f"{clients:3d} clients: submits/s",
                figures.per_second,
                "/s",
                reference.per_second,
                "bare",
            )
            report.row(
                f"submit.{clients}.p50_ms",
                f"{clients:3d} clients: submit p50",
                figures.p50_ms,
                "ms",
                reference.p50_ms,
                "bare",
            )
            report.row(
                f"submit.{clients}.p99_ms",
                f"{clients:3d} clients: submit p99",
                figures.p99_ms,
                "ms",
                reference.p99_ms,
                "bare",
            )
            # Where the CPU of a GetView and SubmitAction pair goes, side by side, while timed
            # (a tavola client that has played its tables makes another, in the window).
            for name, bare_name in (
                ("gateway", "gateway"),
                ("rules-borgia", "rules"),
                ("redis", "redis"),
                ("client", "client"),
            ):
                if name in tavola_cpu and bare_name in bare_cpu:
                    report.row(
                        f"submit.{clients}.cpu_ms.{bare_name}",
                        f"    {clients:3d} clients: CPU per submit, {name}",
                        tavola_cpu[name] * 1000 / max(1, figures.submits),
                        "ms",
                        bare_cpu[bare_name] * 1000 / max(1, reference.submits),
                        f"bare {bare_name}",
                    )
            # The same moves over seat sessions (no GetView), beside the unary path.
            session_rows(report, clients, combined(session_slices), figures)
            # How often each process waits for a wakeup (voluntary switches) and is preempted
            # (involuntary), per submit: on a busy host each wakeup waits for a core.
            for name, bare_name in (("gateway", "gateway"), ("rules-borgia", "rules"), ("client", "client")):
                ours, theirs = figures.switches.get(name), reference.switches.get(bare_name)
                if not ours or not theirs:
                    continue
                for index, kind in ((0, "wakeups"), (1, "preemptions")):
                    report.row(
                        f"submit.{clients}.{kind}.{bare_name}",
                        f"    {clients:3d} clients: {kind} per submit, {name}",
                        ours[index] / max(1, figures.submits),
                        "",
                        theirs[index] / max(1, reference.submits),
                        f"bare {bare_name}",
                    )
    return references


# A bot action's processes beside the bare pipeline's for a view and a submit.
BARE_COUNTERPART = {"gateway": "gateway", "bot-worker": "client", "redis": "redis"}


def _bot_cpu_rows(report: Report, key: str, figures, bare: dict, by_process: bool = True) -> None:
    """CPU per bot action: the sum over the worker, the gateway and the rules services (Redis
    apart), beside the bare client, gateway and rules service's per view+submit; then each
    process beside its bare counterpart (a rules service beside the bare rules server)."""
    report.row(
        f"{key}.cpu_ms_per_action",
        "CPU per bot action, worker+gateway+rules",
        figures.cpu_ms_per_action(),
        "ms",
        bare["cpu_ms"],
        "bare client+gateway+rules",
    )
    if not by_process:
        return
    bare_cpu = bare.get("cpu_ms_by_process", {})
    for name in sorted(figures.cpu, key=lambda name: (name == "redis", name)):
        value = figures.cpu_ms_per_action(name)
        if name.startswith("rules-") and value < 0.05:
            continue  # a game no table of this part plays
        counterpart = "rules" if name.startswith("rules-") else BARE_COUNTERPART.get(name, "")
        label = f"  of which {name}" if name != "redis" else "  redis (not in the sum)"
        report.row(
            f"{key}.cpu_ms_per_action.{name}", label, value, "ms", bare_cpu.get(counterpart), f"bare {counterpart}"
        )


def _floor_rows(report: Report, key: str, figures, floor: Floor) -> None:
    """CPU per bot action beside the floor (two echo calls and one commit script's caller;
    with Redis on both sides too), and bot actions/s beside the gRPC-bound ceiling."""
    report.row(
        f"{key}.cpu_ms_vs_floor",
        "CPU per bot action, worker+gateway+rules",
        figures.cpu_ms_per_action(),
        "ms",
        floor.cpu_ms,
        "floor: 2 echo calls + commit script",
    )
    if "redis" in figures.cpu and floor.redis_cpu_ms:
        report.row(
            f"{key}.cpu_ms_with_redis_vs_floor",
            "  the same, Redis counted on both sides",
            figures.cpu_ms_per_action() + figures.cpu_ms_per_action("redis"),
            "ms",
            floor.cpu_ms + floor.redis_cpu_ms,
            "floor with Redis",
        )
    report.row(
        f"{key}.actions_per_second_vs_ceiling",
        "bot actions/s",
        figures.actions_per_second,
        "/s",
        floor.ceiling,
        "gRPC ceiling: echo calls/s / 2",
    )
    echo, commit = floor.echo, floor.commit
    report.note(
        f"{key}.floor",
        f"  floor (just before and after): echo {echo.per_second:,.0f} calls/s, {echo.cpu_ms_per_call:.3f} ms CPU a "
        f"call (client and server); commit script {commit.cpu_ms('client'):.3f} ms (caller) + "
        f"{commit.cpu_ms('redis'):.3f} ms (Redis)",
        echo_per_second=round(echo.per_second, 1),
        echo_cpu_ms_per_call=round(echo.cpu_ms_per_call, 4),
        commit_cpu_ms=round(commit.cpu_ms("client"), 4),
        commit_redis_cpu_ms=round(commit.cpu_ms("redis"), 4),
        floor_cpu_ms=round(floor.cpu_ms, 4),
        ceiling=round(floor.ceiling, 1),
    )


def bot_path(
    report: Report, profile: Profile, stack: Stack, references: dict[int, dict], floor: Callable[[], Floor]
) -> None:
    count = profile.bot_tables
    report.section(f"bot path: {count} all-bot borgia 3-player tables at once, random bots, to the end:")
    before = floor()
    figures = run_tables(stack, [("borgia", 3)], count, profile.timeout, progress=print_progress)
    after = floor()
    bare = references.get(16) or next(iter(references.values()))
    _bot_cpu_rows(report, "bots", figures, bare)
    _floor_rows(report, "bots", figures, combine_floors([before, after]))
    report.row(
        "bots.actions_per_second",
        "bot actions/s",
        figures.actions_per_second,
        "/s",
        bare["per_second"],
        "bare submits/s, 16 clients",
    )
    report.row(
        "bots.turn_p50_ms",
        f"bot turn latency p50 ({count} tables)",
        figures.turn_percentile(0.5),
        "ms",
        bare["p50"],
        "bare submit p50",
    )
    report.row(
        "bots.turn_p99_ms",
        f"bot turn latency p99 ({count} tables)",
        figures.turn_percentile(0.99),
        "ms",
        figures.turn_percentile(0.5),
        "its p50",
    )
    report.note(
        "bots.begin_wait",
        f"  wait to begin (creation to a worker's begin): p50 {figures.begin_wait_percentile(0.5) / 1000:.1f} s, "
        f"p99 {figures.begin_wait_percentile(0.99) / 1000:.1f} s",
        begin_wait_p50_ms=round(figures.begin_wait_percentile(0.5), 1),
        begin_wait_p99_ms=round(figures.begin_wait_percentile(0.99), 1),
    )
    report.note(
        "bots.turn_note",
        "(all-bot tables: a worker begins a table when it has room for it and plays it to the end, giving way "
        "only to a table with people; turns count from the begin; the bot replies part times a person's table)",
    )
    report.note(
        "bots.finished",
        f"{figures.finished}/{figures.tables} tables finished in {figures.seconds:.0f}s, {figures.actions} actions",
        finished=figures.finished,
        tables=figures.tables,
        actions=figures.actions,
        seconds=round(figures.seconds, 1),
    )
    errors = stack_errors(stack)
    report.note("bots.log_errors", f"error lines in the stack's logs: {errors}", errors=errors)


def replies(report: Report, profile: Profile, stack: Stack, references: dict[int, dict]) -> None:
    count = profile.reply_tables
    report.section(
        f"bot replies: {count} borgia 2-player tables, each a paced client (thinks about 2 s) against a random bot:"
    )
    figures = bot_replies(stack.gateway_address, count, profile.reply_seconds)
    bare = references.get(1) or next(iter(references.values()))  # one submit on an idle pipeline
    for fraction, name in ((0.5, "p50"), (0.99, "p99")):
        report.row(
            f"replies.{name}_ms",
            f"bot reply latency {name} ({count} tables)",
            figures.percentile(fraction),
            "ms",
            bare["p50"],
            "bare submit p50, 1 client",
        )
    report.note(
        "replies.count",
        f"{len(figures.replies_ms)} bot replies to {figures.moves} client moves in {figures.seconds:.0f}s",
        replies=len(figures.replies_ms),
        moves=figures.moves,
    )


def live_tables(
    report: Report, profile: Profile, stack: Stack, references: dict[int, dict], floor: Callable[[], Floor]
) -> None:
    count = profile.live_tables
    mix = ", ".join(f"{game} {players}p" for game, players in LIVE_MIX)
    report.section(f"live tables: {count} all-bot tables at once ({mix} in turn), to the end:")
    before = floor()
    figures = run_tables(stack, LIVE_MIX, count, profile.timeout, progress=print_progress)
    after = floor()
    bare = references.get(64) or next(iter(references.values()))
    bare_seconds = figures.actions / bare["per_second"]
    report.row(
        "tables.seconds",
        f"completion time ({figures.finished}/{count} finished)",
        figures.seconds,
        "s",
        bare_seconds,
        "bare, as many submits",
    )
    report.row(
        "tables.actions_per_second",
        "bot actions/s",
        figures.actions_per_second,
        "/s",
        bare["per_second"],
        "bare submits/s, 64 clients",
    )
    _bot_cpu_rows(report, "tables", figures, bare, by_process=False)
    _floor_rows(report, "tables", figures, combine_floors([before, after]))
    report.row("tables.live_bytes", "Redis bytes per live table (just started)", figures.live_bytes, "bytes")
    report.row("tables.finished_bytes", "Redis bytes per finished table", figures.finished_bytes, "bytes")
    errors = stack_errors(stack)
    report.note("tables.log_errors", f"error lines in the stack's logs: {errors}", errors=errors)


def watchers(report: Report, profile: Profile, stack: Stack) -> None:
    streams = profile.watch_tables * profile.watchers_per_table
    committed_rate = profile.watch_rate / profile.watchers_per_table
    report.section(
        f"watchers: {streams} spectator streams on one gateway, {profile.watchers_per_table} on each of "
        f"{profile.watch_tables} {WATCH_GAME.capitalize()} tables of 3 seated players; a client paces their actions "
        f"for {profile.watch_seconds:.0f}s at {committed_rate:g} committed events/s in all "
        f"({committed_rate / profile.watch_tables:g} a table), x {profile.watchers_per_table} watchers = "
        f"{profile.watch_rate:,.0f} deliveries/s over all streams:"
    )
    reference = asyncio.run(redis_publish_latency(stack.redis_url, f"{stack.key_prefix}:bench-latency"))
    # The three sides' streams are all open at once, and their tables are played in turn,
    # in slices, at the same pace: a machine whose load drifts weighs on each alike.
    with (
        BareStreams(run_dir(stack)) as bare_streams,
        BarePipeline(stack.redis_url, f"{stack.key_prefix}:bare-watch", run_dir(stack)) as pipeline,
    ):
        figures, made, bare, event_bytes = asyncio.run(
            _watch_in_turn(profile, stack, pipeline, bare_streams, committed_rate)
        )
    how = "in one message" if profile.watch_batched else "one message each"
    report.note(
        "watch.shape",
        f"every side: {figures.entries_per_command:.2f} events a command, sent {how}, {event_bytes} bytes an event "
        f"(the references make the commands tavola's tables made, slice by slice)",
        batched=profile.watch_batched,
        event_bytes=event_bytes,
        events_per_command=round(figures.entries_per_command, 3),
    )
    report.note(
        "watch.streams",
        f"{figures.completed}/{figures.streams} streams complete (every event of the run, no error), "
        f"failed: {figures.failed or 'none'}",
        streams=figures.streams,
        completed=figures.completed,
        failed=figures.failed,
        events=figures.events,
        committed=figures.committed,
        seconds=round(figures.seconds, 2),
    )
    delivered = figures.events / figures.seconds if figures.seconds else 0.0
    per_second = delivered / profile.watchers_per_table  # events committed a second, as spectators see them
    report.row(
        "watch.delivered_per_second",
        f"events delivered/s, all streams (paced for {profile.watch_rate:,.0f})",
        delivered,
        "/s",
        bare.events / bare.seconds if bare.seconds else None,
        "bare gRPC streams",
    )
    report.row(
        "watch.committed_per_second",
        "events committed/s, all tables (to spectators)",
        per_second,
        "/s",
        committed_rate,
        "paced for",
    )
    report.row(
        "watch.delivery_p50_ms",
        "delivery latency p50",
        figures.percentile(0.5),
        "ms",
        made.p50_ms,
        "bare pipeline p50",
    )
    report.row(
        "watch.delivery_p99_ms",
        "delivery latency p99",
        figures.percentile(0.99),
        "ms",
        made.p99_ms,
        "bare pipeline p99",
    )
    report.row(
        "watch.delivery_p50_vs_streams_ms",
        "delivery latency p50",
        figures.percentile(0.5),
        "ms",
        bare.p50_ms,
        "bare stream p50",
    )
    report.row(
        "watch.delivery_p99_vs_streams_ms",
        "delivery latency p99",
        figures.percentile(0.99),
        "ms",
        bare.p99_ms,
        "bare stream p99",
    )
    report.row(
        "watch.delivery_p99_vs_redis",
        "delivery latency p99",
        figures.percentile(0.99),
        "ms",
        reference,
        "Redis PUBLISH p99",
    )
    # Like for like with the bare stream, whose events are stamped as they are sent: each
    # of tavola's events from its commit, Redis's own time of the entry's append (a few
    # microseconds before its commit script ends: overstated by those, never understated).
    # Then the same split as below: to a table's first stream, beside the bare stream's.
    _, bare_first, bare_spread = spread_of(bare.arrivals)
    for fraction, name in ((0.5, "p50"), (0.99, "p99")):
        report.row(
            f"watch.commit_{name}_vs_streams_ms",
            f"delivery latency {name}, from commit",
            percentile(figures.from_commit_ms, fraction),
            "ms",
            bare.p50_ms if fraction == 0.5 else bare.p99_ms,
            f"bare stream {name}",
        )
    for fraction, name in ((0.5, "p50"), (0.99, "p99")):
        report.row(
            f"watch.commit_first_stream_{name}_vs_streams_ms",
            f"  of which to a table's first stream, {name}",
            percentile(figures.first_from_commit_ms, fraction),
            "ms",
            percentile(bare_first, fraction),
            "bare streams",
        )
    report.note(
        "watch.commit_stamps",
        f"  from commit: Redis's clock as its commit script appends each entry (MONITOR, in us); "
        f"{figures.unstamped} deliveries without a stamp",
        unstamped=figures.unstamped,
    )
    # A command's entries are stamped alike: the first one's delivery (with
    # --watch-one-a-message the others follow it, one message each).
    report.row(
        "watch.leading_p99_ms",
        f"delivery p99, a command's first entry ({figures.entries_per_command:.2f} a command)",
        percentile(figures.leading_ms, 0.99),
        "ms",
        made.p99_ms,
        "bare pipeline p99",
    )
    # Where the time goes: from the commit stamp to a table's first stream (the command's
    # rules call and commit, its hand-off to the watchers), then on to its other streams;
    # beside the same split of the bare pipeline's streams (from the submit's stamp) and of
    # the bare streams server's (from its send stamp: the fan-out alone).
    _, made_first, made_spread = spread_of(made.arrivals)
    parts = (
        ("first_stream", "  of which to a table's first stream", figures.first_ms, made_first, bare_first),
        ("spread", "  then on to each other stream", figures.spread_ms, made_spread, bare_spread),
    )
    for key, label, samples, made_samples, bare_samples in parts:
        for fraction, name in ((0.5, "p50"), (0.99, "p99")):
            value = percentile(samples, fraction)
            report.row(
                f"watch.{key}_{name}_ms",
                f"{label}, {name}",
                value,
                "ms",
                percentile(made_samples, fraction),
                "bare pipeline",
            )
            report.row(
                f"watch.{key}_{name}_vs_streams_ms",
                f"{label}, {name}",
                value,
                "ms",
                percentile(bare_samples, fraction),
                "bare streams",
            )
    # What reading costs each side's client (tavola's streams carry protobuf messages, the
    # references' raw bytes): CPU of the reading processes per delivery.
    reading = {
        "tavola": figures.reader_cpu_seconds / max(1, figures.events),
        "bare_pipeline": made.reader_cpu_seconds / max(1, made.events),
        "bare_streams": bare.reader_cpu_seconds / max(1, bare.events),
    }
    report.note(
        "watch.reader_cpu_us",
        "readers' CPU per delivery (stream opening included): "
        + ", ".join(f"{name} {seconds * 1e6:.0f} us" for name, seconds in reading.items()),
        **{name: round(seconds * 1e6, 1) for name, seconds in reading.items()},
    )
    submit_p50 = percentile(figures.submit_ms, 0.5)
    report.row(
        "watch.submit_p50_ms",
        f"pacing client's SubmitAction p50 ({figures.submits})",
        submit_p50,
        "ms",
    )
    report.note("watch.load", f"load average {_load()}", load=_load())


async def _watch_in_turn(
    profile: Profile, stack: Stack, pipeline: BarePipeline, bare_streams: BareStreams, rate: float
):
    """The watched tables of tavola, of the bare pipeline and of the bare streams server,
    played in turn in WATCH_SLICES slices each: (tavola's figures, the pipeline's, the
    streams server's)."""
    tables, per_table, readers = profile.watch_tables, profile.watchers_per_table, profile.watch_readers
    spectated = Spectated(
        stack.gateway_address,
        tables,
        per_table,
        readers,
        batched=profile.watch_batched,
        redis_url=stack.redis_url,
        key_prefix=stack.key_prefix,
    )
    await spectated.open()
    piped = await pipeline.open_watch(tables, per_table, readers)
    await bare_streams.open(tables, per_table, readers)
    each = profile.watch_seconds / WATCH_SLICES
    event_bytes = 0
    for number in range(WATCH_SLICES):
        print_progress(f"watchers: slice {number + 1} of {WATCH_SLICES}")
        await spectated.play(rate, each)
        # Like for like: the references make the commands tavola's tables just made (as
        # many events each, table by table), events of the same size, sent alike.
        event_bytes = event_bytes or await spectated.event_bytes()
        commands = Commands(spectated.counts, event_bytes, profile.watch_batched)
        await piped.play(rate, each, commands)
        await bare_streams.play(rate, each, commands)
    return await spectated.close(profile.timeout), await piped.close(), await bare_streams.close(), event_bytes


def stack_errors(stack: Stack) -> int:
    errors = 0
    for process in stack.processes:
        for line in process.log_path.read_text(errors="replace").splitlines():
            if '"level": "error"' in line or '"level": "critical"' in line or "Traceback" in line:
                errors += 1
    return errors


def _load() -> str:
    """The machine's load average (1, 5, 15 minutes): how much else ran beside the bench."""
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def run_parts(report: Report, profile: Profile, parts: set[str], stack: Stack, floor: Callable[[], Floor]) -> None:
    """One pass of the parts asked for, on the running stack, each part's time printed."""

    def timed(name: str, part: Callable[..., object], *args) -> None:
        began = time.perf_counter()
        part(*args)
        took = time.perf_counter() - began
        report.note(f"{name}.part_seconds", f"({name}: {took:.0f}s, load average {_load()})", seconds=round(took, 1))

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
    parser.add_argument("--only", default="engines,strength,submits,bots,replies,tables,watchers", help="parts to run")
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
        f"load average {_load()}; {args.runs} run{'s' if args.runs != 1 else ''}"
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
        first.note("strength.part_seconds", f"(strength: {took:.0f}s, load average {_load()})", seconds=round(took, 1))
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
                print(f"\n== run {number + 1} of {args.runs}, {mode}: load average {_load()}", file=out, flush=True)
                load = BackgroundLoad() if mode == CONTENDED else contextlib.nullcontext()
                with load:
                    run_parts(report, profile, parts, stack, floor)
                run = Run(number, mode, report.figures, load_start, os.getloadavg(), time.perf_counter() - began)
                runs.append(run)
                print(f"== run {number + 1} {mode} done in {run.seconds:.0f}s, load average {_load()}", file=out)
        stack.delete_keys()
    print("", file=out)
    for line in format_summary(runs):
        print(line, file=out)
    print(f"\nbench done in {time.perf_counter() - started:.0f}s, load average {_load()}", file=out)
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

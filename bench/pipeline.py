"""The parts measured beside the bare pipeline (bench/bare.py): SubmitAction at 1, 16 and
64 clients, the bot path, bot replies and live tables (python -m bench's docstring)."""

import asyncio
from collections.abc import Callable

from bench.bare_clients import BarePipeline, run_clients
from bench.echo import Floor, combine_floors
from bench.gateway import combined, submit_action
from bench.replies import bot_replies
from bench.report import LIVE_MIX, SLICES, Profile, Report, run_dir, stack_errors
from bench.sessions import session_moves, session_rows
from bench.tables import print_progress, run_tables, stack_pids
from deploy.stack import Stack


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

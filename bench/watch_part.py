"""The watchers part: spectator streams on one gateway beside the bare pipeline's streams,
a bare gRPC streams server's and Redis PUBLISH (python -m bench's docstring)."""

import asyncio

from bench.bare import Commands
from bench.bare_clients import BarePipeline, BareStreams
from bench.report import WATCH_SLICES, Profile, Report, load_average, run_dir
from bench.tables import print_progress
from bench.watchers import GAME as WATCH_GAME
from bench.watchers import Spectated, percentile, redis_publish_latency, spread_of
from deploy.stack import Stack


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
    report.note("watch.load", f"load average {load_average()}", load=load_average())


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

"""The bench's references and its SubmitAction part against the real stack: every event the
bare pipeline makes reaches every stream of its table, and the SubmitAction part counts
only the submits of its window, on tables made before it. Counts only, never a time."""

import asyncio

import pytest

from bench.bare import Commands
from bench.bare_clients import BarePipeline, BareStreams
from bench.gateway import combined, submit_action
from bench.watchers import Spectated
from deploy.stack import ROOT


def test_the_bare_pipeline_streams_every_event_it_makes_to_every_stream(stack):
    with BarePipeline(stack.redis_url, f"{stack.key_prefix}:bare-test", ROOT / ".run" / "test-bench") as pipeline:
        figures = asyncio.run(pipeline.watch(tables=3, per_table=4, per_second=30, seconds=1.0))
    assert figures.streams == 12
    assert figures.events == 30 * 4  # each of the 30 events to the 4 streams of its table


@pytest.mark.parametrize("batched", [True, False])
def test_the_references_make_the_commands_they_are_told(stack, batched):
    """Commands of several events (in one message, or one each), each table paced on its
    events as tavola's pacing client paces its tables: 10 events a table in 1 s, but the
    second table's last command (3 events, begun at 0.93 s) makes 12."""
    commands = Commands([[2], [1, 3], [2]], event_bytes=69, batched=batched)
    workdir = ROOT / ".run" / "test-bench"
    with BarePipeline(stack.redis_url, f"{stack.key_prefix}:bare-cmd", workdir) as pipeline:
        figures = asyncio.run(pipeline.watch(3, 4, per_second=30, seconds=1.0, commands=commands))
    assert figures.streams == 12 and figures.events == (10 + 12 + 10) * 4
    with BareStreams(workdir) as streams:
        figures = asyncio.run(streams.run(3, 4, per_second=30, seconds=1.0, commands=commands))
    assert figures.events == (10 + 12 + 10) * 4


def test_the_submit_part_times_submits_on_tables_made_before_the_clock(stack):
    slices = [asyncio.run(submit_action(stack.gateway_address, "borgia", 3, 2, 0.5, 40)) for _ in range(2)]
    figures = combined(slices)
    assert 0 < figures.submits == sum(part.submits for part in slices) <= 2 * 2 * 40
    assert figures.seconds == sum(part.seconds for part in slices)
    assert figures.p50_ms <= figures.p99_ms


def test_the_watchers_part_stamps_every_delivery_with_its_commit(stack):
    """Every event a spectator stream brings has its commit stamp, read off Redis's MONITOR
    feed of the commit script's appends to the log (bench/watchers.py: CommitStamps)."""

    async def run():
        spectated = Spectated(
            stack.gateway_address, 2, 3, readers=2, channels=2, redis_url=stack.redis_url, key_prefix=stack.key_prefix
        )
        await spectated.open()
        await spectated.play(committed_per_second=20, seconds=1.0)
        return await spectated.close(timeout=60)

    figures = asyncio.run(run())
    assert figures.completed == figures.streams == 6
    assert figures.events > 0 and figures.unstamped == 0
    assert len(figures.from_commit_ms) == figures.events
    assert len(figures.first_from_commit_ms) == len(figures.first_ms)

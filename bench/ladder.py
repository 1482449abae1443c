"""The ladder's share of the workers while live tables play:  python -m bench.ladder

Starts a local stack (one gateway, Borgia's rules service, and the bot workers as the
compose file runs them: bot-worker, a threads pool of 8 on the light bots' queues, the
timers' and the ratings'; bot-worker-search, a prefork pool of a process per core on the
search bots' queues, deploy/workers.py),
keeps ``--tables`` live tables playing (Borgia, 3 random bots each, auto-started; each one
that ends is replaced at once), standing in for people's tables, and runs the ladder
(bots/worker/ladder.py, ``--ladder-tables`` rated 2-player tables of the search bot's levels at
once, its cap) in every other phase: live tables alone, then with the ladder, in turn,
``--rounds`` times (interleaved, so the machine's other load weighs on both alike). After
each ladder phase the ladder's last tables are let finish before the next phase begins.

It prints, for the phases with the ladder, against its cap (its tables over the search
worker's processes; its tables seat search bots only, so they never reach bot-worker):

- the search worker's CPU (all the ladder's: the live tables seat light bots) and its
  share of the two workers' CPU, and its busy share of the search worker's processes
  (CPU seconds over processes times the phases' length: a search is CPU-bound; a prefork
  pool's children count no decisions in the worker's metrics);
- bot-worker's CPU per live action, without and with the ladder;

and the live tables' bot-turn latency (one commit of a table to its next, from the log's
times, binned by phase), p50 and p99, and their actions a second, with and without the
ladder.

The live tables' tasks and the ladder's go at the same priority (tables with nobody at
them): a person's table would go ahead of both. Bounded in time (about ``--rounds`` x 2 x
``--phase-seconds`` and a minute); 127.0.0.1 only; its keys are deleted at the end.
"""

import argparse
import asyncio
import os
import random
import secrets
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field

import grpc
import redis
import redis.asyncio

from bench.tables import CpuMeter, _create, stack_pids, unfinished
from bots.search.levels import level_presets
from bots.worker.ladder import Ladder
from common.tasks import ALL_BOT_BEGUN_AT_VERSION
from deploy.stack import NO_QUOTAS, ROOT, Stack
from deploy.workers import split_bots
from gateway.store import TableStore
from tavola.gateway.v1 import gateway_pb2_grpc
from tavola.store.v1 import store_pb2

LIVE_GAME = ("borgia", 3)
WORKER_BOTS = ("random", "ismcts")


def progress(text: str) -> None:
    print(f"    ... {text}", file=sys.stderr, flush=True)


def load_average() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


class RecordingLadder(Ladder):
    """The ladder, keeping the ids of the tables it made (to let them finish between phases)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.made: list[str] = []
        self.lock = threading.Lock()

    def play_one(self) -> str:
        table_id = super().play_one()
        with self.lock:
            self.made.append(table_id)
        return table_id


@dataclass
class Phase:
    ladder: bool
    start: float = 0.0  # wall-clock seconds (time.time), to bin the log's commit times
    end: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)
    live_actions: int = 0

    @property
    def seconds(self) -> float:
        return self.end - self.start


class LiveTables:
    """Keeps ``count`` live tables playing: every half second, those that ended are replaced."""

    def __init__(self, stack: Stack, count: int):
        self.stack = stack
        self.count = count
        self.client = redis.Redis.from_url(stack.redis_url)
        self.live: list[str] = []
        self.made: list[str] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        asyncio.run(self._top_up(self.count))
        self.thread.start()

    def _run(self) -> None:
        while not self.stopping.wait(0.5):
            self.live = unfinished(self.client, self.stack.key_prefix, self.live)
            if len(self.live) < self.count:
                asyncio.run(self._top_up(self.count - len(self.live)))

    async def _top_up(self, missing: int) -> None:
        async with grpc.aio.insecure_channel(self.stack.gateway_address) as channel:
            made = await _create(gateway_pb2_grpc.GatewayServiceStub(channel), [LIVE_GAME], missing, "random")
        self.live += made
        self.made += made

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()
        self.client.close()


async def commit_times(stack: Stack, table_ids: list[str]) -> list[tuple[float, float]]:
    """(when, milliseconds) of each bot turn of the tables: from one version's commit to the
    next's, after the table's begin (version 2: created at 1, begun by a bot worker at 2)."""
    client = redis.asyncio.Redis.from_url(stack.redis_url)
    store = TableStore(client, stack.key_prefix, 3600)
    turns: list[tuple[float, float]] = []
    try:
        for table_id in table_ids:
            first: dict[int, int] = {}
            for entry in await store.read_log(table_id, 0, 5000):
                record = store_pb2.LogRecord.FromString(entry.data)
                first.setdefault(record.version, record.time_ns)
            for version, stamp in first.items():
                if version > ALL_BOT_BEGUN_AT_VERSION and version - 1 in first:
                    turns.append((stamp / 1e9, (stamp - first[version - 1]) / 1e6))
    finally:
        await client.aclose()
    return turns


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def run(args: argparse.Namespace) -> None:
    print(
        f"tavola bench: the ladder's share, {os.cpu_count()} cores, load average {load_average()}",
        file=sys.stderr,
        flush=True,
    )
    prefix = f"bench-ladder-{secrets.token_hex(3)}"
    log_dir = ROOT / ".run" / "bench" / f"{time.strftime('%Y%m%d-%H%M%S')}-{prefix.rsplit('-', 1)[1]}"
    ladder_bots = [bot.strip() for bot in args.ladder_bots.split(";") if bot.strip()]
    with Stack(
        games=("borgia",),
        bots=WORKER_BOTS,
        with_worker=False,
        key_prefix=prefix,
        log_dir=log_dir,
        gateway_env=dict(NO_QUOTAS),
    ) as stack:
        try:
            # As the compose file runs them: the light bots, the timers and the ratings on a
            # threads pool; the search bots on a prefork pool of their own.
            light, search = split_bots(WORKER_BOTS)
            stack._spawn_worker("bot-worker", light, "threads", args.concurrency, timers=True)
            stack._spawn_worker("bot-worker-search", search, "prefork", args.search_processes, timers=False)
            pids = stack_pids(stack)
            live = LiveTables(stack, args.tables)
            live.start()
            progress(f"{args.tables} live tables playing; warming up {args.warmup_seconds:.0f}s")
            time.sleep(args.warmup_seconds)
            channel = grpc.insecure_channel(stack.gateway_address)
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            counter = redis.Redis.from_url(stack.redis_url)
            phases: list[Phase] = []
            for round_ in range(args.rounds):
                for with_ladder in (False, True):
                    phase = Phase(ladder=with_ladder)
                    ladder = RecordingLadder(stub, ["borgia"], ladder_bots, args.ladder_tables)
                    ladder.rng = random.Random(round_)
                    runner = threading.Thread(target=ladder.run, daemon=True) if with_ladder else None
                    meter = CpuMeter(pids)
                    made_before = list(live.made)
                    actions = _live_versions(counter, stack.key_prefix, made_before)
                    phase.start = time.time()
                    if runner is not None:
                        runner.start()
                    time.sleep(args.phase_seconds)
                    phase.end = time.time()
                    phase.cpu = meter.used()
                    made_after = list(live.made)
                    # Each version after a table's first (its creation, with its start) is one bot action.
                    new_tables = len(made_after) - len(made_before)
                    phase.live_actions = _live_versions(counter, stack.key_prefix, made_after) - actions - new_tables
                    phases.append(phase)
                    progress(
                        f"round {round_ + 1}, {'with' if with_ladder else 'without'} the ladder: "
                        f"bot-worker CPU {phase.cpu['bot-worker']:.1f}s, bot-worker-search CPU "
                        f"{phase.cpu['bot-worker-search']:.1f}s, live actions {phase.live_actions}"
                    )
                    if runner is not None:
                        ladder.stopping.set()
                        runner.join()
                        # Its last tables finish before the next phase (at most a minute).
                        deadline = time.monotonic() + 60
                        while unfinished(counter, stack.key_prefix, ladder.made) and time.monotonic() < deadline:
                            time.sleep(0.5)
            live.stop()
            channel.close()
            sample = random.Random(7).sample(live.made, min(len(live.made), args.turn_sample))
            turns = asyncio.run(commit_times(stack, sample))
            counter.close()
            report(args, phases, turns, ladder_bots)
        finally:
            stack.delete_keys()
    print(f"load average at the end {load_average()}", file=sys.stderr, flush=True)


def _live_versions(client: redis.Redis, prefix: str, table_ids: list[str]) -> int:
    """The live tables' versions summed (each version after the first is one bot action)."""
    total = 0
    for start in range(0, len(table_ids), 500):
        with client.pipeline(transaction=False) as pipe:
            for table_id in table_ids[start : start + 500]:
                pipe.hget(f"{prefix}:{{{table_id}}}:table", "version")
            total += sum(int(version or 0) for version in pipe.execute())
    return total


def report(args: argparse.Namespace, phases: list[Phase], turns: list[tuple[float, float]], bots: list[str]) -> None:
    without = [phase for phase in phases if not phase.ladder]
    with_ = [phase for phase in phases if phase.ladder]
    cap = args.ladder_tables / args.search_processes
    seconds = sum(p.seconds for p in with_)
    search_cpu = sum(p.cpu["bot-worker-search"] for p in with_)
    both_cpu = search_cpu + sum(p.cpu["bot-worker"] for p in with_)
    busy = search_cpu / (args.search_processes * seconds) if seconds else 0.0

    def per_action(group: list[Phase]) -> float:
        return sum(p.cpu["bot-worker"] for p in group) / max(1, sum(p.live_actions for p in group))

    def rate(group: list[Phase]) -> float:
        return sum(p.live_actions for p in group) / max(1e-9, sum(p.seconds for p in group))

    def binned(ladder: bool) -> list[float]:
        return [ms for when, ms in turns if any(p.ladder == ladder and p.start <= when < p.end for p in phases)]

    alone, beside = binned(False), binned(True)
    print(
        f"the ladder's share of the workers: {args.tables} live Borgia tables of 3 random bots kept playing, "
        f"the ladder at {args.ladder_tables} tables ({len(bots)} settings: {', '.join(bots)}); bot-worker "
        f"{args.concurrency} threads, bot-worker-search {args.search_processes} processes (prefork), cap "
        f"{cap:.0%} of the search worker's processes; {args.rounds} rounds of {args.phase_seconds:.0f}s "
        f"without and with the ladder"
    )
    print(
        f"  with the ladder: bot-worker-search {search_cpu:.1f}s CPU, {search_cpu / both_cpu if both_cpu else 0:.1%} "
        f"of the two workers' CPU, its processes {busy:.1%} busy; bot-worker's CPU per live action "
        f"{per_action(without) * 1000:.1f} ms without, {per_action(with_) * 1000:.1f} ms with"
    )
    print(
        f"  live tables' bot turn: without the ladder p50 {percentile(alone, 0.5):.0f} ms, "
        f"p99 {percentile(alone, 0.99):.0f} ms ({len(alone)} turns); with it p50 {percentile(beside, 0.5):.0f} ms, "
        f"p99 {percentile(beside, 0.99):.0f} ms ({len(beside)} turns); live actions/s "
        f"{rate(without):.0f} without, {rate(with_):.0f} with"
    )
    if statistics.mean(
        (p.cpu.get("bot-worker", 0.0) + p.cpu.get("bot-worker-search", 0.0)) / max(p.seconds, 1e-9) for p in phases
    ) > 0.95 * (os.cpu_count() or 1):
        print("  (the workers used every core: the figures weigh a saturated machine)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=500, help="live tables kept playing")
    parser.add_argument("--ladder-tables", type=int, default=2, help="the ladder's tables at once (its cap)")
    parser.add_argument("--concurrency", type=int, default=8, help="bot-worker's threads (its slots)")
    parser.add_argument(
        "--search-processes",
        type=int,
        default=os.cpu_count() or 1,
        help="bot-worker-search's processes (default: one per core, as in the compose file)",
    )
    parser.add_argument(
        "--ladder-bots",
        default=";".join(preset["bot"] for preset in level_presets()),
        help="the settings the ladder rates, ';'-separated (default: the search bot's eight levels)",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--phase-seconds", type=float, default=30.0)
    parser.add_argument("--warmup-seconds", type=float, default=15.0)
    parser.add_argument("--turn-sample", type=int, default=400, help="live tables whose turns are read back")
    run(parser.parse_args())


if __name__ == "__main__":
    main()

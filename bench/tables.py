"""All-bot tables played to the end on a local stack: what a bot action costs.

Creates N all-bot tables of the given games at once (auto-started, random bots), waits
until every one is finished, and measures:

- CPU per bot action of each stack process (gateway, rules services, bot worker with its
  pool's children, Redis when it runs here), from the processes' own CPU times (psutil);
- bot actions per second and the tables' completion time;
- bot turn latency: from the commit of version V to the commit of V + 1, from the table's
  begin on, read from the event times in the logs of 200 finished tables (a seeded
  sample); and apart, each table's wait to begin (from its creation, version 1, to its
  begin by a bot worker, version 2: common/tasks.py), which is no turn;
- Redis bytes of a table (its record, log and idempotency keys) while live and once finished.

It watches progress through Redis (the open and in-progress indexes), not the gateway, so
that the watching costs the measured processes nothing. Bounded in time; 127.0.0.1 only.
"""

import asyncio
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc
import psutil
import redis

from bench.watchers import percentile
from common.tasks import ALL_BOT_BEGUN_AT_VERSION
from gateway.store import KEY_SUFFIXES
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


class CpuMeter:
    """CPU seconds (user + system) of a set of processes and their children, since start."""

    @classmethod
    def with_client(cls, pids: dict[str, int]) -> "CpuMeter":
        """Also this process's own CPU (all its threads, not its children) as "client"."""
        meter = cls(pids)
        meter.client_started = time.process_time()
        meter.client = psutil.Process()
        meter.client_switches = meter._switches(meter.client, children=False)
        return meter

    def __init__(self, pids: dict[str, int]):
        self.processes = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.started = {name: self._cpu(process) for name, process in self.processes.items()}
        self.started_switches = {name: self._switches(process) for name, process in self.processes.items()}

    @staticmethod
    def _switches(process: psutil.Process, children: bool = True) -> tuple[int, int]:
        """(voluntary, involuntary) context switches of every thread of the process (and of
        its children): a wait for a wakeup each, and a preemption each."""
        voluntary = involuntary = 0
        for member in [process, *(process.children(recursive=True) if children else [])]:
            try:
                switches = member.num_ctx_switches()
            except psutil.Error:
                continue
            voluntary += switches.voluntary
            involuntary += switches.involuntary
        return voluntary, involuntary

    def switches(self) -> dict[str, tuple[int, int]]:
        """(voluntary, involuntary) context switches by process since start."""
        out = {}
        for name, process in self.processes.items():
            voluntary, involuntary = self._switches(process)
            out[name] = (voluntary - self.started_switches[name][0], involuntary - self.started_switches[name][1])
        if self.client is not None:
            voluntary, involuntary = self._switches(self.client, children=False)
            out["client"] = (voluntary - self.client_switches[0], involuntary - self.client_switches[1])
        return out

    @staticmethod
    def _cpu(process: psutil.Process) -> float:
        total = 0.0
        for member in [process, *process.children(recursive=True)]:
            try:
                times = member.cpu_times()
            except psutil.Error:  # a child that ended meanwhile
                continue
            total += times.user + times.system
        return total

    client_started: float | None = None
    client: psutil.Process | None = None
    client_switches: tuple[int, int] = (0, 0)

    def used(self) -> dict[str, float]:
        used = {name: self._cpu(process) - self.started[name] for name, process in self.processes.items()}
        if self.client_started is not None:
            used["client"] = time.process_time() - self.client_started
        return used


def stack_pids(stack) -> dict[str, int]:
    """The stack's processes by name, and Redis when it runs on this machine."""
    pids = {process.name: process.popen.pid for process in stack.processes}
    try:
        client = redis.Redis.from_url(stack.redis_url)
        redis_pid = int(client.info("server")["process_id"])
        client.close()
        if psutil.pid_exists(redis_pid):
            pids["redis"] = redis_pid
    except (redis.RedisError, psutil.Error, KeyError):
        pass
    return pids


@dataclass
class TablesFigures:
    tables: int
    finished: int
    seconds: float
    actions: int
    cpu: dict[str, float]  # CPU seconds per process over the run
    turn_ms: list[float] = field(default_factory=list)
    begin_wait_ms: list[float] = field(default_factory=list)
    live_bytes: float = 0.0
    finished_bytes: float = 0.0

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0

    def cpu_ms_per_action(self, name: str | None = None) -> float:
        if not self.actions:
            return 0.0
        used = self.cpu[name] if name else sum(v for k, v in self.cpu.items() if k != "redis")
        return used * 1000 / self.actions

    def turn_percentile(self, fraction: float) -> float:
        return percentile(self.turn_ms, fraction)

    def begin_wait_percentile(self, fraction: float) -> float:
        return percentile(self.begin_wait_ms, fraction)


def unfinished(client: redis.Redis, key_prefix: str, table_ids: list[str]) -> list[str]:
    """The tables not finished yet: in the open index (an all-bot table waiting for a
    worker to begin it) or the in-progress one. One ZMSCORE per index a thousand tables
    (a ZSCORE each, twice a second, loaded the very Redis whose CPU the bench weighs)."""
    left: list[str] = []
    for start in range(0, len(table_ids), 1000):
        chunk = table_ids[start : start + 1000]
        with client.pipeline(transaction=False) as pipe:
            for status in ("open", "in-progress"):
                pipe.zmscore(f"{key_prefix}:index:{status}", chunk)
            waiting, playing = pipe.execute()
        left += [table_id for table_id, a, b in zip(chunk, waiting, playing, strict=True) if (a, b) != (None, None)]
    return left


def _table_bytes(client: redis.Redis, prefix: str, table_ids: list[str]) -> float:
    sizes = []
    for table_id in table_ids:
        total = 0
        for suffix in KEY_SUFFIXES:
            # samples=0: every node of a long log counted, not estimated from five.
            total += client.memory_usage(f"{prefix}:{{{table_id}}}:{suffix}", samples=0) or 0
        sizes.append(total)
    return statistics.mean(sizes) if sizes else 0.0


async def _create(stub, games: list[tuple[str, int]], count: int, bot: str) -> list[str]:
    """``count`` all-bot tables, the games taken in turn, created a few at a time."""
    table_ids: list[str] = []
    semaphore = asyncio.Semaphore(32)

    async def one(index: int) -> None:
        game, players = games[index % len(games)]
        seats = [gw.BotSeat(seat=seat, bot=bot) for seat in range(players)]
        request = gw.CreateTableRequest(game_id=game, player_count=players, bot_seats=seats, auto_start=True)
        async with semaphore:
            created = await stub.CreateTable(request, timeout=60)
        table_ids.append(created.table.table_id)

    await asyncio.gather(*(one(index) for index in range(count)))
    return table_ids


async def _turn_latencies(stub, table_ids: list[str], sample: int) -> tuple[list[float], list[float]]:
    """Milliseconds from one version's commit to the next from the begin on, and each
    table's wait to begin, over a seeded sample of the finished tables (the first made
    would show only the first to begin)."""
    latencies: list[float] = []
    begin_waits: list[float] = []
    for table_id in random.Random(7).sample(table_ids, min(sample, len(table_ids))):
        replay = await stub.GetReplay(gw.GetReplayRequest(table_id=table_id), timeout=60)
        first_time: dict[int, int] = {}
        for step in replay.steps:
            if step.HasField("event"):
                first_time.setdefault(step.event.version, step.event.time.ToNanoseconds())
        for version, stamp in first_time.items():
            if version - 1 in first_time:
                waited = (stamp - first_time[version - 1]) / 1e6
                (latencies if version > ALL_BOT_BEGUN_AT_VERSION else begin_waits).append(waited)
    return latencies, begin_waits


def run_tables(
    stack,
    games: list[tuple[str, int]],
    count: int,
    timeout: float,
    bot: str = "random",
    progress: Callable[[str], None] | None = None,
) -> TablesFigures:
    """Plays ``count`` all-bot tables to the end on ``stack`` (a running deploy.stack.Stack)."""
    client = redis.Redis.from_url(stack.redis_url)
    meter = CpuMeter(stack_pids(stack))

    async def create() -> list[str]:
        async with grpc.aio.insecure_channel(stack.gateway_address) as channel:
            return await _create(gateway_pb2_grpc.GatewayServiceStub(channel), games, count, bot)

    started = time.perf_counter()
    table_ids = asyncio.run(create())
    live_bytes = _table_bytes(client, stack.key_prefix, table_ids[:20])
    deadline = started + timeout
    last_report = 0.0
    while True:
        pending = len(unfinished(client, stack.key_prefix, table_ids))
        now = time.perf_counter()
        if progress is not None and now - last_report >= 5:
            progress(f"{count - pending}/{count} tables finished after {now - started:.0f}s")
            last_report = now
        if pending == 0 or now > deadline:
            break
        time.sleep(0.5)
    elapsed = time.perf_counter() - started
    cpu = meter.used()

    async def read_back() -> tuple[list[gw.Table], tuple[list[float], list[float]]]:
        async with grpc.aio.insecure_channel(stack.gateway_address) as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            tables = []
            for table_id in table_ids:
                tables.append((await stub.GetTable(gw.GetTableRequest(table_id=table_id), timeout=60)).table)
            finished = [table.table_id for table in tables if table.status == gw.TABLE_STATUS_FINISHED]
            return tables, await _turn_latencies(stub, finished, 200)

    tables, (turns, begin_waits) = asyncio.run(read_back())
    finished = [table for table in tables if table.status == gw.TABLE_STATUS_FINISHED]
    actions = sum(max(0, table.version - ALL_BOT_BEGUN_AT_VERSION) for table in tables)
    finished_bytes = _table_bytes(client, stack.key_prefix, [table.table_id for table in finished[:20]])
    client.close()
    return TablesFigures(
        tables=count,
        finished=len(finished),
        seconds=elapsed,
        actions=actions,
        cpu=cpu,
        turn_ms=turns,
        begin_wait_ms=begin_waits,
        live_bytes=live_bytes,
        finished_bytes=finished_bytes,
    )


def print_progress(text: str) -> None:
    print(f"    ... {text}", file=sys.stderr, flush=True)

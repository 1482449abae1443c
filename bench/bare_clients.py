"""The bench's side of the references of ``bench/bare.py``: each of its servers started as a
process of its own (``BarePipeline``: the rules and gateway servers; ``BareStreams``: the
streams server), the clients that time SubmitAction through the pipeline (``run_clients``),
and the streams read and timed as tavola's spectators' are (``bench/readers.py``)."""

import asyncio
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import redis.asyncio as redis_async

from bench.bare import ACTION_BYTES, RECORD_BYTES, Commands, _identity
from bench.gateway import Figures
from bench.readers import RAW, Readers, ReadFigures
from bench.tables import CpuMeter
from deploy.processes import terminate


def _spawn(workdir: Path, name: str, *args: str) -> tuple[subprocess.Popen, str]:
    """A reference server as a process of its own, and its address."""
    port_file = workdir / f"bare-{name}.port"
    port_file.unlink(missing_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.bare", name, str(port_file), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # A session of its own, as deploy/stack.py starts tavola's servers: with the kernel's
        # autogroup scheduling, CPU is shared between sessions first, so a server in the
        # bench's session would share one session's CPU with the bench's clients.
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while not port_file.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"the bare {name} did not start")
        time.sleep(0.05)
    return process, f"127.0.0.1:{port_file.read_text().strip()}"


@dataclass
class StreamFigures:
    streams: int
    events: int  # delivered, over every stream
    seconds: float
    p50_ms: float
    p99_ms: float
    reader_cpu_seconds: float = 0.0  # the reading processes', opening the streams included
    # (stream index, key, event number in its message, send stamp ns, arrival ns) of each delivery
    arrivals: list[tuple[int, str, int, int, int]] = field(default_factory=list, repr=False)


def _stream_figures(streams: int, read: ReadFigures, elapsed: float) -> StreamFigures:
    """The figures of streams whose events carry their send stamp (bench/readers.py)."""
    latencies = [(arrived - stamp) / 1e6 for _, _, _, stamp, arrived in read.arrivals]
    ordered = sorted(latencies) or [0.0]
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return StreamFigures(
        streams, len(latencies), elapsed, statistics.median(ordered), p99, read.cpu_seconds, read.arrivals
    )


@dataclass
class BareStreams:
    """The streams reference server, a process of its own like a gateway."""

    workdir: Path
    process: subprocess.Popen | None = None
    address: str = ""

    def __enter__(self) -> "BareStreams":
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.process, self.address = _spawn(self.workdir, "streams")
        return self

    def __exit__(self, *exc) -> None:
        if self.process is not None:
            terminate(self.process)

    async def open(self, tables: int, per_table: int, readers: int = 4, channels: int = 10) -> None:
        """``tables`` x ``per_table`` streams, read by ``readers`` processes as tavola's
        spectators are, each subscribed before this returns."""
        self.streams = tables * per_table
        keys = [str(index % tables) for index in range(self.streams)]
        self.reading = Readers(self.address, RAW, keys, readers, channels, "/bare.Streams/Watch")
        await self.reading.subscribed()
        self.channel = grpc.aio.insecure_channel(self.address)
        self.publish = self.channel.unary_unary(
            "/bare.Streams/Publish", request_serializer=_identity, response_deserializer=_identity
        )
        self.seconds = 0.0

    async def play(self, per_second: float, seconds: float, commands: "Commands | None" = None) -> None:
        """One slice: ``per_second`` events a second over all tables for ``seconds``, made
        as ``commands`` says (one event a command by default)."""
        started = time.perf_counter()
        spec = commands.encode() if commands is not None else ""
        await self.publish(f"{per_second},{seconds},1;{spec}".encode(), timeout=seconds + 60)
        self.seconds += time.perf_counter() - started

    async def close(self) -> "StreamFigures":
        """Ends every stream: the delivery latency from each event's send stamp to its arrival."""
        try:
            await self.publish(b"1,0", timeout=60)
            read = await self.reading.finish()
        finally:
            self.reading.close()
            await self.channel.close()
        return _stream_figures(self.streams, read, self.seconds)

    async def run(
        self,
        tables: int,
        per_table: int,
        per_second: float,
        seconds: float,
        channels: int = 10,
        readers: int = 4,
        commands: "Commands | None" = None,
    ) -> "StreamFigures":
        """``tables`` x ``per_table`` streams, ``per_second`` events a second over all tables
        for ``seconds`` (one slice), made as ``commands`` says."""
        await self.open(tables, per_table, readers, channels)
        await self.play(per_second, seconds, commands)
        return await self.close()


@dataclass
class BarePipeline:
    """The two reference servers as processes of their own, like a rules service and a gateway."""

    redis_url: str
    prefix: str
    workdir: Path
    processes: list[subprocess.Popen] | None = None
    address: str = ""

    def _spawn(self, name: str, *args: str) -> tuple[subprocess.Popen, str]:
        return _spawn(self.workdir, name, *args)

    def __enter__(self) -> "BarePipeline":
        self.workdir.mkdir(parents=True, exist_ok=True)
        rules, rules_address = self._spawn("rules")
        gateway, self.address = self._spawn("gateway", rules_address, self.redis_url, self.prefix)
        self.processes = [rules, gateway]
        return self

    def __exit__(self, *exc) -> None:
        terminate(*(self.processes or []))

    @property
    def pids(self) -> dict[str, int]:
        return {name: process.pid for name, process in zip(("rules", "gateway"), self.processes or [], strict=True)}

    async def open_watch(self, tables: int, per_table: int, readers: int = 4, channels: int = 10) -> "PipelineWatch":
        """``tables`` x ``per_table`` streams of the pipeline's tables (read by ``readers``
        processes, as tavola's spectators are), each subscribed before this returns."""
        watch = PipelineWatch(self, tables, per_table)
        await watch.open(readers, channels)
        return watch

    async def watch(
        self,
        tables: int,
        per_table: int,
        per_second: float,
        seconds: float,
        channels: int = 10,
        readers: int = 4,
        commands: Commands | None = None,
    ) -> "StreamFigures":
        """The streams of ``open_watch`` while a client makes ``per_second`` events a second
        in all for ``seconds`` (one slice): the delivery latency from each submit's start to
        each arrival."""
        watch = await self.open_watch(tables, per_table, readers, channels)
        await watch.play(per_second, seconds, commands)
        return await watch.close()


@dataclass
class PipelineWatch:
    """The bare pipeline's watched tables, played in slices: in each, a paced client makes
    each table's events, a view and a submit each (the tables in turn), stamped when the
    submit begins; the commit script PUBLISHes them and the gateway's one subscriber sends
    them on to the table's streams."""

    pipeline: BarePipeline
    tables: int
    per_table: int
    seconds: float = 0.0

    async def open(self, readers: int, channels: int) -> None:
        pipeline = self.pipeline
        self.setup = redis_async.Redis.from_url(pipeline.redis_url)
        self.names = [f"w{index:015d}" for index in range(self.tables)]
        for name in self.names:
            await self.setup.hset(
                f"{pipeline.prefix}:{name}", mapping={"record": os.urandom(RECORD_BYTES), "version": 1}
            )
        self.player = grpc.aio.insecure_channel(pipeline.address)
        keys = [self.names[index % self.tables] for index in range(self.tables * self.per_table)]
        self.reading = Readers(pipeline.address, RAW, keys, readers, channels, "/bare.Gateway/Watch")
        await self.reading.subscribed()

    async def play(self, per_second: float, seconds: float, commands: "Commands | None" = None) -> None:
        """One slice: ``per_second`` events a second over all tables for ``seconds``, each
        table paced on its own events, its commands as ``commands`` says (one event each by
        default)."""
        commands = commands or Commands()
        view = self.player.unary_unary(
            "/bare.Gateway/View", request_serializer=_identity, response_deserializer=_identity
        )
        make = self.player.unary_unary(
            "/bare.Gateway/Make", request_serializer=_identity, response_deserializer=_identity
        )
        began = time.perf_counter()
        stop = began + seconds
        per_table_rate = per_second / self.tables
        shape = commands.event_bytes.to_bytes(2, "big") + bytes((commands.batched,))

        async def play(number: int, name: str) -> None:
            padding = os.urandom(ACTION_BYTES - 12)
            counts, index = commands.of(number), 0
            offset = number / per_second
            made = 0
            while (due := began + offset + made / per_table_rate) < stop:
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                events = counts[index % len(counts)]
                await view(name.encode())
                stamp = time.time_ns().to_bytes(8, "big")
                await make(name.encode() + stamp + bytes((events,)) + shape + padding)
                made += events
                index += 1

        await asyncio.gather(*(play(number, name) for number, name in enumerate(self.names)))
        self.seconds += time.perf_counter() - began

    async def close(self) -> "StreamFigures":
        prefix = self.pipeline.prefix
        try:
            await self.player.unary_unary(
                "/bare.Gateway/End", request_serializer=_identity, response_deserializer=_identity
            )(b"")
            read = await self.reading.finish()
        finally:
            self.reading.close()
            await self.player.close()
            for name in self.names:
                await self.setup.delete(f"{prefix}:{name}", f"{prefix}:{name}:log")
            await self.setup.aclose()
        return _stream_figures(self.tables * self.per_table, read, self.seconds)


async def run_clients(
    address: str,
    redis_url: str,
    prefix: str,
    clients: int,
    seconds: float,
    limit: int,
    pids: dict[str, int] | None = None,
):
    """Each client owns a table; view then submit, as fast as answers come. Only Submit is
    timed; ``pids``: processes whose CPU to measure while timed (and this one's, "client")."""
    setup = redis_async.Redis.from_url(redis_url)
    tables = [f"t{index:015d}" for index in range(clients)]
    for table in tables:
        await setup.hset(f"{prefix}:{table}", mapping={"record": os.urandom(RECORD_BYTES), "version": 1})
    latencies: list[float] = []
    async with grpc.aio.insecure_channel(address) as channel:
        view = channel.unary_unary("/bare.Gateway/View", request_serializer=_identity, response_deserializer=_identity)
        submit = channel.unary_unary(
            "/bare.Gateway/Submit", request_serializer=_identity, response_deserializer=_identity
        )

        async def client(table: str, deadline: float, count_limit: int, into: list[float]) -> None:
            action = table.encode() + os.urandom(ACTION_BYTES)
            count = 0
            while time.perf_counter() < deadline and count < count_limit:
                await view(table.encode())
                started = time.perf_counter()
                await submit(action)
                into.append(time.perf_counter() - started)
                count += 1

        await client(tables[0], time.perf_counter() + 0.5, 50, [])  # warm up
        meter = CpuMeter.with_client(pids or {})
        started = time.perf_counter()
        deadline = started + seconds
        await asyncio.gather(*(client(table, deadline, limit, latencies) for table in tables))
        elapsed = time.perf_counter() - started
        cpu, switches = meter.used(), meter.switches()
    for table in tables:
        await setup.delete(f"{prefix}:{table}", f"{prefix}:{table}:log")
    await setup.aclose()
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return Figures(
        clients, len(latencies), elapsed, statistics.median(ordered) * 1000, p99 * 1000, ordered, cpu, switches
    )

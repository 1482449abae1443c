"""The reference pipeline: the hops of a SubmitAction with no tavola code in them.

A client calls a minimal grpc.aio "gateway", which loads a record from Redis, calls a
minimal "rules" gRPC server with it (which hands back the bytes it was sent), then commits
with a Lua compare-and-set on the version that writes the record, appends one log entry
and PUBLISHes. Each client first asks for a "view" (a Redis load and a rules call), as the
tavola bench asks GetView before each SubmitAction. Messages are raw bytes of the sizes
tavola sends (a Borgia record is about 1.5 KB). Run ``python -m bench.bare`` for a demo.

The streams reference (``BareStreams``) is a minimal grpc.aio server of event streams:
each stream of a table gets every event sent to that table, stamped with its send time,
at the rate asked for, as spectators of tavola's tables get theirs. The pipeline's
"gateway" streams too (``BarePipeline.watch``): each of its tables' commands is made by a
paced client's view and submit, stamped when the submit begins (as tavola stamps an event
when its command begins), its events PUBLISHed by the commit script, and sent on by the
gateway's one subscriber to the table's streams: the same hops as a spectator of a tavola
table.

Like for like with tavola's watched tables, both streaming references can be told the
commands to make (``Commands``): how many events each command of each table makes (a
Mortadella action commits one to eight log entries, 1.8 on average), their size, and
whether a command's events go to a stream in one message (tavola's batched streams) or
one message each. They pace each table on its events as tavola's pacing client does, so
the references send as many messages, in the same bursts, of the same bytes.
A raw stream message is [its send stamp, 8 bytes][the events it holds, 1 byte][padding].

    python -m bench.bare rules <port file>
    python -m bench.bare gateway <port file> <rules address> <redis url> <key prefix>
    python -m bench.bare streams <port file>
"""

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import grpc
import redis.asyncio as redis_async

from bench.readers import RAW, Readers, ReadFigures
from bench.tables import CpuMeter
from deploy.processes import terminate

RECORD_BYTES = 1500
ACTION_BYTES = 40
EVENT_BYTES = 200  # about a TableEvent of a Borgia table


@dataclass
class Commands:
    """What a slice of the streaming references makes, as tavola's watched tables did:
    each table's commands, as the events each made (in turn, again from the first when a
    table has made them all), ``event_bytes`` an event, and whether a command's events go
    to a stream in one message. Empty ``counts``: one event a command."""

    counts: list[list[int]] = field(default_factory=list)
    event_bytes: int = EVENT_BYTES
    batched: bool = True

    def of(self, table: int) -> list[int]:
        return (self.counts[table] if table < len(self.counts) else []) or [1]

    def encode(self) -> str:
        return json.dumps({"counts": self.counts, "event_bytes": self.event_bytes, "batched": self.batched})

    @classmethod
    def decode(cls, text: str) -> "Commands":
        return cls(**json.loads(text)) if text else cls()


def _message(stamp: bytes, events: int, event_bytes: int) -> bytes:
    """A stream message of ``events`` events of ``event_bytes`` each (the header counted in)."""
    return stamp + bytes((events,)) + bytes(max(0, events * event_bytes - 9))


def _messages(data: bytes, batched: bool) -> list[bytes]:
    """A command's published events as its stream messages: one, or one an event."""
    events = data[8]
    if batched or events == 1:
        return [data]
    return [_message(data[:8], 1, len(data) // events)] * events


_CAS = """
local current = redis.call('HGET', KEYS[1], 'version')
if current ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'version', ARGV[3])
redis.call('XADD', KEYS[2], '*', 'spec', ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[4])
return 1
"""

# A command of a watched table: as _CAS, with a log entry for each of its events
# (ARGV[6] of them, ARGV[7] each) and one PUBLISH of them all.
_CAS_EVENTS = """
local current = redis.call('HGET', KEYS[1], 'version')
if current ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'version', ARGV[3])
for _ = 1, tonumber(ARGV[6]) do
  redis.call('XADD', KEYS[2], '*', 'spec', ARGV[7])
end
redis.call('PUBLISH', ARGV[5], ARGV[4])
return 1
"""


def _identity(raw: bytes) -> bytes:
    return raw


def _write_port(path: str, port: int) -> None:
    Path(f"{path}.tmp").write_text(str(port))
    os.replace(f"{path}.tmp", path)


async def _serve_rules(port_file: str) -> None:
    async def apply(raw: bytes, context) -> bytes:
        return raw  # the "next state": the same size as the one sent

    server = grpc.aio.server()
    handler = grpc.unary_unary_rpc_method_handler(apply, request_deserializer=_identity, response_serializer=_identity)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bare.Rules", {"Apply": handler}),))
    _write_port(port_file, server.add_insecure_port("127.0.0.1:0"))
    await server.start()
    await server.wait_for_termination()


async def _serve_gateway(port_file: str, rules_address: str, redis_url: str, prefix: str) -> None:
    client = redis_async.Redis.from_url(redis_url)
    cas = client.register_script(_CAS)
    cas_events = client.register_script(_CAS_EVENTS)
    channel = grpc.aio.insecure_channel(rules_address)
    apply = channel.unary_unary("/bare.Rules/Apply", request_serializer=_identity, response_deserializer=_identity)

    async def view(raw: bytes, context) -> bytes:
        record: bytes = await client.hget(f"{prefix}:{raw.decode()}", "record")  # type: ignore[assignment]
        return await apply(record)

    async def submit(raw: bytes, context) -> bytes:
        table = raw[:16].decode()
        key = f"{prefix}:{table}"
        record, version = cast(list[bytes], await client.hmget(key, ["record", "version"]))
        state = await apply(record + raw[16:])
        new_version = int(version) + 1
        event = raw[16:24] + state[: EVENT_BYTES - 8]  # the client's stamp first
        done = await cas(keys=[key, f"{key}:log"], args=[version, state[:RECORD_BYTES], new_version, event, key])
        return b"ok" if done else b"conflict"

    async def make(raw: bytes, context) -> bytes:
        """A watched table's command: [table, 16][stamp, 8][events, 1][event bytes, 2][batched, 1]."""
        table = raw[:16].decode()
        key = f"{prefix}:{table}"
        events, event_bytes = raw[24], int.from_bytes(raw[25:27], "big")
        batched[0] = bool(raw[27])
        record, version = cast(list[bytes], await client.hmget(key, ["record", "version"]))
        state = await apply(record + raw[16:])
        published = _message(raw[16:24], events, event_bytes)
        entry = state[:event_bytes]
        args: list[bytes | int | str] = [version, state[:RECORD_BYTES], int(version) + 1, published, key, events, entry]
        done = await cas_events(keys=[key, f"{key}:log"], args=args)
        return b"ok" if done else b"conflict"

    # Streams: one subscriber for the process (to every table's channel, from the first
    # stream on), each table's events to its streams; the end comes through Redis too,
    # after every event published before it.
    pubsub = client.pubsub(ignore_subscribe_messages=True)
    streams: dict[bytes, list[asyncio.Queue]] = {}
    batched = [True]  # as the last command said: its events to a stream in one message
    subscribed = asyncio.Event()
    listening: list[asyncio.Task] = []
    end_channel = f"{prefix}:~end".encode()

    async def listen() -> None:
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            if message is None or message.get("type") != "pmessage":
                continue
            if message["channel"] == end_channel:
                for queues in streams.values():
                    for queue in queues:
                        queue.put_nowait(None)
                streams.clear()
                continue
            queues = streams.get(message["channel"], [])
            for data in _messages(message["data"], batched[0]) if queues else ():
                for queue in queues:
                    queue.put_nowait(data)

    async def watch(raw: bytes, context):
        if not listening:
            listening.append(asyncio.create_task(asyncio.sleep(0)))  # taken: one subscribe
            await pubsub.psubscribe(f"{prefix}:*")
            listening.append(asyncio.create_task(listen()))
            subscribed.set()
        await subscribed.wait()
        queue: asyncio.Queue = asyncio.Queue()
        streams.setdefault(f"{prefix}:{raw.decode()}".encode(), []).append(queue)
        yield b"ready"
        while (item := await queue.get()) is not None:
            yield item

    async def end(raw: bytes, context) -> bytes:
        await client.publish(end_channel, b"")
        return b"done"

    server = grpc.aio.server()
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(method, request_deserializer=_identity, response_serializer=_identity)
        for name, method in (("View", view), ("Submit", submit), ("Make", make), ("End", end))
    }
    handlers["Watch"] = grpc.unary_stream_rpc_method_handler(
        watch, request_deserializer=_identity, response_serializer=_identity
    )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bare.Gateway", handlers),))
    _write_port(port_file, server.add_insecure_port("127.0.0.1:0"))
    await server.start()
    await server.wait_for_termination()


async def _serve_streams(port_file: str) -> None:
    subscribers: dict[bytes, list[asyncio.Queue]] = {}

    async def watch(raw: bytes, context):
        queue: asyncio.Queue = asyncio.Queue()
        subscribers.setdefault(raw, []).append(queue)
        yield b"ready"
        while (item := await queue.get()) is not None:
            yield item

    async def publish(raw: bytes, context) -> bytes:
        """``per_second,seconds[,more[,commands]]``: that many events a second in all, each
        table paced on its own events (offset evenly), its commands' events as ``commands``
        (``Commands``, JSON) says; then every stream ends, unless ``more`` says another
        slice follows."""
        head, _, spec = raw.decode().partition(";")
        per_second, seconds, *more = (float(part) for part in head.split(","))
        commands = Commands.decode(spec)
        tables = sorted(subscribers, key=int)
        began = time.perf_counter()
        stop = began + seconds
        per_table_rate = per_second / max(1, len(tables))

        async def play(number: int, table: bytes) -> None:
            counts, made, index = commands.of(number), 0, 0
            offset = number / per_second
            while (due := began + offset + made / per_table_rate) < stop:
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                events = counts[index % len(counts)]
                data = _message(time.time_ns().to_bytes(8, "big"), events, commands.event_bytes)
                for message in _messages(data, commands.batched):
                    for queue in subscribers[table]:
                        queue.put_nowait(message)
                made += events
                index += 1

        if per_second and seconds:
            await asyncio.gather(*(play(number, table) for number, table in enumerate(tables)))
        if more and more[0]:
            return b"done"
        for queues in subscribers.values():
            for queue in queues:
                queue.put_nowait(None)
        subscribers.clear()
        return b"done"

    server = grpc.aio.server()
    handlers = {
        "Watch": grpc.unary_stream_rpc_method_handler(
            watch, request_deserializer=_identity, response_serializer=_identity
        ),
        "Publish": grpc.unary_unary_rpc_method_handler(
            publish, request_deserializer=_identity, response_serializer=_identity
        ),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bare.Streams", handlers),))
    _write_port(port_file, server.add_insecure_port("127.0.0.1:0"))
    await server.start()
    await server.wait_for_termination()


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


@dataclass
class BareFigures:
    clients: int
    submits: int
    seconds: float
    p50_ms: float
    p99_ms: float
    latencies: list[float] = field(default_factory=list)  # seconds, each submit's
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds by process, while timed
    # (voluntary, involuntary) context switches by process, while timed
    switches: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def per_second(self) -> float:
        return self.submits / self.seconds


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
    return BareFigures(
        clients, len(latencies), elapsed, statistics.median(ordered) * 1000, p99 * 1000, ordered, cpu, switches
    )


def main() -> None:
    command, port_file, *rest = sys.argv[1:]
    try:  # the loop tavola's servers run on, so that only tavola's own code differs
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:
        pass
    if command == "rules":
        asyncio.run(_serve_rules(port_file))
    elif command == "gateway":
        asyncio.run(_serve_gateway(port_file, *rest))
    elif command == "streams":
        asyncio.run(_serve_streams(port_file))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()

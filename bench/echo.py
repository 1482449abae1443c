"""The floor of a bot action: a bare gRPC echo and a bare commit script.

A bot action needs at least two gRPC calls (the bot's SubmitAction to the gateway, the
gateway's call to the rules service) and one commit to Redis. This module measures the
floor those set on this machine, in the same run as tavola's figures:

- a bare grpc.aio echo server, a process of its own (uvloop when installed, as tavola's
  servers), whose one method answers a request with as many bytes as the request asks
  for; its client (this process) calls it from ``concurrency`` tasks at once, in turn
  with a view's sizes (GetView's request and response) and a submit's (SubmitAction's),
  as fast as answers come: echo calls a second (the gRPC-bound ceiling of bot actions is
  half that, two calls an action) and the CPU of a call, client and server together;
- the bare commit script of ``bench/bare.py`` (a Lua compare-and-set on the version that
  writes a 1.5 KB record, appends one log entry and PUBLISHes), from as many tasks: the
  CPU of a commit, its caller's and Redis's.

The floor of a bot action's CPU is then two echo calls (client and server) and one commit
script's caller, with Redis apart as tavola's sum leaves it apart.

    python -m bench.echo serve <port file>
    python -m bench.echo            # a demo: start a server, measure, print; then the same
                                    # echo as messages on long-lived streams, and calls again
"""

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
import redis.asyncio as redis_async

from bench.bare import _CAS, RECORD_BYTES, _identity, _write_port
from bench.tables import CpuMeter
from common.defaults import REDIS_URL
from deploy.processes import terminate

# The sizes of a view and a submit when no tavola table is at hand (a Borgia 3-player
# table's GetView and SubmitAction, as the bench probes them: request, response).
VIEW_SIZES = (18, 5508)
SUBMIT_SIZES = (71, 328)


@dataclass(frozen=True)
class Sizes:
    """Bytes of a view's and a submit's request and response."""

    view: tuple[int, int] = VIEW_SIZES
    submit: tuple[int, int] = SUBMIT_SIZES


@dataclass
class EchoFigures:
    calls: int
    seconds: float
    cpu: dict[str, float]  # CPU seconds by process ("client", "server"), while timed

    @property
    def per_second(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0

    @property
    def cpu_ms_per_call(self) -> float:
        return sum(self.cpu.values()) * 1000 / max(1, self.calls)

    @property
    def ceiling(self) -> float:
        """Bot actions a second if gRPC alone bound them: two echo calls an action."""
        return self.per_second / 2


@dataclass
class CommitFigures:
    commits: int
    seconds: float
    cpu: dict[str, float]  # "client" (the caller) and "redis" when it runs here

    def cpu_ms(self, name: str) -> float:
        return self.cpu.get(name, 0.0) * 1000 / max(1, self.commits)


@dataclass
class Floor:
    """The floor of a bot action, and the ceiling of bot actions a second, of one measure."""

    echo: EchoFigures
    commit: CommitFigures

    @property
    def cpu_ms(self) -> float:
        """Two echo calls (client and server) and one commit script's caller: Redis apart."""
        return 2 * self.echo.cpu_ms_per_call + self.commit.cpu_ms("client")

    @property
    def redis_cpu_ms(self) -> float:
        return self.commit.cpu_ms("redis")

    @property
    def ceiling(self) -> float:
        return self.echo.ceiling


def combine_floors(floors: list[Floor]) -> Floor:
    """One floor of several measures (before and after tavola's figure): calls over time,
    CPU summed."""
    cpu: dict[str, float] = {}
    commit_cpu: dict[str, float] = {}
    for floor in floors:
        for name, used in floor.echo.cpu.items():
            cpu[name] = cpu.get(name, 0.0) + used
        for name, used in floor.commit.cpu.items():
            commit_cpu[name] = commit_cpu.get(name, 0.0) + used
    echo = EchoFigures(sum(f.echo.calls for f in floors), sum(f.echo.seconds for f in floors), cpu)
    commit = CommitFigures(sum(f.commit.commits for f in floors), sum(f.commit.seconds for f in floors), commit_cpu)
    return Floor(echo, commit)


async def _serve(port_file: str) -> None:
    async def call(raw: bytes, context) -> bytes:
        return bytes(int.from_bytes(raw[:4], "big"))  # as many bytes as asked for

    async def stream(_requests, context) -> None:
        while (raw := await context.read()) is not grpc.aio.EOF:
            await context.write(bytes(int.from_bytes(raw[:4], "big")))

    server = grpc.aio.server()
    handler = grpc.unary_unary_rpc_method_handler(call, request_deserializer=_identity, response_serializer=_identity)
    streamed = grpc.stream_stream_rpc_method_handler(
        stream, request_deserializer=_identity, response_serializer=_identity
    )
    methods = {"Call": handler, "Stream": streamed}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bare.Echo", methods),))
    _write_port(port_file, server.add_insecure_port("127.0.0.1:0"))
    await server.start()
    await server.wait_for_termination()


def _request(sizes: tuple[int, int]) -> bytes:
    asked, answered = sizes
    return answered.to_bytes(4, "big") + os.urandom(max(0, asked - 4))


async def echo_calls(
    address: str, server_pid: int, seconds: float, concurrency: int = 16, sizes: Sizes = Sizes()
) -> EchoFigures:
    """Echo calls from ``concurrency`` tasks for ``seconds``, a view's and a submit's sizes in turn."""
    requests = (_request(sizes.view), _request(sizes.submit))
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.unary_unary("/bare.Echo/Call", request_serializer=_identity, response_deserializer=_identity)
        for _ in range(50):  # warm up
            await call(requests[0])
        counts = [0] * concurrency

        async def caller(index: int, deadline: float) -> None:
            made = 0
            while time.perf_counter() < deadline:
                await call(requests[made % 2])
                made += 1
            counts[index] = made

        meter = CpuMeter.with_client({"server": server_pid})
        started = time.perf_counter()
        await asyncio.gather(*(caller(index, started + seconds) for index in range(concurrency)))
        elapsed = time.perf_counter() - started
        cpu = meter.used()
    return EchoFigures(sum(counts), elapsed, cpu)


async def echo_messages(
    address: str, server_pid: int, seconds: float, concurrency: int = 16, sizes: Sizes = Sizes()
) -> EchoFigures:
    """As ``echo_calls``, each task a message at a time on a long-lived stream of its own
    (what the gateway's ApplyActions streams to the rules services cost, beside calls)."""
    requests = (_request(sizes.view), _request(sizes.submit))
    async with grpc.aio.insecure_channel(address) as channel:
        method = channel.stream_stream(
            "/bare.Echo/Stream", request_serializer=_identity, response_deserializer=_identity
        )
        streams = [method() for _ in range(concurrency)]
        counts = [0] * concurrency

        async def sender(index: int, deadline: float) -> None:
            stream, made = streams[index], 0
            while time.perf_counter() < deadline:
                await stream.write(requests[made % 2])
                await stream.read()
                made += 1
            counts[index] = made

        await asyncio.gather(*(sender(index, time.perf_counter() + 0.2) for index in range(concurrency)))  # warm up
        meter = CpuMeter.with_client({"server": server_pid})
        started = time.perf_counter()
        await asyncio.gather(*(sender(index, started + seconds) for index in range(concurrency)))
        elapsed = time.perf_counter() - started
        cpu = meter.used()
        for stream in streams:
            await stream.done_writing()
    return EchoFigures(sum(counts), elapsed, cpu)


async def commit_scripts(
    redis_url: str, prefix: str, seconds: float, redis_pid: int | None, concurrency: int = 16
) -> CommitFigures:
    """The bare commit script from ``concurrency`` tasks for ``seconds``, each on a table of its own."""
    client = redis_async.Redis.from_url(redis_url)
    cas = client.register_script(_CAS)
    record = os.urandom(RECORD_BYTES)
    event = os.urandom(200)
    keys = [f"{prefix}:floor{index:04d}" for index in range(concurrency)]
    try:
        for key in keys:
            await client.hset(key, mapping={"record": record, "version": 0})
        counts = [0] * concurrency

        async def committer(index: int, deadline: float) -> None:
            key, version = keys[index], 0
            while time.perf_counter() < deadline:
                await cas(keys=[key, f"{key}:log"], args=[version, record, version + 1, event, key])
                version += 1
                if version % 100 == 0:  # keep the log short: its length is not the floor's
                    await client.xtrim(f"{key}:log", maxlen=10)
            counts[index] = version

        await committer(0, time.perf_counter() + 0.2)  # warm up (and the script loaded)
        await client.hset(keys[0], "version", 0)
        meter = CpuMeter.with_client({"redis": redis_pid} if redis_pid else {})
        started = time.perf_counter()
        await asyncio.gather(*(committer(index, started + seconds) for index in range(concurrency)))
        elapsed = time.perf_counter() - started
        cpu = meter.used()
        return CommitFigures(sum(counts), elapsed, cpu)
    finally:
        await client.delete(*keys, *(f"{key}:log" for key in keys))
        await client.aclose()


@dataclass
class EchoServer:
    """The bare echo server, a process of its own like a gateway."""

    workdir: Path
    process: subprocess.Popen | None = None
    address: str = ""

    def __enter__(self) -> "EchoServer":
        self.workdir.mkdir(parents=True, exist_ok=True)
        port_file = self.workdir / "bare-echo.port"
        port_file.unlink(missing_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.echo", "serve", str(port_file)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # as tavola's servers and the bare ones (autogroup scheduling)
        )
        deadline = time.monotonic() + 30
        while not port_file.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                raise RuntimeError("the echo server did not start")
            time.sleep(0.05)
        self.address = f"127.0.0.1:{port_file.read_text().strip()}"
        return self

    def __exit__(self, *exc) -> None:
        if self.process is not None:
            terminate(self.process)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def floor(
        self,
        redis_url: str,
        prefix: str,
        redis_pid: int | None,
        seconds: float,
        sizes: Sizes = Sizes(),
        concurrency: int = 16,
    ) -> Floor:
        """One measure of the floor: echo calls for ``seconds``, then commit scripts for half as long."""
        echo = asyncio.run(echo_calls(self.address, self.pid, seconds, concurrency, sizes))
        commit = asyncio.run(commit_scripts(redis_url, prefix, seconds / 2, redis_pid, concurrency))
        return Floor(echo, commit)


def main() -> None:
    if sys.argv[1:2] == ["serve"]:
        try:  # the loop tavola's servers run on
            import uvloop

            asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
        except ImportError:
            pass
        asyncio.run(_serve(sys.argv[2]))
        return
    redis_url = os.environ.get("REDIS_URL", REDIS_URL)
    with tempfile.TemporaryDirectory() as workdir, EchoServer(Path(workdir)) as server:
        floor = server.floor(redis_url, f"tavola-echo-demo-{os.getpid()}", None, 3.0)
        # Then the same echo as messages on long-lived streams, and calls again: in turn.
        streamed = asyncio.run(echo_messages(server.address, server.pid, 3.0))
        again = asyncio.run(echo_calls(server.address, server.pid, 3.0))
    print(
        f"echo: {floor.echo.per_second:,.0f} calls/s (ceiling {floor.ceiling:,.0f} bot actions/s), "
        f"{floor.echo.cpu_ms_per_call:.3f} ms CPU a call; commit script {floor.commit.cpu_ms('client'):.3f} ms "
        f"(caller); floor of a bot action {floor.cpu_ms:.3f} ms"
    )
    for name, figures in (("a message on a stream", streamed), ("a call, again", again)):
        print(
            f"echo, {name}: {figures.per_second:,.0f}/s, {figures.cpu_ms_per_call:.3f} ms CPU "
            f"(client {figures.cpu['client'] * 1000 / max(1, figures.calls):.3f}, "
            f"server {figures.cpu['server'] * 1000 / max(1, figures.calls):.3f})"
        )


if __name__ == "__main__":
    main()

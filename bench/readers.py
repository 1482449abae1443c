"""Stream readers in processes of their own, for the watchers part and both its references.

One Python process reading a thousand streams holds up each arrival behind the others it
is decoding (a table's fifty streams get an event at once), and the pacing client shares
that process and its loop. The watchers part and its references therefore read their
streams alike: spread over ``readers`` processes (``--watch-readers``), each with its own
channels and event loop, every stream's arrival times taken where it is read. The pacing
client, alone in the bench's process, only plays.

Every side's messages are stamped as they arrive, before anything is decoded: tavola's
streams are read as bytes, as the references' are, and decoded after the run (once the
run is over, as they come). Decoded on arrival, each message's stamp waited for the
decoding of those that came before it to its process (a table's event comes to its fifty
streams at once), which the references' raw bytes do not need.

A reader is told what to open (its share of the streams, by index and key), answers
``subscribed`` once each stream has its first message (a spectator's backlog, or the
bare servers' ``ready``), then reads until told to finish, and answers its figures:
each stream's count and error, and each arrival as (stream index, key, seq, send stamp
in ns, arrival in ns). Raw streams (the bare servers') carry the stamp in their first 8
bytes and the events a message holds in the next (bench/bare.py), no seq (each event of
a message is numbered from 1 instead), and end by themselves; tavola's spectator streams are cancelled
once every stream has the run's events of its table (or 30 s after the run).
"""

import asyncio
import contextlib
import multiprocessing
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import cast

import grpc

SPECTATE = "spectate"  # tavola's SpectateTable, a table id a stream, one event a message
SPECTATE_BATCHED = "spectate-batched"  # ... with batched: a command's events in one message
RAW = "raw"  # a bare server's stream method of raw bytes

# How long a reader waits for the run's last events before it cancels its streams.
DRAIN_SECONDS = 30.0


@dataclass
class ReadFigures:
    counts: dict[int, int] = field(default_factory=dict)  # stream index -> events of the run
    errors: dict[int, str] = field(default_factory=dict)  # stream index -> status code name
    # (stream index, key, seq, send stamp ns, arrival ns) of every event of the run
    arrivals: list[tuple[int, str, int, int, int]] = field(default_factory=list)
    cpu_seconds: float = 0.0  # the readers' own, from their first stream opened to the end


def _identity(raw: bytes) -> bytes:
    return raw


def _reader(conn: Connection, address: str, kind: str, method: str, streams: list[tuple[int, str]], channels: int):
    try:  # the loop tavola's servers run on, for every reader alike
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    asyncio.run(_read(conn, address, kind, method, streams, channels))


async def _read(conn: Connection, address: str, kind: str, method: str, streams: list[tuple[int, str]], channels: int):
    cpu_began = time.process_time()
    opened = [grpc.aio.insecure_channel(address) for _ in range(channels)]
    figures = ReadFigures()
    arrivals = figures.arrivals
    first = asyncio.Event()
    waiting = len(streams)
    # (first seq of the run, events a stream of the table should get) by table: known at the end.
    wanted: dict[str, tuple[int, int]] = {}
    done = asyncio.Event()

    def subscribed() -> None:
        nonlocal waiting
        waiting -= 1
        if waiting == 0:
            first.set()

    from tavola.gateway.v1 import gateway_pb2 as gw

    batched = kind == SPECTATE_BATCHED
    # Messages not decoded yet: (stream index, key, bytes, arrival ns).
    undecoded: list[tuple[int, str, bytes, int]] = []

    def decode(index: int, key: str, data: bytes, arrived: int) -> None:
        message = gw.SpectateTableResponse.FromString(data)
        for event in message.events if batched else (message.event,):
            arrivals.append((index, key, event.seq, event.time.ToNanoseconds(), arrived))
            if wanted and event.seq > wanted[key][0]:  # the run is over: count it now
                counts[index] += 1
                _check_done()

    async def spectate(index: int, key: str) -> None:
        stream = opened[index % channels].unary_stream(
            "/tavola.gateway.v1.GatewayService/SpectateTable",
            request_serializer=gw.SpectateTableRequest.SerializeToString,
            response_deserializer=_identity,
        )(gw.SpectateTableRequest(table_id=key, batched=batched), timeout=900)
        seen = False
        try:
            async for data in stream:
                arrived = time.time_ns()
                if not seen:
                    seen = True
                    subscribed()  # the backlog (seats taken) has come: it is live
                if wanted:  # the run is over: decode and count it now
                    decode(index, key, data, arrived)
                else:
                    undecoded.append((index, key, data, arrived))
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                figures.errors[index] = error.code().name
        finally:
            if not seen:
                subscribed()
            stream.cancel()

    async def raw(index: int, key: str) -> None:
        call = opened[index % channels].unary_stream(
            method, request_serializer=_identity, response_deserializer=_identity
        )(key.encode(), timeout=900)
        try:
            await call.read()  # "ready": subscribed
            subscribed()
            while (event := await call.read()) is not grpc.aio.EOF:
                arrived = time.time_ns()
                data = cast(bytes, event)
                stamp = int.from_bytes(data[:8], "big")
                for number in range(1, data[8] + 1 if len(data) > 8 else 2):
                    arrivals.append((index, key, number, stamp, arrived))
        except grpc.aio.AioRpcError as error:
            figures.errors[index] = error.code().name
            if waiting:
                subscribed()

    counts = dict.fromkeys((index for index, _ in streams), 0)

    def _count() -> None:
        for index, key, seq, _, _ in arrivals:
            if kind == RAW or seq > wanted[key][0]:
                counts[index] += 1

    def _check_done() -> None:
        if all(counts[index] >= wanted[key][1] for index, key in streams):
            done.set()

    read = raw if kind == RAW else spectate
    tasks = [asyncio.create_task(read(index, key)) for index, key in streams]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(first.wait(), 60)
    conn.send(("subscribed",))
    loop = asyncio.get_running_loop()
    message = await loop.run_in_executor(None, conn.recv)  # ("finish", wanted or None)
    if kind != RAW:
        for pending in undecoded:  # before ``wanted``: counted with the others just after
            decode(*pending)
        undecoded.clear()
        wanted.update(message[1])
        _count()
        _check_done()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), DRAIN_SECONDS)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        figures.arrivals = [item for item in arrivals if item[2] > wanted[item[1]][0]]
    else:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 60)
        _count()
    figures.counts = counts
    figures.cpu_seconds = time.process_time() - cpu_began
    for channel in opened:
        await channel.close()
    conn.send(("figures", figures))
    conn.close()


class Readers:
    """``count`` reader processes sharing ``streams`` (index -> key) in turn."""

    def __init__(self, address: str, kind: str, keys: list[str], count: int, channels: int = 10, method: str = ""):
        context = multiprocessing.get_context("spawn")  # no fork of a process that runs gRPC
        count = max(1, min(count, len(keys)))
        # Each key's streams in turn over the readers: a table's event reaches every reader.
        reader_of: list[int] = []
        seen: dict[str, int] = {}
        for key in keys:
            reader_of.append(seen.get(key, 0) % count)
            seen[key] = seen.get(key, 0) + 1
        self.conns: list[Connection] = []
        self.processes = []
        for number in range(count):
            share = [(index, key) for index, key in enumerate(keys) if reader_of[index] == number]
            parent, child = context.Pipe()
            process = context.Process(
                target=_reader,
                args=(child, address, kind, method, share, max(1, channels // count)),
                daemon=True,
            )
            process.start()
            child.close()
            self.conns.append(parent)
            self.processes.append(process)

    async def _recv(self, conn: Connection, timeout: float):
        loop = asyncio.get_running_loop()
        ready = await loop.run_in_executor(None, conn.poll, timeout)
        if not ready:
            raise TimeoutError("a stream reader did not answer")
        return conn.recv()

    async def subscribed(self, timeout: float = 120) -> None:
        """Once every stream of every reader is open and live."""
        for conn in self.conns:
            await self._recv(conn, timeout)

    async def finish(self, wanted: dict[str, tuple[int, int]] | None = None, timeout: float = 120) -> ReadFigures:
        """Every reader's figures, once its streams have ended (raw), or have what
        ``wanted`` says (table -> (its last seq before the run, events of the run))."""
        for conn in self.conns:
            conn.send(("finish", wanted))
        merged = ReadFigures()
        for conn in self.conns:
            _, figures = await self._recv(conn, timeout)
            merged.counts.update(figures.counts)
            merged.errors.update(figures.errors)
            merged.arrivals += figures.arrivals
            merged.cpu_seconds += figures.cpu_seconds
        self.close()
        return merged

    def close(self) -> None:
        for process in self.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join(timeout=5)
        for conn in self.conns:
            conn.close()

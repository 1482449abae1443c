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

The bench's side, which starts these servers as processes and drives them, is
``bench/bare_clients.py`` (``BarePipeline``, ``BareStreams``, ``run_clients``).

    python -m bench.bare rules <port file>
    python -m bench.bare gateway <port file> <rules address> <redis url> <key prefix>
    python -m bench.bare streams <port file>
"""

import asyncio
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import grpc
import redis.asyncio as redis_async

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

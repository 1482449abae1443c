"""Spectator streams on one gateway: how many complete, and how soon events arrive.

Opens ``per_table`` SpectateTable streams on each of ``tables`` all-bot tables (before
they start), starts the tables and lets the bots play them to the end. Delivery latency
is the time from an event's commit stamp (taken when its command began) to its arrival at
the client. The reference is Redis alone: PUBLISH to a subscriber on the same machine.
Bounded in time; 127.0.0.1 only.
"""

import asyncio
import statistics
import time
from dataclasses import dataclass, field

import grpc
import redis.asyncio as redis_async

from common import auth
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


@dataclass
class WatchFigures:
    streams: int
    completed: int
    failed: dict[str, int]
    events: int
    seconds: float
    latencies_ms: list[float] = field(default_factory=list)

    def percentile(self, fraction: float) -> float:
        if not self.latencies_ms:
            return 0.0
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


async def watch(address: str, tables: int, per_table: int, timeout: float, channels: int = 10) -> WatchFigures:
    opened = [grpc.aio.insecure_channel(address) for _ in range(channels)]
    stubs = [gateway_pb2_grpc.GatewayServiceStub(channel) for channel in opened]
    latencies: list[float] = []
    failed: dict[str, int] = {}
    counts: list[int] = []
    try:
        created = []
        for _ in range(tables):
            seats = [gw.BotSeat(seat=seat, bot="random") for seat in range(3)]
            request = gw.CreateTableRequest(game_id="borgia", player_count=3, bot_seats=seats)
            response = await stubs[0].CreateTable(request, timeout=30)
            created.append((response.table.table_id, response.host_token))
        started_flags: list[bool] = []

        async def spectate(index: int, table_id: str) -> None:
            received = 0
            stream = stubs[index % channels].SpectateTable(gw.SpectateTableRequest(table_id=table_id), timeout=timeout)
            try:
                async for message in stream:
                    if received == 0:
                        started_flags.append(True)
                    received += 1
                    arrived = time.time_ns()
                    if started.is_set():
                        latencies.append((arrived - message.event.time.ToNanoseconds()) / 1e6)
            except grpc.aio.AioRpcError as error:
                failed[error.code().name] = failed.get(error.code().name, 0) + 1
                return
            counts.append(received)

        started = asyncio.Event()
        tasks = [
            asyncio.create_task(spectate(index, created[index % tables][0])) for index in range(tables * per_table)
        ]
        deadline = time.monotonic() + 60
        while len(started_flags) < len(tasks) and time.monotonic() < deadline and not all(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        began = time.perf_counter()
        started.set()
        for table_id, host_token in created:
            await stubs[0].StartTable(
                gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(host_token), timeout=30
            )
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - began
    finally:
        for channel in opened:
            await channel.close()
    return WatchFigures(tables * per_table, len(counts), failed, sum(counts), elapsed, latencies)


async def redis_publish_latency(redis_url: str, channel: str, messages: int = 500) -> float:
    """p99 milliseconds from PUBLISH to a subscriber's receipt, on the same Redis."""
    client = redis_async.Redis.from_url(redis_url)
    pubsub = client.pubsub()
    await pubsub.subscribe(channel)
    await pubsub.get_message(timeout=1)  # the subscribe confirmation
    latencies = []
    for _ in range(messages):
        await client.publish(channel, str(time.time_ns()))
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
            if message is not None:
                latencies.append((time.time_ns() - int(message["data"])) / 1e6)
                break
    await pubsub.aclose()
    await client.aclose()
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else statistics.fmean([0])

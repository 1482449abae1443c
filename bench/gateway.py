"""SubmitAction through the real gateway: throughput and latency at N concurrent clients.

Each client owns a table of human seats (the benchmark holds every seat's token), asks
GetView for the seat that must decide, and submits one of its legal actions. Only
SubmitAction is timed; a finished table is replaced by a new one. Runs are bounded in
time and in count, against 127.0.0.1 only.
"""

import asyncio
import random
import statistics
import time
from dataclasses import dataclass

import grpc

from common import auth
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


@dataclass
class Figures:
    clients: int
    submits: int
    seconds: float
    p50_ms: float
    p99_ms: float

    @property
    def per_second(self) -> float:
        return self.submits / self.seconds


async def _new_table(stub, game: str, players: int, seed: int) -> tuple[str, dict[int, str]]:
    created = await stub.CreateTable(gw.CreateTableRequest(game_id=game, player_count=players, seed=seed))
    table_id = created.table.table_id
    tokens = {}
    for seat in range(players):
        taken = await stub.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=seat))
        tokens[seat] = taken.seat_token
    await stub.StartTable(gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(created.host_token))
    return table_id, tokens


async def _client(stub, game: str, players: int, index: int, deadline: float, limit: int, latencies: list[float]):
    chooser = random.Random(index)
    table_id, tokens = await _new_table(stub, game, players, index)
    seat = None
    count = 0
    while time.perf_counter() < deadline and count < limit:
        if seat is None:
            table = (await stub.GetTable(gw.GetTableRequest(table_id=table_id))).table
            if table.status == gw.TABLE_STATUS_FINISHED:
                table_id, tokens = await _new_table(stub, game, players, index * 1000 + count)
                continue
            seat = chooser.choice(list(table.deciding_seats))
        metadata = auth.metadata(tokens[seat])
        view = await stub.GetView(gw.GetViewRequest(table_id=table_id), metadata=metadata)
        action = chooser.choice(list(view.legal_actions)).action
        started = time.perf_counter()
        response = await stub.SubmitAction(
            gw.SubmitActionRequest(table_id=table_id, action=action, expected_version=view.table.version),
            metadata=metadata,
        )
        latencies.append(time.perf_counter() - started)
        count += 1
        deciding = list(response.table.deciding_seats)
        seat = chooser.choice(deciding) if deciding else None


async def submit_action(address: str, game: str, players: int, clients: int, seconds: float, limit: int) -> Figures:
    latencies: list[float] = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        # Warm up connections and caches before timing.
        await _client(stub, game, players, 10_000 + clients, time.perf_counter() + 0.5, 50, [])
        started = time.perf_counter()
        deadline = started + seconds
        await asyncio.gather(
            *(_client(stub, game, players, index, deadline, limit, latencies) for index in range(clients))
        )
        elapsed = time.perf_counter() - started
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return Figures(clients, len(latencies), elapsed, statistics.median(ordered) * 1000, p99 * 1000)

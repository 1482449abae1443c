"""SubmitAction through the real gateway: throughput and latency at N concurrent clients.

Each client plays tables of human seats (the benchmark holds every seat's token): it asks
GetView for the seat that must decide, and submits one of its legal actions. Only
SubmitAction is timed. The tables are made and started before the clock starts, as the
bare reference (bench/bare.py) writes its records before its own: a game lasts some 40
actions, and making the next table (CreateTable, a TakeSeat per seat, StartTable) inside
the window would count work the reference never does. A client that plays every table
made for it makes another, inside the window. Runs are bounded in time and in count,
against 127.0.0.1 only.
"""

import asyncio
import math
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field

import grpc

from bench.tables import CpuMeter
from common import auth
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc

# Fewer actions than a game of the bench lasts: the tables to make before timing.
ACTIONS_PER_TABLE = 25


@dataclass
class Figures:
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


@dataclass
class _Table:
    table_id: str
    metadata: dict[int, tuple]  # each seat's call metadata (its token), made once
    deciding: list[int]


async def _new_table(stub, game: str, players: int, seed: int) -> _Table:
    created = await stub.CreateTable(gw.CreateTableRequest(game_id=game, player_count=players, seed=seed))
    table_id = created.table.table_id
    tokens = {}
    for seat in range(players):
        taken = await stub.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=seat))
        tokens[seat] = taken.seat_token
    started = await stub.StartTable(gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(created.host_token))
    metadata = {seat: auth.metadata(token) for seat, token in tokens.items()}
    return _Table(table_id, metadata, list(started.table.deciding_seats))


async def _client(
    stub, game: str, players: int, index: int, tables: list[_Table], deadline: float, limit: int, latencies: list
):
    chooser = random.Random(index)
    count = 0
    table: _Table | None = None
    while time.perf_counter() < deadline and count < limit:
        if table is None or not table.deciding:
            table = tables.pop() if tables else await _new_table(stub, game, players, index * 1000 + count)
            continue
        seat = chooser.choice(table.deciding)
        metadata = table.metadata[seat]
        view = await stub.GetView(gw.GetViewRequest(table_id=table.table_id), metadata=metadata)
        legal = view.legal_actions  # one picked by index: no list of every action's message
        action = legal[chooser.randrange(len(legal))].action
        started = time.perf_counter()
        response = await stub.SubmitAction(
            gw.SubmitActionRequest(table_id=table.table_id, action=action, expected_version=view.table.version),
            metadata=metadata,
        )
        latencies.append(time.perf_counter() - started)
        count += 1
        table.deciding = list(response.table.deciding_seats)


async def _tables(stub, game: str, players: int, count: int, seed: int) -> list[_Table]:
    made: list[_Table] = []
    for index in range(count):
        made.append(await _new_table(stub, game, players, seed + index))
    return made


async def submit_action(
    address: str, game: str, players: int, clients: int, seconds: float, limit: int, pids: dict[str, int] | None = None
) -> Figures:
    """``pids``: processes whose CPU to measure while timed (and this one's, "client")."""
    latencies: list[float] = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        # Warm up connections and caches; the pace of one client tells how many tables to make.
        warm = [await _new_table(stub, game, players, 10_000 + clients)]
        began = time.perf_counter()
        await _client(stub, game, players, 10_000 + clients, warm, began + 0.5, 50, [])
        rate = 50 / max(time.perf_counter() - began, 1e-3)
        # The clients share the machine's cores: their rate grows less than their number.
        expected = rate * min(clients, 4) * seconds * 1.25
        each = max(2, math.ceil(expected / ACTIONS_PER_TABLE / clients))
        tables = await asyncio.gather(
            *(_tables(stub, game, players, min(each, limit), 100_000 * (index + 1)) for index in range(clients))
        )
        meter = CpuMeter.with_client(pids or {})
        started = time.perf_counter()
        deadline = started + seconds
        await asyncio.gather(
            *(
                _client(stub, game, players, index, tables[index], deadline, limit, latencies)
                for index in range(clients)
            )
        )
        elapsed = time.perf_counter() - started
        cpu, switches = meter.used(), meter.switches()
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return Figures(
        clients, len(latencies), elapsed, statistics.median(ordered) * 1000, p99 * 1000, ordered, cpu, switches
    )


def combined(slices: list) -> Figures:
    """One figure of several runs (time slices interleaved with the reference's): their
    submits over their time, percentiles over every submit, CPU summed."""
    ordered = sorted(latency for part in slices for latency in part.latencies)
    cpu: Counter[str] = Counter()
    switches: dict[str, tuple[int, int]] = {}
    for part in slices:
        cpu.update(part.cpu)
        for name, (voluntary, involuntary) in getattr(part, "switches", {}).items():
            before = switches.get(name, (0, 0))
            switches[name] = (before[0] + voluntary, before[1] + involuntary)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return Figures(
        slices[0].clients,
        len(ordered),
        sum(part.seconds for part in slices),
        statistics.median(ordered) * 1000,
        p99 * 1000,
        ordered,
        dict(cpu),
        switches,
    )


async def message_sizes(
    address: str, game: str = "borgia", players: int = 3
) -> tuple[tuple[int, int], tuple[int, int]]:
    """The bytes of a GetView's request and response and of a SubmitAction's, on a new
    table of ``game``: ((view request, view response), (submit request, submit response))."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        table = await _new_table(stub, game, players, 7)
        metadata = table.metadata[table.deciding[0]]
        asked = gw.GetViewRequest(table_id=table.table_id)
        view = await stub.GetView(asked, metadata=metadata, timeout=30)
        submitted = gw.SubmitActionRequest(
            table_id=table.table_id, action=view.legal_actions[0].action, expected_version=view.table.version
        )
        response = await stub.SubmitAction(submitted, metadata=metadata, timeout=30)
    return (asked.ByteSize(), view.ByteSize()), (submitted.ByteSize(), response.ByteSize())

"""Moves over seat sessions (SessionService.Play) through the real gateway: the session
path beside the unary one (bench/gateway.py: a GetView and a SubmitAction a move).

Each client plays tables of human seats, one at a time, with a session open for every
seat: it sends the deciding seat's action on that seat's session and times it until the
update that answers it; every other seat's session gets its update of the move too, and
the client reads them before the next move. The tables are made and started before the
clock starts, as the unary bench's are, and so are the sessions of each client's first
table; those of a table made in the window are opened in it.
"""

import asyncio
import math
import random
import statistics
import time

import grpc

from bench.gateway import ACTIONS_PER_TABLE, Figures, _new_table, _Table
from bench.tables import CpuMeter
from tavola.gateway.v1 import gateway_pb2_grpc, sessions_pb2_grpc
from tavola.gateway.v1 import sessions_pb2 as ss


async def _open(stub, table: _Table) -> tuple[dict, dict[int, ss.PlayResponse]]:
    """A session for every seat of the table, and each one's first update (its view)."""
    calls = {}
    for seat, metadata in table.metadata.items():
        call = calls[seat] = stub.Play(metadata=metadata)
        await call.write(ss.PlayRequest(open=ss.FollowRequest(table_id=table.table_id)))
    return calls, {seat: await call.read() for seat, call in calls.items()}


async def _play_table(
    stub, table: _Table, chooser: random.Random, deadline: float, limit: int, latencies: list, opened=None
) -> int:
    """Plays the table over sessions (``opened``: already open) until its end, the deadline
    or ``limit`` moves; the moves made."""
    calls, latest = opened or await _open(stub, table)
    moves = 0
    try:
        while time.perf_counter() < deadline and moves < limit:
            deciders = [seat for seat, update in latest.items() if update.view.must_decide]
            if not deciders:
                break
            seat = chooser.choice(deciders)
            legal = latest[seat].view.legal_actions
            started = time.perf_counter()
            moves += 1
            await calls[seat].write(
                ss.PlayRequest(action=ss.SessionAction(id=moves, action=legal[chooser.randrange(len(legal))].action))
            )
            update = await calls[seat].read()
            if update.error:
                raise RuntimeError(f"a session's action was refused: {update}")
            latencies.append(time.perf_counter() - started)
            latest[seat] = update
            for other, call in calls.items():
                if other != seat:
                    latest[other] = await call.read()
    finally:
        for call in calls.values():
            call.cancel()
    return moves


async def _client(stub, gateway, game, players, index, tables, deadline, limit, latencies, opened=None) -> None:
    """Plays its tables in turn: ``opened``, the sessions of the last of ``tables``, open already."""
    chooser = random.Random(index)
    count = 0
    while time.perf_counter() < deadline and count < limit:
        table = tables.pop() if tables else await _new_table(gateway, game, players, index * 1000 + count)
        count += await _play_table(stub, table, chooser, deadline, limit - count, latencies, opened)
        opened = None


async def session_moves(
    address: str, game: str, players: int, clients: int, seconds: float, limit: int, pids: dict[str, int] | None = None
) -> Figures:
    """As bench.gateway.submit_action, over sessions: ``pids``' CPU while timed."""
    latencies: list[float] = []
    async with grpc.aio.insecure_channel(address) as channel:
        gateway = gateway_pb2_grpc.GatewayServiceStub(channel)
        stub = sessions_pb2_grpc.SessionServiceStub(channel)
        warm = [await _new_table(gateway, game, players, 20_000 + clients)]
        began = time.perf_counter()
        await _client(stub, gateway, game, players, 20_000 + clients, warm, began + 0.5, 50, [])
        rate = 50 / max(time.perf_counter() - began, 1e-3)
        expected = rate * min(clients, 4) * seconds * 1.25
        each = max(2, math.ceil(expected / ACTIONS_PER_TABLE / clients))
        tables = [
            [await _new_table(gateway, game, players, 200_000 * (index + 1) + made) for made in range(min(each, limit))]
            for index in range(clients)
        ]
        # Each client's first table's sessions opened before the clock, as its tables were made.
        opened = await asyncio.gather(*(_open(stub, tables[index][-1]) for index in range(clients)))
        meter = CpuMeter.with_client(pids or {})
        started = time.perf_counter()
        deadline = started + seconds
        await asyncio.gather(
            *(
                _client(stub, gateway, game, players, index, tables[index], deadline, limit, latencies, opened[index])
                for index in range(clients)
            )
        )
        elapsed = time.perf_counter() - started
        cpu, switches = meter.used(), meter.switches()
    ordered = sorted(latencies) or [0.0]
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return Figures(
        clients, len(latencies), elapsed, statistics.median(ordered) * 1000, p99 * 1000, ordered, cpu, switches
    )


# The server's processes, by their names in the stack, whose CPU a move costs.
SERVER = ("gateway", "rules-borgia", "redis")


def session_rows(report, clients: int, sessions: Figures, unary: Figures) -> None:
    """The session path's moves/s, latency and CPU per move, each beside the unary path's
    (a GetView and a SubmitAction a move) measured in the same slices."""
    report.row(
        f"session.{clients}.per_second",
        f"{clients:3d} clients: session moves/s",
        sessions.per_second,
        "/s",
        unary.per_second,
        "unary",
    )
    report.row(
        f"session.{clients}.p50_ms",
        f"{clients:3d} clients: session move p50",
        sessions.p50_ms,
        "ms",
        unary.p50_ms,
        "unary",
    )
    report.row(
        f"session.{clients}.p99_ms",
        f"{clients:3d} clients: session move p99",
        sessions.p99_ms,
        "ms",
        unary.p99_ms,
        "unary",
    )

    def per_move(figures: Figures, names) -> float:
        return sum(figures.cpu.get(name, 0.0) for name in names) * 1000 / max(1, figures.submits)

    report.row(
        f"session.{clients}.cpu_ms.server",
        f"    {clients:3d} clients: server CPU per move",
        per_move(sessions, SERVER),
        "ms",
        per_move(unary, SERVER),
        "unary",
    )
    for name in (*SERVER, "client"):
        report.row(
            f"session.{clients}.cpu_ms.{name}",
            f"    {clients:3d} clients: CPU per move, {name}",
            per_move(sessions, (name,)),
            "ms",
            per_move(unary, (name,)),
            "unary",
        )

"""Event delivery to browser-protocol streams beside native gRPC streams, on one gateway,
in the same run:  python -m bench.web [--streams 200] [--seconds 20] [--json]

``tables`` tables of Mortadella (3 human seats, every seat taken through the gateway), each
watched by as many SpectateTable streams over the browser protocol (Connect, binary, on
the gateway's web port) as over gRPC (on its gRPC port): the two kinds interleaved on the
same tables, so every event goes to streams of both kinds at once. The streams are read by
``readers`` processes of their own, each holding the same number of streams of each kind
(so a reader's own load weighs on both alike). One client in the bench's process plays a
random legal action of whichever seat must decide (GetView, then SubmitAction), at
``actions_per_second`` over all tables, for ``seconds``.

An event's delivery latency is from its own stamp (TableEvent.time, taken when its
command began in the gateway) to its arrival at the reader (the same machine's clock): the
command's own time is in both kinds alike. A stream completes when it brought every entry
its table committed, and ended only when the bench closed it. The figure: each kind's
p50/p99 and their p99 ratio (browser over gRPC; goal within 1.5x, none failed). Bounded in
time; 127.0.0.1 only.
"""

import argparse
import asyncio
import json
import multiprocessing
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

import grpc
from connectrpc.protocol import ProtocolType

from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc
from tavola.gateway.v1.gateway_connect import GatewayServiceClient

GAME, PLAYERS = "mortadella", 3
KINDS = ("grpc", "browser")


@dataclass
class KindFigures:
    streams: int = 0
    completed: int = 0
    failed: dict[str, int] = field(default_factory=dict)
    events: int = 0
    latencies_ms: list[float] = field(default_factory=list)

    def summary(self) -> dict:
        ordered = sorted(self.latencies_ms)
        return {
            "streams": self.streams,
            "completed": self.completed,
            "failed": self.failed,
            "events": self.events,
            "p50_ms": round(_percentile(ordered, 0.50), 2),
            "p99_ms": round(_percentile(ordered, 0.99), 2),
            "max_ms": round(ordered[-1], 2) if ordered else 0.0,
            "mean_ms": round(statistics.fmean(ordered), 2) if ordered else 0.0,
        }


def _percentile(ordered: list[float], fraction: float) -> float:
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


# -- readers ------------------------------------------------------------------------------


def _reader(conn: Connection, grpc_address: str, web_url: str, streams: list[tuple[str, str]]) -> None:
    asyncio.run(_read(conn, grpc_address, web_url, streams))


async def _read(conn: Connection, grpc_address: str, web_url: str, streams: list[tuple[str, str]]) -> None:
    """Reads ``streams`` ((kind, table id) pairs) until told to stop; answers, per stream,
    (kind, table id, last seq, error code or '', (seq, latency in ms) of each event)."""
    channel = grpc.aio.insecure_channel(grpc_address)
    stub = gateway_pb2_grpc.GatewayServiceStub(channel)
    web = GatewayServiceClient(
        web_url, protocol=ProtocolType.CONNECT, send_compression=None, accept_compression=(), timeout_ms=900_000
    )
    results: list[list] = [[kind, table_id, 0, "", []] for kind, table_id in streams]
    opened = 0
    stopping = False

    async def read(index: int) -> None:
        nonlocal opened
        kind, table_id = streams[index]
        result = results[index]
        request = gw.SpectateTableRequest(table_id=table_id)
        try:
            if kind == "grpc":
                call = stub.SpectateTable(request, timeout=900)
                opened += 1
                async for response in call:
                    arrived = time.time_ns()
                    event = response.event
                    result[2] = event.seq
                    result[4].append((event.seq, (arrived - event.time.ToNanoseconds()) / 1e6))
            else:
                opened += 1
                async for response in web.spectate_table(request):
                    arrived = time.time_ns()
                    event = response.event
                    result[2] = event.seq
                    result[4].append((event.seq, (arrived - event.time.ToNanoseconds()) / 1e6))
            result[3] = "ENDED"  # the games outlast the run: an end is a failure
        except asyncio.CancelledError:
            raise
        except Exception as error:  # an error status, a connection lost...
            if not stopping:  # not the bench's own cancellation (a ConnectError CANCELED)
                code = error.code() if isinstance(error, grpc.aio.AioRpcError) else getattr(error, "code", None)
                result[3] = getattr(code, "name", type(error).__name__)

    tasks = [asyncio.ensure_future(read(index)) for index in range(len(streams))]
    while opened < len(streams):
        await asyncio.sleep(0.05)
    conn.send("open")
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, conn.recv)  # told to stop
    stopping = True
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await web.close()
    await channel.close()
    conn.send(results)


# -- the run ------------------------------------------------------------------------------


async def _seated_table(stub) -> tuple[str, dict[int, str]]:
    created = await stub.CreateTable(gw.CreateTableRequest(game_id=GAME, player_count=PLAYERS), timeout=30)
    table_id = created.table.table_id
    tokens = {}
    for seat in range(PLAYERS):
        taken = await stub.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=seat), timeout=30)
        tokens[taken.seat] = taken.seat_token
    started = await stub.StartTable(
        gw.StartTableRequest(table_id=table_id), metadata=(("authorization", f"Bearer {created.host_token}"),)
    )
    return table_id, {**tokens, -1: str(started.table.deciding_seats[0])}


async def _play(stub, tables: dict[str, dict[int, str]], rate: float, seconds: float) -> int:
    """Random legal actions, round-robin over the tables, at ``rate`` a second in all."""
    deciders = {table_id: int(tokens.pop(-1)) for table_id, tokens in tables.items()}
    order = list(tables)
    chooser = random.Random(1)
    began = time.monotonic()
    actions = 0
    while time.monotonic() - began < seconds:
        table_id = order[actions % len(order)]
        token = tables[table_id][deciders[table_id]]
        metadata = (("authorization", f"Bearer {token}"),)
        view = await stub.GetView(gw.GetViewRequest(table_id=table_id), metadata=metadata, timeout=30)
        action = chooser.choice(view.legal_actions).action
        reply = await stub.SubmitAction(
            gw.SubmitActionRequest(table_id=table_id, action=action), metadata=metadata, timeout=30
        )
        if reply.table.deciding_seats:
            deciders[table_id] = reply.table.deciding_seats[0]
        actions += 1
        await asyncio.sleep(max(0.0, began + actions / rate - time.monotonic()))
    return actions


async def measure(streams: int, seconds: float, actions_per_second: float, readers: int, per_table: int) -> dict:
    tables_count = max(1, streams // per_table)
    context = multiprocessing.get_context("spawn")
    with Stack(games=(GAME,), with_worker=False, gateway_env=dict(NO_QUOTAS)) as stack:
        async with grpc.aio.insecure_channel(stack.gateway_address) as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            tables = dict([await _seated_table(stub) for _ in range(tables_count)])
            # Interleaved: on every table as many streams of each kind, dealt round-robin to
            # the readers so that each holds as many of each kind.
            pairs = [(KINDS[index % 2], table_id) for table_id in tables for index in range(per_table)]
            shares: list[list[tuple[str, str]]] = [pairs[index::readers] for index in range(readers)]
            links, processes = [], []
            for share in shares:
                parent, child = context.Pipe()
                process = context.Process(
                    target=_reader, args=(child, stack.gateway_address, f"http://{stack.web_addresses[0]}", share)
                )
                process.start()
                links.append(parent)
                processes.append(process)
            try:
                for link in links:
                    if not link.poll(120):
                        raise RuntimeError("a reader did not open its streams")
                    link.recv()
                await asyncio.sleep(1.0)  # every stream has had the log so far
                before = {
                    table_id: (await stub.GetTable(gw.GetTableRequest(table_id=table_id))).table.last_seq
                    for table_id in tables
                }
                began = time.monotonic()
                actions = await _play(stub, tables, actions_per_second, seconds)
                played = time.monotonic() - began
                await asyncio.sleep(2.0)  # the last events' delivery
                last = {
                    table_id: (await stub.GetTable(gw.GetTableRequest(table_id=table_id))).table.last_seq
                    for table_id in tables
                }
                results = []
                for link in links:
                    link.send("stop")
                for link in links:
                    if not link.poll(60):
                        raise RuntimeError("a reader did not answer")
                    results.extend(link.recv())
            finally:
                for process in processes:
                    process.join(timeout=10)
                    if process.is_alive():
                        process.terminate()
    figures = {kind: KindFigures() for kind in KINDS}
    for kind, table_id, last_seq, error, latencies in results:
        kind_figures = figures[kind]
        kind_figures.streams += 1
        # Only the events committed during the run: the backlog at opening is not live.
        live = [latency for seq, latency in latencies if seq > before[table_id]]
        kind_figures.latencies_ms.extend(live)
        kind_figures.events += len(live)
        if error:
            kind_figures.failed[error] = kind_figures.failed.get(error, 0) + 1
        elif last_seq == last[table_id]:
            kind_figures.completed += 1
        else:
            kind_figures.failed["INCOMPLETE"] = kind_figures.failed.get("INCOMPLETE", 0) + 1
    grpc_p99 = figures["grpc"].summary()["p99_ms"]
    browser_p99 = figures["browser"].summary()["p99_ms"]
    return {
        "streams": streams,
        "tables": tables_count,
        "per_table": per_table,
        "readers": readers,
        "seconds": round(played, 1),
        "actions": actions,
        "committed": sum(last[table_id] - before[table_id] for table_id in tables),
        **{kind: figures[kind].summary() for kind in KINDS},
        "p99_ratio": round(browser_p99 / grpc_p99, 2) if grpc_p99 else None,
    }


def _report(figures: dict) -> str:
    lines = [
        f"event delivery on one gateway: {figures['streams']} SpectateTable streams on {figures['tables']} tables "
        f"({figures['per_table']} a table, half of each kind), {figures['readers']} reader processes; "
        f"{figures['actions']} actions in {figures['seconds']} s, {figures['committed']} entries committed",
        f"{'':<10}{'streams':>8}{'completed':>10}{'failed':>8}{'events':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}",
    ]
    for kind, label in (("grpc", "gRPC"), ("browser", "Connect")):
        row = figures[kind]
        lines.append(
            f"{label:<10}{row['streams']:>8}{row['completed']:>10}{sum(row['failed'].values()):>8}{row['events']:>9}"
            f"{row['p50_ms']:>9.2f}{row['p99_ms']:>9.2f}{row['max_ms']:>9.2f}"
        )
    for kind in KINDS:
        if figures[kind]["failed"]:
            lines.append(f"  {kind} failures: {figures[kind]['failed']}")
    lines.append(f"p99 browser / gRPC: {figures['p99_ratio']}x (goal: within 1.5x, none failed)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=200, help="streams in all, half of each kind (200)")
    parser.add_argument("--per-table", type=int, default=10, help="streams on each table (10)")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the tables play (20)")
    parser.add_argument("--actions-per-second", type=float, default=20.0, help="actions a second in all (20)")
    parser.add_argument("--readers", type=int, default=2, help="reader processes (2)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = asyncio.run(measure(args.streams, args.seconds, args.actions_per_second, args.readers, args.per_table))
    print(json.dumps(figures, indent=2) if args.json else _report(figures))
    failed = sum(sum(figures[kind]["failed"].values()) for kind in KINDS)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

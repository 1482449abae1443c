"""Oversized requests against a player:  python -m bench.oversized [--requests 300] [--at-once 50]

A player reads their table (GetView, paced at --rate calls/s) on a local stack while an
anonymous client sends --requests TakeSeat calls of --size bytes each, --at-once in flight,
which the gateway must refuse. Printed: the player's p50/p99 before the flood, during it
and after it (the baseline is measured in the same run, before and after, interleaved),
and the gateway's RSS before, at its peak and after. Goals: the gateway's RSS within 50 MB
of where it started, the player's p99 during the flood within 2x of the baseline.
"""

import argparse
import concurrent.futures
import secrets
import threading
import time
from dataclasses import dataclass, field

import grpc
import psutil

from bench.watchers import percentile
from common import auth
from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


@dataclass
class Reads:
    """A player's paced GetView latencies (ms) while a phase lasts."""

    latencies_ms: list[float] = field(default_factory=list)
    failures: int = 0


def read_paced(stub, table_id: str, token: str, rate: float, stop: threading.Event) -> Reads:
    reads = Reads()
    metadata = auth.metadata(token)
    interval = 1.0 / rate
    next_at = time.perf_counter()
    while not stop.is_set():
        started = time.perf_counter()
        try:
            stub.GetView(gw.GetViewRequest(table_id=table_id), metadata=metadata, timeout=10)
            reads.latencies_ms.append((time.perf_counter() - started) * 1000)
        except grpc.RpcError:
            reads.failures += 1
        next_at += interval
        time.sleep(max(0.0, next_at - time.perf_counter()))
    return reads


def phase(stub, table_id: str, token: str, rate: float, work) -> Reads:
    """The player's reads while ``work`` runs (or for ``work`` seconds)."""
    stop = threading.Event()
    with concurrent.futures.ThreadPoolExecutor(1) as reader:
        pending = reader.submit(read_paced, stub, table_id, token, rate, stop)
        if callable(work):
            work()
        else:
            time.sleep(work)
        stop.set()
        return pending.result()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--at-once", type=int, default=50)
    parser.add_argument("--size", type=int, default=3_900_000, help="bytes of each refused request's display name")
    parser.add_argument("--rate", type=float, default=50.0, help="the player's reads a second")
    parser.add_argument("--baseline-seconds", type=float, default=5.0)
    args = parser.parse_args()

    stack = Stack(
        key_prefix=f"tavola-bench-{secrets.token_hex(4)}", games=("borgia",), with_worker=False, gateway_env=NO_QUOTAS
    )
    with stack:
        gateway = psutil.Process(next(p.popen.pid for p in stack.processes if p.name.startswith("gateway")))
        options = [("grpc.max_send_message_length", args.size + (1 << 20))]
        with (
            grpc.insecure_channel(stack.gateway_address) as player_channel,
            grpc.insecure_channel(stack.gateway_address, options=options) as flood_channel,
        ):
            player = gateway_pb2_grpc.GatewayServiceStub(player_channel)
            created = player.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2))
            table_id = created.table.table_id
            tokens = [player.TakeSeat(gw.TakeSeatRequest(table_id=table_id)).seat_token for _ in range(2)]
            player.StartTable(gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(created.host_token))

            rss = {"before": gateway.memory_info().rss, "peak": 0}
            codes: dict[str, int] = {}

            # Serialized once: the flood costs its own process little CPU, which the player shares.
            oversized = gw.TakeSeatRequest(table_id=table_id, display_name="x" * args.size).SerializeToString()
            take_seat: grpc.UnaryUnaryMultiCallable = flood_channel.unary_unary(
                "/tavola.gateway.v1.GatewayService/TakeSeat"
            )

            def one(_: int) -> None:
                try:
                    take_seat(oversized, timeout=60)
                    code = "OK"
                except grpc.RpcError as error:
                    code = error.code().name
                codes[code] = codes.get(code, 0) + 1
                rss["peak"] = max(rss["peak"], gateway.memory_info().rss)

            def flood_all() -> None:
                with concurrent.futures.ThreadPoolExecutor(args.at_once) as pool:
                    list(pool.map(one, range(args.requests)))

            before = phase(player, table_id, tokens[0], args.rate, args.baseline_seconds)
            started = time.perf_counter()
            during = phase(player, table_id, tokens[0], args.rate, flood_all)
            flood_seconds = time.perf_counter() - started
            after = phase(player, table_id, tokens[0], args.rate, args.baseline_seconds)
            rss["after"] = gateway.memory_info().rss

    baseline = before.latencies_ms + after.latencies_ms
    mb = 1 << 20
    print(f"oversized requests: {args.requests} TakeSeat of {args.size:,} bytes, {args.at_once} at once")
    print(f"  answered in {flood_seconds:.1f} s: {', '.join(f'{n} {code}' for code, n in sorted(codes.items()))}")
    for name, reads in (("before", before), ("during", during), ("after", after)):
        print(
            f"  player GetView {name:>6}: p50 {percentile(reads.latencies_ms, 0.5):6.2f} ms, "
            f"p99 {percentile(reads.latencies_ms, 0.99):6.2f} ms over {len(reads.latencies_ms)} calls, "
            f"{reads.failures} failed"
        )
    ratio = percentile(during.latencies_ms, 0.99) / max(percentile(baseline, 0.99), 1e-9)
    grown = (rss["after"] - rss["before"]) / mb
    print(f"  player p99 during / baseline (before and after): {ratio:.2f}  (goal <= 2)")
    print(
        f"  gateway RSS: {rss['before'] / mb:.0f} MB before, {max(rss['peak'], rss['after']) / mb:.0f} MB at its "
        f"peak, {rss['after'] / mb:.0f} MB after: {grown:+.1f} MB  (goal within 50)"
    )
    print(f"  load average at the end: {', '.join(f'{value:.1f}' for value in psutil.getloadavg())}")


if __name__ == "__main__":
    main()

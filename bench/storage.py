"""Where a table's Redis bytes go:  python -m bench.storage [--tables N] [--game borgia] [--players 3]

Plays N all-bot tables of one game to the end on a local stack (random bots) and prints,
per live (just started) and per finished table, the mean MEMORY USAGE of each of its keys
(exact: every element counted, not sampled; a finished game's log is in its archive),
and the log's payload by field (the bytes each kind of field holds, before Redis's own
overhead); and the same of the largest finished table.
"""

import argparse
import asyncio
import secrets
import statistics
import time
from collections import Counter
from typing import cast

import grpc
import redis

from bench.tables import _create, unfinished
from deploy.stack import NO_QUOTAS, ROOT, Stack
from gateway.archive_format import archived_entries
from gateway.store import KEY_SUFFIXES
from tavola.gateway.v1 import gateway_pb2_grpc
from tavola.store.v1 import store_pb2


def _field_kind(name: bytes) -> str:
    return "s<n>" if name[:1] == b"s" and name[1:].isdigit() else name.decode()


def breakdown(client: redis.Redis, prefix: str, table_ids: list[str]) -> tuple[dict[str, float], dict[str, float]]:
    """Bytes per table, the mean and the largest table's: each key's MEMORY USAGE, and the
    log's payload by field."""
    totals: dict[str, list[float]] = {}
    for table_id in table_ids:
        sizes: Counter[str] = Counter()
        for suffix in KEY_SUFFIXES:
            sizes[f"key {suffix}"] = client.memory_usage(f"{prefix}:{{{table_id}}}:{suffix}", samples=0) or 0
        entries = cast("list[tuple[bytes, dict[bytes, bytes]]]", client.xrange(f"{prefix}:{{{table_id}}}:log"))
        archive = cast("bytes", client.get(f"{prefix}:{{{table_id}}}:archive") or b"")
        entries += [(b"", {b"e": record}) for _, record in archived_entries(archive)]
        sizes["log entries"] = len(entries)
        for _, fields in entries:
            for name, value in fields.items():
                sizes[f"log field {_field_kind(name)}"] += len(name) + len(value)
                if name == b"e":  # a LogRecord: its parts
                    record = store_pb2.LogRecord.FromString(value)
                    sizes["  e: public"] += record.public.ByteSize()
                    sizes["  e: seats"] += sum(seat.ByteSize() for seat in record.seats)
                    sizes["  e: action"] += record.action.ByteSize()
        sizes["requests entries"] = client.hlen(f"{prefix}:{{{table_id}}}:requests")
        sizes["record bytes"] = len(cast("bytes", client.hget(f"{prefix}:{{{table_id}}}:table", "record") or b""))
        sizes["total"] = sum(sizes[f"key {suffix}"] for suffix in KEY_SUFFIXES)
        for kind, size in sizes.items():
            totals.setdefault(kind, []).append(size)
    means = {name: statistics.mean(values) for name, values in sorted(totals.items())}
    largest = max(range(len(table_ids)), key=lambda index: totals["total"][index])
    return means, {name: values[largest] for name, values in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--game", default="borgia")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    prefix = f"tavola-bench-{secrets.token_hex(4)}"
    with Stack(
        key_prefix=prefix,
        games=(args.game,),
        worker_bots=("random",),
        log_dir=ROOT / ".run" / "bench",
        gateway_env=dict(NO_QUOTAS),
    ) as stack:
        client = redis.Redis.from_url(stack.redis_url)
        try:

            async def create() -> list[str]:
                async with grpc.aio.insecure_channel(stack.gateway_address) as channel:
                    stub = gateway_pb2_grpc.GatewayServiceStub(channel)
                    return await _create(stub, [(args.game, args.players)], args.tables, "random")

            table_ids = asyncio.run(create())
            live, _ = breakdown(client, prefix, table_ids)
            deadline = time.monotonic() + args.timeout
            while unfinished(client, prefix, table_ids):
                if time.monotonic() > deadline:
                    raise SystemExit("tables still running at the timeout")
                time.sleep(0.5)
            finished, largest = breakdown(client, prefix, table_ids)
            ttls = [client.ttl(f"{prefix}:{{{t}}}:table") for t in table_ids]
        finally:
            stack.delete_keys()
            client.close()
    print(f"{args.tables} all-bot {args.game} {args.players}-player tables, bytes per table:")
    print(f"  {'':28} {'live, mean':>12} {'finished, mean':>15} {'largest finished':>17}")
    for name in sorted(set(live) | set(finished)):
        print(f"  {name:28} {live.get(name, 0):12.0f} {finished.get(name, 0):15.0f} {largest.get(name, 0):17.0f}")
    print(f"  finished tables' TTL: {min(ttls)} to {max(ttls)} s")


if __name__ == "__main__":
    main()

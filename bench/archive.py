"""What the archive costs:  python -m bench.archive [--tables N] [--game borgia] [--players 3] [--reads N]

Plays N all-bot tables of one game to the end on a local stack whose gateway reads through
to a PostgreSQL database of its own (deploy/postgres_local.py: TAVOLA_DATABASE_URL, else
the local server, else a private one; dropped at the end), with a retry window of 0, then:

- reads every table through the gateway (GetTable, and GetReplay as a spectator) while
  Redis holds them, and times them;
- archives them all in this process (gateway/archiver.py, one round of N) and reports the
  tables archived a second, by the wall clock and per CPU second of this process and of the
  PostgreSQL server's processes (psutil: the postmaster's children, its backends);
- trims them from Redis and reports the Redis bytes left per finished table (MEMORY USAGE
  of every key of theirs, and their share of the outbox and trim sets);
- reads them again, now from the archive, and times those reads beside the first.
"""

import argparse
import asyncio
import secrets
import statistics
import time

import grpc
import psutil
import redis
import redis.asyncio as aioredis

from bench.tables import _create, unfinished
from deploy.postgres_local import ensure_postgres, scratch_database
from deploy.stack import NO_QUOTAS, ROOT, Stack
from gateway.archive import Archive, migrate
from gateway.archive_format import outbox_key
from gateway.archiver import Archiver
from gateway.store import KEY_SUFFIXES, TableStore
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


def redis_bytes(client: redis.Redis, prefix: str, table_ids: list[str]) -> int:
    """Every byte Redis holds for these tables: their keys, and their outbox and trim entries."""
    total = 0
    for table_id in table_ids:
        for suffix in KEY_SUFFIXES:
            total += client.memory_usage(f"{prefix}:{{{table_id}}}:{suffix}", samples=0) or 0
    for key in (outbox_key(prefix), f"{prefix}:archive:trim"):
        held = sum(client.zscore(key, table_id) is not None for table_id in table_ids)
        size = client.zcard(key)
        if held and size:  # their share of the set
            total += (client.memory_usage(key, samples=0) or 0) * held // size
    return total


async def timed_reads(address: str, table_ids: list[str], rounds: int) -> tuple[float, float]:
    """Mean milliseconds of a GetTable and of a spectator's GetReplay, one call at a time."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        tables: list[float] = []
        replays: list[float] = []
        for _ in range(rounds):
            for table_id in table_ids:
                started = time.perf_counter()
                await stub.GetTable(gw.GetTableRequest(table_id=table_id), timeout=30)
                tables.append(time.perf_counter() - started)
                started = time.perf_counter()
                await stub.GetReplay(gw.GetReplayRequest(table_id=table_id), timeout=30)
                replays.append(time.perf_counter() - started)
    return statistics.mean(tables) * 1000, statistics.mean(replays) * 1000


def postgres_cpu(server_url: str) -> float:
    """CPU seconds of the PostgreSQL server's processes so far (its backends included),
    found by its port; 0 when they are not this machine's to read."""
    port = int(server_url.rsplit(":", 1)[1].split("/")[0]) if "@" in server_url else 5432
    for connection in psutil.net_connections(kind="tcp"):
        if connection.status == psutil.CONN_LISTEN and connection.laddr.port == port and connection.pid:
            master = psutil.Process(connection.pid)
            seconds = 0.0
            for process in [master, *master.children(recursive=True)]:
                try:
                    times = process.cpu_times()
                    seconds += times.user + times.system
                except psutil.Error:
                    continue
            return seconds
    return 0.0


async def archive_all(
    redis_url: str, prefix: str, server_url: str, database_url: str, count: int
) -> tuple[float, float, float, int, int]:
    """One round of the archiver over every table: (wall seconds, this process's CPU
    seconds, the PostgreSQL server's CPU seconds) of the copy, and the tables copied and
    trimmed. The server's are read while the archive's connections are open: a backend's
    CPU goes with it when it ends."""
    client = aioredis.Redis.from_url(redis_url)
    store = TableStore(client, prefix, 7 * 24 * 3600, retry_seconds=0)
    archive = Archive(database_url)
    await archive.open()
    await archive.version("")  # a connection up before the clock starts
    try:
        archiver = Archiver(store, archive, retry_seconds=0, batch=count)
        wall, cpu, server = time.perf_counter(), time.process_time(), postgres_cpu(server_url)
        copied = await archiver.copy_due()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        server = postgres_cpu(server_url) - server
        trimmed = await archiver.trim_due()
        return wall, cpu, server, copied, trimmed
    finally:
        await archive.close()
        await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--game", default="borgia")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--reads", type=int, default=3, help="rounds of reads over every table")
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    prefix = f"tavola-bench-{secrets.token_hex(4)}"
    server = ensure_postgres()
    try:
        with scratch_database(server.url, "tavola_bench") as database_url:
            migrate(database_url)
            with Stack(
                key_prefix=prefix,
                games=(args.game,),
                worker_bots=("random",),
                log_dir=ROOT / ".run" / "bench",
                gateway_env={
                    **NO_QUOTAS,
                    "TAVOLA_DATABASE_URL": database_url,
                    "TAVOLA_ARCHIVE_SECONDS": "0",
                    "TAVOLA_RETRY_WINDOW_SECONDS": "0",
                },
            ) as stack:
                client = redis.Redis.from_url(stack.redis_url)
                try:

                    async def create() -> list[str]:
                        async with grpc.aio.insecure_channel(stack.gateway_address) as channel:
                            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
                            return await _create(stub, [(args.game, args.players)], args.tables, "random")

                    table_ids = asyncio.run(create())
                    deadline = time.monotonic() + args.timeout
                    while unfinished(client, prefix, table_ids):
                        if time.monotonic() > deadline:
                            raise SystemExit("tables still running at the timeout")
                        time.sleep(0.5)
                    before = redis_bytes(client, prefix, table_ids)
                    from_redis = asyncio.run(timed_reads(stack.gateway_address, table_ids, args.reads))
                    wall, cpu, pg_cpu, copied, trimmed = asyncio.run(
                        archive_all(stack.redis_url, prefix, server.url, database_url, len(table_ids))
                    )
                    after = redis_bytes(client, prefix, table_ids)
                    from_archive = asyncio.run(timed_reads(stack.gateway_address, table_ids, args.reads))
                finally:
                    stack.delete_keys()
                    client.close()
    finally:
        server.stop()
    count = len(table_ids)
    print(f"{count} all-bot {args.game} {args.players}-player tables, archived {copied}, trimmed {trimmed}:")
    print(f"  archived a second: {copied / wall:.0f} (wall clock, one archiver)")
    print(f"  archived a CPU second: {copied / cpu:.0f} of the archiver", end="")
    print(f", {copied / (cpu + pg_cpu):.0f} of the archiver and PostgreSQL together" if pg_cpu else "")
    print(f"  Redis bytes per finished table: {before / count:.0f} before, {after / count:.0f} after the trim")
    print(f"  {'read, mean ms':28} {'from Redis':>11} {'from archive':>13}")
    for name, redis_ms, archive_ms in zip(("GetTable", "GetReplay"), from_redis, from_archive, strict=True):
        print(f"  {name:28} {redis_ms:11.2f} {archive_ms:13.2f}")


if __name__ == "__main__":
    main()

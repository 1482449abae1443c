"""Players' figures:  python -m bench.players [--searchers 1000] [--updates 2000]

- quick play: ``--searchers`` players search for one game (2 to 4 players) across two
  gateways, arriving at ``--rate`` a second, each on its own stream to one of the two
  gateways in turn; once with bot fill off (people only), once with it on
  (``--fill-seconds``, the gateways' bot-fill wait for this run), and once sparse (``--sparse``
  searchers a second apart, for exactly 4 players: the bot fill seats most). Every searcher must end
  seated or cleanly timed out (DEADLINE_EXCEEDED, SEARCH_TIMED_OUT), and no player or seat
  twice; printed: the time from the search's start to its seat, p50 and p99, and how many
  tables had bots;
- rating updates: ``--updates`` finished rated tables of 4 players drawn from 200 (so
  updates of one player race) queued as the gateway queues them and sent to the rating
  task on the stack's Celery worker; printed: updates applied a second, beside the same
  updates applied in this process with no broker (the script and OpenSkill alone).

A private stack (deploy/stack.py) on the Redis at REDIS_URL, under a key prefix of its own,
deleted at the end.
"""

import argparse
import asyncio
import logging
import random
import secrets
import time

import grpc
import structlog

from bench.watchers import percentile
from bots.worker import rating_tasks
from common import auth, ratings
from common.commitment import commitment
from common.errors import reason_of
from common.redis_client import connect
from common.tasks import celery_app
from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import players_pb2_grpc
from tavola.rules.v1 import rules_pb2
from tavola.store.v1 import ratings_pb2


async def make_players(stubs, count: int) -> list[str]:
    async def one(index: int) -> str:
        created = await stubs[index % 2].CreatePlayer(pl.CreatePlayerRequest(display_name=f"searcher {index}"))
        return created.player_token

    tokens = []
    for start in range(0, count, 100):
        tokens += await asyncio.gather(*(one(index) for index in range(start, min(start + 100, count))))
    return tokens


async def quick_play(stubs, tokens: list[str], rate: float, bot_fill: bool, low: int = 2, high: int = 4) -> dict:
    waits: list[float] = []
    timed_out = 0
    failures: list[str] = []
    seats: list[tuple[str, int]] = []
    tables: dict[str, gw.Table] = {}

    async def searcher(index: int, token: str) -> None:
        nonlocal timed_out
        await asyncio.sleep(index / rate)
        request = pl.FindGameRequest(game_id="borgia", min_players=low, max_players=high, bot_fill=bot_fill)
        started = time.perf_counter()
        try:
            async for message in stubs[index % 2].FindGame(request, metadata=auth.metadata(token)):
                if message.HasField("seated"):
                    waits.append(time.perf_counter() - started)
                    seats.append((message.seated.table.table_id, message.seated.seat))
                    tables[message.seated.table.table_id] = message.seated.table
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.DEADLINE_EXCEEDED and reason_of(error) == "SEARCH_TIMED_OUT":
                timed_out += 1
            else:
                failures.append(f"{error.code().name} {reason_of(error)} {error.details()}")

    await asyncio.gather(*(searcher(index, token) for index, token in enumerate(tokens)))
    with_bots = sum(1 for table in tables.values() if any(s.kind == gw.SEAT_KIND_BOT for s in table.seats))
    assert len(set(seats)) == len(seats), "a seat was given twice"
    return {
        "seated": len(waits),
        "timed_out": timed_out,
        "failed": failures,
        "tables": len(tables),
        "tables_with_bots": with_bots,
        "p50": percentile(waits, 0.5) if waits else float("nan"),
        "p99": percentile(waits, 0.99) if waits else float("nan"),
    }


def queue_jobs(redis, keys: ratings.Keys, count: int) -> list[str]:
    pool = [secrets.token_hex(8) for _ in range(200)]
    table_ids = []
    with redis.pipeline(transaction=False) as pipe:
        for _ in range(count):
            seed, salt = secrets.randbits(63), secrets.token_bytes(16)
            table = gw.Table(
                table_id=secrets.token_hex(8),
                game_id="borgia",
                player_count=4,
                status=gw.TABLE_STATUS_FINISHED,
                rated=True,
                seed_commitment=commitment(seed, salt),
                outcome=rules_pb2.GameOutcome(winners=[random.randrange(4)]),
            )
            for seat, player_id in enumerate(random.sample(pool, 4)):
                table.seats.add(seat=seat, kind=gw.SEAT_KIND_HUMAN, player_id=player_id, taken=True)
            job = ratings_pb2.RatingJob(table=table, seed=seed, seed_salt=salt)
            pipe.hset(keys.jobs, table.table_id, job.SerializeToString())
            pipe.zadd(keys.pending, {table.table_id: time.time() + 3600})
            table_ids.append(table.table_id)
        pipe.execute()
    return table_ids


def rating_updates(stack: Stack, count: int) -> tuple[float, float]:
    redis = connect(stack.redis_url)
    keys = ratings.Keys(stack.key_prefix)
    try:
        table_ids = queue_jobs(redis, keys, count)
        app = celery_app("bench-players", stack.broker_url or stack.redis_url, stack.key_prefix)
        started = time.perf_counter()
        for table_id in table_ids:
            app.send_task(ratings.RATING_TASK, args=[table_id], queue=ratings.RATINGS_QUEUE)
        while redis.hlen(keys.jobs):
            time.sleep(0.05)
        through_celery = count / (time.perf_counter() - started)

        local_keys = ratings.Keys(f"{stack.key_prefix}-local")
        table_ids = queue_jobs(redis, local_keys, count)
        started = time.perf_counter()
        for table_id in table_ids:
            assert rating_tasks.apply(redis, local_keys, table_id) == "applied"
        in_process = count / (time.perf_counter() - started)
        return through_celery, in_process
    finally:
        redis.close()


async def run_quick_play(stack: Stack, searchers: int, rate: float, sparse: int) -> dict[str, dict]:
    channels = [grpc.aio.insecure_channel(address) for address in stack.gateway_addresses]
    stubs = [players_pb2_grpc.PlayerServiceStub(channel) for channel in channels]
    results = {}
    runs = [
        (f"people only, {searchers} searchers at {rate:.0f}/s for 2-4 players", searchers, rate, False, 2, 4),
        (f"with bot fill, {searchers} searchers at {rate:.0f}/s for 2-4 players", searchers, rate, True, 2, 4),
        (f"with bot fill, {sparse} searchers at 1/s for 4 players", sparse, 1.0, True, 4, 4),
    ]
    try:
        for label, count, pace, fill, low, high in runs:
            if not count:
                continue
            tokens = await make_players(stubs, count)
            results[label] = await quick_play(stubs, tokens, pace, fill, low, high)
    finally:
        for channel in channels:
            await channel.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--searchers", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=100.0, help="searchers arriving a second")
    parser.add_argument("--fill-seconds", type=float, default=2.0, help="the gateways' bot-fill wait")
    parser.add_argument("--timeout-seconds", type=float, default=30.0, help="the gateways' search timeout")
    parser.add_argument("--sparse", type=int, default=40, help="searchers of the sparse run (1/s, 4 players)")
    parser.add_argument("--updates", type=int, default=2000)
    args = parser.parse_args()
    # The in-process updates' own log lines are not figures.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    with Stack(
        games=("borgia",),
        gateways=2,
        bots=("random", "borgia-heuristic"),
        worker_bots=("random", "borgia-heuristic"),
        key_prefix=f"bench-players-{secrets.token_hex(3)}",
        gateway_env={
            **NO_QUOTAS,
            "TAVOLA_QUICKPLAY_BOT_FILL_SECONDS": str(args.fill_seconds),
            "TAVOLA_QUICKPLAY_TIMEOUT_SECONDS": str(args.timeout_seconds),
        },
    ) as stack:
        try:
            quick = asyncio.run(run_quick_play(stack, args.searchers, args.rate, args.sparse))
            for label, figures in quick.items():
                print(
                    f"quick play, {label}, over 2 gateways: "
                    f"{figures['seated']} seated, {figures['timed_out']} timed out, {len(figures['failed'])} failed, "
                    f"none twice; {figures['tables']} tables ({figures['tables_with_bots']} with bots); "
                    f"time to a table p50 {figures['p50'] * 1000:.0f} ms, p99 {figures['p99'] * 1000:.0f} ms"
                )
                for failure in figures["failed"][:5]:
                    print(f"  failed: {failure}")
            through_celery, in_process = rating_updates(stack, args.updates)
            print(
                f"rating updates: {through_celery:.0f}/s through the Celery task ({args.updates} tables of 4 "
                f"players from 200), beside {in_process:.0f}/s applied in one process with no broker"
            )
        finally:
            stack.delete_keys()


if __name__ == "__main__":
    main()

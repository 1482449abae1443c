"""Presence's cost:  python -m bench.presence [--players 200] [--clients 16] [--seconds 10]

- SetPresence: ``--clients`` concurrent clients send SetPresence (online, away, in turn)
  for ``--players`` players to one gateway for ``--seconds``; printed: updates a second,
  the gateway's CPU per update (its process's CPU time over the run, psutil), and so the
  updates a second one core of gateway serves;
- refresh: a gateway's refresh of the players holding streams there (one pipelined trip
  for all of them every 30 s, gateway/presence.py), timed in this process for
  ``--streaming`` players; printed: players refreshed per CPU-second.

A private stack (deploy/stack.py) on the Redis at REDIS_URL under a key prefix of its own,
deleted at the end. Bounded: it stops after ``--seconds`` and one refresh.
"""

import argparse
import asyncio
import secrets
import time

import grpc
import psutil

from common.redis_client import connect_async
from deploy.stack import NO_QUOTAS, Stack
from gateway.presence import PresenceBook
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import players_pb2_grpc, social_pb2_grpc
from tavola.gateway.v1 import social_pb2 as so


async def drive(address: str, players: int, clients: int, seconds: float) -> int:
    async with grpc.aio.insecure_channel(address) as channel:
        made = players_pb2_grpc.PlayerServiceStub(channel)
        social = social_pb2_grpc.SocialServiceStub(channel)
        tokens = [
            (
                await made.CreatePlayer(pl.CreatePlayerRequest(display_name=f"present {secrets.token_hex(4)}"))
            ).player_token
            for _ in range(players)
        ]
        done = 0
        stop_at = time.monotonic() + seconds

        async def client(index: int) -> None:
            nonlocal done
            turn = index
            while time.monotonic() < stop_at:
                token = tokens[turn % len(tokens)]
                state = so.PRESENCE_STATE_ONLINE if turn % 2 else so.PRESENCE_STATE_AWAY
                await social.SetPresence(
                    so.SetPresenceRequest(state=state), metadata=(("authorization", f"Bearer {token}"),)
                )
                done += 1
                turn += clients

        await asyncio.gather(*(client(i) for i in range(clients)))
        return done


async def refresh_cost(redis_url: str, key_prefix: str, streaming: int) -> float:
    client = connect_async(redis_url)
    book = PresenceBook(client, key_prefix)
    for index in range(streaming):
        book.streaming[f"{index:016x}"] += 1
    started = time.process_time()
    await book.refresh()
    spent = time.process_time() - started
    await client.aclose()
    return streaming / max(spent, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--streaming", type=int, default=10_000)
    args = parser.parse_args()
    prefix = f"tavola-bench-presence-{secrets.token_hex(3)}"
    with Stack(key_prefix=prefix, games=("borgia",), with_worker=False, gateway_env=NO_QUOTAS) as stack:
        gateway = next(p for p in stack.processes if p.name.startswith("gateway"))
        cpu = psutil.Process(gateway.popen.pid)
        asyncio.run(drive(stack.gateway_address, min(args.players, 20), 2, 1.0))  # warm up
        before = cpu.cpu_times()
        started = time.monotonic()
        updates = asyncio.run(drive(stack.gateway_address, args.players, args.clients, args.seconds))
        elapsed = time.monotonic() - started
        after = cpu.cpu_times()
        gateway_cpu = (after.user + after.system) - (before.user + before.system)
        per_second = asyncio.run(refresh_cost(stack.redis_url, prefix, args.streaming))
        stack.delete_keys()
    # The run's elapsed time includes making the players; the rate counts the driving only.
    rate = updates / args.seconds
    print(f"presence (SetPresence, {args.clients} clients, {args.players} players, load {psutil.getloadavg()[0]:.1f}):")
    print(f"  {rate:,.0f} updates/s; gateway CPU {1000 * gateway_cpu / max(updates, 1):.3f} ms an update")
    print(f"  = {updates / max(gateway_cpu, 1e-9):,.0f} updates a second per core of gateway ({elapsed:.1f} s run)")
    print(f"  refresh of {args.streaming:,} streaming players: {per_second:,.0f} players per CPU-second (one trip)")


if __name__ == "__main__":
    main()

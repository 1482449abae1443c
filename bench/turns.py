"""Turns' figures:  python -m bench.turns [--tables 200] [--calls 200] [--turns 50]

- ListMyTables for a player seated at ``--tables`` two-player tables in progress (the most
  a player's list keeps; the player's turn index says where it is their turn, so a page
  loads about as many tables as it lists):
  ``--calls`` calls of the default page, then as many with ``your_turn_only``; printed:
  p50 and p99 in ms; then SubmitAction at those tables (up to 60 actions, each time at
  the last one in progress): commits after which the turn index is written;
- Web Push: ``--turns`` turns of a player away from the table, each timed from the
  SubmitAction that begins it to the push's arrival at a push endpoint on this machine
  (the gateway encrypts and signs each one, and posts it over HTTP); printed: p50, p99.

A private stack (deploy/stack.py) on the Redis at REDIS_URL, under a key prefix of its own,
deleted at the end.
"""

import argparse
import queue
import secrets
import time

import grpc

from bench.turn_doubles import Browser, Duel, PushService
from bench.watchers import percentile
from common import auth
from deploy.stack import NO_QUOTAS, Stack
from gateway.push import new_vapid_keys
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc, turns_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl


def timed(call, count: int) -> list[float]:
    spent = []
    for _ in range(count):
        began = time.perf_counter()
        call()
        spent.append((time.perf_counter() - began) * 1000)
    return spent


def play_one(duels: list[Duel]) -> None:
    """One action at the last table still in progress (the pushes below play the first)."""
    duel = next(duel for duel in reversed(duels) if duel.table.status == gw.TABLE_STATUS_IN_PROGRESS)
    duel.act(duel.table.deciding_seats[0])


def measure(channel: grpc.Channel, args: argparse.Namespace) -> None:
    gateway = gateway_pb2_grpc.GatewayServiceStub(channel)
    players = players_pb2_grpc.PlayerServiceStub(channel)
    turns = turns_pb2_grpc.TurnServiceStub(channel)
    tokens = [
        players.CreatePlayer(pl.CreatePlayerRequest(display_name=f"Bench {name} {secrets.token_hex(3)}")).player_token
        for name in ("Ada", "Bea")
    ]
    duels = [Duel(gateway, tokens[0], tokens[1], seed) for seed in range(args.tables)]
    ada = auth.metadata(tokens[0])
    page = timed(lambda: players.ListMyTables(pl.ListMyTablesRequest(), metadata=ada), args.calls)
    mine = pl.ListMyTablesRequest(your_turn_only=True)
    only = timed(lambda: players.ListMyTables(mine, metadata=ada), args.calls)
    p50, p99 = percentile(page, 0.5), percentile(page, 0.99)
    print(f"ListMyTables, {args.tables} tables: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    print(f"  your_turn_only: p50 {percentile(only, 0.5):.1f} ms, p99 {percentile(only, 0.99):.1f} ms")
    # The commits that begin or end a player's turn write the turn index after them.
    acts = timed(lambda: play_one(duels), min(args.calls, 60))
    print(f"SubmitAction, a turn passing: p50 {percentile(acts, 0.5):.1f} ms, p99 {percentile(acts, 0.99):.1f} ms")
    service = PushService()
    try:
        browser = Browser(service.url("/push/ada"))
        turns.AddPushSubscription(browser.request, metadata=ada)
        duel = duels[0]
        delays: list[float] = []
        for _ in range(args.turns):
            if 0 in duel.table.deciding_seats:
                duel.act(0)
            while 1 in duel.table.deciding_seats and 0 not in duel.table.deciding_seats:
                if duel.table.status != gw.TABLE_STATUS_IN_PROGRESS:
                    break
                began = time.perf_counter()
                duel.act(1)
            if duel.table.status != gw.TABLE_STATUS_IN_PROGRESS:
                duel = duels[len(delays) % len(duels) + 1]
                continue
            try:
                service.received.get(timeout=10)
            except queue.Empty:
                continue
            delays.append((time.perf_counter() - began) * 1000)
        print(
            f"turn to push ({len(delays)} turns): p50 {percentile(delays, 0.5):.1f} ms,"
            f" p99 {percentile(delays, 0.99):.1f} ms"
        )
    finally:
        service.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--turns", type=int, default=50)
    args = parser.parse_args()
    env = {**NO_QUOTAS, "TAVOLA_PUSH_VAPID_PRIVATE_KEY": new_vapid_keys()[0], "TAVOLA_PUSH_ALLOW_PRIVATE": "true"}
    prefix = f"bench-turns-{secrets.token_hex(3)}"
    with (
        Stack(games=("borgia",), key_prefix=prefix, gateway_env=env) as stack,
        grpc.insecure_channel(stack.gateway_address) as channel,
    ):
        measure(channel, args)


if __name__ == "__main__":
    main()

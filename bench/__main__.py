"""make bench: engine playouts per second, then the gateway's SubmitAction throughput and
p50/p99 latency at 1 and 16 concurrent clients, against a local stack."""

import argparse
import asyncio
import os
import platform
import secrets

from bench.engines import playouts_per_second, seat0_win_rates
from bench.gateway import submit_action
from deploy.stack import ROOT, Stack
from services.registry import game_ids, player_counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="per measurement")
    parser.add_argument("--clients", default="1,16")
    parser.add_argument("--max-submits", type=int, default=20_000, help="per client, a bound on every run")
    args = parser.parse_args()
    print(f"tavola bench on {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")

    print("\nengine random playouts (one core, this process):")
    for game in game_ids():
        counts = player_counts(game)
        rate, actions, playouts = playouts_per_second(game, counts, args.seconds)
        print(
            f"  {game:<11} {rate:9.1f} playouts/s  {actions:10.0f} actions/s  "
            f"({playouts} playouts, {counts[0]}-{counts[-1]} players)"
        )

    print("\nbot strength (offline, on the engine; seat 0 against random bots):")
    for players in (2, 3, 4, 6):
        odds, rand = seat0_win_rates(players, games=200)
        print(f"  borgia {players}p: borgia-odds in seat 0 wins {odds:5.1%} of games, random in seat 0 {rand:5.1%}")

    print("\ngateway SubmitAction (borgia, 3 players; rules service, gateway, Redis and clients share the machine):")
    prefix = f"tavola-bench-{secrets.token_hex(4)}"
    with Stack(games=("borgia",), key_prefix=prefix, with_worker=False, log_dir=ROOT / ".run" / "bench") as stack:
        print(f"  {stack.describe()[0]}")
        for clients in (int(c) for c in args.clients.split(",")):
            figures = asyncio.run(
                submit_action(stack.gateway_address, "borgia", 3, clients, args.seconds, args.max_submits)
            )
            print(
                f"  {clients:3d} clients: {figures.per_second:8.1f} submits/s  p50 {figures.p50_ms:6.2f} ms  "
                f"p99 {figures.p99_ms:6.2f} ms  ({figures.submits} submits in {figures.seconds:.1f}s)"
            )
        stack.delete_keys()


if __name__ == "__main__":
    main()

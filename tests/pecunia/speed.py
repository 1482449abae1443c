"""Random playout speed of the Pecunia non olet engine, in decisions per CPU second.

A decision is one ``apply`` call; time is this process's CPU time (one core), so other
load on the machine matters less than with wall-clock time. Run:

    python -m tests.pecunia.speed [--games N]
"""

from __future__ import annotations

import argparse
import random
import time

from services.pecunia import ENGINE

PLAYER_COUNTS = (2, 3, 4, 5, 6)


def measure(games: int) -> tuple[int, float]:
    """(decisions, CPU seconds) of ``games`` random playouts over 2-6 players, fixed seeds."""
    chooser = random.Random(1)
    decisions = 0
    started = time.process_time()
    for seed in range(games):
        state, _ = ENGINE.new_game(PLAYER_COUNTS[seed % len(PLAYER_COUNTS)], {}, seed)
        while deciders := ENGINE.deciders(state):
            seat = deciders[0]
            legal = ENGINE.legal_actions(state, seat)
            state, _ = ENGINE.apply(state, seat, legal[chooser.randrange(len(legal))])
            decisions += 1
    return decisions, time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    args = parser.parse_args()
    decisions, seconds = measure(args.games)
    rate = decisions / seconds
    print(f"{args.games} games, {decisions} decisions in {seconds:.2f} CPU s: {rate:,.0f} decisions per CPU second")


if __name__ == "__main__":
    main()

"""Random playout speed of the Mortadella engine, in decisions per CPU second.

Run: ``python -m tests.mortadella.speed [games per player count]``. Plays the same
seeded random games at 2 to 7 players with the default options and counts ``apply`` calls
against ``time.process_time`` (CPU time of this one process, so other load on the machine
matters less than with wall time). Each decision includes asking for the deciders and the
legal actions, as a playout must.
"""

import random
import sys
import time

from services.mortadella import ENGINE


def measure(games_per_count: int = 40, player_counts=range(2, 8)) -> tuple[int, float]:
    """(decisions, CPU seconds) of ``games_per_count`` random games at each player count."""
    engine = ENGINE
    decisions = 0
    started = time.process_time()
    for n in player_counts:
        for seed in range(games_per_count):
            chooser = random.Random(seed)
            state, _ = engine.new_game(n, {}, seed)
            while deciders := engine.deciders(state):
                seat = chooser.choice(deciders)
                legal = engine.legal_actions(state, seat)
                state, _ = engine.apply(state, seat, legal[chooser.randrange(len(legal))])
                decisions += 1
    return decisions, time.process_time() - started


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    decisions, seconds = measure(games)
    print(f"{decisions} decisions in {seconds:.2f} CPU s: {decisions / seconds:,.0f} decisions per CPU second")


if __name__ == "__main__":
    main()

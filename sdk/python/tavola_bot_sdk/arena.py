"""A small arena against a running tavola platform: your bot against the platform's bots.

    python -m tavola_bot_sdk.arena --gateway 127.0.0.1:50051 --game borgia \\
        --bot my_bot:decide --against ismcts --games 10
    python -m tavola_bot_sdk.arena --gateway 127.0.0.1:50051 --game borgia --bot my_bot:decide --probes

Each game is a table of its own through the gateway, your bot's seat moving round the table
from game to game; ``--probes`` plays two-player games against each of the platform's probe
bots for the game (simple, fixed ways of playing that a strong bot must beat, each aimed at
one weakness: ``ListBots`` describes each as "Probe: ..."). Win rates come with 95% Wilson
intervals; a shared win counts 1/len(winners).
"""

import argparse
import importlib
import math
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from tavola_bot_sdk.client import Client, Decide, Result

PROBE_PREFIX = "Probe:"


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Score:
    against: tuple[str, ...]
    games: int
    wins: float
    no_winner: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def line(self) -> str:
        low, high = wilson(self.wins, self.games)
        return (
            f"{', '.join(self.against):<32} {self.games:>5} {self.wins:>6.1f} {100 * self.win_rate:>8.1f}%"
            f"  [{100 * low:5.1f}%, {100 * high:5.1f}%] {self.no_winner:>9}"
        )


def probes(client: Client, game_id: str) -> list[str]:
    """The platform's probe bots that play ``game_id``."""
    return [bot.name for bot in client.bots(game_id) if bot.description.startswith(PROBE_PREFIX)]


def play(
    client: Client,
    decide: Decide,
    game_id: str,
    against: Sequence[str],
    games: int,
    options: dict[str, str] | None = None,
    tables_at_once: int = 2,
) -> Score:
    """``games`` tables of your bot against the bots ``against`` (one a seat)."""
    players = len(against) + 1

    def one(index: int) -> Result:
        seat = client.new_table(game_id, against, options, seat=index % players, name="sdk-arena")
        return seat.play(decide)

    with ThreadPoolExecutor(max_workers=max(1, tables_at_once)) as pool:
        results = list(pool.map(one, range(games)))
    wins = sum(1 / len(r.winners) for r in results if r.won)
    return Score(tuple(against), games, wins, sum(not r.winners for r in results))


def load(text: str) -> Decide:
    """``module:function`` -> the function (the module from the current directory too)."""
    module, _, name = text.partition(":")
    if not module or not name:
        raise ValueError(f"--bot {text!r}: give module:function, e.g. my_bot:decide")
    sys.path.insert(0, "")
    return getattr(importlib.import_module(module), name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tavola_bot_sdk.arena", description=__doc__.split("\n\n")[0])
    parser.add_argument("--gateway", default="127.0.0.1:50051", help="host:port of the platform's gateway")
    parser.add_argument("--secure", action="store_true", help="TLS to the gateway")
    parser.add_argument("--game", required=True, help="game id, e.g. borgia")
    parser.add_argument("--bot", required=True, help="your decide function, module:function")
    parser.add_argument("--against", default="ismcts", help="the platform's bots at the other seats, comma-separated")
    parser.add_argument("--probes", action="store_true", help="two-player games against each probe bot instead")
    parser.add_argument("--games", type=int, default=10, help="games against each opponent (or line-up)")
    parser.add_argument("--tables", type=int, default=2, help="tables played at once")
    parser.add_argument("--options", default="", help="table options, key=value,...")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        decide = load(args.bot)
    except (ValueError, ImportError, AttributeError) as error:
        parser.error(str(error))
    options = dict(item.split("=", 1) for item in args.options.split(",") if "=" in item)
    with Client(args.gateway, secure=args.secure) as client:
        if args.probes:
            lineups = [[probe] for probe in probes(client, args.game)]
            if not lineups:
                parser.error(f"the platform offers no probe bot for {args.game}")
        else:
            lineups = [[bot.strip() for bot in args.against.split(",") if bot.strip()]]
        print(f"{args.game}: {args.bot} against the platform's bots, a shared win counts 1/len(winners)")
        print(f"{'against':<32} {'games':>5} {'wins':>6} {'win rate':>9}  {'95% CI':<16} {'no winner':>9}")
        for lineup in lineups:
            score = play(client, decide, args.game, lineup, args.games, options, args.tables)
            print(score.line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

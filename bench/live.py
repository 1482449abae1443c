"""The arena through the live path: a real local platform
(``deploy.stack``: rules services, a gateway, Celery bot workers), all-bot tables created
through the gateway with the bots' seats rotated as offline, each watched to its end as a
spectator; the search each bot did per decision is read from the workers' metrics
(``tavola_bot_search_iterations``, ``tavola_bot_decision_cpu_seconds``, bots/worker/metrics.py),
and the same bots play the same number of games offline, with CPU-time budgets, for the
figures the arena's tables are measured with. Where the two differ, people meet another
bot than the one measured.

The workers' metrics are kept by bot name, so the bots of one run must have distinct names.

    python -m bench.live --game borgia --players 2 --bots ismcts,borgia-heuristic --games 10 --jobs 2

It takes the arena's arguments (``python -m bots.lab.arena``, but ``--gauntlet``).
"""

import argparse
import dataclasses
import json
import os
import sys
import urllib.request
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import grpc
from prometheus_client.parser import text_string_to_metric_families

from bots.lab.arena import GameResult, ProgressBar, checked, format_report, make_parser, play_games, seating, summarize
from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


@dataclasses.dataclass(frozen=True)
class Search:
    """The search the decisions of one bot did: counts summed over its decisions."""

    decisions: int
    iterations: float
    cpu_seconds: float
    wall_seconds: float
    ceiling_reached: int = 0

    def per_decision(self) -> dict[str, float]:
        n = max(self.decisions, 1)
        return {
            "decisions": self.decisions,
            "iterations": round(self.iterations / n, 1),
            "cpu_ms": round(1000 * self.cpu_seconds / n, 2),
            "wall_ms": round(1000 * self.wall_seconds / n, 2),
            "ceiling_reached": self.ceiling_reached,
        }


def name_of(bot: str) -> str:
    return bot.split(":", 1)[0]


def scrape(address: str) -> dict[str, dict[tuple, float]]:
    """sample name -> {sorted label items: value} of a metrics endpoint."""
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as response:
        text = response.read().decode()
    samples: dict[str, dict[tuple, float]] = defaultdict(dict)
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[sample.name][tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def worker_search(addresses: Sequence[str], game: str) -> dict[str, Search]:
    """Bot name -> the search its decisions at ``game`` did, summed over the workers."""
    totals: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    wanted = {
        "tavola_bot_search_iterations_count": "decisions",
        "tavola_bot_search_iterations_sum": "iterations",
        "tavola_bot_decision_cpu_seconds_sum": "cpu_seconds",
        "tavola_bot_decision_seconds_sum": "wall_seconds",
        "tavola_bot_decision_ceiling_total": "ceiling_reached",
    }
    for address in addresses:
        for sample, values in scrape(address).items():
            if sample not in wanted:
                continue
            for labels, value in values.items():
                named = dict(labels)
                if named.get("game") == game:
                    totals[named["bot"]][wanted[sample]] += value
    return {
        bot: Search(
            int(t["decisions"]), t["iterations"], t["cpu_seconds"], t["wall_seconds"], int(t["ceiling_reached"])
        )
        for bot, t in totals.items()
    }


def offline_search(results: Sequence[GameResult], bots: Sequence[str]) -> dict[str, Search]:
    """Bot name -> the search its decisions did in offline games (the arena's counts)."""
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for result in results:
        for index, bot in enumerate(bots):
            entry = totals[name_of(bot)]
            entry[0] += result.decisions[index]
            entry[1] += result.iterations[index] if result.iterations else 0
            entry[2] += result.seconds[index]
    return {bot: Search(int(d), i, s, s) for bot, (d, i, s) in totals.items()}


def _play_table(
    stub: gateway_pb2_grpc.GatewayServiceStub,
    game: str,
    players: int,
    bots: Sequence[str],
    options: dict[str, str],
    index: int,
) -> GameResult:
    seats = seating(index, players, len(bots))
    created = stub.CreateTable(
        gw.CreateTableRequest(
            game_id=game,
            player_count=players,
            options=options,
            bot_seats=[gw.BotSeat(seat=seat, bot=bots[bot]) for seat, bot in enumerate(seats)],
            auto_start=True,
        ),
        timeout=30,
    )
    winners: tuple[int, ...] | None = None
    request = gw.SpectateTableRequest(table_id=created.table.table_id, batched=True)
    for message in stub.SpectateTable(request, timeout=3600):
        for event in message.events:
            if event.HasField("game_finished"):
                winners = tuple(event.game_finished.outcome.winners)
    if winners is None:
        raise RuntimeError(f"table {created.table.table_id} ended its stream before its game did")
    return GameResult(index, seats, winners, (0,) * len(bots), (0.0,) * len(bots))


def play_live(
    game: str,
    players: int,
    bots: Sequence[str],
    games: int,
    options: dict[str, str] | None = None,
    tables_at_once: int = 2,
    progress: Callable[[int, int], None] | None = None,
    stack: Stack | None = None,
) -> tuple[list[GameResult], dict[str, Search]]:
    """Plays ``games`` all-bot tables on a local platform it starts (or on ``stack``, running),
    ``tables_at_once`` at a time; the results and, per bot name, the search its decisions did."""
    names = [name_of(bot) for bot in dict.fromkeys(bots)]
    if len(set(names)) != len(names):
        raise ValueError("the live arena tells bots apart by name: give bots of distinct names")
    own = stack is None
    if stack is None:
        stack = Stack(
            key_prefix=f"tavola-live-{os.getpid()}",
            bots=tuple(dict.fromkeys(names)),
            worker_bots=tuple(dict.fromkeys(names)),
            gateway_env=dict(NO_QUOTAS),
        )
        stack.start()
    try:
        workers = [address for name, address in stack.metrics_addresses.items() if name.startswith("bot-worker")]
        before = worker_search(workers, game)
        results: list[GameResult] = []
        with grpc.insecure_channel(stack.gateway_address) as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            with ThreadPoolExecutor(max_workers=max(1, tables_at_once)) as pool:
                jobs = [
                    pool.submit(_play_table, stub, game, players, bots, dict(options or {}), i) for i in range(games)
                ]
                for job in jobs:
                    results.append(job.result())
                    if progress:
                        progress(len(results), games)
        after = worker_search(workers, game)
    finally:
        if own:
            stack.delete_keys()
            stack.stop()
    zero = Search(0, 0.0, 0.0, 0.0)
    done = {
        bot: Search(
            total.decisions - before.get(bot, zero).decisions,
            total.iterations - before.get(bot, zero).iterations,
            total.cpu_seconds - before.get(bot, zero).cpu_seconds,
            total.wall_seconds - before.get(bot, zero).wall_seconds,
            total.ceiling_reached - before.get(bot, zero).ceiling_reached,
        )
        for bot, total in after.items()
    }
    return results, done


def format_search(live: dict[str, Search], offline: dict[str, Search]) -> str:
    lines = [
        "search per decision, live (the workers' metrics) beside offline (the arena, CPU-time budgets):",
        f"{'bot':<24} {'decisions':>9} {'iterations':>10} {'CPU ms':>8} {'wall ms':>8} {'ceiling':>7}"
        f"   {'offline: decisions':>18} {'iterations':>10} {'CPU ms':>8}",
    ]
    for bot in sorted(set(live) | set(offline)):
        here = live.get(bot, Search(0, 0.0, 0.0, 0.0)).per_decision()
        there = offline.get(bot, Search(0, 0.0, 0.0, 0.0)).per_decision()
        lines.append(
            f"{bot:<24} {here['decisions']:>9} {here['iterations']:>10.1f} {here['cpu_ms']:>8.2f} "
            f"{here['wall_ms']:>8.2f} {here['ceiling_reached']:>7}   {there['decisions']:>18} "
            f"{there['iterations']:>10.1f} {there['cpu_ms']:>8.2f}"
        )
    return "\n".join(lines)


def run_live(parser: argparse.ArgumentParser, args: argparse.Namespace, bots: list[str], options: dict) -> int:
    try:
        results, live_search = play_live(
            args.game,
            args.players,
            bots,
            args.games,
            options,
            max(1, args.jobs),
            ProgressBar(f"{args.game} {args.players}p live"),
        )
    except ValueError as error:
        parser.error(str(error))
    offline = play_games(
        args.game,
        args.players,
        bots,
        args.games,
        args.seed,
        max(1, args.jobs),
        options,
        ProgressBar(f"{args.game} {args.players}p offline"),
        "cpu",
    )
    live_report = summarize(args.game, args.players, bots, args.seed, options, results, "wall")
    offline_report = summarize(args.game, args.players, bots, args.seed, options, offline, "cpu")
    searched_offline = offline_search(offline, bots)
    if args.json:
        searched = {
            "live": {bot: search.per_decision() for bot, search in live_search.items()},
            "offline": {bot: search.per_decision() for bot, search in searched_offline.items()},
        }
        print(json.dumps({"live": live_report, "offline": offline_report, "search": searched}, indent=2))
    else:
        print("live, through the gateway and the bot workers:\n" + format_report(live_report))
        print("\noffline:\n" + format_report(offline_report))
        print("\n" + format_search(live_search, searched_offline))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser("python -m bench.live", (__doc__ or "").split("\n\n")[0])
    args = parser.parse_args(argv)
    if args.gauntlet:
        parser.error("--gauntlet plays offline: python -m bots.lab.arena --gauntlet")
    bots, options = checked(parser, args)
    return run_live(parser, args, bots, options)


if __name__ == "__main__":
    sys.exit(main())

"""make demo: the platform's main job, end to end.

Starts Redis (if none answers at REDIS_URL), the rules services, the gateway and a Celery
bot worker; plays many tables of bots concurrently through the gateway, watching each as a
spectator, with a live progress line (tables finished per game, actions/s); prints each
table's result and a summary per game and per bot; stops everything it started.
"""

import argparse
import asyncio
import itertools
import secrets
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import grpc

from common.tasks import ALL_BOT_BEGUN_AT_VERSION
from deploy.stack import NO_QUOTAS, ROOT, Stack
from services.bot_specs import load_bots
from services.registry import game_ids, player_counts
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc

# Every table plays to the end well within this; a slower one is reported as stuck.
TABLE_TIMEOUT_SECONDS = 600


@dataclass(frozen=True)
class TableSpec:
    game: str
    players: int
    options: dict[str, str]
    first_bot: str = "random"  # seat 0's bot; the other seats play random

    def label(self) -> str:
        flags = ", ".join(f"{k}={v}" for k, v in sorted(self.options.items())) or "defaults"
        seat0 = "" if self.first_bot == "random" else f", seat 0: {self.first_bot}"
        return f"{self.game} {self.players}p ({flags}{seat0})"


def borgia_tables(count: int) -> list[TableSpec]:
    """Player counts 2-6 in turn, with the variants (B10) spread across them."""
    variants = itertools.cycle(
        [
            {},
            {"flame_of_thy_tongue": "true"},
            {"poisoned_dice": "true"},
            {"flame_of_thy_tongue": "true", "poisoned_dice": "true"},
        ]
    )
    specs = []
    for index in range(count):
        players = 2 + index % 5
        options = dict(next(variants))
        if players == 2 and index % 2 == 0:
            options["shadow_puppets"] = "true"
        specs.append(TableSpec("borgia", players, options, seat0_bot("borgia", index)))
    return specs


SEARCH_BOT = "ismcts:budget_ms=20"  # a short budget keeps the demo quick


def seat0_bot(game: str, index: int) -> str:
    """Seat 0 of every third table is the game's heuristic bot (when the bot registry has
    one for it), of every third the search bot, and random otherwise; the other seats
    play random."""
    heuristic = f"{game}-heuristic"
    spec = load_bots().get(heuristic)
    return ("random", heuristic if spec is not None and spec.plays(game) else "random", SEARCH_BOT)[index % 3]


def pecunia_tables(count: int) -> list[TableSpec]:
    """Player counts 2-6 in turn; every fourth table plays the alternative 'gentle' deck."""
    return [
        TableSpec("pecunia", 2 + index % 5, {"deck": "gentle"} if index % 4 == 3 else {}, seat0_bot("pecunia", index))
        for index in range(count)
    ]


def mortadella_tables(count: int) -> list[TableSpec]:
    """Player counts 2-7 in turn (M18, M20); every fourth table without the additional rules."""
    return [
        TableSpec(
            "mortadella",
            2 + index % 6,
            {"additional_rules": "false"} if index % 4 == 3 else {},
            seat0_bot("mortadella", index),
        )
        for index in range(count)
    ]


def registry_tables(game: str, count: int) -> list[TableSpec]:
    """Any registered game: its player counts in turn, with its default options."""
    counts = player_counts(game)
    return [TableSpec(game, counts[index % len(counts)], {}, seat0_bot(game, index)) for index in range(count)]


# Games whose tables also cover their variants; every other registered game plays registry_tables.
TABLE_SETS = {"borgia": borgia_tables, "mortadella": mortadella_tables, "pecunia": pecunia_tables}


def tables_of(game: str, count: int) -> list[TableSpec]:
    table_set = TABLE_SETS.get(game)
    return table_set(count) if table_set is not None else registry_tables(game, count)


@dataclass
class TableResult:
    spec: TableSpec
    table_id: str
    summary: str
    actions: int
    seconds: float
    events: int
    winners: tuple[int, ...] = ()


@dataclass
class Progress:
    """What the live line shows: tables finished per game, actions so far (from the table
    version each spectator stream carries)."""

    total: Counter = field(default_factory=Counter)
    finished: Counter = field(default_factory=Counter)
    versions: dict[str, int] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)

    def actions(self) -> int:
        return sum(max(version - ALL_BOT_BEGUN_AT_VERSION, 0) for version in self.versions.values())

    def line(self) -> str:
        games = "  ".join(f"{game} {self.finished[game]}/{count}" for game, count in self.total.items())
        seconds = max(time.monotonic() - self.started, 1e-9)
        actions = self.actions()
        return f"{games}  |  {actions} actions, {actions / seconds:.0f} actions/s, {seconds:.0f}s"


async def show_progress(progress: Progress, live: bool) -> None:
    """Rewrites one line on a terminal; prints a line every few seconds elsewhere (logs, CI)."""
    while True:
        await asyncio.sleep(0.5 if live else 10)
        if live:
            print(f"\r{progress.line()}\033[K", end="", flush=True)
        else:
            print(progress.line(), flush=True)


async def play_table(
    stub: gateway_pb2_grpc.GatewayServiceStub, spec: TableSpec, seed: int, progress: Progress
) -> TableResult:
    started = time.monotonic()
    created = await stub.CreateTable(
        gw.CreateTableRequest(
            game_id=spec.game,
            player_count=spec.players,
            options=spec.options,
            bot_seats=[
                gw.BotSeat(seat=seat, bot=spec.first_bot if seat == 0 else "random") for seat in range(spec.players)
            ],
            auto_start=True,
            seed=seed,
        )
    )
    table_id = created.table.table_id
    events = 0
    finished = None
    async for message in stub.SpectateTable(gw.SpectateTableRequest(table_id=table_id), timeout=TABLE_TIMEOUT_SECONDS):
        events += 1
        progress.versions[table_id] = message.event.version
        if message.event.HasField("game_finished"):
            finished = message.event
    if finished is None:
        raise RuntimeError(f"table {table_id} ended its stream without finishing")
    table = (await stub.GetTable(gw.GetTableRequest(table_id=table_id))).table
    progress.versions[table_id] = table.version
    progress.finished[spec.game] += 1
    return TableResult(
        spec,
        table_id,
        table.outcome.summary,
        table.version - ALL_BOT_BEGUN_AT_VERSION,
        time.monotonic() - started,
        events,
        tuple(table.outcome.winners),
    )


async def play_all(address: str, specs: list[TableSpec], seed: int, live: bool) -> list[TableResult]:
    progress = Progress(total=Counter(spec.game for spec in specs))
    reporter = asyncio.create_task(show_progress(progress, live))
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            tables = (play_table(stub, spec, seed + index, progress) for index, spec in enumerate(specs))
            return await asyncio.gather(*tables)
    finally:
        reporter.cancel()
        if live:
            print(f"\r{progress.line()}\033[K", flush=True)


def seat_bot(spec: TableSpec, seat: int) -> str:
    return spec.first_bot if seat == 0 else "random"


def summary_lines(results: list[TableResult]) -> list[str]:
    """Per game: tables, actions, average length, wins by seat; per bot: seats played, wins."""
    lines = []
    by_game: dict[str, list[TableResult]] = defaultdict(list)
    for result in results:
        by_game[result.spec.game].append(result)
    lines.append(f"{'game':<12} {'tables':>6} {'actions':>8} {'avg length':>10}  wins by seat (no winner)")
    for game, tables in by_game.items():
        actions = sum(result.actions for result in tables)
        seats = Counter(seat for result in tables for seat in result.winners)
        nobody = sum(1 for result in tables if not result.winners)
        seat_wins = "  ".join(f"seat {seat}: {count}" for seat, count in sorted(seats.items()))
        lines.append(f"{game:<12} {len(tables):>6} {actions:>8} {actions / len(tables):>10.1f}  {seat_wins} ({nobody})")
    lines.append("")
    lines.append(f"{'bot':<24} {'game':<12} {'seats':>6} {'wins':>6} {'win rate':>9}")
    seats_played: Counter[tuple[str, str]] = Counter()
    wins: Counter[tuple[str, str]] = Counter()
    for result in results:
        for seat in range(result.spec.players):
            key = (seat_bot(result.spec, seat), result.spec.game)
            seats_played[key] += 1
            wins[key] += seat in result.winners
    for (bot, game), count in sorted(seats_played.items()):
        lines.append(f"{bot:<24} {game:<12} {count:>6} {wins[bot, game]:>6} {wins[bot, game] / count:>9.0%}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=21, help="tables per game")
    parser.add_argument(
        "--games", default=",".join(game_ids()), help="comma-separated game ids (default: every registered game)"
    )
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    games = tuple(game for game in args.games.split(",") if game)
    unknown = [game for game in games if game not in game_ids()]
    if unknown:
        parser.error(f"no game {', '.join(unknown)} (registered: {', '.join(game_ids())})")
    specs = [spec for game in games for spec in tables_of(game, args.tables)]

    log_dir = ROOT / ".run" / "demo"
    print(f"tavola demo: {len(specs)} tables of bots ({', '.join(games)}), logs in {log_dir.relative_to(ROOT)}/")
    # The demo's keys live under a prefix of this run's and go when it ends: the tables are
    # gone with the platform anyway, and a shared Redis keeps nothing of the demo.
    with Stack(
        games=games,
        key_prefix=f"tavola-demo-{secrets.token_hex(4)}",
        table_ttl_seconds=3600,
        log_dir=log_dir,
        gateway_env=dict(NO_QUOTAS),
        archive=True,
    ) as stack:
        for line in stack.describe():
            print(f"  {line}")
        started = time.monotonic()
        try:
            results = asyncio.run(play_all(stack.gateway_address, specs, args.seed, sys.stdout.isatty()))
        except (grpc.RpcError, RuntimeError) as error:
            print(f"demo failed: {error}", file=sys.stderr)
            return 1
        finally:
            stack.delete_keys()
        wall = time.monotonic() - started
    print()
    width = max(len(result.spec.label()) for result in results)
    for result in results:
        print(
            f"{result.table_id}  {result.spec.label():<{width}} {result.actions:4d} actions  "
            f"{result.seconds:6.1f}s  {result.summary}"
        )
    actions = sum(result.actions for result in results)
    print()
    for line in summary_lines(results):
        print(line)
    print()
    print(
        f"summary: {len(results)} tables finished, {actions} actions, "
        f"wall time {wall:.1f}s, {actions / wall:.0f} actions/s"
    )
    print("stopped every process the demo started")
    return 0


if __name__ == "__main__":
    sys.exit(main())

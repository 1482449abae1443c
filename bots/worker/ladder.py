"""The ladder: rated bot-against-bot tables, played on and on, so every bot setting has a
rating on the same scale as people's.

    python -m bots.worker.ladder --games borgia,pecunia --bots "random;ismcts:budget_ms=20;..."

A client of the public API like any other: it creates rated tables whose every seat is a
bot (auto-start), waits for each to end, and starts the next. Their bot tasks go at the
lowest priority (tables with nobody at them: common/tasks.py ALL_BOT_PRIORITY), so a worker
takes them only when no person's table waits. Its share of the workers is capped by the
number of its tables in play at once (``--tables``, TAVOLA_LADDER_TABLES, default 1): a
table's bots decide one at a time, so N tables hold at most N worker slots, whatever the
bots' budgets. 0 tables: the ladder does nothing (``make run`` starts none; the compose and
Kubernetes files run one with 2 tables, deploy/generate.py). With TAVOLA_METRICS_PORT it
serves its metrics (tables finished, its cap) there, and when off it waits to be stopped
rather than exit, so a container that runs it is not restarted over and over.

Each table seats 2 distinct settings, the first drawn at random and the second among its
neighbours by rating (the nearest few), so neighbouring settings meet most: what calibrates
the scale between them.
"""

import argparse
import contextlib
import random
import signal
import threading

import grpc
import structlog
from prometheus_client import Counter, Gauge

from common import generated, metrics, settings
from common import logging as tavola_logging
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc

log = structlog.get_logger()

NEIGHBOURS = 2
FINISHED = Counter("tavola_ladder_tables_finished", "Rated bot tables the ladder saw to their end", ["game"])
CAP = Gauge("tavola_ladder_tables_cap", "The ladder's tables in play at once (TAVOLA_LADDER_TABLES), its worker slots")


def pairing(bots: list[str], ratings: dict[str, float], rng: random.Random) -> list[str]:
    """Two distinct settings: one at random, and one of its nearest neighbours by rating."""
    first = rng.choice(bots)
    others = sorted(
        (b for b in bots if b != first), key=lambda b: abs(ratings.get(b, 1500.0) - ratings.get(first, 1500.0))
    )
    return [first, rng.choice(others[:NEIGHBOURS])]


class Ladder:
    def __init__(self, stub: gateway_pb2_grpc.GatewayServiceStub, games: list[str], bots: list[str], tables: int):
        if len(set(bots)) < 2:
            raise ValueError("a ladder needs at least two bot settings")
        self.stub = stub
        self.games = games
        self.bots = bots
        self.tables = tables
        self.finished = 0
        self.stopping = threading.Event()
        self.rng = random.Random()

    def ratings(self, game_id: str) -> dict[str, float]:
        listed = self.stub.ListBots(gw.ListBotsRequest(game_id=game_id))
        return {rated.bot: rated.rating for bot in listed.bots for rated in bot.ratings}

    def play_one(self) -> str:
        game_id = self.rng.choice(self.games)
        seats = pairing(self.bots, self.ratings(game_id), self.rng)
        created = self.stub.CreateTable(
            gw.CreateTableRequest(
                game_id=game_id,
                player_count=len(seats),
                rated=True,
                auto_start=True,
                bot_seats=[gw.BotSeat(seat=seat, bot=bot) for seat, bot in enumerate(seats)],
            )
        )
        table_id = created.table.table_id
        while not self.stopping.is_set():
            table = self.stub.GetTable(gw.GetTableRequest(table_id=table_id)).table
            if table.status == gw.TABLE_STATUS_FINISHED:
                self.finished += 1
                FINISHED.labels(game_id).inc()
                log.info("ladder_table_finished", table_id=table_id, game=game_id, bots=seats)
                break
            self.stopping.wait(1.0)
        return table_id

    def run_lane(self) -> None:
        while not self.stopping.is_set():
            try:
                self.play_one()
            except grpc.RpcError as error:
                log.warning("ladder_table_failed", code=error.code().name, details=error.details())
                self.stopping.wait(5.0)

    def run(self, duration: float | None = None) -> None:
        lanes = [threading.Thread(target=self.run_lane, daemon=True) for _ in range(self.tables)]
        for lane in lanes:
            lane.start()
        self.stopping.wait(duration)
        self.stopping.set()
        for lane in lanes:
            lane.join()


def main() -> None:
    generated.check()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tavola_logging.configure("ladder")
    with settings.exit_on_bad_config():  # a bad setting: one line, no traceback
        settings.check()
        gateway = settings.text("TAVOLA_GATEWAY")
        games = settings.text("TAVOLA_LADDER_GAMES")
        bots = settings.text("TAVOLA_LADDER_BOTS")
        tables = settings.integer("TAVOLA_LADDER_TABLES")
    parser.add_argument("--gateway", default=gateway)
    parser.add_argument("--games", default=games)
    parser.add_argument("--bots", default=bots, help="bot settings separated by ';'")
    parser.add_argument("--tables", type=int, default=tables)
    parser.add_argument("--seconds", type=float, default=None, help="stop after this long (default: never)")
    args = parser.parse_args()
    serving = metrics.serve_from_env() is not None
    CAP.set(max(args.tables, 0))
    if args.tables <= 0:
        log.info("ladder_off")
        if serving:  # a container's: wait to be stopped
            stop = threading.Event()
            signal.signal(signal.SIGTERM, lambda *_: stop.set())
            with contextlib.suppress(KeyboardInterrupt):
                stop.wait()
        return
    with grpc.insecure_channel(args.gateway) as channel:
        ladder = Ladder(
            gateway_pb2_grpc.GatewayServiceStub(channel),
            [game.strip() for game in args.games.split(",") if game.strip()],
            [bot.strip() for bot in args.bots.split(";") if bot.strip()],
            args.tables,
        )
        log.info("ladder_started", tables=args.tables, bots=ladder.bots, games=ladder.games)
        try:
            ladder.run(args.seconds)
        except KeyboardInterrupt:
            ladder.stopping.set()
    log.info("ladder_stopped", finished=ladder.finished)


if __name__ == "__main__":
    main()

"""The ratings farm:  python -m bench.farm [--regulars 40] [--max-accounts 300]

How many fresh accounts one player must play to reach the top 10 of a game's leaderboard.
Every table is rated Pecunia for two, to a target of one sesterce (a few moves a game), and
every result goes through the gateway and the rating worker as any other:

1. the leaderboard is made first, honestly: two bots (``random``, ``pecunia-heuristic``)
   play TAVOLA_PROVISIONAL_GAMES tables against each other, then ``--regulars`` players
   play that many tables each against the random bot (their moves at random);
2. a new farmer: a new player whose every table is against a fresh account of its own
   (one CreatePlayer each), the farmer playing both seats at random, so it wins about half
   of them and loses the rest, until it is in the top 10 (or ``--max-accounts`` are used);
3. an established farmer: a player made as a regular, in the board's lower half (another
   made while one lands above it), then the same farm.

Printed: the leaderboard (its size and its 10th conservative rating), then each farmer's
standing every ``--report`` accounts and at the end: the accounts it took (or used up).
A private stack (deploy/stack.py) on the Redis at REDIS_URL, under a key
prefix of its own, deleted at the end.
"""

import argparse
import os
import random
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import grpc

from common import auth
from common.errors import reason_of
from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl

GAME = "pecunia"
OPTIONS = {"target": "1"}
BOTS = ("random", "pecunia-heuristic")
TOP = 10


@dataclass
class Farm:
    """A gateway's two services, and how the tables went."""

    gateway: gateway_pb2_grpc.GatewayServiceStub
    players: players_pb2_grpc.PlayerServiceStub
    rng: random.Random = field(default_factory=random.Random)

    def new_player(self, name: str) -> tuple[str, str]:
        # A suffix of its own: no two players may look alike, and runs share a gateway.
        unique = f"{name} {secrets.token_hex(3)}"
        created = self.players.CreatePlayer(pl.CreatePlayerRequest(display_name=unique))
        return created.player.player_id, created.player_token

    def games(self, player_id: str) -> int:
        page = self.players.GetPlayer(pl.GetPlayerRequest(player_id=player_id))
        return next((rating.games for rating in page.ratings if rating.game_id == GAME), 0)

    def rating(self, player_id: str) -> pl.Rating:
        page = self.players.GetPlayer(pl.GetPlayerRequest(player_id=player_id))
        return next((rating for rating in page.ratings if rating.game_id == GAME), pl.Rating())

    def rank(self, player_id: str) -> int | None:
        """The player's place on the leaderboard, None when it is not on it."""
        request = pl.ListLeaderboardRequest(game_id=GAME, page_size=1, around_player_id=player_id)
        try:
            entries = self.players.ListLeaderboard(request).entries
        except grpc.RpcError as error:
            if reason_of(error) == "NOT_ON_LEADERBOARD":
                return None
            raise
        return entries[0].rank if entries else None

    def play(self, tokens: dict[int, str], bots: dict[int, str] | None = None) -> gw.Table:
        """One rated table: ``tokens`` (seat -> player token) take their seats, ``bots``
        the others; the players' moves at random. Returns the finished table."""
        created = self.gateway.CreateTable(
            gw.CreateTableRequest(
                game_id=GAME,
                player_count=2,
                options=OPTIONS,
                rated=True,
                auto_start=True,
                bot_seats=[gw.BotSeat(seat=seat, bot=bot) for seat, bot in (bots or {}).items()],
            )
        )
        table_id = created.table.table_id
        seats = {}
        for seat, token in sorted(tokens.items()):
            taken = self.gateway.TakeSeat(
                gw.TakeSeatRequest(table_id=table_id, seat=seat), metadata=auth.metadata(token)
            )
            seats[seat] = taken.seat_token
        moves = 0
        while True:
            table = self.gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
            if table.status == gw.TABLE_STATUS_FINISHED:
                return table
            mine = [seat for seat in table.deciding_seats if seat in seats]
            if not mine:  # a bot's turn
                time.sleep(0.02)
                continue
            seat = self.rng.choice(mine)
            view = self.gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(seats[seat]))
            if not view.must_decide:
                continue
            choice = self.rng.choice(list(view.legal_actions))
            request = gw.SubmitActionRequest(
                table_id=table_id, action=choice.action, expected_version=view.table.version, request_id=f"m{moves}"
            )
            try:
                self.gateway.SubmitAction(request, metadata=auth.metadata(seats[seat]))
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.ABORTED:  # a bot moved first: look again
                    raise
            moves += 1

    def rated(self, player_id: str, games: int, timeout: float = 60.0) -> None:
        """Waits until the rating worker has counted ``games`` rated games of the player."""
        deadline = time.monotonic() + timeout
        while self.games(player_id) < games:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{player_id}'s rating did not count game {games}")
            time.sleep(0.05)

    def bot_table(self) -> None:
        self.play({}, dict(enumerate(BOTS)))

    def regular(self, name: str, tables: int) -> tuple[str, str]:
        """A player established honestly, ``tables`` tables against the random bot: its id
        and token."""
        player_id, token = self.new_player(name)
        for index in range(tables):
            self.play({index % 2: token}, {1 - index % 2: BOTS[0]})
            self.rated(player_id, index + 1)
        return player_id, token

    def farm_one(self, farmer_id: str, farmer_token: str, index: int) -> bool:
        """One fresh account at a table with the farmer; whether the farmer won."""
        before = self.games(farmer_id)
        _, fresh_token = self.new_player(f"fresh {index}")
        seat = index % 2
        table = self.play({seat: farmer_token, 1 - seat: fresh_token})
        self.rated(farmer_id, before + 1)
        return seat in table.outcome.winners


def establish_board(farm: Farm, regulars: int, provisional: int, threads: int = 4) -> list[str]:
    """The bots' tables, then the regulars', in ``threads`` at once; their ids."""
    for _ in range(provisional):
        farm.bot_table()
    with ThreadPoolExecutor(threads) as pool:
        return [
            player_id for player_id, _ in pool.map(lambda i: farm.regular(f"regular {i}", provisional), range(regulars))
        ]


def run_farm(
    farm: Farm, farmer_id: str, farmer_token: str, max_accounts: int, report: Callable[[int, int], None]
) -> tuple[int, int, int | None]:
    """Fresh accounts until the farmer is in the top 10: (accounts used, farmer's wins,
    its place at the end)."""
    wins = 0
    for used in range(1, max_accounts + 1):
        wins += farm.farm_one(farmer_id, farmer_token, used)
        rank = farm.rank(farmer_id)
        report(used, wins)
        if rank is not None and rank <= TOP:
            return used, wins, rank
    return max_accounts, wins, farm.rank(farmer_id)


def board_line(farm: Farm) -> str:
    board = farm.players.ListLeaderboard(pl.ListLeaderboardRequest(game_id=GAME, page_size=TOP))
    tenth = board.entries[-1].rating.conservative if len(board.entries) >= TOP else None
    return f"{board.total} players, the {TOP}th at conservative {tenth}"


def farm_line(farm: Farm, farmer_id: str, used: int, wins: int) -> str:
    rating = farm.rating(farmer_id)
    place = farm.rank(farmer_id)
    where = f"place {place}" if place is not None else "not on the leaderboard"
    return (
        f"{used} fresh accounts ({wins} won): rating {rating.rating} ± {rating.uncertainty}, "
        f"conservative {rating.conservative}, {rating.games} rated games, {where}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--regulars", type=int, default=40)
    parser.add_argument("--max-accounts", type=int, default=300)
    parser.add_argument("--report", type=int, default=50, help="print the farmer's standing every this many accounts")
    parser.add_argument("--seed", type=int, default=1, help="of the moves the bench picks")
    args = parser.parse_args()
    provisional = int(os.environ.get("TAVOLA_PROVISIONAL_GAMES", "10"))
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    started = time.monotonic()
    with Stack(
        redis_url=redis_url,
        key_prefix=f"bench-farm-{secrets.token_hex(3)}",
        games=(GAME,),
        bots=BOTS,
        gateway_env=dict(NO_QUOTAS),
    ) as stack:
        with grpc.insecure_channel(stack.gateway_address) as channel:
            farm = Farm(
                gateway_pb2_grpc.GatewayServiceStub(channel),
                players_pb2_grpc.PlayerServiceStub(channel),
                random.Random(args.seed),
            )
            establish_board(farm, args.regulars, provisional)
            print(f"TAVOLA_PROVISIONAL_GAMES={provisional}, {args.regulars} regulars: {board_line(farm)}")

            # A new account whose every rated game is against a fresh account of its own.
            farmer_id, farmer_token = farm.new_player("new farmer")

            def report(used: int, wins: int) -> None:
                if used % args.report == 0:
                    print(f"  {farm_line(farm, farmer_id, used, wins)}")

            used, wins, _ = run_farm(farm, farmer_id, farmer_token, args.max_accounts, report)
            print(f"a new farmer, after {farm_line(farm, farmer_id, used, wins)}")

            # A player established against the random bot (as the regulars were), in the
            # board's lower half (another is made while one lands above it, up to ten), then
            # the farm.
            for attempt in range(10):
                farmer_id, farmer_token = farm.regular(f"farmer {attempt}", provisional)
                place = farm.rank(farmer_id)
                if place is None or place > (args.regulars + 2) // 2:
                    break
            print(f"an established farmer before the farm: {farm_line(farm, farmer_id, 0, 0)}; {board_line(farm)}")
            used, wins, _ = run_farm(farm, farmer_id, farmer_token, args.max_accounts, report)
            print(f"the established farmer, after {farm_line(farm, farmer_id, used, wins)}")
        stack.delete_keys()
    print(f"{time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()

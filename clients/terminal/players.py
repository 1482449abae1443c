"""Players in the terminal:  python -m clients.terminal.players <command>

    create NAME                 make a player; its token is saved (owner only) for the rest
    me | player [ID]            a player's page: ratings with uncertainty, recent rated tables
    leaderboard GAME [--me]     a game's leaderboard: the top, or the page around you
    tables                      your tables
    quick GAME [--players 2-4] [--rated] [--no-bots] [--finishers SHARE]
                                quick play: wait for a table, show the ratings at it, then
                                play it in the terminal client
    rejoin TABLE_ID             take your seat back on this device, and play it
    sign-out-everywhere         end every session of your player (a token or a device in
                                other hands): a new token is saved here, every device's
                                seat tokens stop working; rejoin a table to play it here

The player token is kept in ``player.json``: in TAVOLA_CLIENT_DIR when set, else in
~/.local/state/tavola; ``create`` never writes over a saved player without --replace. The
gateway is --gateway, TAVOLA_GATEWAY or 127.0.0.1:TAVOLA_PORT.
"""

import argparse
import sys
import time

import grpc

from clients.terminal.__main__ import main as play
from clients.terminal.player_file import save_token, saved_token, token_path
from clients.terminal.session import SavedSeat, default_gateway, explain
from common import auth
from common.names import printable, seat_label
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl


def rating_line(rating: pl.Rating) -> str:
    note = " (provisional)" if rating.provisional else ""
    return (
        f"{rating.game_id:<12} {rating.rating:6.0f} ± {rating.uncertainty:<4.0f} "
        f"{rating.games} games, {rating.wins} wins{note}"
    )


def show_player(page: pl.GetPlayerResponse) -> None:
    player = page.player
    print(f"{printable(player.display_name)}  ({player.player_id}{', a bot' if player.bot else ''})")
    for rating in page.ratings:
        print("  " + rating_line(rating))
    if not page.ratings:
        print("  no rated games yet")
    elif not player.bot:
        record = page.reputation
        print(f"  finished {record.finished} of {record.games} rated games")
    for line in page.recent_tables:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(line.finish_time.seconds))
        print(
            f"  {when}  {line.game_id:<11} place {line.place} of {line.player_count}  "
            f"{line.rating_change:+.0f}  table {line.table_id}"
        )


def show_ratings_at(players: players_pb2_grpc.PlayerServiceStub, table: gw.Table) -> None:
    """The ratings of everyone at a table, before it is played."""
    print(f"Table {table.table_id} ({table.game_id}{', rated' if table.rated else ''}):")
    for seat in table.seats:
        who = seat.player_id or (f"bot:{seat.bot}" if seat.kind == gw.SEAT_KIND_BOT else "")
        rating = ""
        if who:
            page = players.GetPlayer(pl.GetPlayerRequest(player_id=who, recent_tables=0))
            rated = [r for r in page.ratings if r.game_id == table.game_id]
            rating = rating_line(rated[0])[13:] if rated else "no rated games here yet"
        print(f"  {seat_label(seat.seat)}  {printable(seat.display_name or seat.bot):<24} {rating}")


def play_seat(address: str, seated: gw.TakeSeatResponse) -> int:
    SavedSeat(seated.table.table_id, seated.seat, seated.seat_token, address, seated.table.game_id).save()
    return play(["--gateway", address, "--rejoin", seated.table.table_id])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gateway", default=default_gateway())
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create")
    create.add_argument("name")
    create.add_argument("--replace", action="store_true", help="replace the player saved here (its token is lost)")
    commands.add_parser("me")
    commands.add_parser("player").add_argument("player_id")
    board = commands.add_parser("leaderboard")
    board.add_argument("game")
    board.add_argument("--me", action="store_true", help="the page around you")
    commands.add_parser("tables")
    quick = commands.add_parser("quick")
    quick.add_argument("game")
    quick.add_argument("--players", default="2-4", help="a count or a range (2-4)")
    quick.add_argument("--rated", action="store_true")
    quick.add_argument("--no-bots", action="store_true", help="wait for people only")
    quick.add_argument(
        "--finishers",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="only players who finished at least this share of their rated games (e.g. 0.9)",
    )
    quick.add_argument("--no-play", action="store_true", help="only print the seat")
    commands.add_parser("rejoin").add_argument("table_id")
    commands.add_parser("sign-out-everywhere")
    args = parser.parse_args(argv)

    with grpc.insecure_channel(args.gateway) as channel:
        players = players_pb2_grpc.PlayerServiceStub(channel)
        try:
            if args.command == "create":
                if token_path().exists() and not args.replace:
                    # The token is the player: writing over it would lose that player for good.
                    raise SystemExit(
                        f"a player is already saved in {token_path()}; another here would lose its token."
                        " Use --replace, or another TAVOLA_CLIENT_DIR."
                    )
                created = players.CreatePlayer(pl.CreatePlayerRequest(display_name=args.name))
                path = save_token(created.player_token)
                made = created.player
                print(f"{printable(made.display_name)} is player {made.player_id}; token saved in {path}")
            elif args.command in ("me", "player"):
                metadata = auth.metadata(saved_token()) if args.command == "me" else None
                show_player(
                    players.GetPlayer(pl.GetPlayerRequest(player_id=getattr(args, "player_id", "")), metadata=metadata)
                )
            elif args.command == "leaderboard":
                around = ""
                if args.me:
                    around = players.GetPlayer(pl.GetPlayerRequest(), metadata=auth.metadata(saved_token())).player
                    around = around.player_id
                listed = players.ListLeaderboard(pl.ListLeaderboardRequest(game_id=args.game, around_player_id=around))
                print(f"{args.game}: {listed.total} rated players and bots (provisional ones last)")
                for entry in listed.entries:
                    mark = " <" if entry.player.player_id == around else ""
                    name = printable(entry.player.display_name)
                    print(f"{entry.rank:>4}. {name:<24} {rating_line(entry.rating)[13:]}{mark}")
            elif args.command == "tables":
                mine = players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(saved_token()))
                for line in mine.tables:
                    status = gw.TableStatus.Name(line.table.status).removeprefix("TABLE_STATUS_").lower()
                    print(f"{line.table.table_id}  {line.table.game_id:<11} {seat_label(line.seat)}  {status}")
            elif args.command == "quick":
                low, _, high = args.players.partition("-")
                search = pl.FindGameRequest(
                    game_id=args.game,
                    min_players=int(low),
                    max_players=int(high or low),
                    rated=args.rated,
                    min_reputation=args.finishers,
                )
                if args.no_bots:
                    search.bot_fill = False
                seated = None
                for message in players.FindGame(search, metadata=auth.metadata(saved_token())):
                    if message.HasField("seated"):
                        seated = message.seated
                    else:
                        print(
                            f"searching… {message.waited_seconds:4.0f} s, within ±{message.rating_window:.0f}",
                            flush=True,
                        )
                assert seated is not None
                table = gateway_pb2_grpc.GatewayServiceStub(channel).GetTable(
                    gw.GetTableRequest(table_id=seated.table.table_id)
                )
                show_ratings_at(players, table.table)
                if args.no_play:
                    print(f"{seat_label(seated.seat)} at table {seated.table.table_id}")
                    return 0
                return play_seat(args.gateway, seated)
            elif args.command == "rejoin":
                back = players.RejoinSeat(
                    pl.RejoinSeatRequest(table_id=args.table_id), metadata=auth.metadata(saved_token())
                )
                show_ratings_at(players, back.table)
                return play_seat(
                    args.gateway, gw.TakeSeatResponse(seat=back.seat, seat_token=back.seat_token, table=back.table)
                )
            elif args.command == "sign-out-everywhere":
                signed_out = players.SignOutEverywhere(
                    pl.SignOutEverywhereRequest(), metadata=auth.metadata(saved_token())
                )
                path = save_token(signed_out.player_token)
                print(f"signed out everywhere; the new token is saved in {path} (the old one no longer works)")
                for table_id in signed_out.signed_out_table_ids:
                    print(f"{table_id}  seat signed out: rejoin {table_id} to play it here")
        except grpc.RpcError as error:
            print(f"tavola: {explain(error)}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

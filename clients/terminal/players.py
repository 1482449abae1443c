"""Players in the terminal:  python -m clients.terminal.players <command> (USAGE says each
command, in the run's language: --lang, else the terminal's locale)."""

import argparse
import sys
import time

import grpc

from clients.terminal import language
from clients.terminal.__main__ import main as play
from clients.terminal.player_file import save_token, saved_token, token_path
from clients.terminal.session import SavedSeat, default_gateway, explain
from clients.terminal.words import N_, STATUS, _, argparse_in_language, lang_argument, seat_name
from common import auth
from common.names import printable
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl

USAGE = N_(
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

The player token is kept in player.json: in TAVOLA_CLIENT_DIR when set, else in
~/.local/state/tavola; create never writes over a saved player without --replace. The
gateway is --gateway, TAVOLA_GATEWAY or 127.0.0.1:TAVOLA_PORT; the language --lang (it, de,
en), else the terminal's locale.
"""
)


def rating_line(rating: pl.Rating) -> str:
    note = " " + _("(provisional)") if rating.provisional else ""
    record = _("{games} games, {wins} wins", games=rating.games, wins=rating.wins)
    return f"{rating.game_id:<12} {rating.rating:6.0f} ± {rating.uncertainty:<4.0f} {record}{note}"


def show_player(page: pl.GetPlayerResponse) -> None:
    player = page.player
    said = _("{name}  ({id}, a bot)") if player.bot else "{name}  ({id})"
    print(said.format(name=printable(player.display_name), id=player.player_id))
    for rating in page.ratings:
        print("  " + rating_line(rating))
    if not page.ratings:
        print("  " + _("no rated games yet"))
    elif not player.bot:
        record = page.reputation
        print("  " + _("finished {finished} of {games} rated games", finished=record.finished, games=record.games))
    for line in page.recent_tables:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(line.finish_time.seconds))
        print(
            "  "
            + _(
                "{when}  {game:<11} place {place} of {count}  {change:+.0f}  table {table}",
                when=when,
                game=line.game_id,
                place=line.place,
                count=line.player_count,
                change=line.rating_change,
                table=line.table_id,
            )
        )


def show_ratings_at(players: players_pb2_grpc.PlayerServiceStub, table: gw.Table) -> None:
    """The ratings of everyone at a table, before it is played."""
    said = _("Table {table} ({game}, rated):") if table.rated else _("Table {table} ({game}):")
    print(said.format(table=table.table_id, game=table.game_id))
    for seat in table.seats:
        who = seat.player_id or (f"bot:{seat.bot}" if seat.kind == gw.SEAT_KIND_BOT else "")
        rating = ""
        if who:
            page = players.GetPlayer(pl.GetPlayerRequest(player_id=who, recent_tables=0))
            rated = [r for r in page.ratings if r.game_id == table.game_id]
            rating = rating_line(rated[0])[13:] if rated else _("no rated games here yet")
        print(f"  {seat_name(seat.seat)}  {printable(seat.display_name or seat.bot):<24} {rating}")


def play_seat(address: str, seated: gw.TakeSeatResponse) -> int:
    SavedSeat(seated.table.table_id, seated.seat, seated.seat_token, address, seated.table.game_id).save()
    return play(["--gateway", address, "--lang", language.LANGUAGE, "--rejoin", seated.table.table_id])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    argparse_in_language(argv)
    parser = argparse.ArgumentParser(description=_(USAGE), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gateway", default=default_gateway(), help=_("the gateway's address, HOST:PORT"))
    lang_argument(parser)
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create")
    create.add_argument("name")
    create.add_argument("--replace", action="store_true", help=_("replace the player saved here (its token is lost)"))
    commands.add_parser("me")
    commands.add_parser("player").add_argument("player_id")
    board = commands.add_parser("leaderboard")
    board.add_argument("game")
    board.add_argument("--me", action="store_true", help=_("the page around you"))
    commands.add_parser("tables")
    quick = commands.add_parser("quick")
    quick.add_argument("game")
    quick.add_argument("--players", default="2-4", help=_("a count or a range (2-4)"))
    quick.add_argument("--rated", action="store_true", help=_("a rated table only"))
    quick.add_argument("--no-bots", action="store_true", help=_("wait for people only"))
    quick.add_argument(
        "--finishers",
        type=float,
        default=0.0,
        metavar="SHARE",
        help=_("only players who finished at least this share of their rated games (e.g. 0.9)"),
    )
    quick.add_argument("--no-play", action="store_true", help=_("only print the seat"))
    commands.add_parser("rejoin").add_argument("table_id")
    commands.add_parser("sign-out-everywhere")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    with language.in_language(grpc.insecure_channel(args.gateway)) as channel:
        players = players_pb2_grpc.PlayerServiceStub(channel)
        try:
            if args.command == "create":
                if token_path().exists() and not args.replace:
                    # The token is the player: writing over it would lose that player for good.
                    raise SystemExit(
                        _(
                            "a player is already saved in {path}; another here would lose its token."
                            " Use --replace, or another TAVOLA_CLIENT_DIR.",
                            path=token_path(),
                        )
                    )
                created = players.CreatePlayer(pl.CreatePlayerRequest(display_name=args.name))
                path = save_token(created.player_token)
                made = created.player
                print(
                    _(
                        "{name} is player {id}; token saved in {path}",
                        name=printable(made.display_name),
                        id=made.player_id,
                        path=path,
                    )
                )
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
                print(
                    _(
                        "{game}: {total} rated players and bots (provisional ones last)",
                        game=args.game,
                        total=listed.total,
                    )
                )
                for entry in listed.entries:
                    mark = " <" if entry.player.player_id == around else ""
                    name = printable(entry.player.display_name)
                    print(f"{entry.rank:>4}. {name:<24} {rating_line(entry.rating)[13:]}{mark}")
            elif args.command == "tables":
                mine = players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(saved_token()))
                for line in mine.tables:
                    status = _(STATUS[line.table.status]) if line.table.status in STATUS else ""
                    print(f"{line.table.table_id}  {line.table.game_id:<11} {seat_name(line.seat)}  {status}")
            elif args.command == "quick":
                low, _dash, high = args.players.partition("-")
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
                            _(
                                "searching… {waited:4.0f} s, within ±{window:.0f}",
                                waited=message.waited_seconds,
                                window=message.rating_window,
                            ),
                            flush=True,
                        )
                assert seated is not None
                table = gateway_pb2_grpc.GatewayServiceStub(channel).GetTable(
                    gw.GetTableRequest(table_id=seated.table.table_id)
                )
                show_ratings_at(players, table.table)
                if args.no_play:
                    print(_("{seat} at table {table}", seat=seat_name(seated.seat), table=seated.table.table_id))
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
                print(
                    _(
                        "signed out everywhere; the new token is saved in {path} (the old one no longer works)",
                        path=path,
                    )
                )
                for table_id in signed_out.signed_out_table_ids:
                    print(f"{table_id}  " + _("seat signed out: rejoin {table} to play it here", table=table_id))
        except grpc.RpcError as error:
            print(f"tavola: {explain(error)}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

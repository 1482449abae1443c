"""Chat in the terminal:  python -m clients.terminal.chat TABLE_ID [options] (USAGE says
them, in the run's language).

Every message is written as text (``common.names.printable``): a character that would act
on the terminal (an ANSI escape, a bell, a bidirectional override) shows as U+FFFD, whatever
the gateway let through.
"""

import argparse
import sys
import threading
import time

import grpc

from clients.terminal import language
from clients.terminal.player_file import saved_token
from clients.terminal.session import default_gateway, explain
from clients.terminal.words import N_, _, argparse_in_language, lang_argument, seat_name
from common import auth
from common.names import printable
from tavola.gateway.v1 import chat_pb2 as chat
from tavola.gateway.v1 import chat_pb2_grpc

USAGE = N_(
    """Chat in the terminal:  python -m clients.terminal.chat TABLE_ID [options]

    python -m clients.terminal.chat TABLE_ID                 the players' channel: shown as
                                                             it comes; each line typed is sent
    python -m clients.terminal.chat TABLE_ID --spectators    the spectators' channel
    python -m clients.terminal.chat --lobby                  the lobby (when the platform has one)
    python -m clients.terminal.chat TABLE_ID --say "gg"      send one message and leave
    python -m clients.terminal.chat --mute PLAYER_ID         hide a player's messages (--unmute)
    python -m clients.terminal.chat TABLE_ID --report MESSAGE_ID --reason "..."

It speaks as the player saved by python -m clients.terminal.players create (chat needs a
player); run it beside the game, in a second terminal. The language is --lang (it, de, en),
else the terminal's locale.
"""
)


def chat_line(message: chat.ChatMessage) -> str:
    """One message as the terminal shows it: time, who (and their seat), the text; every
    part made printable."""
    when = time.strftime("%H:%M", time.localtime(message.send_time.seconds))
    who = printable(message.display_name)
    if message.HasField("seat"):
        who += f" ({seat_name(message.seat)})"
    return f"{when} {who}: {printable(message.text)}"


def _follow(stub: chat_pb2_grpc.ChatServiceStub, request: chat.WatchChatRequest, metadata, stop: threading.Event):
    try:
        for response in stub.WatchChat(request, metadata=metadata):
            for message in response.messages:
                print(chat_line(message), flush=True)
    except grpc.RpcError as error:
        if not stop.is_set():
            print(_("chat ended: {why}", why=explain(error)), file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    argparse_in_language(argv)
    parser = argparse.ArgumentParser(
        prog="python -m clients.terminal.chat",
        description=_(USAGE),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("table_id", nargs="?", default="")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--spectators", action="store_true", help=_("the spectators' channel"))
    where.add_argument("--lobby", action="store_true", help=_("the lobby's channel"))
    parser.add_argument("--say", help=_("send this message and leave"))
    parser.add_argument("--mute", metavar="PLAYER_ID", help=_("hide this player's messages"))
    parser.add_argument("--unmute", metavar="PLAYER_ID", help=_("show this player's messages again"))
    parser.add_argument("--report", metavar="MESSAGE_ID", help=_("report this message to the moderators"))
    parser.add_argument("--reason", default="", help=_("why it is reported"))
    parser.add_argument("--gateway", default=default_gateway(), help=_("the gateway's address, HOST:PORT"))
    lang_argument(parser)
    args = parser.parse_args(argv)
    if not args.table_id and not (args.lobby or args.mute or args.unmute):
        parser.error(_("name a table (or --lobby)"))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    channel = (
        chat.CHAT_CHANNEL_LOBBY
        if args.lobby
        else chat.CHAT_CHANNEL_SPECTATORS
        if args.spectators
        else chat.CHAT_CHANNEL_PLAYERS
    )
    metadata = auth.metadata(saved_token())
    with language.in_language(grpc.insecure_channel(args.gateway)) as connection:
        stub = chat_pb2_grpc.ChatServiceStub(connection)
        try:
            if args.mute or args.unmute:
                muting = chat.MutePlayerRequest(player_id=args.mute or args.unmute, muted=bool(args.mute))
                muted = stub.MutePlayer(muting, metadata=metadata).muted_player_ids
                print(_("muted:") + " " + (", ".join(muted) or _("nobody")))
                return 0
            if args.report:
                report = chat.ReportChatRequest(
                    table_id=args.table_id, channel=channel, message_id=args.report, reason=args.reason
                )
                print(_("reported ({id})", id=stub.ReportChat(report, metadata=metadata).report_id))
                return 0
            if args.say is not None:
                sent = stub.SendChat(
                    chat.SendChatRequest(table_id=args.table_id, channel=channel, text=args.say), metadata=metadata
                )
                print(chat_line(sent.message))
                return 0
        except grpc.RpcError as error:
            print(explain(error), file=sys.stderr)
            return 1
        stop = threading.Event()
        watching = chat.WatchChatRequest(table_id=args.table_id, channel=channel)
        threading.Thread(target=_follow, args=(stub, watching, metadata, stop), daemon=True).start()
        try:
            for line in sys.stdin:
                if not line.strip():
                    continue
                try:
                    request = chat.SendChatRequest(table_id=args.table_id, channel=channel, text=line.rstrip("\n"))
                    stub.SendChat(request, metadata=metadata)
                except grpc.RpcError as error:
                    print(_("not sent: {why}", why=explain(error)), file=sys.stderr, flush=True)
        except KeyboardInterrupt:
            pass
        stop.set()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Friends in the terminal:  python -m clients.terminal.friends <command> (USAGE says each
command, in the run's language). Names are printed with anything that acts on a terminal
replaced (common/names.py ``printable``)."""

import argparse
import sys

import grpc

from clients.terminal import language
from clients.terminal.player_file import saved_token
from clients.terminal.players import play_seat
from clients.terminal.session import default_gateway, explain
from clients.terminal.words import N_, STATUS, _, argparse_in_language, lang_argument
from common import auth
from common.names import printable
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, social_pb2_grpc
from tavola.gateway.v1 import social_pb2 as so

USAGE = N_(
    """Friends in the terminal:  python -m clients.terminal.friends <command>

    list                        whom you follow (friends: their presence and tables) and
                                whom you blocked
    follow | unfollow PLAYER_ID
    block | unblock PLAYER_ID   a block ends both follows and keeps them from inviting you
                                and from quick play's tables with you
    invite PLAYER_ID TABLE_ID   invite a player who follows you to your open table
    invitations                 the invitations waiting for you
    accept INVITATION_ID        take the seat it offers, and play it here
    decline INVITATION_ID
    watch                       print invitations as they come (online meanwhile)

The player is the one python -m clients.terminal.players create saved; the gateway is
--gateway, TAVOLA_GATEWAY or 127.0.0.1:TAVOLA_PORT; the language --lang (it, de, en), else
the terminal's locale. A name is printed with anything that would act on a terminal
replaced.
"""
)
PRESENCE = {
    so.PRESENCE_STATE_ONLINE: N_("online"),
    so.PRESENCE_STATE_AWAY: N_("away"),
    so.PRESENCE_STATE_AT_TABLE: N_("at a table"),
    so.PRESENCE_STATE_OFFLINE: N_("offline"),
}
# What a follow or a block did, told after it.
DONE = {
    "follow": N_("followed {name}"),
    "block": N_("blocked {name}"),
    "unfollow": N_("unfollowed"),
    "unblock": N_("unblocked"),
    "decline": N_("declined"),
}


def friend_lines(friend: so.Friend) -> list[str]:
    name = printable(friend.player.display_name)
    if not friend.follows_you:
        return [f"{friend.player.player_id}  {name}  " + _("(does not follow you back)")]
    presence = _(PRESENCE.get(friend.presence.state, PRESENCE[so.PRESENCE_STATE_OFFLINE]))
    lines = [f"{friend.player.player_id}  {name}  {presence}"]
    for table in friend.tables:
        status = _(
            STATUS[gw.TABLE_STATUS_OPEN if table.status == gw.TABLE_STATUS_OPEN else gw.TABLE_STATUS_IN_PROGRESS]
        )
        lines.append(f"    {table.table_id}  {table.game_id}, {status}")
    return lines


def invitation_line(invitation: so.Invitation) -> str:
    who = printable(invitation.inviter.display_name)
    invites = _(
        "{who} invites you to {game} at {table}",
        who=who,
        game=invitation.table.game_id,
        table=invitation.table.table_id,
    )
    return f"{invitation.invitation_id}  {invites}"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    argparse_in_language(argv)
    parser = argparse.ArgumentParser(description=_(USAGE), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gateway", default=default_gateway(), help=_("the gateway's address, HOST:PORT"))
    lang_argument(parser)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list")
    for name in ("follow", "unfollow", "block", "unblock"):
        commands.add_parser(name).add_argument("player_id")
    invite = commands.add_parser("invite")
    invite.add_argument("player_id")
    invite.add_argument("table_id")
    commands.add_parser("invitations")
    commands.add_parser("accept").add_argument("invitation_id")
    commands.add_parser("decline").add_argument("invitation_id")
    commands.add_parser("watch")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    metadata = auth.metadata(saved_token())

    with language.in_language(grpc.insecure_channel(args.gateway)) as channel:
        social = social_pb2_grpc.SocialServiceStub(channel)
        try:
            if args.command == "list":
                listed = social.ListFriends(so.ListFriendsRequest(), metadata=metadata)
                print(_("following:") if listed.following else _("you follow nobody"))
                for friend in listed.following:
                    print("\n".join(f"  {line}" for line in friend_lines(friend)))
                for player in listed.blocked:
                    print(_("blocked:") + f" {player.player_id}  {printable(player.display_name)}")
            elif args.command in ("follow", "block"):
                call = social.FollowPlayer if args.command == "follow" else social.BlockPlayer
                request = (so.FollowPlayerRequest if args.command == "follow" else so.BlockPlayerRequest)(
                    player_id=args.player_id
                )
                done = call(request, metadata=metadata)
                print(_(DONE[args.command], name=printable(done.player.display_name)))
            elif args.command == "unfollow":
                social.UnfollowPlayer(so.UnfollowPlayerRequest(player_id=args.player_id), metadata=metadata)
                print(_(DONE["unfollow"]))
            elif args.command == "unblock":
                social.UnblockPlayer(so.UnblockPlayerRequest(player_id=args.player_id), metadata=metadata)
                print(_(DONE["unblock"]))
            elif args.command == "invite":
                sent = social.Invite(
                    so.InviteRequest(player_id=args.player_id, table_id=args.table_id), metadata=metadata
                )
                print(_("invited:") + f" {sent.invitation.invitation_id}")
            elif args.command == "invitations":
                waiting = social.ListInvitations(so.ListInvitationsRequest(), metadata=metadata).invitations
                print("\n".join(invitation_line(i) for i in waiting) or _("no invitation waits for you"))
            elif args.command == "accept":
                answered = social.AnswerInvitation(
                    so.AnswerInvitationRequest(invitation_id=args.invitation_id, accept=True), metadata=metadata
                )
                seated = gateway_pb2_grpc.GatewayServiceStub(channel).TakeSeat(
                    gw.TakeSeatRequest(table_id=answered.table.table_id), metadata=metadata
                )
                return play_seat(args.gateway, seated)
            elif args.command == "decline":
                social.AnswerInvitation(
                    so.AnswerInvitationRequest(invitation_id=args.invitation_id, accept=False), metadata=metadata
                )
                print(_(DONE["decline"]))
            elif args.command == "watch":
                print(_("waiting for invitations (Ctrl-C to stop)"), flush=True)
                for message in social.WatchInvitations(so.WatchInvitationsRequest(), metadata=metadata):
                    print(invitation_line(message.invitation), flush=True)
        except grpc.RpcError as error:
            print(f"tavola: {explain(error)}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

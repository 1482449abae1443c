"""Follows, blocks, presence and invitations (SocialService) through a real gateway and
Redis: a follow alone tells nothing; friends see each other's presence and tables; a block
ends follows and invitations and is not told; every bad request is refused with its
status and changes nothing."""

import secrets
import threading
from collections.abc import Callable

import grpc
import pytest

from common.errors import reason_of
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import players_pb2_grpc, social_pb2_grpc
from tavola.gateway.v1 import social_pb2 as so

pytestmark = pytest.mark.integration


class Person:
    def __init__(self, channel: grpc.Channel, name: str):
        self.players = players_pb2_grpc.PlayerServiceStub(channel)
        self.social = social_pb2_grpc.SocialServiceStub(channel)
        self.gateway_channel = channel
        made = self.players.CreatePlayer(pl.CreatePlayerRequest(display_name=f"{name} {secrets.token_hex(3)}"))
        self.id = made.player.player_id
        self.token = made.player_token
        self.auth = (("authorization", f"Bearer {self.token}"),)

    def call(self, method: str, request):
        return getattr(self.social, method)(request, metadata=self.auth)

    def friends(self) -> dict[str, so.Friend]:
        return {f.player.player_id: f for f in self.call("ListFriends", so.ListFriendsRequest()).following}


def bea_name(person: "Person") -> str:
    return person.players.GetPlayer(pl.GetPlayerRequest(player_id=person.id)).player.display_name


def refused(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as raised:
        call()
    return raised.value.code(), reason_of(raised.value)


@pytest.fixture
def people(channel) -> Callable[[str], Person]:
    return lambda name: Person(channel, name)


def open_table(gateway, host: Person, players: int = 2) -> gw.Table:
    table = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=players)).table
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table.table_id), metadata=host.auth)
    return table


def test_a_follow_alone_tells_nothing_friends_see_presence_and_tables(people, gateway):
    ada, bea = people("Ada"), people("Bea")
    ada.call("FollowPlayer", so.FollowPlayerRequest(player_id=bea.id))
    bea.call("SetPresence", so.SetPresenceRequest(state=so.PRESENCE_STATE_AWAY))
    seen = ada.friends()[bea.id]
    assert not seen.follows_you
    assert seen.presence.state == so.PRESENCE_STATE_UNSPECIFIED and not seen.tables  # not told
    bea.call("FollowPlayer", so.FollowPlayerRequest(player_id=ada.id))
    assert ada.friends()[bea.id].presence.state == so.PRESENCE_STATE_AWAY
    table = open_table(gateway, bea)
    bea.call("SetPresence", so.SetPresenceRequest(state=so.PRESENCE_STATE_AT_TABLE, table_id=table.table_id))
    friend = ada.friends()[bea.id]
    assert friend.follows_you
    assert friend.presence.state == so.PRESENCE_STATE_AT_TABLE and friend.presence.table_id == table.table_id
    assert [t.table_id for t in friend.tables] == [table.table_id]
    ada.call("UnfollowPlayer", so.UnfollowPlayerRequest(player_id=bea.id))
    assert bea.id not in ada.friends()


def test_a_player_never_followed_or_never_online_is_offline(people):
    ada, bea = people("Ada"), people("Bea")
    ada.call("FollowPlayer", so.FollowPlayerRequest(player_id=bea.id))
    bea.call("FollowPlayer", so.FollowPlayerRequest(player_id=ada.id))
    assert ada.friends()[bea.id].presence.state == so.PRESENCE_STATE_OFFLINE


def test_bad_requests_are_refused_with_their_status_and_change_nothing(people, gateway):
    ada, bea = people("Ada"), people("Bea")
    cases = [
        (
            lambda: ada.call("FollowPlayer", so.FollowPlayerRequest(player_id=ada.id)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "SELF",
        ),
        (
            lambda: ada.call("FollowPlayer", so.FollowPlayerRequest(player_id="bot:ismcts:level=4")),
            grpc.StatusCode.INVALID_ARGUMENT,
            "BOT_PLAYER",
        ),
        (
            lambda: ada.call("FollowPlayer", so.FollowPlayerRequest(player_id="0123456789abcdef")),
            grpc.StatusCode.NOT_FOUND,
            "PLAYER_NOT_FOUND",
        ),
        (
            lambda: ada.call("FollowPlayer", so.FollowPlayerRequest(player_id="x:followers")),
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_PLAYER_ID",
        ),
        (
            lambda: ada.social.FollowPlayer(so.FollowPlayerRequest(player_id=bea.id)),
            grpc.StatusCode.UNAUTHENTICATED,
            "TOKEN_MISSING",
        ),
        (
            lambda: ada.call("SetPresence", so.SetPresenceRequest(state=so.PRESENCE_STATE_OFFLINE)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_PRESENCE",
        ),
        (
            lambda: ada.call(
                "SetPresence",
                so.SetPresenceRequest(state=so.PRESENCE_STATE_AT_TABLE, table_id=open_table(gateway, bea).table_id),
            ),
            grpc.StatusCode.PERMISSION_DENIED,
            "NOT_YOUR_SEAT",
        ),
        (
            lambda: ada.call("AnswerInvitation", so.AnswerInvitationRequest(invitation_id="{x}")),
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_INVITATION_ID",
        ),
        (
            lambda: ada.call("AnswerInvitation", so.AnswerInvitationRequest(invitation_id="0123456789abcdef")),
            grpc.StatusCode.NOT_FOUND,
            "INVITATION_NOT_FOUND",
        ),
    ]
    for call, code, reason in cases:
        assert refused(call) == (code, reason)
    assert ada.friends() == {}
    assert not ada.call("ListInvitations", so.ListInvitationsRequest()).invitations


def test_an_invitation_reaches_the_stream_and_accepting_it_seats_the_player(people, gateway):
    ada, bea = people("Ada"), people("Bea")
    table = open_table(gateway, ada)
    # Only a player who follows you can be invited.
    invite = so.InviteRequest(player_id=bea.id, table_id=table.table_id)
    assert refused(lambda: ada.call("Invite", invite)) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_FOLLOWED")
    bea.call("FollowPlayer", so.FollowPlayerRequest(player_id=ada.id))
    stream = bea.social.WatchInvitations(so.WatchInvitationsRequest(), metadata=bea.auth, timeout=30)
    received: list[so.Invitation] = []
    got = threading.Event()

    def read() -> None:
        try:
            for message in stream:
                received.append(message.invitation)
                got.set()
        except grpc.RpcError:
            pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    sent = ada.call("Invite", invite).invitation
    assert got.wait(10), "the invitation never reached the invitee's stream"
    stream.cancel()
    reader.join(5)
    assert [i.invitation_id for i in received] == [sent.invitation_id]
    assert received[0].inviter.player_id == ada.id and received[0].table.table_id == table.table_id
    # Streaming made Bea online for her friends (Ada follows her back now).
    ada.call("FollowPlayer", so.FollowPlayerRequest(player_id=bea.id))
    assert ada.friends()[bea.id].presence.state == so.PRESENCE_STATE_ONLINE
    assert refused(lambda: ada.call("Invite", invite)) == (grpc.StatusCode.ALREADY_EXISTS, "ALREADY_INVITED")
    answered = bea.call("AnswerInvitation", so.AnswerInvitationRequest(invitation_id=sent.invitation_id, accept=True))
    assert answered.table.table_id == table.table_id
    seat = gateway.TakeSeat(gw.TakeSeatRequest(table_id=table.table_id), metadata=bea.auth)
    assert seat.table.seats[seat.seat].player_id == bea.id
    # Answered: gone; and the table, now full, takes no more invitations.
    assert not bea.call("ListInvitations", so.ListInvitationsRequest()).invitations
    carla = people("Carla")
    carla.call("FollowPlayer", so.FollowPlayerRequest(player_id=ada.id))
    again = so.InviteRequest(player_id=carla.id, table_id=table.table_id)
    assert refused(lambda: ada.call("Invite", again)) == (grpc.StatusCode.FAILED_PRECONDITION, "NO_FREE_SEAT")


def test_a_block_ends_follows_and_invitations_and_is_not_told(people, gateway):
    ada, bea = people("Ada"), people("Bea")
    ada.call("FollowPlayer", so.FollowPlayerRequest(player_id=bea.id))
    bea.call("FollowPlayer", so.FollowPlayerRequest(player_id=ada.id))
    table = open_table(gateway, ada, players=3)
    ada.call("Invite", so.InviteRequest(player_id=bea.id, table_id=table.table_id))
    bea.call("BlockPlayer", so.BlockPlayerRequest(player_id=ada.id))
    assert ada.id not in bea.friends() and bea.id not in ada.friends()
    assert [p.player_id for p in bea.call("ListFriends", so.ListFriendsRequest()).blocked] == [ada.id]
    assert not bea.call("ListInvitations", so.ListInvitationsRequest()).invitations
    follow = so.FollowPlayerRequest(player_id=bea.id)
    assert refused(lambda: ada.call("FollowPlayer", follow)) == (grpc.StatusCode.FAILED_PRECONDITION, "BLOCKED")
    # Inviting reads the same as inviting a stranger: the block is not told.
    invite = so.InviteRequest(player_id=bea.id, table_id=table.table_id)
    assert refused(lambda: ada.call("Invite", invite)) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_FOLLOWED")
    bea.call("UnblockPlayer", so.UnblockPlayerRequest(player_id=ada.id))
    ada.call("FollowPlayer", follow)  # allowed again; the ended follows stay ended
    assert not ada.friends()[bea.id].follows_you


def test_a_deleted_account_leaves_no_follow_presence_or_invitation(people, gateway):
    ada, bea = people("Ada"), people("Bea")
    ada.call("FollowPlayer", so.FollowPlayerRequest(player_id=bea.id))
    bea.call("FollowPlayer", so.FollowPlayerRequest(player_id=ada.id))
    bea.call("SetPresence", so.SetPresenceRequest(state=so.PRESENCE_STATE_ONLINE))
    table = open_table(gateway, bea, players=3)
    bea.call("Invite", so.InviteRequest(player_id=ada.id, table_id=table.table_id))
    bea.players.DeletePlayer(pl.DeletePlayerRequest(player_id=bea.id), metadata=bea.auth)
    assert bea.id not in ada.friends()
    # Her token is gone with her account: nothing of hers can be read or written.
    assert refused(lambda: bea.call("ListFriends", so.ListFriendsRequest()))[0] == grpc.StatusCode.UNAUTHENTICATED


def test_the_terminal_lists_friends_and_invitations(people, gateway, stack, tmp_path, monkeypatch, capsys):
    from clients.terminal import friends as terminal
    from clients.terminal.players import save_token

    ada, bea = people("Ada"), people("Bea")
    monkeypatch.setenv("TAVOLA_CLIENT_DIR", str(tmp_path / "seats"))
    save_token(ada.token)
    address = ["--gateway", stack.gateway_address]
    assert terminal.main([*address, "follow", bea.id]) == 0
    bea.call("FollowPlayer", so.FollowPlayerRequest(player_id=ada.id))
    bea.call("SetPresence", so.SetPresenceRequest(state=so.PRESENCE_STATE_AWAY))
    table = open_table(gateway, bea)
    bea.call("Invite", so.InviteRequest(player_id=ada.id, table_id=table.table_id))
    capsys.readouterr()
    assert terminal.main([*address, "list"]) == 0
    listed = capsys.readouterr().out
    assert f"{bea.id}  {bea_name(bea)}  away" in listed
    assert f"    {table.table_id}  borgia, waiting for players" in listed
    assert terminal.main([*address, "invitations"]) == 0
    waiting = capsys.readouterr().out
    assert "invites you to borgia at " + table.table_id in waiting
    assert terminal.main([*address, "follow", ada.id]) == 1  # yourself: refused, said on stderr
    assert "that is you" in capsys.readouterr().err


def test_a_blocked_players_chat_is_hidden_from_the_blocker(people, gateway, channel):
    from tavola.gateway.v1 import chat_pb2, chat_pb2_grpc

    chat = chat_pb2_grpc.ChatServiceStub(channel)
    ada, bea, cid = people("Ada"), people("Bea"), people("Cid")
    table = open_table(gateway, ada, players=3)  # unrated: its players' channel is on
    for other in (bea, cid):
        gateway.TakeSeat(gw.TakeSeatRequest(table_id=table.table_id), metadata=other.auth)
    players = chat_pb2.CHAT_CHANNEL_PLAYERS
    chat.SendChat(chat_pb2.SendChatRequest(table_id=table.table_id, channel=players, text="hello"), metadata=bea.auth)
    ada.call("BlockPlayer", so.BlockPlayerRequest(player_id=bea.id))
    listed = chat_pb2.ListChatRequest(table_id=table.table_id, channel=players)
    assert [m.text for m in chat.ListChat(listed, metadata=ada.auth).messages] == []
    assert [m.text for m in chat.ListChat(listed, metadata=cid.auth).messages] == ["hello"]  # only the blocker's view
    ada.call("UnblockPlayer", so.UnblockPlayerRequest(player_id=bea.id))
    assert [m.text for m in chat.ListChat(listed, metadata=ada.auth).messages] == ["hello"]

"""Ids and tokens by their shape (common/shapes.py): an id or token the platform never
issues is refused for what it is (INVALID_ARGUMENT for an id, UNAUTHENTICATED for a
token, with a reason) before any Redis key is built from it, over gRPC and over the
browser protocol, and never answered UNAVAILABLE, INTERNAL or UNKNOWN; a well-formed
unknown id is still NOT_FOUND.

What cannot be sent: gRPC's Python client sends printable ASCII metadata only, so over
gRPC a hostile token outside it goes percent-encoded in the property tests, and as raw
bytes (UTF-8, ISO-8859-1, control characters) over HTTP/2 by curl in one test of its own;
over the browser protocol, a header with CR or LF is refused by the client, and one with
another control character by the web port's HTTP server (400, before any handler), so
those bytes are left out of the tokens sent there."""

import base64
import http.client
import json
import os
import secrets
import shutil
import struct
import subprocess
import urllib.parse
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.rpc import error_details_pb2, status_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from common import auth, shapes
from common.errors import reason_of
from common.redis_client import connect as connect_redis
from gateway.store import KEY_SUFFIXES
from tavola.gateway.v1 import actions_pb2, chat_pb2, players_pb2_grpc
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import social_pb2 as so
from tests.integration.conftest import HumanTable


def unique(name: str) -> str:
    """A name of its own: the suite's players share one Redis, where no two may look alike."""
    return f"{name} {secrets.token_hex(3)}"


pytestmark = pytest.mark.integration

GATEWAY = "tavola.gateway.v1.GatewayService"
PLAYERS = "tavola.gateway.v1.PlayerService"
UNKNOWN_ID = "0123456789abcdef"  # the shape of a table or player id, of none


@pytest.fixture(scope="module")
def players(channel) -> players_pb2_grpc.PlayerServiceStub:
    return players_pb2_grpc.PlayerServiceStub(channel)


def status_of(call) -> tuple[str, str]:
    """(code, reason) of a gRPC call expected to fail."""
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value.code().name, reason_of(caught.value)


def connect(stack, service: str, method: str, request: bytes, token: str | bytes | None, stream: bool = False):
    """(code, reason) of a browser-protocol (Connect) call, sent by hand so that the
    authorization header may hold any bytes (UTF-8 text, as the connectrpc client sends it,
    or ISO-8859-1 bytes, as a browser does): "OK" for an answer (a stream's first message),
    else the error's code (as gRPC names it) and ErrorInfo reason."""
    headers: dict[str, str | bytes] = {"connect-protocol-version": "1"}
    if stream:
        headers["content-type"] = "application/connect+proto"
        body = struct.pack(">BI", 0, len(request)) + request
    else:
        headers["content-type"] = "application/proto"
        body = request
    if token is not None:
        headers["authorization"] = b"Bearer " + (token if isinstance(token, bytes) else token.encode())
    host, port = stack.web_addresses[0].split(":")
    with closing(http.client.HTTPConnection(host, int(port), timeout=30)) as connection:
        connection.request("POST", f"/{service}/{method}", body=body, headers=headers)
        response = connection.getresponse()
        content_type = response.getheader("content-type") or ""
        if response.status != 200 and "json" not in content_type:  # no Connect error: a client
            return HTTP_CODES.get(response.status, "UNKNOWN"), ""  # reads the HTTP status
        if not stream:
            return ("OK", "") if response.status == 200 else _connect_error(json.loads(response.read()))
        while len(head := response.read(5)) == 5:  # frames as they come: a live stream never ends
            flags, length = struct.unpack(">BI", head)
            frame = response.read(length)
            if not flags & 0x02:
                return "OK", ""  # a message: the stream answered
            error = json.loads(frame).get("error")
            return ("OK", "") if error is None else _connect_error(error)
    raise AssertionError(f"{method}: the stream ended without its end message")


# What a Connect client reads from an HTTP status that comes without a Connect error.
HTTP_CODES = {
    400: "INTERNAL",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
}


def _connect_error(error: dict) -> tuple[str, str]:
    reason = ""
    for detail in error.get("details", ()):
        if detail.get("type") == "google.rpc.ErrorInfo":
            value = detail["value"]
            reason = error_details_pb2.ErrorInfo.FromString(base64.b64decode(value + "=" * (-len(value) % 4))).reason
    return error["code"].upper().replace("CANCELED", "CANCELLED"), reason


# -- what was found --------------------------------------------------------------------


def test_a_player_id_with_key_characters_is_invalid_not_an_outage(players, gateway):
    created = players.CreatePlayer(pl.CreatePlayerRequest(display_name=unique("ada")))
    player_id, token = created.player.player_id, created.player_token
    table_id = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(token))  # player:<id>:tables
    for bad in (f"{player_id}:tables", f"{player_id}:tables.x", "*", "{tag}", player_id.upper(), player_id + "0"):
        assert status_of(lambda bad=bad: players.GetPlayer(pl.GetPlayerRequest(player_id=bad))) == (
            "INVALID_ARGUMENT",
            "BAD_PLAYER_ID",
        ), bad
        board = pl.ListLeaderboardRequest(game_id="borgia", around_player_id=bad)
        assert status_of(lambda board=board: players.ListLeaderboard(board)) == ("INVALID_ARGUMENT", "BAD_PLAYER_ID")
    assert status_of(lambda: players.GetPlayer(pl.GetPlayerRequest(player_id=UNKNOWN_ID))) == (
        "NOT_FOUND",
        "PLAYER_NOT_FOUND",
    )


def test_a_player_token_naming_another_key_is_refused_by_every_call(players, gateway):
    ada = unique("ada")
    created = players.CreatePlayer(pl.CreatePlayerRequest(display_name=ada))
    player_id, token = created.player.player_id, created.player_token
    table_id = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(token))
    secret = token.rpartition(".")[2]
    calls = {
        "GetPlayer": lambda bad: players.GetPlayer(pl.GetPlayerRequest(), metadata=bad),
        "SignOutEverywhere": lambda bad: players.SignOutEverywhere(pl.SignOutEverywhereRequest(), metadata=bad),
        "RenamePlayer": lambda bad: players.RenamePlayer(
            pl.RenamePlayerRequest(display_name=unique("eve")), metadata=bad
        ),
        "ReissuePlayerToken": lambda bad: players.ReissuePlayerToken(pl.ReissuePlayerTokenRequest(), metadata=bad),
        "ListMyTables": lambda bad: players.ListMyTables(pl.ListMyTablesRequest(), metadata=bad),
        "RejoinSeat": lambda bad: players.RejoinSeat(pl.RejoinSeatRequest(table_id=table_id), metadata=bad),
        "TakeSeat": lambda bad: gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=bad),
        "FindGame": lambda bad: next(
            players.FindGame(pl.FindGameRequest(game_id="borgia", min_players=2), metadata=bad)
        ),
    }
    for forged in (
        f"p.{player_id}:tables.{secret}",
        f"p.{player_id}:tables.{secret}.{secret}",
        f"p.{player_id}.{secret}x",
    ):
        for name, call in calls.items():
            answered = status_of(lambda call=call, forged=forged: call(auth.metadata(forged)))
            assert answered == ("UNAUTHENTICATED", "PLAYER_TOKEN_INVALID"), (name, forged)
    assert players.GetPlayer(pl.GetPlayerRequest(), metadata=auth.metadata(token)).player.display_name == ada


NON_ASCII_TOKENS: list[str | bytes] = ["p.ïd.sécret", "sécret", "p.0123456789abcdef.sécretsecretsecretsecretsecret12"]
# A browser sends a header's ISO-8859-1 characters as one byte each.
NON_ASCII_TOKENS += [token.encode("latin-1") for token in NON_ASCII_TOKENS if isinstance(token, str)]


def test_a_non_ascii_token_is_unauthenticated_on_every_call_over_the_browser_protocol(stack, gateway):
    table = HumanTable(gateway, players=2)
    table.start()
    table_id = table.table_id
    calls = [
        (GATEWAY, "GetView", gw.GetViewRequest(table_id=table_id), False),
        (GATEWAY, "SubmitAction", gw.SubmitActionRequest(table_id=table_id), False),
        (GATEWAY, "StartTable", gw.StartTableRequest(table_id=table_id), False),
        (GATEWAY, "GetReplay", gw.GetReplayRequest(table_id=table_id, seat=0), False),
        (GATEWAY, "TakeSeat", gw.TakeSeatRequest(table_id=table_id), False),
        (GATEWAY, "WatchTable", gw.WatchTableRequest(table_id=table_id), True),
        (PLAYERS, "GetPlayer", pl.GetPlayerRequest(), False),
        (PLAYERS, "ListMyTables", pl.ListMyTablesRequest(), False),
        (PLAYERS, "RenamePlayer", pl.RenamePlayerRequest(display_name=unique("eve")), False),
        (PLAYERS, "ReissuePlayerToken", pl.ReissuePlayerTokenRequest(), False),
        (PLAYERS, "SignOutEverywhere", pl.SignOutEverywhereRequest(), False),
        (PLAYERS, "RejoinSeat", pl.RejoinSeatRequest(table_id=table_id), False),
        (PLAYERS, "FindGame", pl.FindGameRequest(game_id="borgia", min_players=2), True),
    ]
    for token in NON_ASCII_TOKENS:
        for service, method, request, stream in calls:
            code, reason = connect(stack, service, method, request.SerializeToString(), token, stream)
            assert code == "UNAUTHENTICATED" and reason in ("TOKEN_MALFORMED", "PLAYER_TOKEN_INVALID"), (
                method,
                token,
                code,
                reason,
            )


def _curl_speaks_http2() -> bool:
    curl = shutil.which("curl")
    return curl is not None and "HTTP2" in subprocess.run([curl, "--version"], capture_output=True, text=True).stdout


@pytest.mark.skipif(not _curl_speaks_http2(), reason="needs curl with HTTP/2, which sends a header's bytes as given")
def test_a_token_of_any_bytes_is_unauthenticated_over_grpc(stack, gateway, tmp_path):
    """gRPC's Python client sends printable ASCII metadata only; over HTTP/2 (curl) a
    token may hold any byte but CR, LF and NUL: UTF-8, ISO-8859-1, control characters."""
    table = HumanTable(gateway, players=2)
    table.start()
    request = gw.GetViewRequest(table_id=table.table_id).SerializeToString()
    body = tmp_path / "request"
    body.write_bytes(struct.pack(">BI", 0, len(request)) + request)
    for token in ("p.ïd.sécret".encode(), "p.ïd.sécret".encode("latin-1"), b"abc\x01def", b"\xff" * 32, b"a" * 6000):
        header = b"authorization: Bearer " + token
        command = ["curl", "-sS", "-v", "--http2-prior-knowledge", "-o", os.devnull, "--data-binary", f"@{body}"]
        command += ["-H", "content-type: application/grpc", "-H", "te: trailers", "-H", header]
        command.append(f"http://{stack.gateway_address}/{GATEWAY}/GetView")
        trace = subprocess.run(command, capture_output=True, timeout=30).stderr.decode("latin-1")
        answered = dict(
            line[2:].split(": ", 1) for line in trace.splitlines() if line.startswith("< grpc-") and ": " in line
        )
        details = status_pb2.Status.FromString(base64.b64decode(answered["grpc-status-details-bin"] + "=="))
        info = error_details_pb2.ErrorInfo()
        details.details[0].Unpack(info)
        assert (answered["grpc-status"].strip(), info.reason) == (
            "16",
            "PLAYER_TOKEN_INVALID" if token[:2] == b"p." else "TOKEN_MALFORMED",
        ), token[:20]


def test_a_well_formed_unknown_table_is_still_not_found(gateway):
    assert status_of(lambda: gateway.GetTable(gw.GetTableRequest(table_id=UNKNOWN_ID))) == (
        "NOT_FOUND",
        "TABLE_NOT_FOUND",
    )
    for bad in ("no-such-table", "0123456789ABCDEF", UNKNOWN_ID + ":log", "{" + UNKNOWN_ID + "}", "ïd"):
        assert status_of(lambda bad=bad: gateway.GetTable(gw.GetTableRequest(table_id=bad))) == (
            "INVALID_ARGUMENT",
            "BAD_TABLE_ID",
        ), bad


# -- every id and token of every call, hostile -------------------------------------------

FORBIDDEN = {"UNAVAILABLE", "INTERNAL", "UNKNOWN", "DATA_LOSS"}
ALLOWED = {
    "OK",
    "INVALID_ARGUMENT",
    "UNAUTHENTICATED",
    "NOT_FOUND",
    "PERMISSION_DENIED",
    "FAILED_PRECONDITION",
    "RESOURCE_EXHAUSTED",  # REQUEST_TOO_LARGE only
}
ACTIONS = "tavola.gateway.v1.ActionService"
SOCIAL = "tavola.gateway.v1.SocialService"
CHAT = "tavola.gateway.v1.ChatService"


def _varint(number: int) -> bytes:
    out = bytearray()
    while number >= 0x80:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def _field(number: int, value: bytes) -> bytes:
    """A length-delimited field on the wire: any bytes, UTF-8 or not, where a string goes."""
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def with_field(message, name: str, value: bytes) -> bytes:
    """``message``'s bytes with its string field ``name`` holding ``value`` as it is."""
    message = type(message).FromString(message.SerializeToString())
    message.ClearField(name)
    return message.SerializeToString() + _field(message.DESCRIPTOR.fields_by_name[name].number, value)


@dataclass
class Call:
    """One RPC, a request that would be refused for no id or token of it (or answered and
    change nothing), the token it goes with, and which of its fields the fuzzer replaces."""

    service: str
    method: str
    request: object
    token: str | None
    fields: tuple[str, ...]
    kind: str = "unary"  # "stream" (server streaming), "bidi" (ActionService)

    def raw(self, field: str, value: bytes) -> bytes:
        if self.kind == "bidi":  # SubmitActions: the seat token and the request's ids
            outer = actions_pb2.SubmitActionsRequest(id=1, seat_token=self.token or "")
            if field == "seat_token":
                return with_field(outer, "seat_token", value)
            return outer.SerializeToString() + _field(3, with_field(self.request, field, value))
        if field == "bot":  # CreateTable's bot seat
            seat = gw.BotSeat(seat=1).SerializeToString() + _field(2, value)
            return self.request.SerializeToString() + _field(4, seat)
        return with_field(self.request, field, value)


class Victim:
    """A player seated at a started table, its keys in Redis watched by the fuzzer."""

    def __init__(self, stack, gateway, players):
        created = players.CreatePlayer(pl.CreatePlayerRequest(display_name=unique("victim")))
        self.player_id, self.player_token = created.player.player_id, created.player_token
        table = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2))
        self.table_id, self.host_token = table.table.table_id, table.host_token
        mine = gateway.TakeSeat(gw.TakeSeatRequest(table_id=self.table_id), metadata=auth.metadata(self.player_token))
        self.seat_token = mine.seat_token
        gateway.TakeSeat(gw.TakeSeatRequest(table_id=self.table_id, display_name=unique("guest")))
        gateway.StartTable(gw.StartTableRequest(table_id=self.table_id), metadata=auth.metadata(self.host_token))
        prefix = stack.key_prefix
        self.keys = [f"{prefix}:player:{self.player_id}", f"{prefix}:player:{self.player_id}:tables"] + [
            f"{prefix}:{{{self.table_id}}}:{suffix}" for suffix in KEY_SUFFIXES
        ]
        self.redis = connect_redis(stack.redis_url)
        self.key_like_set = set(self.key_like())

    def snapshot(self) -> list:
        with self.redis.pipeline(transaction=False) as pipe:
            for key in self.keys:
                pipe.dump(key)
            return pipe.execute()

    def calls(self) -> list[Call]:
        t, seat, host, player = self.table_id, self.seat_token, self.host_token, self.player_token
        borgia = gw.CreateTableRequest(game_id="borgia", player_count=2)
        return [
            Call(GATEWAY, "ListGames", gw.ListGamesRequest(), None, ("token",)),
            Call(GATEWAY, "ListBots", gw.ListBotsRequest(game_id="borgia"), None, ("game_id", "token")),
            Call(GATEWAY, "GetGameHelp", gw.GetGameHelpRequest(game_id="borgia"), None, ("game_id", "token")),
            Call(GATEWAY, "CreateTable", borgia, None, ("game_id", "bot", "token")),
            Call(
                GATEWAY, "ListTables", gw.ListTablesRequest(game_id="borgia"), None, ("game_id", "page_token", "token")
            ),
            Call(GATEWAY, "GetTable", gw.GetTableRequest(table_id=t), None, ("table_id", "token")),
            Call(GATEWAY, "TakeSeat", gw.TakeSeatRequest(table_id=t), player, ("table_id", "token")),
            Call(GATEWAY, "StartTable", gw.StartTableRequest(table_id=t), host, ("table_id", "token")),
            Call(GATEWAY, "GetView", gw.GetViewRequest(table_id=t), seat, ("table_id", "token")),
            Call(
                GATEWAY, "SubmitAction", gw.SubmitActionRequest(table_id=t), seat, ("table_id", "request_id", "token")
            ),
            Call(GATEWAY, "WatchTable", gw.WatchTableRequest(table_id=t), seat, ("table_id", "token"), "stream"),
            Call(GATEWAY, "SpectateTable", gw.SpectateTableRequest(table_id=t), None, ("table_id", "token"), "stream"),
            Call(GATEWAY, "GetReplay", gw.GetReplayRequest(table_id=t, seat=0), seat, ("table_id", "token")),
            Call(PLAYERS, "CreatePlayer", pl.CreatePlayerRequest(), None, ("token",)),
            Call(PLAYERS, "GetPlayer", pl.GetPlayerRequest(), player, ("player_id", "token")),
            Call(PLAYERS, "RenamePlayer", pl.RenamePlayerRequest(display_name=unique("mallory")), None, ("token",)),
            Call(PLAYERS, "ReissuePlayerToken", pl.ReissuePlayerTokenRequest(), None, ("token",)),
            Call(PLAYERS, "SignOutEverywhere", pl.SignOutEverywhereRequest(), None, ("token",)),
            # Without the victim's token: a hostile value must never delete an account.
            Call(
                PLAYERS, "DeletePlayer", pl.DeletePlayerRequest(player_id=self.player_id), None, ("player_id", "token")
            ),
            Call(PLAYERS, "ListMyTables", pl.ListMyTablesRequest(), None, ("token",)),
            Call(PLAYERS, "RejoinSeat", pl.RejoinSeatRequest(table_id=t), player, ("table_id", "token")),
            Call(
                PLAYERS,
                "ListLeaderboard",
                pl.ListLeaderboardRequest(game_id="borgia"),
                None,
                ("game_id", "around_player_id", "token"),
            ),
            Call(PLAYERS, "FindGame", pl.FindGameRequest(min_players=2), player, ("game_id", "token"), "stream"),
            Call(ACTIONS, "SubmitActions", gw.SubmitActionRequest(table_id=t), seat, FIELDS_OF_A_MESSAGE, "bidi"),
            # The victim is seated at a running table: each of these is refused (the
            # spectators' channel, a message that is not there) or changes nothing.
            Call(CHAT, "SendChat", chat_pb2.SendChatRequest(table_id=t, channel=SPECTATORS, text="x"), player, TT),
            Call(CHAT, "ListChat", chat_pb2.ListChatRequest(table_id=t, channel=SPECTATORS), player, TT),
            Call(
                CHAT,
                "WatchChat",
                chat_pb2.WatchChatRequest(table_id=t, channel=SPECTATORS),
                player,
                ("table_id", "after_id", "token"),
                "stream",
            ),
            Call(CHAT, "MutePlayer", chat_pb2.MutePlayerRequest(muted=True), player, ("player_id", "token")),
            Call(
                CHAT,
                "ReportChat",
                chat_pb2.ReportChatRequest(table_id=t, channel=chat_pb2.CHAT_CHANNEL_PLAYERS, message_id="1-0"),
                player,
                ("table_id", "message_id", "token"),
            ),
            *self.social_calls(),
        ]

    def social_calls(self) -> list[Call]:
        t, player, pid = self.table_id, self.player_token, self.player_id
        at_table = so.SetPresenceRequest(state=so.PRESENCE_STATE_AT_TABLE, table_id=t)
        return [
            Call(SOCIAL, "FollowPlayer", so.FollowPlayerRequest(player_id=pid), player, ("player_id", "token")),
            Call(SOCIAL, "UnfollowPlayer", so.UnfollowPlayerRequest(player_id=pid), player, ("player_id", "token")),
            Call(SOCIAL, "BlockPlayer", so.BlockPlayerRequest(player_id=pid), player, ("player_id", "token")),
            Call(SOCIAL, "UnblockPlayer", so.UnblockPlayerRequest(player_id=pid), player, ("player_id", "token")),
            Call(SOCIAL, "ListFriends", so.ListFriendsRequest(), None, ("token",)),
            Call(SOCIAL, "SetPresence", at_table, player, ("table_id", "token")),
            Call(
                SOCIAL,
                "Invite",
                so.InviteRequest(player_id=pid, table_id=t),
                player,
                ("player_id", "table_id", "token"),
            ),
            Call(SOCIAL, "ListInvitations", so.ListInvitationsRequest(), None, ("token",)),
            Call(
                SOCIAL,
                "AnswerInvitation",
                so.AnswerInvitationRequest(invitation_id="0123456789abcdef"),
                player,
                ("invitation_id", "token"),
            ),
            Call(SOCIAL, "WatchInvitations", so.WatchInvitationsRequest(), None, ("token",), "stream"),
        ]

    def key_like(self) -> list[str]:
        """Ids and tokens that name other keys of the victim, or patterns of keys."""
        pid, secret = self.player_id, self.player_token.rpartition(".")[2]
        return [
            "x:tables",
            "x:tables.secret",
            f"{pid}:tables",
            f"{pid}:tables.{secret}",
            f"p.{pid}:tables.{secret}",
            f"p.{pid}.{secret}.{secret}",
            f"{self.table_id}:log",
            "{" + self.table_id + "}",
            f"{self.table_id}}}:table",
            "*",
            "{tag}",
            "[a-f]*",
            "bot:x:tables",
            "../x",
            pid.upper(),
            pid + "0",
            "p." + pid,
        ]


FIELDS_OF_A_MESSAGE = ("seat_token", "table_id", "request_id")
TT = ("table_id", "token")
SPECTATORS = chat_pb2.CHAT_CHANNEL_SPECTATORS
NON_ASCII = ["p.ïd.sécret", "sécret", "ïd", "表", "\u202e", "x\x00y", "\x00", "e\u0301", "\x7f", "🂡"]
LONG = ["a" * 300, "0" * 5000]


ID_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
GAME_ID_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")


def strictly_bad(field: str, sent: bytes | str, key_like: set[str]) -> bool:
    """Whether ``sent`` is plainly of no shape the field's ids or tokens have: bytes that
    are not UTF-8; a character no id or token holds; a key-like value; too long. Never so
    for a token of whitespace (that is no token), nor, in a request id (a client's choice),
    for up to 128 printable ASCII characters."""
    if isinstance(sent, bytes):
        try:
            sent = sent.decode()
        except UnicodeDecodeError:
            return True
    text = sent.strip() if field == "token" else sent
    if not text:
        return False
    if field == "request_id":
        return len(text) > 128 or any(not 0x21 <= ord(char) < 0x7F for char in text)
    if field == "game_id":  # a key-like id of a player may still be a game's name
        return len(text) > 64 or not set(text) <= GAME_ID_CHARACTERS
    if text in key_like or len(text) > 200:
        return True
    return not text.startswith("bot:") and not set(text) <= ID_CHARACTERS


def header_value(value: bytes, protocol: str) -> bytes | str:
    """A hostile token as each protocol can carry it: the browser protocol any byte an
    HTTP/1.1 header may hold (h11 refuses control characters and the client CR/LF), gRPC's
    Python client printable ASCII only, so anything else goes percent-encoded."""
    if protocol == "connect":
        return bytes(byte for byte in value if (byte >= 0x20 and byte != 0x7F) or byte == 0x09)
    if all(0x20 <= byte < 0x7F for byte in value):
        return value.decode()
    return urllib.parse.quote_from_bytes(value, safe=bytes(range(0x21, 0x7F)).replace(b"%", b""))


def answer(channel, stack, call: Call, field: str, value: bytes, protocol: str) -> tuple[str, str, bytes | str]:
    """(code, reason, what was sent) of ``call`` with ``field`` holding ``value``."""
    token: bytes | str | None = call.token
    if field == "token":
        raw, token = call.request.SerializeToString(), header_value(value, protocol)
        sent: bytes | str = token
    else:
        raw, sent = call.raw(field, value), value
    if protocol == "connect":
        return (*connect(stack, call.service, call.method, raw, token, call.kind == "stream"), sent)
    metadata = (("authorization", f"Bearer {token}"),) if token else None
    path = f"/{call.service}/{call.method}"
    try:
        if call.kind == "unary":
            channel.unary_unary(path)(raw, metadata=metadata, timeout=10)
        elif call.kind == "stream":
            stream = channel.unary_stream(path)(raw, metadata=metadata, timeout=10)
            next(stream, None)
            stream.cancel()
        else:
            replies = channel.stream_stream(path)(iter([raw]), metadata=metadata, timeout=10)
            reply = actions_pb2.SubmitActionsResponse.FromString(next(replies))
            replies.cancel()
            if reply.WhichOneof("result") == "error":
                status = status_pb2.Status.FromString(reply.error)
                info = error_details_pb2.ErrorInfo()
                for detail in status.details:
                    if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                        detail.Unpack(info)
                return _CODE_NAMES[status.code], info.reason, sent
        return "OK", "", sent
    except grpc.RpcError as error:
        if error.code() == grpc.StatusCode.CANCELLED:
            return "OK", "", sent  # the stream answered; the fuzzer left
        return error.code().name, reason_of(error), sent


_CODE_NAMES = {code.value[0]: code.name for code in grpc.StatusCode}


def check_answer(victim: Victim, channel, stack, call: Call, field: str, value: bytes, protocol: str) -> str:
    """Sends one hostile call and checks its answer, and that the victim's keys are as
    they were; returns its code."""
    before = victim.snapshot()
    code, reason, sent = answer(channel, stack, call, field, value, protocol)
    where = (protocol, call.method, field, value[:60], code, reason)
    assert code not in FORBIDDEN, where
    assert code in ALLOWED, where
    assert code == "OK" or reason, where  # every refusal says why
    if code == "RESOURCE_EXHAUSTED":
        assert reason == "REQUEST_TOO_LARGE", where
    too_large = code == "RESOURCE_EXHAUSTED" and field != "token"  # the field made the request so
    if strictly_bad(field, sent, victim.key_like_set) and not too_large:
        if field == "token" or (field == "seat_token" and _utf8(value)):
            assert code == "UNAUTHENTICATED", where
        else:  # an id, or a message that does not decode (MALFORMED_REQUEST)
            assert code == "INVALID_ARGUMENT", where
    assert victim.snapshot() == before, where  # the victim's player and table keys untouched
    return code


def _utf8(value: bytes) -> bool:
    try:
        value.decode()
    except UnicodeDecodeError:
        return False
    return True


@pytest.fixture(scope="module")
def victim(stack, gateway, players) -> Iterator[Victim]:
    held = Victim(stack, gateway, players)
    yield held
    held.redis.close()


def test_the_fuzzer_calls_every_rpc_with_each_of_its_ids_and_tokens(victim):
    public = {
        GATEWAY: gw.DESCRIPTOR.services_by_name["GatewayService"],
        PLAYERS: pl.DESCRIPTOR.services_by_name["PlayerService"],
        ACTIONS: actions_pb2.DESCRIPTOR.services_by_name["ActionService"],
        SOCIAL: so.DESCRIPTOR.services_by_name["SocialService"],
        CHAT: chat_pb2.DESCRIPTOR.services_by_name["ChatService"],
    }
    every = {(name, method.name) for name, service in public.items() for method in service.methods}
    assert {(call.service, call.method) for call in victim.calls()} == every
    for call in victim.calls():
        strings = {
            field.name
            for field in call.request.DESCRIPTOR.fields
            if field.type == FieldDescriptor.TYPE_STRING and field.name in shapes.FIELD_CHECKS
        }
        assert strings <= set(call.fields), (call.method, strings)


def sweep_values(victim: Victim) -> list[bytes]:
    texts = [*victim.key_like()[::2], *NON_ASCII[::2], *LONG]
    return [text.encode() for text in texts] + [b"\xff\xfe", "p.ïd.sécret".encode("latin-1"), b""]


def test_every_id_and_token_of_every_call_is_refused_for_its_shape(victim, channel, stack):
    """Each id and token of each call, as each hostile value of a fixed list, over gRPC and
    over the browser protocol (ActionService is gRPC only)."""
    seen: dict[str, set[str]] = {}
    for call in victim.calls():
        for protocol in ("grpc", "connect") if call.kind != "bidi" else ("grpc",):
            for field in call.fields:
                for value in sweep_values(victim):
                    code = check_answer(victim, channel, stack, call, field, value, protocol)
                    seen.setdefault(call.method, set()).add(code)
    # Every call refused something for what it is.
    assert all(codes & {"INVALID_ARGUMENT", "UNAUTHENTICATED"} for codes in seen.values()), seen


HOSTILE = st.one_of(
    st.binary(max_size=40),
    st.text(max_size=80).map(str.encode),
    st.sampled_from(NON_ASCII + LONG).map(str.encode),
    st.from_regex(r"[0-9a-f]{16}", fullmatch=True).map(str.encode),  # well-formed, of nothing
    st.from_regex(r"[A-Za-z0-9_-]{32}", fullmatch=True).map(str.encode),  # a token's shape, of nothing
)


def test_random_bytes_and_text_as_any_id_or_token_of_any_call(victim, channel, stack):
    calls = victim.calls()
    key_like = st.sampled_from(victim.key_like()).map(str.encode)
    chosen = st.sampled_from(calls).flatmap(
        lambda call: st.tuples(
            st.just(call),
            st.sampled_from(call.fields),
            HOSTILE | key_like,
            st.sampled_from(["grpc"] if call.kind == "bidi" else ["grpc", "connect"]),
        )
    )

    @settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(chosen)
    def one_call(case):
        call, field, value, protocol = case
        check_answer(victim, channel, stack, call, field, value, protocol)

    one_call()
    log = (stack.log_dir / "gateway.log").read_text()
    assert '"internal_error"' not in log and '"store_unavailable"' not in log

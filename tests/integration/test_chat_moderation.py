"""Chat moderation: mutes, shadow mutes, reports (and the operator's command), the word
list and filter hook, the lobby, and the operator's switch per game and rated or unrated.
A second gateway, on the suite's Redis and rules services, runs with those settings."""

import base64
import json
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from deploy.stack import ROOT, Stack
from tavola.gateway.v1 import chat_pb2 as chat
from tavola.gateway.v1 import chat_pb2_grpc, gateway_pb2, gateway_pb2_grpc, players_pb2_grpc
from tests.integration.chat_tables import LOBBY, PLAYERS, SPECTATORS, ChatTable, new_player, refused, send, texts

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def moderated(stack, tmp_path_factory):
    folder: Path = tmp_path_factory.mktemp("chat")
    words = folder / "words.txt"
    words.write_text("# refused words\nturnip\n", encoding="utf-8")
    with (
        Stack(
            redis_url=stack.redis_url,
            key_prefix=stack.key_prefix,
            games=(),
            external_rules=stack.rules_addresses,
            with_worker=False,
            bots=("random",),
            log_dir=folder / "stack",
            gateway_env={
                "TAVOLA_QUOTA_CREATE_PER_MINUTE": "0",
                "TAVOLA_QUOTA_SEATS_PER_MINUTE": "0",
                "TAVOLA_QUOTA_PLAYERS_PER_MINUTE": "0",
                "TAVOLA_CHAT_LOBBY": "true",
                "TAVOLA_CHAT_WORDS": str(words),
                "TAVOLA_CHAT_FILTER": "tests.integration.chat_filter:calm",
                "TAVOLA_CHAT_TABLES": "pecunia:*=off,borgia:rated=spectators",
            },
        ) as running,
        grpc.insecure_channel(running.gateway_address) as channel,
    ):
        yield running, channel


@pytest.fixture(scope="module")
def stubs(moderated):
    _, channel = moderated
    return (
        gateway_pb2_grpc.GatewayServiceStub(channel),
        players_pb2_grpc.PlayerServiceStub(channel),
        chat_pb2_grpc.ChatServiceStub(channel),
    )


def operator(moderated, *args: str) -> str:
    running, _ = moderated
    done = subprocess.run(
        [sys.executable, "-m", "gateway.reports", *args],
        cwd=ROOT,
        env=running.env(),
        capture_output=True,
        check=True,
    )
    return done.stdout.decode()


def test_a_muted_player_is_hidden_from_the_muter_alone(stubs):
    gateway, players, chat_stub = stubs
    table = ChatTable.make(gateway, players, seats=3)
    table.start(gateway)
    loud_id = table.players[0][0]
    muted = chat_stub.MutePlayer(chat.MutePlayerRequest(player_id=loud_id, muted=True), metadata=table.token(1))
    assert list(muted.muted_player_ids) == [loud_id]
    send(chat_stub, table.token(0), table.table_id, PLAYERS, "blah blah")
    send(chat_stub, table.token(2), table.table_id, PLAYERS, "hello")
    assert texts(chat_stub, table.token(1), table.table_id, PLAYERS) == ["hello"]
    assert texts(chat_stub, table.token(2), table.table_id, PLAYERS) == ["blah blah", "hello"]
    chat_stub.MutePlayer(chat.MutePlayerRequest(player_id=loud_id, muted=False), metadata=table.token(1))
    assert texts(chat_stub, table.token(1), table.table_id, PLAYERS) == ["blah blah", "hello"]
    refused(
        lambda: chat_stub.MutePlayer(
            chat.MutePlayerRequest(player_id=table.players[1][0], muted=True), metadata=table.token(1)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MUTE_SELF",
    )
    refused(
        lambda: chat_stub.MutePlayer(chat.MutePlayerRequest(player_id="0" * 16, muted=True), metadata=table.token(1)),
        grpc.StatusCode.NOT_FOUND,
        "PLAYER_NOT_FOUND",
    )


def test_a_shadow_muted_player_is_read_by_themselves_alone(stubs, moderated):
    gateway, players, chat_stub = stubs
    table = ChatTable.make(gateway, players)
    table.start(gateway)
    troll = table.players[0][0]
    assert f"shadow-muted {troll}" in operator(moderated, "shadow-mute", troll)
    assert troll in operator(moderated, "shadow-muted").split()
    try:
        sent = send(chat_stub, table.token(0), table.table_id, PLAYERS, "you all stink")
        assert sent.text == "you all stink"  # the sender is not told
        assert texts(chat_stub, table.token(0), table.table_id, PLAYERS) == ["you all stink"]
        assert texts(chat_stub, table.token(1), table.table_id, PLAYERS) == []
    finally:
        operator(moderated, "unshadow", troll)
    send(chat_stub, table.token(0), table.table_id, PLAYERS, "sorry")
    assert texts(chat_stub, table.token(1), table.table_id, PLAYERS) == ["sorry"]


def test_a_report_is_stored_with_the_reporters_replay_and_listed_for_the_operator(stubs, moderated):
    gateway, players, chat_stub = stubs
    table = ChatTable.make(gateway, players)
    table.start(gateway)
    rude = send(chat_stub, table.token(0), table.table_id, PLAYERS, "you play like a potato")
    request = chat.ReportChatRequest(
        table_id=table.table_id, channel=PLAYERS, message_id=rude.message_id, reason="insults"
    )
    report_id = chat_stub.ReportChat(request, metadata=table.token(1)).report_id
    listed = [json.loads(line) for line in operator(moderated, "list", "--json", "--count", "50").splitlines()]
    (report,) = [each for each in listed if each["report_id"] == report_id]
    assert report["reporter"] == table.players[1][0] and report["reported"] == table.players[0][0]
    assert (report["text"], report["reason"], report["reporter_seat"]) == ("you play like a potato", "insults", 1)
    replay = gateway_pb2.GetReplayResponse.FromString(base64.b64decode(report["replay"]))
    assert replay.table.table_id == table.table_id and replay.steps
    assert report_id in operator(moderated, "list")
    # A message the reporter cannot read, or none at all, is not reported.
    _, stranger = new_player(players, "Stranger")
    refused(
        lambda: chat_stub.ReportChat(request, metadata=[("authorization", f"Bearer {stranger}")]),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_SEATED",
    )
    missing = chat.ReportChatRequest(table_id=table.table_id, channel=PLAYERS, message_id="1-0")
    refused(
        lambda: chat_stub.ReportChat(missing, metadata=table.token(1)), grpc.StatusCode.NOT_FOUND, "MESSAGE_NOT_FOUND"
    )


def test_the_word_list_and_the_filter_hook(stubs):
    gateway, players, chat_stub = stubs
    table = ChatTable.make(gateway, players)
    refused(
        lambda: send(chat_stub, table.token(0), table.table_id, PLAYERS, "a Turnip!"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "CHAT_FILTERED",
    )
    refused(
        lambda: send(chat_stub, table.token(0), table.table_id, PLAYERS, "STOP SHOUTING"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "CHAT_FILTERED",
    )
    assert send(chat_stub, table.token(0), table.table_id, PLAYERS, "darn it").text == "d**n it"
    assert texts(chat_stub, table.token(1), table.table_id, PLAYERS) == ["d**n it"]


def test_the_lobby_when_the_operator_turns_it_on(stubs):
    _, players, chat_stub = stubs
    _, token = new_player(players, "Lobbyist")
    metadata = [("authorization", f"Bearer {token}")]
    sent = send(chat_stub, metadata, "", LOBBY, "anyone for pecunia?")
    assert sent.message_id in [
        message.message_id
        for message in chat_stub.ListChat(chat.ListChatRequest(channel=LOBBY), metadata=metadata).messages
    ]
    refused(
        lambda: send(chat_stub, metadata, "0" * 16, LOBBY, "x"), grpc.StatusCode.INVALID_ARGUMENT, "BAD_CHAT_CHANNEL"
    )


def test_the_operators_switch_per_game_and_rated_or_unrated(stubs):
    gateway, players, chat_stub = stubs
    off = ChatTable.make(gateway, players, game="pecunia")
    for channel in (PLAYERS, SPECTATORS):
        refused(
            lambda channel=channel: send(chat_stub, off.token(0), off.table_id, channel, "hi"),
            grpc.StatusCode.FAILED_PRECONDITION,
            "CHAT_OFF",
        )
    rated = ChatTable.make(gateway, players, rated=True)
    refused(
        lambda: send(chat_stub, rated.token(0), rated.table_id, PLAYERS, "I am the red cardinal"),
        grpc.StatusCode.FAILED_PRECONDITION,
        "CHAT_OFF",
    )
    _, token = new_player(players, "Railbird")
    send(chat_stub, [("authorization", f"Bearer {token}")], rated.table_id, SPECTATORS, "spectators may talk")
    unrated = ChatTable.make(gateway, players)
    send(chat_stub, unrated.token(0), unrated.table_id, PLAYERS, "unrated tables talk")

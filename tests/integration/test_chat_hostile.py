"""Hostile chat clients against the real gateway: floods, huge messages, control, format
and bidirectional characters, bad tokens, markup and links. Every refusal names its
reason with the right status, and changes nothing."""

import grpc
import pytest

from common.errors import details_of
from tavola.gateway.v1 import chat_pb2 as chat
from tavola.gateway.v1 import chat_pb2_grpc, players_pb2_grpc
from tests.integration.chat_tables import LOBBY, PLAYERS, ChatTable, refused, send, texts

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def players(channel):
    return players_pb2_grpc.PlayerServiceStub(channel)


@pytest.fixture(scope="module")
def chat_stub(channel):
    return chat_pb2_grpc.ChatServiceStub(channel)


@pytest.fixture
def table(gateway, players):
    made = ChatTable.make(gateway, players)
    made.start(gateway)
    return made


def test_a_flood_is_refused_after_the_burst_and_changes_nothing(table, chat_stub):
    # The default bucket: a burst of 5, then 20 a minute (TAVOLA_CHAT_BURST, _PER_MINUTE).
    for number in range(5):
        send(chat_stub, table.token(0), table.table_id, PLAYERS, f"spam {number}")
    error = refused(
        lambda: send(chat_stub, table.token(0), table.table_id, PLAYERS, "spam 5"),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "QUOTA_EXCEEDED",
    )
    retry = details_of(error)[1]
    assert retry is not None and 0 < retry.retry_delay.ToTimedelta().total_seconds() <= 3  # a token each 3 s
    assert texts(chat_stub, table.token(1), table.table_id, PLAYERS) == [f"spam {n}" for n in range(5)]
    # Another player's allowance is their own.
    send(chat_stub, table.token(1), table.table_id, PLAYERS, "calm down")


def test_a_huge_message_is_refused_by_its_length_or_its_bytes(table, chat_stub):
    refused(
        lambda: send(chat_stub, table.token(0), table.table_id, PLAYERS, "a" * 501),
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_CHAT_TEXT",
    )
    refused(
        lambda: send(chat_stub, table.token(0), table.table_id, PLAYERS, "a" * 10_000),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "REQUEST_TOO_LARGE",
    )
    # Over the largest request any method takes: gRPC refuses it before any Python runs.
    with pytest.raises(grpc.RpcError) as caught:
        send(chat_stub, table.token(0), table.table_id, PLAYERS, "a" * 1_000_000)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    refused(
        lambda: send(chat_stub, table.token(0), table.table_id, PLAYERS, "   "),
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_CHAT_TEXT",
    )
    kept = send(chat_stub, table.token(0), table.table_id, PLAYERS, "é" * 500)
    assert len(kept.text) == 500
    assert texts(chat_stub, table.token(1), table.table_id, PLAYERS) == ["é" * 500]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("hi\x1b[31mred", "U+001B ESCAPE"),
        ("line\nbreak", "U+000A LINE FEED"),
        ("bell\x07", "U+0007 BELL"),
        ("abc\u202etxt.exe", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("iso\u2066late", "U+2066 LEFT-TO-RIGHT ISOLATE"),
        ("zero\u200bwidth", "U+200B ZERO WIDTH SPACE"),
        ("private\ue000use", "U+E000"),
        ("a\u0301\u0302\u0303\u0304\u0305", "combining marks"),
    ],
)
def test_control_format_and_bidi_characters_are_refused_by_name(table, chat_stub, text, named):
    error = refused(
        lambda: send(chat_stub, table.token(0), table.table_id, PLAYERS, text),
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_CHAT_TEXT",
    )
    assert named in error.details()
    assert texts(chat_stub, table.token(1), table.table_id, PLAYERS) == []


def test_nfkc_and_plain_text_links_and_markup(table, chat_stub):
    sent = send(chat_stub, table.token(0), table.table_id, PLAYERS, "  \uff46\uff55\uff4c\uff4c width \ufb01  ")
    assert sent.text == "full width fi"
    link = 'see https://example.org/?a=<b>&c="d" <script>alert(1)</script> 👍🏽 👩‍👩‍👧'
    assert send(chat_stub, table.token(1), table.table_id, PLAYERS, link).text == link
    assert texts(chat_stub, table.token(0), table.table_id, PLAYERS) == ["full width fi", link]


def test_bad_tokens_are_refused(table, chat_stub):
    request = chat.SendChatRequest(table_id=table.table_id, channel=PLAYERS, text="hello")
    refused(lambda: chat_stub.SendChat(request), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    forged = table.players[0][1][:-4] + "AAAA"
    refused(
        lambda: chat_stub.SendChat(request, metadata=[("authorization", f"Bearer {forged}")]),
        grpc.StatusCode.UNAUTHENTICATED,
        "PLAYER_TOKEN_INVALID",
    )
    refused(
        lambda: chat_stub.SendChat(request, metadata=[("authorization", "Bearer ../../etc")]),
        grpc.StatusCode.UNAUTHENTICATED,
        "TOKEN_MALFORMED",
    )
    refused(
        lambda: next(chat_stub.WatchChat(chat.WatchChatRequest(table_id=table.table_id, channel=PLAYERS))),
        grpc.StatusCode.UNAUTHENTICATED,
        "TOKEN_MISSING",
    )
    assert texts(chat_stub, table.token(1), table.table_id, PLAYERS) == []


def test_bad_ids_channels_and_the_lobby_when_off(table, chat_stub):
    metadata = table.token(0)
    refused(
        lambda: send(chat_stub, metadata, "../" + table.table_id, PLAYERS, "x"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_TABLE_ID",
    )
    refused(lambda: send(chat_stub, metadata, "f" * 16, PLAYERS, "x"), grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")
    refused(
        lambda: send(chat_stub, metadata, table.table_id, chat.CHAT_CHANNEL_UNSPECIFIED, "x"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_CHAT_CHANNEL",
    )
    refused(
        lambda: send(chat_stub, metadata, table.table_id, 99, "x"), grpc.StatusCode.INVALID_ARGUMENT, "BAD_CHAT_CHANNEL"
    )
    # The lobby is off by default (TAVOLA_CHAT_LOBBY).
    refused(lambda: send(chat_stub, metadata, "", LOBBY, "anyone?"), grpc.StatusCode.FAILED_PRECONDITION, "CHAT_OFF")
    refused(
        lambda: next(
            chat_stub.WatchChat(
                chat.WatchChatRequest(channel=PLAYERS, table_id=table.table_id, after_id="x;"), metadata=metadata
            )
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_AFTER_ID",
    )

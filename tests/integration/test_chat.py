"""Chat at a table (ChatService): the players' channel reaches the table's seats and
nobody else, the spectators' channel stays apart until the game is over, and history
stays with the table."""

import grpc
import pytest

from common.errors import reason_of
from tavola.gateway.v1 import chat_pb2 as chat
from tavola.gateway.v1 import chat_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl
from tests.integration.chat_tables import PLAYERS, SPECTATORS, ChatTable, new_player, refused, send, texts

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def players(channel):
    return players_pb2_grpc.PlayerServiceStub(channel)


@pytest.fixture(scope="module")
def chat_stub(channel):
    return chat_pb2_grpc.ChatServiceStub(channel)


def watch(chat_stub, metadata, table_id: str, channel: int, after_id: str = ""):
    request = chat.WatchChatRequest(table_id=table_id, channel=channel, after_id=after_id)
    return chat_stub.WatchChat(request, metadata=metadata)


def first_texts(stream) -> list[str]:
    return [message.text for message in next(stream).messages]


def test_a_message_reaches_the_other_seats_and_nobody_else(gateway, players, chat_stub):
    table = ChatTable.make(gateway, players, seats=3)
    other_table = ChatTable.make(gateway, players, seats=2)
    table.start(gateway)
    spectator = new_player(players, "Onlooker")
    seat1 = watch(chat_stub, table.token(1), table.table_id, PLAYERS)
    seat2 = watch(chat_stub, table.token(2), table.table_id, PLAYERS)
    elsewhere = watch(chat_stub, other_table.token(0), other_table.table_id, PLAYERS)
    watching = watch(chat_stub, [("authorization", f"Bearer {spectator[1]}")], table.table_id, SPECTATORS)
    try:
        sent = send(chat_stub, table.token(0), table.table_id, PLAYERS, "good luck all")
        assert sent.seat == 0 and sent.player_id == table.players[0][0] and sent.message_id
        for stream in (seat1, seat2):
            (got,) = next(stream).messages
            assert (got.text, got.seat, got.message_id) == ("good luck all", 0, sent.message_id)
        # Markers sent after it in the other channels come first on their streams: the
        # players' message reached neither the spectator nor the other table's seat.
        send(chat_stub, [("authorization", f"Bearer {spectator[1]}")], table.table_id, SPECTATORS, "marker one")
        assert first_texts(watching) == ["marker one"]
        send(chat_stub, other_table.token(1), other_table.table_id, PLAYERS, "marker two")
        assert first_texts(elsewhere) == ["marker two"]
        # The sender's own stream, opened afterwards, starts with the history.
        mine = watch(chat_stub, table.token(0), table.table_id, PLAYERS)
        assert first_texts(mine) == ["good luck all"]
        mine.cancel()
    finally:
        for stream in (seat1, seat2, elsewhere, watching):
            stream.cancel()


def test_a_spectator_can_neither_write_nor_read_the_players_channel(gateway, players, chat_stub):
    table = ChatTable.make(gateway, players)
    table.start(gateway)
    send(chat_stub, table.token(0), table.table_id, PLAYERS, "my hand is strong")
    _, token = new_player(players, "Snoop")
    metadata = [("authorization", f"Bearer {token}")]
    before = texts(chat_stub, table.token(1), table.table_id, PLAYERS)
    refused(
        lambda: send(chat_stub, metadata, table.table_id, PLAYERS, "seat 1 has two dukes"),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_SEATED",
    )
    refused(
        lambda: texts(chat_stub, metadata, table.table_id, PLAYERS), grpc.StatusCode.PERMISSION_DENIED, "NOT_SEATED"
    )
    refused(
        lambda: next(watch(chat_stub, metadata, table.table_id, PLAYERS)),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_SEATED",
    )
    # A seat token is no player token: chat needs the player.
    seat_token = [("authorization", f"Bearer {table.seat_tokens[0]}")]
    refused(
        lambda: send(chat_stub, seat_token, table.table_id, PLAYERS, "hi"),
        grpc.StatusCode.UNAUTHENTICATED,
        "PLAYER_TOKEN_INVALID",
    )
    assert texts(chat_stub, table.token(1), table.table_id, PLAYERS) == before == ["my hand is strong"]


def test_a_player_of_another_table_is_a_spectator_here(gateway, players, chat_stub):
    table = ChatTable.make(gateway, players)
    other = ChatTable.make(gateway, players)
    table.start(gateway)
    refused(
        lambda: send(chat_stub, other.token(0), table.table_id, PLAYERS, "psst"),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_SEATED",
    )
    assert texts(chat_stub, table.token(0), table.table_id, PLAYERS) == []


def test_players_read_the_spectators_channel_once_the_game_is_over(gateway, players, chat_stub):
    table = ChatTable.make(gateway, players)
    table.start(gateway)
    _, token = new_player(players, "Kibitzer")
    spectator = [("authorization", f"Bearer {token}")]
    send(chat_stub, spectator, table.table_id, SPECTATORS, "seat 0 holds the antipope")
    refused(
        lambda: texts(chat_stub, table.token(0), table.table_id, SPECTATORS),
        grpc.StatusCode.PERMISSION_DENIED,
        "GAME_NOT_OVER",
    )
    refused(
        lambda: send(chat_stub, table.token(0), table.table_id, SPECTATORS, "stop it"),
        grpc.StatusCode.PERMISSION_DENIED,
        "SEATED_PLAYER",
    )
    send(chat_stub, table.token(1), table.table_id, PLAYERS, "well played")
    table.play_to_end(gateway)
    # The history stays with the table: the players' channel for its players, and now the
    # spectators' channel for them too; still never the players' channel for a spectator.
    assert texts(chat_stub, table.token(0), table.table_id, SPECTATORS) == ["seat 0 holds the antipope"]
    assert texts(chat_stub, table.token(0), table.table_id, PLAYERS) == ["well played"]
    send(chat_stub, table.token(0), table.table_id, PLAYERS, "gg")
    assert texts(chat_stub, table.token(1), table.table_id, PLAYERS) == ["well played", "gg"]
    refused(
        lambda: texts(chat_stub, spectator, table.table_id, PLAYERS), grpc.StatusCode.PERMISSION_DENIED, "NOT_SEATED"
    )


def test_the_chat_keys_live_under_the_table_and_go_with_it(gateway, players, chat_stub, stack):
    from common.redis_client import connect

    table = ChatTable.make(gateway, players)
    send(chat_stub, table.token(0), table.table_id, PLAYERS, "before the start")
    client = connect(stack.redis_url)
    try:
        key = f"{stack.key_prefix}:{{{table.table_id}}}:chat:players"
        table_key = f"{stack.key_prefix}:{{{table.table_id}}}:table"
        assert client.xlen(key) == 1
        assert 0 < client.ttl(key) <= client.ttl(table_key)
        client.delete(table_key)  # as the table's TTL would
        refused(
            lambda: send(chat_stub, table.token(0), table.table_id, PLAYERS, "after"),
            grpc.StatusCode.NOT_FOUND,
            "TABLE_NOT_FOUND",
        )
        assert client.xlen(key) == 1
    finally:
        client.close()


def test_signing_out_everywhere_ends_the_chat_stream_its_token_opened(gateway, players, chat_stub):
    table = ChatTable.make(gateway, players)
    stream = watch(chat_stub, table.token(1), table.table_id, PLAYERS)
    send(chat_stub, table.token(0), table.table_id, PLAYERS, "first")
    assert first_texts(stream) == ["first"]
    players.SignOutEverywhere(pl.SignOutEverywhereRequest(), metadata=table.token(1))
    send(chat_stub, table.token(0), table.table_id, PLAYERS, "after the sign-out")
    with pytest.raises(grpc.RpcError) as caught:
        next(stream)
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert reason_of(caught.value) == "PLAYER_TOKEN_INVALID"

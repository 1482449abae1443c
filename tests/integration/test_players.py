"""Players who come back (PlayerService): a player made in one call, known by a token
shown once; seats taken with it are the player's, listed and rejoined from another device;
forged, revoked and other players' tokens are refused with a reason."""

import secrets

import grpc
import pytest

from common import auth
from common.errors import reason_of
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import players_pb2_grpc

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def players(channel) -> players_pb2_grpc.PlayerServiceStub:
    return players_pb2_grpc.PlayerServiceStub(channel)


def new_player(players, name: str = "") -> tuple[str, str]:
    # Each player of the suite its own name: two players may not look alike.
    name = name or f"Ada {secrets.token_hex(4)}"
    created = players.CreatePlayer(pl.CreatePlayerRequest(display_name=name))
    assert created.player.display_name == name and created.player.create_time.seconds > 0
    assert created.player_token.startswith(f"p.{created.player.player_id}.")
    return created.player.player_id, created.player_token


def refused(call, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    assert reason_of(caught.value) == reason


def open_table(gateway, players=2, **fields) -> str:
    created = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=players, **fields))
    return created.table.table_id


def test_a_player_is_created_renamed_and_shown_without_its_token(players, stack):
    player_id, token = new_player(players, "ada")
    page = players.GetPlayer(pl.GetPlayerRequest(player_id=player_id))
    assert page.player.display_name == "ada" and not page.player.bot
    assert players.GetPlayer(pl.GetPlayerRequest(), metadata=auth.metadata(token)).player.player_id == player_id
    renamed = players.RenamePlayer(pl.RenamePlayerRequest(display_name="Ada L."), metadata=auth.metadata(token))
    assert renamed.player.display_name == "Ada L."
    # Stored as a digest only: the token's secret is nowhere in Redis.
    from common.redis_client import connect

    client = connect(stack.redis_url)
    try:
        stored = client.hgetall(f"{stack.key_prefix}:player:{player_id}")
    finally:
        client.close()
    assert token.encode() not in b"".join(stored.values())
    assert token.rpartition(".")[2].encode() not in b"".join(stored.values())


def test_bad_names_and_unknown_players_are_refused(players):
    refused(
        lambda: players.CreatePlayer(pl.CreatePlayerRequest(display_name="  ")),
        grpc.StatusCode.INVALID_ARGUMENT,
        "DISPLAY_NAME_REQUIRED",
    )
    refused(
        lambda: players.CreatePlayer(pl.CreatePlayerRequest(display_name="x" * 65)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_DISPLAY_NAME",
    )
    refused(
        lambda: players.GetPlayer(pl.GetPlayerRequest(player_id="0123456789abcdef")),
        grpc.StatusCode.NOT_FOUND,
        "PLAYER_NOT_FOUND",
    )


def test_forged_and_revoked_tokens_are_refused(players, gateway):
    player_id, token = new_player(players)
    forged = [f"p.{player_id}.not-the-secret", "p.0123456789abcdef.secret", "p.", "p..", f"p.bot:random.{token}"]
    for bad in forged:
        refused(
            lambda bad=bad: players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(bad)),
            grpc.StatusCode.UNAUTHENTICATED,
            "PLAYER_TOKEN_INVALID",
        )
    refused(lambda: players.ListMyTables(pl.ListMyTablesRequest()), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    # A forged player token takes no seat either.
    table_id = open_table(gateway)
    refused(
        lambda: gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(forged[0])),
        grpc.StatusCode.UNAUTHENTICATED,
        "PLAYER_TOKEN_INVALID",
    )

    new = players.ReissuePlayerToken(pl.ReissuePlayerTokenRequest(), metadata=auth.metadata(token)).player_token
    assert new != token
    refused(
        lambda: players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(token)),
        grpc.StatusCode.UNAUTHENTICATED,
        "PLAYER_TOKEN_INVALID",
    )
    refused(
        lambda: players.ReissuePlayerToken(pl.ReissuePlayerTokenRequest(), metadata=auth.metadata(token)),
        grpc.StatusCode.UNAUTHENTICATED,
        "PLAYER_TOKEN_INVALID",
    )
    players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(new))


def test_a_players_seat_is_listed_and_rejoined_from_another_device(players, gateway):
    player_id, token = new_player(players, "grace")
    table_id = open_table(gateway, auto_start=True)
    seat = gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(token))
    assert seat.table.seats[seat.seat].player_id == player_id
    assert seat.table.seats[seat.seat].display_name == "grace"  # the player's name by default
    refused(
        lambda: gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(token)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "ALREADY_SEATED",
    )
    guest = gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, display_name="guest"))  # guests still sit
    assert guest.table.seats[guest.seat].player_id == ""
    assert guest.table.status == gw.TABLE_STATUS_IN_PROGRESS

    mine = players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(token))
    assert [(t.table.table_id, t.seat) for t in mine.tables] == [(table_id, seat.seat)]

    # Another device: a new seat token for the same seat; the old one stops working.
    rejoined = players.RejoinSeat(pl.RejoinSeatRequest(table_id=table_id), metadata=auth.metadata(token))
    assert rejoined.seat == seat.seat and rejoined.seat_token != seat.seat_token
    assert gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(rejoined.seat_token)).seat == (
        seat.seat
    )
    refused(
        lambda: gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(seat.seat_token)),
        grpc.StatusCode.PERMISSION_DENIED,
        "TOKEN_NOT_FOR_TABLE",
    )
    # Another player (or a guest's table) holds nothing of it.
    _, other = new_player(players, "mallory")
    refused(
        lambda: players.RejoinSeat(pl.RejoinSeatRequest(table_id=table_id), metadata=auth.metadata(other)),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_YOUR_SEAT",
    )
    refused(
        lambda: players.RejoinSeat(pl.RejoinSeatRequest(table_id="0123456789abcdef"), metadata=auth.metadata(token)),
        grpc.StatusCode.NOT_FOUND,
        "TABLE_NOT_FOUND",
    )


def test_a_rated_table_seats_players_only_and_never_replays(players, gateway):
    refused(
        lambda: open_table(gateway, rated=True, replay_mode=True, seed=3),
        grpc.StatusCode.INVALID_ARGUMENT,
        "RATED_REPLAY",
    )
    table_id = open_table(gateway, rated=True)
    refused(
        lambda: gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id)),
        grpc.StatusCode.UNAUTHENTICATED,
        "PLAYER_REQUIRED",
    )
    _, token = new_player(players)
    taken = gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(token))
    assert taken.table.rated

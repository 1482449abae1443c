"""The terminal's player commands against a real gateway: a player made and saved, its
page, its tables and a leaderboard."""

import asyncio

import grpc
import pytest
import redis

from clients.terminal import players as cli
from clients.terminal.session import SavedSeat, Session
from common import auth, ratings
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import players_pb2_grpc

pytestmark = pytest.mark.integration


def test_player_commands(stack, gateway, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TAVOLA_CLIENT_DIR", str(tmp_path / "seats"))
    address = ["--gateway", stack.gateway_address]
    assert cli.main([*address, "create", "Terminal Tess"]) == 0
    assert (tmp_path / "seats" / "player.json").stat().st_mode & 0o077 == 0
    assert cli.main([*address, "me"]) == 0
    assert "Terminal Tess" in capsys.readouterr().out
    table_id = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(cli.saved_token()))
    assert cli.main([*address, "tables"]) == 0
    assert table_id in capsys.readouterr().out
    assert cli.main([*address, "leaderboard", "borgia"]) == 0
    assert "borgia:" in capsys.readouterr().out
    assert cli.main([*address, "player", "nobody-at-all"]) == 1


def test_the_board_shows_a_seated_player_s_rating_at_the_game(stack, gateway):
    """The game screen's seat names carry each seat's rating at the table's game, as the
    player's page (GetPlayer) gives it; a guest's seat has none."""
    with grpc.insecure_channel(stack.gateway_address) as channel:
        made = players_pb2_grpc.PlayerServiceStub(channel).CreatePlayer(
            pl.CreatePlayerRequest(display_name="Rated Rita")
        )
    player_id = made.player.player_id
    keys = ratings.Keys(stack.key_prefix)
    store = redis.Redis.from_url(stack.redis_url)
    fields = {"mu": 1612 / ratings.SCALE, "sigma": 90 / ratings.SCALE, "games": 12, "wins": 5, "v": 12}
    store.hset(keys.rating("borgia", player_id), mapping=fields)
    store.sadd(keys.games(player_id), "borgia")
    table_id = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=3)).table.table_id
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=0), metadata=auth.metadata(made.player_token))
    table = gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=1, display_name="Guest")).table

    async def read() -> dict[int, str]:
        session = Session(stack.gateway_address)
        try:
            return await session.ratings(table)
        finally:
            await session.close()

    assert asyncio.run(read()) == {0: "1612±90"}


def test_ratings_before_play_say_who_is_unrated_without_inventing_a_rating(stack, gateway, capsys):
    """Quick play's "who is here": a player with no rated game at the table's game is said
    to have none, not shown at a starting rating the server never sent."""
    with grpc.insecure_channel(stack.gateway_address) as channel:
        door = players_pb2_grpc.PlayerServiceStub(channel)
        made = door.CreatePlayer(pl.CreatePlayerRequest(display_name="New Nina"))
        table_id = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
        table = gateway.TakeSeat(
            gw.TakeSeatRequest(table_id=table_id, seat=0), metadata=auth.metadata(made.player_token)
        ).table
        cli.show_ratings_at(door, table)
    line = next(line for line in capsys.readouterr().out.splitlines() if "New Nina" in line)
    assert "no rated games here yet" in line and "1500" not in line


def test_create_never_writes_over_a_saved_player(stack, tmp_path, monkeypatch, capsys):
    """The token is the player: a second ``create`` in the same directory would lose the first
    player for good, so it is refused unless --replace; each TAVOLA_CLIENT_DIR holds its own."""
    address = ["--gateway", stack.gateway_address]
    monkeypatch.setenv("TAVOLA_CLIENT_DIR", str(tmp_path / "first"))
    assert cli.main([*address, "create", "First Fay"]) == 0
    first = cli.saved_token()
    with pytest.raises(SystemExit, match="already saved"):
        cli.main([*address, "create", "Second Sam"])
    assert cli.saved_token() == first
    monkeypatch.setenv("TAVOLA_CLIENT_DIR", str(tmp_path / "second"))
    assert cli.main([*address, "create", "Second Sam"]) == 0
    assert cli.saved_token() != first
    assert (tmp_path / "second" / "player.json").stat().st_mode & 0o077 == 0
    monkeypatch.setenv("TAVOLA_CLIENT_DIR", str(tmp_path / "first"))
    assert cli.saved_token() == first
    assert cli.main([*address, "create", "Third Tim", "--replace"]) == 0
    assert cli.saved_token() != first
    assert not list((tmp_path / "first").glob(".player.json.*"))  # no temporary file left


def test_a_saved_seat_at_a_table_not_begun_is_started_once_full_and_waited_for_before(stack, gateway):
    """An invitation accepted (or a seat taken elsewhere) leaves a saved seat at an open table:
    rejoining it starts the table when every seat is taken, as joining the last seat does,
    and waits for players when one is free, where it once failed on the view of a table
    that had not begun."""
    made = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=3))
    table_id = made.table.table_id
    first = gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=0))
    saved = SavedSeat(table_id, 0, first.seat_token, stack.gateway_address, "borgia")

    async def rejoin() -> None:
        await Session(stack.gateway_address).rejoin(saved)

    asyncio.run(rejoin())  # two seats free: it waits
    assert gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.status == gw.TABLE_STATUS_OPEN
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=1))
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=2))
    asyncio.run(rejoin())  # full: it starts, and the seat's view is there
    assert gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.status == gw.TABLE_STATUS_IN_PROGRESS

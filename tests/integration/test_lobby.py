"""The lobby's lists (ListTables): each row names its players with their ratings and its
bots, and shows no more than the table's public summary; ListGames suggests the lobby's
decision timer."""

import uuid

import grpc
import pytest
import redis

from common import auth, ratings
from deploy.stack import Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import players_pb2_grpc
from tests.integration.conftest import HumanTable

pytestmark = pytest.mark.integration


def row_of(gateway, status: gw.TableStatus, table_id: str) -> gw.Table:
    listed = gateway.ListTables(gw.ListTablesRequest(status=status, game_id="borgia", page_size=100))
    return next(table for table in listed.tables if table.table_id == table_id)


def test_a_row_names_its_players_with_their_ratings_and_its_bots(stack: Stack, channel: grpc.Channel, gateway):
    players = players_pb2_grpc.PlayerServiceStub(channel)
    name = f"Lobby {uuid.uuid4().hex[:8]}"
    created = players.CreatePlayer(pl.CreatePlayerRequest(display_name=name))
    player_id = created.player.player_id
    keys = ratings.Keys(stack.key_prefix)
    client = redis.Redis.from_url(stack.redis_url)
    # A rated history, as the rating worker leaves it: the player provisional, the bot not.
    client.hset(keys.rating("borgia", player_id), mapping={"mu": 27.5, "sigma": 6.0, "games": 3, "q": 3})
    client.hset(keys.rating("borgia", "bot:random"), mapping={"mu": 20.0, "sigma": 2.0, "games": 400, "q": 400})
    try:
        table = gateway.CreateTable(
            gw.CreateTableRequest(
                game_id="borgia",
                player_count=3,
                options={"shadow_puppets": "false"},
                bot_seats=[gw.BotSeat(seat=2, bot="random")],
            )
        ).table
        gateway.TakeSeat(
            gw.TakeSeatRequest(table_id=table.table_id, seat=0), metadata=auth.metadata(created.player_token)
        )
        row = row_of(gateway, gw.TABLE_STATUS_OPEN, table.table_id)
        mine, free, bot = row.seats
        assert (mine.display_name, mine.player_id, mine.taken) == (name, player_id, True)
        assert (mine.rating.rating, mine.rating.uncertainty, mine.rating.games) == (1650.0, 360.0, 3)
        assert mine.rating.provisional  # 3 of TAVOLA_PROVISIONAL_GAMES' 10
        assert not free.taken and not free.HasField("rating")
        assert (bot.kind, bot.bot, bot.rating.rating, bot.rating.provisional) == (
            gw.SEAT_KIND_BOT,
            "random",
            1200.0,
            False,
        )
        assert row.HasField("create_time") and row.options["shadow_puppets"] == "false"
        # GetTable is the table's summary alone: ratings are the lists' addition.
        assert not gateway.GetTable(gw.GetTableRequest(table_id=table.table_id)).table.seats[0].HasField("rating")
    finally:
        client.delete(keys.rating("borgia", player_id), keys.rating("borgia", "bot:random"))
        client.close()


def test_a_row_shows_no_more_than_the_tables_public_summary(gateway):
    """Hidden information: a row is GetTable's public summary (and the public ratings): no
    seed, no seat's token or view. Not in replay mode, so the seed is the table's secret."""
    table = HumanTable(gateway, players=2, seed=None)
    started = table.start()
    row = row_of(gateway, gw.TABLE_STATUS_IN_PROGRESS, table.table_id)
    for seat in row.seats:
        seat.ClearField("rating")
    assert row == table.table() and row.version == started.version
    assert not row.replay_mode and row.seed_commitment
    # Nothing of a seat's own: its token, or its view's secrets (the view's bytes).
    data = row.SerializeToString()
    for seat, token in table.tokens.items():
        assert token.encode() not in data
        assert table.view(seat).view.value not in data


def test_list_games_suggests_the_lobbys_decision_timer(gateway):
    assert gateway.ListGames(gw.ListGamesRequest()).lobby_decision_seconds == 120

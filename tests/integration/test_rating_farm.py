"""The ratings farm through real processes: one player beating fresh accounts of its own (one
CreatePlayer each) at rated tables is listed only as provisional, below every established
player, and its rating moves little; bots rated among themselves, and a player established
against them, are established on it.

Provisional periods are TAVOLA_PROVISIONAL_GAMES=3 here (read by the gateway and the rating
worker). The farm uses the bench's own (bench/farm.py): Pecunia for two to one sesterce,
every move at random."""

import random
from collections.abc import Iterator

import grpc
import pytest
from openskill.models import PlackettLuce

from bench.farm import BOTS, Farm
from common import ratings
from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl

pytestmark = pytest.mark.integration

PROVISIONAL = 3


@pytest.fixture(scope="module")
def farm(redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[Farm]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TAVOLA_PROVISIONAL_GAMES", str(PROVISIONAL))  # the stack's processes inherit it
        with Stack(
            redis_url=redis_url,
            key_prefix=f"{key_prefix}-farm",
            games=("pecunia",),
            bots=BOTS,
            gateway_env=dict(NO_QUOTAS),
            log_dir=tmp_path_factory.mktemp("farm"),
        ) as stack:
            with grpc.insecure_channel(stack.gateway_address) as channel:
                yield Farm(
                    gateway_pb2_grpc.GatewayServiceStub(channel),
                    players_pb2_grpc.PlayerServiceStub(channel),
                    random.Random(7),
                )
            stack.delete_keys()


def full_first_win(before: pl.Rating) -> float:
    """What one win over a new player would move ``before`` (a rating as GetPlayer shows
    it; a new player's when empty) with the whole OpenSkill update."""
    model = PlackettLuce()
    mu = before.rating / ratings.SCALE if before.games else ratings.DEFAULT_MU
    sigma = before.uncertainty / ratings.SCALE if before.games else ratings.DEFAULT_SIGMA
    mine = model.rating(mu=mu, sigma=sigma)
    fresh = model.rating(mu=ratings.DEFAULT_MU, sigma=ratings.DEFAULT_SIGMA)
    return model.rate([[mine], [fresh]], ranks=[1, 2])[0][0].mu * ratings.SCALE - mu * ratings.SCALE


def farm_tables(farm: Farm, farmer_id: str, farmer_token: str, wins: int, tables: int, limit: int = 40) -> dict:
    """Fresh accounts, one a table, until the farmer has beaten ``wins`` of them in at least
    ``tables`` tables: each table's id and the farmer's rating change at it."""
    won = played = 0
    while won < wins or played < tables:
        assert played < limit, f"{limit} tables and only {won} wins"
        won += farm.farm_one(farmer_id, farmer_token, played)
        played += 1
    page = farm.players.GetPlayer(pl.GetPlayerRequest(player_id=farmer_id, recent_tables=played))
    return {line.table_id: line.rating_change for line in page.recent_tables[:played]}


def test_a_player_beating_fresh_accounts_is_never_established_by_it(farm: Farm):
    farmer_id, farmer_token = farm.new_player("farmer")
    changes = farm_tables(farm, farmer_id, farmer_token, wins=PROVISIONAL, tables=2 * PROVISIONAL)
    rating = farm.rating(farmer_id)
    assert rating.games == len(changes) >= 2 * PROVISIONAL
    # Past its provisional games twice over, yet provisional: none was against an
    # established player, so it is listed as provisional, below every established player.
    assert rating.provisional
    board = farm.players.ListLeaderboard(pl.ListLeaderboardRequest(game_id="pecunia", page_size=100))
    listed = {entry.player.player_id: entry for entry in board.entries}
    assert listed[farmer_id].rating.provisional and farm.rank(farmer_id) == listed[farmer_id].rank
    assert all(entry.rank < listed[farmer_id].rank for entry in board.entries if not entry.rating.provisional)
    # And no table moved its rating much: a win over a new player moves a new player's
    # rating by about 150 in full; here by a tenth of that.
    full = full_first_win(pl.Rating())
    assert full > 100
    assert max(abs(change) for change in changes.values()) < 0.2 * full, (changes, full)


def test_bots_and_a_player_established_against_them_reach_the_leaderboard(farm: Farm):
    for _ in range(PROVISIONAL):
        farm.bot_table()
    # Bots count fully for one another: both established after their provisional tables.
    for bot in BOTS:
        farm.rated(f"bot:{bot}", PROVISIONAL)
        assert farm.rank(f"bot:{bot}") is not None
        assert not farm.rating(f"bot:{bot}").provisional
    player_id, _ = farm.regular("regular", PROVISIONAL)
    rating = farm.rating(player_id)
    assert rating.games == PROVISIONAL and not rating.provisional
    assert farm.rank(player_id) is not None
    # The established first, then the provisional (the farm's accounts), each marked.
    board = farm.players.ListLeaderboard(pl.ListLeaderboardRequest(game_id="pecunia", page_size=100))
    marks = [entry.rating.provisional for entry in board.entries]
    assert marks == sorted(marks) and marks.count(False) >= len(BOTS) + 1 and True in marks


def test_an_established_player_beating_fresh_accounts_moves_little(farm: Farm):
    """Runs after the test above: the bots are established."""
    farmer_id, farmer_token = farm.regular("established farmer", PROVISIONAL)
    before = farm.rating(farmer_id)
    assert not before.provisional
    changes = farm_tables(farm, farmer_id, farmer_token, wins=PROVISIONAL, tables=PROVISIONAL)
    full = full_first_win(before)
    assert full > 30
    assert max(abs(change) for change in changes.values()) < 0.2 * full, (changes, full)
    assert farm.rating(farmer_id).games == before.games + len(changes)

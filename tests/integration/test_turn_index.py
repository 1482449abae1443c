"""The turn index (gateway/turn_index.py), a hint that ListMyTables checks against each
table it loads (gateway/my_tables.py): written after the commit that begins or ends a
turn, its stale entries ignored and dropped, rebuilt for a player without one, and a page
that reads it the same as one that loads every kept table."""

import time

import grpc
import pytest

from bench.turn_doubles import Duel, new_player
from common import auth
from common.errors import reason_of
from common.redis_client import connect
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import players_pb2_grpc

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def players(channel):
    return players_pb2_grpc.PlayerServiceStub(channel)


@pytest.fixture
def redis(stack):
    client = connect(stack.redis_url)
    yield client
    client.close()


class Index:
    """A player's entries in Redis, as the gateway keeps them."""

    def __init__(self, redis, key_prefix: str, player_id: str):
        self.redis = redis
        self.key = f"{key_prefix}:player:{player_id}:turns"
        self.built = f"{self.key}:built"
        self.tables = f"{key_prefix}:player:{player_id}:tables"

    def entries(self) -> set[str]:
        return {member.decode() for member in self.redis.zrange(self.key, 0, -1)}

    def forget_all(self) -> None:
        """As for a player from before the index: no entries and no mark."""
        self.redis.delete(self.key, self.built)

    def add(self, table_id: str) -> None:
        """An entry the gateway would not write: as one whose removal was lost."""
        self.redis.zadd(self.key, {table_id: time.time() * 1000 - 60_000})


def listing(players, token: str, **fields) -> list[tuple[str, bool, int]]:
    mine = players.ListMyTables(pl.ListMyTablesRequest(**fields), metadata=auth.metadata(token)).tables
    return [(m.table.table_id, m.your_turn, m.seat) for m in mine]


def two_players(players) -> tuple[str, str, str]:
    ada_id, ada = new_player(players, "Indexada")
    _, bea = new_player(players, "Indexbea")
    return ada_id, ada, bea


def test_a_move_writes_the_turn_and_the_next_removes_it(gateway, players, stack, redis):
    ada_id, ada, bea = two_players(players)
    duel = Duel(gateway, ada, bea, seed=31)
    index = Index(redis, stack.key_prefix, ada_id)
    duel.until_turn_of(0)
    assert duel.table_id in index.entries()
    assert listing(players, ada, your_turn_only=True) == [(duel.table_id, True, 0)]
    duel.act(0)
    while 0 in duel.table.deciding_seats:  # a turn of several decisions
        duel.act(0)
    assert duel.table_id not in index.entries()
    assert listing(players, ada) == [(duel.table_id, False, 0)]


def test_an_expired_table_is_left_out_and_its_entry_dropped(gateway, players, stack, redis):
    ada_id, ada, bea = two_players(players)
    duels = [Duel(gateway, ada, bea, seed) for seed in (41, 42)]
    for duel in duels:
        duel.until_turn_of(0)
    index = Index(redis, stack.key_prefix, ada_id)
    listing(players, ada)  # builds the index's mark: the hint is read from here on
    gone = duels[0].table_id
    # Expired: its keys gone, with no commit to tell the index.
    redis.delete(*(f"{stack.key_prefix}:{{{gone}}}:{suffix}" for suffix in ("table", "log", "requests")))
    assert gone in index.entries()
    assert listing(players, ada) == [(duels[1].table_id, True, 0)]
    assert gone not in index.entries()
    assert redis.zscore(index.tables, gone) is None  # and off the player's list


def test_an_entry_where_it_is_not_the_players_turn_is_not_believed(gateway, players, stack, redis):
    ada_id, ada, bea = two_players(players)
    duel = Duel(gateway, ada, bea, seed=51)
    duel.until_turn_of(1)
    index = Index(redis, stack.key_prefix, ada_id)
    listing(players, ada)
    index.add(duel.table_id)
    assert listing(players, ada, your_turn_only=True) == []
    assert duel.table_id not in index.entries()
    assert listing(players, ada) == [(duel.table_id, False, 0)]


def wait_for_bot(gateway, table_id: str, seat: int) -> gw.Table:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        table = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
        if table.seats[seat].kind == gw.SEAT_KIND_BOT:
            return table
        time.sleep(0.2)
    raise AssertionError(f"no bot took seat {seat}")


def test_a_seat_a_bot_took_over_leaves_the_index(gateway, players, stack, redis):
    ada_id, ada, bea = two_players(players)
    timer = gw.DecisionTimer(seconds=1, policy=gw.TIMEOUT_POLICY_BOT_TAKES_SEAT)
    created = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2, decision_timer=timer))
    table_id = created.table.table_id
    for seat, token in enumerate((ada, bea)):
        gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=seat), metadata=auth.metadata(token))
    started = gateway.StartTable(
        gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(created.host_token)
    ).table
    index = Index(redis, stack.key_prefix, ada_id)
    assert (table_id in index.entries()) == (0 in started.deciding_seats)
    wait_for_bot(gateway, table_id, 0)
    assert table_id not in index.entries()  # the takeover's commit took it off
    listing(players, ada)
    index.add(table_id)  # as if that write had been lost
    assert listing(players, ada) == [(table_id, False, 0)]
    assert table_id not in index.entries()


def test_a_player_without_an_index_gets_one_built_and_the_same_list(gateway, players, stack, redis):
    ada_id, ada, bea = two_players(players)
    duels = [Duel(gateway, ada, bea, seed) for seed in range(60, 66)]
    for number, duel in enumerate(duels):
        duel.until_turn_of(number % 2)
    index = Index(redis, stack.key_prefix, ada_id)
    waiting = {duel.table_id for duel in duels if 0 in duel.table.deciding_seats}
    assert index.entries() == waiting
    full = listing(players, ada)
    index.forget_all()
    assert listing(players, ada) == full  # every kept table loaded
    assert index.entries() == waiting and redis.exists(index.built)
    assert [table_id for table_id, turn, _ in full if turn] == [
        d.table_id for d in reversed(duels) if d.table_id in waiting
    ]


@pytest.mark.parametrize("page_size", [1, 2, 3, 4, 7, 0])
def test_a_page_from_the_hint_is_the_page_from_every_table(gateway, players, stack, redis, page_size):
    """Whatever the page, the hint's answer is the answer of loading every kept table
    (what a listing without the index's mark does), a stale entry among them."""
    ada_id, ada, bea = two_players(players)
    duels = [Duel(gateway, ada, bea, seed) for seed in range(70, 76)]
    for number, duel in enumerate(duels):
        duel.until_turn_of(0 if number in (1, 2, 5) else 1)
    index = Index(redis, stack.key_prefix, ada_id)
    listing(players, ada)
    for only in (False, True):
        index.add(duels[3].table_id)  # stale
        hinted = listing(players, ada, page_size=page_size, your_turn_only=only)
        index.forget_all()
        assert hinted == listing(players, ada, page_size=page_size, your_turn_only=only)


def test_hostile_tokens_are_refused_before_they_name_an_index(players, stack, redis):
    for bad in ("p.*.x", "p.0123456789abcdef:turns.secret", "p.{x}.secret", "p." + "a" * 300 + ".s"):
        with pytest.raises(grpc.RpcError) as caught:
            players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(bad))
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert reason_of(caught.value) == "PLAYER_TOKEN_INVALID"
    named = [key for key in redis.scan_iter(match=f"{stack.key_prefix}:player:*turns*") if b"*" in key or b"{" in key]
    assert named == []


def test_a_deleted_player_leaves_no_index(gateway, players, stack, redis):
    ada_id, ada, bea = two_players(players)
    Duel(gateway, ada, bea, seed=81).until_turn_of(0)
    listing(players, ada)
    index = Index(redis, stack.key_prefix, ada_id)
    assert index.entries() and redis.exists(index.built)
    players.DeletePlayer(pl.DeletePlayerRequest(player_id=ada_id), metadata=auth.metadata(ada))
    assert not redis.exists(index.key, index.built)

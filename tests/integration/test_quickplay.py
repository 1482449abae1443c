"""Quick play across two gateways: searchers on either are matched together, each seated
once; a second search by one player is refused, a closed stream leaves the queue, and a
lone searcher gets bots after the bot-fill wait."""

import threading
import time
from collections.abc import Iterator

import grpc
import pytest

from common import auth, ratings
from common.errors import reason_of
from common.redis_client import connect
from deploy.stack import Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def two_gateways(redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[Stack]:
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-quick",
        games=("borgia",),
        gateways=2,
        bots=("random", "borgia-heuristic"),
        worker_bots=("random", "borgia-heuristic"),
        worker_concurrency=4,
        gateway_env={
            "TAVOLA_QUICKPLAY_BOT_FILL_SECONDS": "2",
            "TAVOLA_QUICKPLAY_TIMEOUT_SECONDS": "20",
            "TAVOLA_QUOTA_CREATE_PER_MINUTE": "0",
            "TAVOLA_QUOTA_PLAYERS_PER_MINUTE": "0",
        },
        log_dir=tmp_path_factory.mktemp("quick"),
    ) as stack:
        yield stack


@pytest.fixture(scope="module")
def doors(two_gateways: Stack) -> Iterator[list[players_pb2_grpc.PlayerServiceStub]]:
    channels = [grpc.insecure_channel(address) for address in two_gateways.gateway_addresses]
    yield [players_pb2_grpc.PlayerServiceStub(channel) for channel in channels]
    for channel in channels:
        channel.close()


def player(door, name: str) -> tuple[str, str]:
    created = door.CreatePlayer(pl.CreatePlayerRequest(display_name=name))
    return created.player.player_id, created.player_token


def search(door, token: str, fill_seconds: float = 2.0, **fields) -> gw.TakeSeatResponse:
    """``fill_seconds``: the stack's TAVOLA_QUICKPLAY_BOT_FILL_SECONDS."""
    request = pl.FindGameRequest(game_id="borgia", **fields)
    last = None
    fills = fill_seconds if not request.HasField("bot_fill") or request.bot_fill else 0.0
    for message in door.FindGame(request, metadata=auth.metadata(token), timeout=60):
        # Every answer says when bots fill (0 without bot fill) and when the search ends.
        assert (message.bot_fill_seconds, message.timeout_seconds) == (fills, 20.0)
        last = message
    assert last is not None and last.HasField("seated")
    return last.seated


def in_threads(calls) -> list:
    results: list = [None] * len(calls)

    def run(index, call):
        try:
            results[index] = call()
        except Exception as error:  # reported by the test
            results[index] = error

    threads = [threading.Thread(target=run, args=(index, call)) for index, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_searchers_on_two_gateways_are_each_seated_once(doors, two_gateways):
    people = [player(doors[index % 2], f"q{index}") for index in range(12)]
    seated = in_threads(
        [
            lambda index=index, token=token: search(doors[index % 2], token, min_players=2, bot_fill=False)
            for index, (_, token) in enumerate(people)
        ]
    )
    assert all(isinstance(result, gw.TakeSeatResponse) for result in seated), seated
    places = [(result.table.table_id, result.seat) for result in seated]
    assert len(set(places)) == len(places)  # no seat given twice
    tables: dict[str, set[str]] = {}
    for (player_id, _), result in zip(people, seated, strict=True):
        seat = result.table.seats[result.seat]
        assert seat.player_id == player_id and seat.kind == gw.SEAT_KIND_HUMAN
        tables.setdefault(result.table.table_id, set()).add(player_id)
    assert sum(len(members) for members in tables.values()) == len(people)
    # Pairs: an even count leaves nobody alone (with ranges, a last searcher may be).
    assert all(len(members) == 2 for members in tables.values())
    # Each seat token plays its seat.
    with grpc.insecure_channel(two_gateways.gateway_addresses[1]) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        view = stub.GetView(
            gw.GetViewRequest(table_id=seated[0].table.table_id), metadata=auth.metadata(seated[0].seat_token)
        )
        assert view.seat == seated[0].seat and view.table.status == gw.TABLE_STATUS_IN_PROGRESS


def test_a_lone_searcher_gets_bots_after_the_wait(doors):
    _, token = player(doors[0], "lonely")
    started = time.monotonic()
    seated = search(doors[1], token, min_players=3, rated=True)
    assert time.monotonic() - started >= 2
    table = seated.table
    assert table.rated and table.player_count == 3
    assert [seat.kind for seat in table.seats].count(gw.SEAT_KIND_BOT) == 2
    assert table.status == gw.TABLE_STATUS_IN_PROGRESS


def test_searchers_who_send_a_default_and_who_leave_it_out_share_a_pool(doors):
    """B10's variants are table options: one searcher names flame_of_thy_tongue=false (its default),
    another sends no option, a third spells the same as 0 and off; all mean one table."""
    people = [player(doors[index % 2], f"same{index}") for index in range(3)]
    spellings: list[dict[str, str]] = [
        {"flame_of_thy_tongue": "false"},
        {},
        {"flame_of_thy_tongue": "0", "poisoned_dice": "off"},
    ]
    seated = in_threads(
        [
            lambda index=index, token=token: search(
                doors[index % 2], token, min_players=3, bot_fill=False, options=spellings[index]
            )
            for index, (_, token) in enumerate(people)
        ]
    )
    assert all(isinstance(result, gw.TakeSeatResponse) for result in seated), seated
    assert len({result.table.table_id for result in seated}) == 1


def test_a_second_search_is_refused_and_a_closed_one_leaves_the_queue(doors):
    _, first = player(doors[0], "twice")
    stream = doors[0].FindGame(
        pl.FindGameRequest(game_id="borgia", min_players=2, bot_fill=False), metadata=auth.metadata(first), timeout=30
    )
    assert next(stream).search_id
    with pytest.raises(grpc.RpcError) as caught:
        next(doors[1].FindGame(pl.FindGameRequest(game_id="borgia", min_players=2), metadata=auth.metadata(first)))
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(caught.value) == "ALREADY_SEARCHING"
    stream.cancel()
    time.sleep(0.5)
    # Gone from the queue: two others are matched together, not with it.
    _, second = player(doors[1], "second")
    _, third = player(doors[0], "third")
    results = in_threads(
        [
            lambda: search(doors[1], second, min_players=2, bot_fill=False),
            lambda: search(doors[0], third, min_players=2, bot_fill=False),
        ]
    )
    assert results[0].table.table_id == results[1].table.table_id
    # And the first player may search again.
    again = doors[1].FindGame(
        pl.FindGameRequest(game_id="borgia", min_players=2, bot_fill=False), metadata=auth.metadata(first), timeout=30
    )
    assert next(again).search_id
    again.cancel()


def test_bad_searches_are_refused(doors):
    _, token = player(doors[0], "bad")
    cases = [
        (pl.FindGameRequest(game_id="borgia", min_players=1), grpc.StatusCode.INVALID_ARGUMENT, "BAD_PLAYER_COUNT"),
        (pl.FindGameRequest(game_id="borgia", min_players=3, max_players=2), grpc.StatusCode.INVALID_ARGUMENT, None),
        (pl.FindGameRequest(game_id="chess", min_players=2), grpc.StatusCode.INVALID_ARGUMENT, None),
        (pl.FindGameRequest(game_id="borgia", min_players=2, options={"nope": "1"}), None, None),
    ]
    for request, code, reason in cases:
        with pytest.raises(grpc.RpcError) as caught:
            next(doors[0].FindGame(request, metadata=auth.metadata(token)))
        if code is not None:
            assert caught.value.code() == code
        assert caught.value.code() != grpc.StatusCode.UNKNOWN
        if reason is not None:
            assert reason_of(caught.value) == reason
    with pytest.raises(grpc.RpcError) as caught:
        next(doors[0].FindGame(pl.FindGameRequest(game_id="borgia", min_players=2), metadata=auth.metadata("p.x.y")))
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED


@pytest.fixture(scope="module")
def levels_stack(redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[Stack]:
    """A gateway that accepts the search bot, with no worker: the tables it fills are only
    looked at, never played."""
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-quick-levels",
        games=("borgia",),
        bots=("random", "ismcts"),
        with_worker=False,
        gateway_env={
            "TAVOLA_QUICKPLAY_BOT_FILL_SECONDS": "0.5",
            "TAVOLA_QUICKPLAY_TIMEOUT_SECONDS": "20",
            "TAVOLA_QUOTA_CREATE_PER_MINUTE": "0",
            "TAVOLA_QUOTA_PLAYERS_PER_MINUTE": "0",
        },
        log_dir=tmp_path_factory.mktemp("quick-levels"),
    ) as stack:
        yield stack
        stack.delete_keys()


def test_bot_fill_seats_the_level_nearest_the_peoples_rating(levels_stack: Stack):
    """Quick play's bots are the search bot's levels, each a rated player: the one whose
    rating (in the ratings store) is nearest the people's; level 4 while none is rated."""
    keys = ratings.Keys(levels_stack.key_prefix)
    redis = connect(levels_stack.redis_url)

    def rate(player_id: str, rating: float) -> None:
        fields = {"mu": rating / ratings.SCALE, "sigma": 2.0, "games": 12, "wins": 5, "v": 12}
        redis.hset(keys.rating("borgia", player_id), mapping=fields)

    def filled(name: str, rating: float | None) -> list[str]:
        player_id, token = player(door, name)
        if rating is not None:
            rate(player_id, rating)
        table = search(door, token, 0.5, min_players=3, max_players=3, rated=True).table
        assert table.status == gw.TABLE_STATUS_IN_PROGRESS
        return [seat.bot for seat in table.seats if seat.kind == gw.SEAT_KIND_BOT]

    with grpc.insecure_channel(levels_stack.gateway_address) as channel:
        door = players_pb2_grpc.PlayerServiceStub(channel)
        assert filled("first", None) == ["ismcts:level=4", "ismcts:level=4"]  # no level rated yet
        rate("bot:ismcts:level=2", 1200)
        rate("bot:ismcts:level=5", 1600)
        rate("bot:ismcts", 1950)  # level 8, the default: its bot string is the plain name
        rate("bot:random", 1700)  # not a level: never chosen, however near
        assert filled("strong", 1700) == ["ismcts:level=5"] * 2
        assert filled("weak", 1000) == ["ismcts:level=2"] * 2
        assert filled("best", 2400) == ["ismcts"] * 2
        # A new player (1500, the scale's start) between 1200 and 1600: the nearer.
        assert filled("new", None) == ["ismcts:level=5"] * 2
    redis.close()

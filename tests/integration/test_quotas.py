"""Per-client quotas on a gateway started with small limits: a call over a limit is
RESOURCE_EXHAUSTED (QUOTA_EXCEEDED) with the quota, the limit and a RetryInfo, and changes
nothing; another client (another token) keeps its own allowance; bots are not limited."""

import queue
import time
from collections.abc import Iterator

import grpc
import pytest

from common import auth
from common.errors import details_of
from deploy.stack import Stack
from gateway.quotas import PEER_FACTOR, WINDOW_SECONDS
from tavola.gateway.v1 import (
    actions_pb2,
    actions_pb2_grpc,
    gateway_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
    sessions_pb2,
    sessions_pb2_grpc,
)
from tavola.gateway.v1 import gateway_pb2 as gw

CREATE_LIMIT = 3
SEATS_LIMIT = 3
STREAMS_LIMIT = 2
ACTION_STREAMS_LIMIT = 2
REPLAYS_LIMIT = 2
PLAYERS_LIMIT = 2


@pytest.fixture(scope="module")
def quota_stack(redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[Stack]:
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-quotas",
        games=("borgia",),
        with_worker=False,
        gateway_env={
            "TAVOLA_QUOTA_CREATE_PER_MINUTE": str(CREATE_LIMIT),
            "TAVOLA_QUOTA_SEATS_PER_MINUTE": str(SEATS_LIMIT),
            "TAVOLA_QUOTA_STREAMS": str(STREAMS_LIMIT),
            "TAVOLA_QUOTA_ACTION_STREAMS": str(ACTION_STREAMS_LIMIT),
            "TAVOLA_QUOTA_REPLAYS_PER_MINUTE": str(REPLAYS_LIMIT),
            "TAVOLA_QUOTA_PLAYERS_PER_MINUTE": str(PLAYERS_LIMIT),
        },
        log_dir=tmp_path_factory.mktemp("quotas"),
    ) as stack:
        yield stack


@pytest.fixture(scope="module")
def limited(quota_stack: Stack) -> Iterator[gateway_pb2_grpc.GatewayServiceStub]:
    with grpc.insecure_channel(quota_stack.gateway_address) as channel:
        yield gateway_pb2_grpc.GatewayServiceStub(channel)


def room_in_window(seconds: float = 10.0) -> None:
    """Waits for the next minute's window when this one ends too soon for a test's calls."""
    left = WINDOW_SECONDS - time.time() % WINDOW_SECONDS
    if left < seconds:
        time.sleep(left + 0.2)


def as_client(token: str) -> tuple[tuple[str, str], ...]:
    return auth.metadata(token)


def exhausted(call, quota: str, limit: int, max_delay: float) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, caught.value.details()
    info, retry = details_of(caught.value)
    assert info.reason == "QUOTA_EXCEEDED"
    assert info.metadata["quota"] == quota
    assert info.metadata["limit"] == str(limit)
    assert retry is not None
    assert 0 < retry.retry_delay.ToTimedelta().total_seconds() <= max_delay


def open_tables(stub) -> set[str]:
    listed = stub.ListTables(gw.ListTablesRequest(status=gw.TABLE_STATUS_OPEN, page_size=100))
    return {table.table_id for table in listed.tables}


def create(stub, metadata=None, players=2, **fields) -> gw.CreateTableResponse:
    request = gw.CreateTableRequest(game_id="borgia", player_count=players, **fields)
    return stub.CreateTable(request, metadata=metadata)


def test_table_creation_beyond_the_limit_is_refused_and_creates_nothing(limited):
    room_in_window()
    for _ in range(CREATE_LIMIT):  # an anonymous client: its address
        create(limited)
    before = open_tables(limited)
    exhausted(lambda: create(limited), "create_table", CREATE_LIMIT, WINDOW_SECONDS)
    assert open_tables(limited) == before

    mine = as_client(auth.new_token())  # a client sending a token: the token
    for _ in range(CREATE_LIMIT):
        create(limited, mine)
    exhausted(lambda: create(limited, mine), "create_table", CREATE_LIMIT, WINDOW_SECONDS)
    assert len(open_tables(limited)) == len(before) + CREATE_LIMIT
    create(limited, as_client(auth.new_token()))  # another token is unaffected


def test_seat_taking_beyond_the_limit_is_refused_and_takes_no_seat(limited):
    room_in_window()
    table_id = create(limited, as_client(auth.new_token()), players=6).table.table_id

    def take(metadata=None) -> gw.TakeSeatResponse:
        return limited.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=metadata)

    for _ in range(SEATS_LIMIT):
        take()
    exhausted(take, "take_seat", SEATS_LIMIT, WINDOW_SECONDS)
    seats = limited.GetTable(gw.GetTableRequest(table_id=table_id)).table.seats
    assert sum(seat.taken for seat in seats) == SEATS_LIMIT
    take(as_client(auth.new_token()))  # another client still sits


def test_streams_beyond_the_limit_are_refused_and_bots_are_not_limited(limited, quota_stack):
    quota_channel = grpc.insecure_channel(quota_stack.gateway_address)
    created = create(limited, as_client(auth.new_token()), bot_seats=[gw.BotSeat(seat=0, bot="random")])
    table_id = created.table.table_id
    spectate = gw.SpectateTableRequest(table_id=table_id)
    streams = []
    try:
        for _ in range(STREAMS_LIMIT):
            streams.append(limited.SpectateTable(spectate, timeout=30))
            next(streams[-1])  # the bot's seat_taken: the stream is open on the gateway
        exhausted(lambda: next(limited.SpectateTable(spectate, timeout=30)), "open_streams", STREAMS_LIMIT, 10)

        seat = limited.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=as_client(auth.new_token()))
        watch = gw.WatchTableRequest(table_id=table_id)
        streams.append(limited.WatchTable(watch, metadata=as_client(seat.seat_token), timeout=30))
        next(streams[-1])  # another client (its seat's token) may watch

        bot = as_client(auth.bot_token(auth.bot_key(quota_stack.bot_secret, "random"), table_id, 0))
        for _ in range(STREAMS_LIMIT + 1):
            streams.append(limited.WatchTable(watch, metadata=bot, timeout=30))
            next(streams[-1])

        streams.pop(0).cancel()  # a closed stream frees its place
        deadline = time.monotonic() + 5
        while True:
            try:
                streams.append(limited.SpectateTable(spectate, timeout=30))
                next(streams[-1])
                break
            except grpc.RpcError as error:
                streams.pop()
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

        # A seat's session is one of its token's streams too (Follow and Play alike): the
        # seat's client watches already; one session more reaches the limit.
        sessions = sessions_pb2_grpc.SessionServiceStub(quota_channel)
        follow = sessions_pb2.FollowRequest(table_id=table_id)
        streams.append(sessions.Follow(follow, metadata=as_client(seat.seat_token), timeout=30))
        first = next(streams[-1])  # the table's seat_taken events; no view before the deal
        assert first.events and not first.HasField("view")
        again = as_client(seat.seat_token)
        exhausted(lambda: next(sessions.Follow(follow, metadata=again, timeout=30)), "open_streams", STREAMS_LIMIT, 10)
        opening = iter([sessions_pb2.PlayRequest(open=follow)])
        exhausted(lambda: next(sessions.Play(opening, metadata=again, timeout=30)), "open_streams", STREAMS_LIMIT, 10)
    finally:
        for stream in streams:
            stream.cancel()
        quota_channel.close()


def test_replays_with_views_beyond_the_limit_are_refused(limited):
    """Each replay with views costs a rules call per logged action: a client gets
    REPLAYS_LIMIT a minute; a replay without views is a read of the log and is not counted."""
    room_in_window()
    created = create(limited, as_client(auth.new_token()))
    table_id = created.table.table_id
    seats = [
        limited.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=as_client(auth.new_token())) for _ in range(2)
    ]
    limited.StartTable(gw.StartTableRequest(table_id=table_id), metadata=as_client(created.host_token))
    mine = as_client(seats[0].seat_token)

    def replay(with_views: bool = True) -> gw.GetReplayResponse:
        request = gw.GetReplayRequest(table_id=table_id, seat=seats[0].seat, with_views=with_views)
        return limited.GetReplay(request, metadata=mine)

    for _ in range(REPLAYS_LIMIT):
        assert replay().steps
    exhausted(replay, "replay_with_views", REPLAYS_LIMIT, WINDOW_SECONDS)
    assert replay(with_views=False).steps


def test_player_creation_is_limited_per_address_whatever_token_is_sent(quota_stack):
    room_in_window()
    with grpc.insecure_channel(quota_stack.gateway_address) as channel:
        players = players_pb2_grpc.PlayerServiceStub(channel)
        for index in range(PLAYERS_LIMIT):  # each its own name: two players may not look alike
            request = players_pb2.CreatePlayerRequest(display_name=f"farmer {index + 2}")
            players.CreatePlayer(request, metadata=as_client(auth.new_token()))
        # Another invented token is the same address: no fresh allowance.
        invented = as_client(auth.new_token())
        request = players_pb2.CreatePlayerRequest(display_name="farmer")
        exhausted(lambda: players.CreatePlayer(request, metadata=invented), "create_player", PLAYERS_LIMIT, 60)


def test_inventing_a_token_per_call_gains_no_unbounded_allowance(limited):
    """A token proves nothing at creation: an address's calls, whatever tokens they send,
    share PEER_FACTOR times a client's allowance. Last in this file: it spends the
    address's allowance for the minute."""
    room_in_window()
    peer_limit = CREATE_LIMIT * PEER_FACTOR
    for _ in range(peer_limit + 1):
        try:
            create(limited, as_client(auth.new_token()))
        except grpc.RpcError:
            break
    else:
        pytest.fail(f"{peer_limit + 1} creations with invented tokens were all accepted")
    exhausted(lambda: create(limited, as_client(auth.new_token())), "create_table", peer_limit, WINDOW_SECONDS)


def test_action_streams_beyond_their_limit_are_refused(quota_stack):
    """A bot worker's SubmitActions streams have a limit of their own
    (tests/test_quota_streams.py: apart from the event streams')."""
    channel = grpc.insecure_channel(quota_stack.gateway_address)
    actions = actions_pb2_grpc.ActionServiceStub(channel)
    outboxes: list[queue.Queue] = []
    held = []

    def action_stream():
        outbox: queue.Queue = queue.Queue()
        outboxes.append(outbox)
        answers = actions.SubmitActions(iter(outbox.get, None), timeout=30)
        outbox.put(actions_pb2.SubmitActionsRequest(id=1, request=gw.SubmitActionRequest(table_id="t")))
        held.append(answers)
        return next(answers)  # answered (no token): the stream is open on the gateway

    try:
        for _ in range(ACTION_STREAMS_LIMIT):
            assert action_stream().WhichOneof("result") == "error"
        exhausted(action_stream, "open_action_streams", ACTION_STREAMS_LIMIT, 10)
    finally:
        for outbox in outboxes:
            outbox.put(None)
        for stream in held:
            stream.cancel()
        channel.close()

"""A seat's session (SessionService.Play): a whole game played over sessions, every update's
view equal to GetView's at that version and its events to the seat's own WatchTable; a
refused action is answered on the stream, changes nothing, and the session goes on; a
session never carries what its seat may not see; a hostile stream is closed with the
right status. SubmitAction's answer carries the seat's view, GetView's."""

import queue
import secrets
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from common import auth
from common.errors import reason_of
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import players_pb2_grpc, sessions_pb2_grpc
from tavola.gateway.v1 import sessions_pb2 as ss
from tests.integration.conftest import HumanTable


class Session:
    """One Play stream held by the test: send messages, read updates."""

    def __init__(self, channel: grpc.Channel, token: str | None, table_id: str | None, after_seq: int = 0):
        self.outbox: queue.Queue = queue.Queue()
        metadata = auth.metadata(token) if token else None
        self.updates = sessions_pb2_grpc.SessionServiceStub(channel).Play(
            iter(self.outbox.get, None), metadata=metadata, timeout=60
        )
        self.ids = iter(range(1, 1_000_000))
        if table_id is not None:
            self.outbox.put(ss.PlayRequest(open=ss.FollowRequest(table_id=table_id, after_seq=after_seq)))

    def act(self, action: any_pb2.Any, **fields) -> int:
        number = next(self.ids)
        self.outbox.put(ss.PlayRequest(action=ss.SessionAction(id=number, action=action, **fields)))
        return number

    def next(self) -> ss.PlayResponse:
        return next(self.updates)

    def close(self) -> None:
        self.outbox.put(None)
        self.updates.cancel()


@pytest.fixture
def sessions(channel) -> Iterator[list[Session]]:
    opened: list[Session] = []
    yield opened
    for session in opened:
        session.close()


def error_of(update: ss.PlayResponse) -> tuple[int, str]:
    status = status_pb2.Status.FromString(update.error)
    info = error_details_pb2.ErrorInfo()
    next(detail for detail in status.details if detail.Is(info.DESCRIPTOR)).Unpack(info)
    return status.code, info.reason


def watched_events(table: HumanTable, seat: int, last_seq: int) -> list[gw.TableEvent]:
    """The seat's events up to last_seq, as its WatchTable stream sends them."""
    stream = table.stub.WatchTable(
        gw.WatchTableRequest(table_id=table.table_id, batched=True), metadata=auth.metadata(table.tokens[seat])
    )
    events: list[gw.TableEvent] = []
    for response in stream:
        events.extend(response.events)
        if events and events[-1].seq >= last_seq:
            break
    stream.cancel()
    return [event for event in events if event.seq <= last_seq]


def test_a_whole_game_over_sessions_pushes_get_views_views_and_the_seats_own_events(gateway, channel, sessions):
    table = HumanTable(gateway, players=3, seed=21)
    table.start()
    for seat in range(3):
        sessions.append(Session(channel, table.tokens[seat], table.table_id))
    latest = {seat: sessions[seat].next() for seat in range(3)}  # the backlog and the view
    events: dict[int, list[gw.TableEvent]] = {seat: list(latest[seat].events) for seat in range(3)}
    moves = 0
    while True:
        for seat, update in latest.items():
            assert update.view.seat == seat
            assert update.view == table.view(seat)  # GetView's answer at the same version
        deciders = [seat for seat, update in latest.items() if update.view.must_decide]
        if not deciders:
            break
        seat = deciders[0]
        number = sessions[seat].act(latest[seat].view.legal_actions[0].action)
        for viewer in range(3):
            update = sessions[viewer].next()
            assert update.answers == (number if viewer == seat else 0)
            assert not update.error
            events[viewer].extend(update.events)
            latest[viewer] = update
        moves += 1
    assert moves > 10 and latest[0].view.table.status == gw.TABLE_STATUS_FINISHED
    last_seq = latest[0].view.table.last_seq
    for seat in range(3):
        # Exactly the seat's own events, as its WatchTable sees them: never another seat's.
        assert events[seat] == watched_events(table, seat, last_seq)
        with pytest.raises(StopIteration):  # the stream ends (OK) after the game's last event
            sessions[seat].next()
    # The seats saw different things somewhere (Borgia hides each seat's cards from the others).
    assert events[0] != events[1]


def test_a_refused_action_is_answered_on_the_stream_changes_nothing_and_the_session_goes_on(gateway, channel, sessions):
    table = HumanTable(gateway, players=3, seed=22)
    table.start()
    decider = table.decider()
    idle = next(seat for seat in range(3) if seat not in table.table().deciding_seats)
    session = Session(channel, table.tokens[idle], table.table_id)
    sessions.append(session)
    first = session.next()
    action = table.view(decider).legal_actions[0].action
    garbage = any_pb2.Any(type_url=action.type_url, value=b"\xff\xff\xff")
    refused = [
        (session.act(action), grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_DECISION"),
        (session.act(garbage), grpc.StatusCode.INVALID_ARGUMENT, None),
        (session.act(any_pb2.Any()), grpc.StatusCode.INVALID_ARGUMENT, "ACTION_REQUIRED"),
        (session.act(action, request_id="no spaces"), grpc.StatusCode.INVALID_ARGUMENT, "BAD_REQUEST_ID"),
    ]
    # A flood of refused actions, each answered in turn (the stream reads one at a time).
    refused += [(session.act(action), grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_DECISION") for _ in range(200)]
    for number, code, reason in refused:
        update = session.next()
        assert update.answers == number and not update.HasField("view") and not update.events
        got_code, got_reason = error_of(update)
        assert got_code == code.value[0]
        if reason:
            assert got_reason == reason
    assert table.table().version == first.view.table.version  # nothing changed
    # The stream goes on: the decider's move reaches it as an update.
    table.submit(decider, action)
    update = session.next()
    assert update.answers == 0 and update.view.table.version == first.view.table.version + 1
    assert update.view == table.view(idle)


def test_submit_action_answers_the_seats_new_view(gateway):
    table = HumanTable(gateway, players=3, seed=23)
    table.start()
    seat = table.decider()
    action = table.view(seat).legal_actions[0].action
    response = table.submit(seat, action, request_id="v1")
    assert response.view == table.view(seat) and response.view.table.version == response.table.version
    retried = table.submit(seat, action, request_id="v1")
    assert retried.replayed and retried.view == table.view(seat)


def test_a_session_opens_at_after_seq_with_the_backlog(gateway, channel, sessions):
    table = HumanTable(gateway, players=3, seed=24)
    started = table.start()
    session = Session(channel, table.tokens[1], table.table_id, after_seq=2)
    sessions.append(session)
    update = session.next()
    assert update.events and all(event.seq > 2 for event in update.events)
    assert update.events[-1].seq == started.last_seq and update.view == table.view(1)


@pytest.mark.parametrize(
    ("token", "code", "reason"),
    [
        (None, grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING"),
        ("new", grpc.StatusCode.PERMISSION_DENIED, "TOKEN_NOT_FOR_TABLE"),
        ("not a token", grpc.StatusCode.UNAUTHENTICATED, None),
    ],
)
def test_a_session_without_the_tables_token_is_closed(gateway, channel, sessions, token, code, reason):
    table = HumanTable(gateway, players=3, seed=25)
    table.start()
    session = Session(channel, auth.new_token() if token == "new" else token, table.table_id)
    sessions.append(session)
    with pytest.raises(grpc.RpcError) as failed:
        session.next()
    assert failed.value.code() == code
    if reason:
        assert reason_of(failed.value) == reason


def test_another_tables_token_opens_nothing_and_a_session_must_open_first(gateway, channel, sessions):
    table = HumanTable(gateway, players=3, seed=26)
    other = HumanTable(gateway, players=3, seed=27)
    table.start()
    intruder = Session(channel, other.tokens[0], table.table_id)
    sessions.append(intruder)
    with pytest.raises(grpc.RpcError) as failed:
        intruder.next()
    assert failed.value.code() == grpc.StatusCode.PERMISSION_DENIED
    unopened = Session(channel, table.tokens[0], None)
    sessions.append(unopened)
    unopened.act(any_pb2.Any(type_url="x", value=b"y"))
    with pytest.raises(grpc.RpcError) as failed:
        unopened.next()
    assert failed.value.code() == grpc.StatusCode.INVALID_ARGUMENT and reason_of(failed.value) == "SESSION_NOT_OPEN"


def test_a_message_that_does_not_decode_or_is_too_large_closes_the_session(gateway, channel, stack):
    table = HumanTable(gateway, players=3, seed=28)
    table.start()
    opening = ss.PlayRequest(open=ss.FollowRequest(table_id=table.table_id)).SerializeToString()
    play = channel.stream_stream(
        "/tavola.gateway.v1.SessionService/Play", request_serializer=None, response_deserializer=None
    )
    for bad, code, reason in (
        (b"\x12\x05\xff", grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
        (b"\x12" + bytes([0x80, 0x40]) + bytes(8192), grpc.StatusCode.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE"),
    ):
        updates = play(iter([opening, bad]), metadata=auth.metadata(table.tokens[0]), timeout=30)
        with pytest.raises(grpc.RpcError) as failed:
            for _ in updates:
                pass
        assert failed.value.code() == code and reason_of(failed.value) == reason
    assert table.table().version == 1 or table.table().status == gw.TABLE_STATUS_IN_PROGRESS


def test_a_session_ends_when_its_seat_is_rejoined_from_another_device(gateway, channel, sessions):
    """The old device's session ends PERMISSION_DENIED (SEAT_REJOINED) at the rejoin, and
    carries nothing of the seat after it; the new token's session plays on."""
    players = players_pb2_grpc.PlayerServiceStub(channel)
    player = players.CreatePlayer(pl.CreatePlayerRequest(display_name=f"Sessions {secrets.token_hex(4)}"))
    created = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=3, auto_start=True))
    table_id = created.table.table_id
    seat = gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(player.player_token))
    for _ in range(2):
        gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, display_name=f"guest {secrets.token_hex(3)}"))
    old = Session(channel, seat.seat_token, table_id)
    sessions.append(old)
    assert old.next().view.seat == seat.seat
    rejoined = players.RejoinSeat(pl.RejoinSeatRequest(table_id=table_id), metadata=auth.metadata(player.player_token))
    with pytest.raises(grpc.RpcError) as ended:
        while True:
            assert not old.next().HasField("view")  # nothing of the seat after the rejoin
    assert ended.value.code() == grpc.StatusCode.PERMISSION_DENIED and reason_of(ended.value) == "SEAT_REJOINED"
    new = Session(channel, rejoined.seat_token, table_id)
    sessions.append(new)
    update = new.next()
    assert update.view.seat == seat.seat
    assert update.view == gateway.GetView(
        gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(rejoined.seat_token)
    )

"""Decision deadlines (DESIGN: timers): when a human seat lets its time run out, the
table's policy applies through the timer worker, and the log records it."""

import grpc
import pytest

from common import auth
from common.errors import reason_of
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc
from tests.integration.conftest import HumanTable


def timed_table(gateway, policy: int, seconds: int = 1) -> HumanTable:
    return HumanTable(gateway, players=2, seed=77, decision_timer=gw.DecisionTimer(seconds=seconds, policy=policy))


def events_until(gateway, table_id: str, stop, timeout: float = 120) -> list[gw.TableEvent]:
    seen = []
    for message in gateway.SpectateTable(gw.SpectateTableRequest(table_id=table_id), timeout=timeout):
        seen.append(message.event)
        if stop(message.event):
            break
    return seen


def test_a_random_action_is_played_for_a_seat_out_of_time(gateway):
    table = timed_table(gateway, gw.TIMEOUT_POLICY_RANDOM_ACTION)
    started = table.start()
    assert started.HasField("decision_deadline")
    late = started.deciding_seats[0]
    events = events_until(gateway, table.table_id, lambda event: event.HasField("decision_expired"))
    expired = events[-1].decision_expired
    assert (expired.seat, expired.policy) == (late, gw.TIMEOUT_POLICY_RANDOM_ACTION)
    after = table.table()
    assert after.version > started.version
    assert all(seat.kind == gw.SEAT_KIND_HUMAN for seat in after.seats)  # still the players' seats


def test_a_bot_takes_the_seats_of_absent_players_and_finishes_the_game(gateway):
    table = timed_table(gateway, gw.TIMEOUT_POLICY_BOT_TAKES_SEAT)
    watch = gateway.WatchTable(
        gw.WatchTableRequest(table_id=table.table_id), metadata=auth.metadata(table.tokens[0]), timeout=120
    )
    batched = gateway.WatchTable(
        gw.WatchTableRequest(table_id=table.table_id, batched=True),
        metadata=auth.metadata(table.tokens[0]),
        timeout=120,
    )
    table.start()
    events = events_until(gateway, table.table_id, lambda event: event.HasField("game_finished"))
    expired = {e.decision_expired.seat for e in events if e.HasField("decision_expired")}
    assert expired == {0, 1}
    final = table.table()
    assert final.status == gw.TABLE_STATUS_FINISHED
    assert all(seat.kind == gw.SEAT_KIND_BOT for seat in final.seats)
    with pytest.raises(grpc.RpcError) as caught:
        table.view(0)  # the absent player's token no longer holds the seat
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    # ...and a stream it had open ends right after the seat changed hands.
    seen = []
    with pytest.raises(grpc.RpcError) as caught:
        for message in watch:
            seen.append(message.event)
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED and reason_of(caught.value) == "TOKEN_REVOKED"
    assert seen[-1].decision_expired.seat == 0
    # A batched stream too, with the events up to the seat's change in its last response.
    responses = []
    with pytest.raises(grpc.RpcError) as caught:
        for message in batched:
            responses.append(message)
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED and reason_of(caught.value) == "TOKEN_REVOKED"
    assert [event for response in responses for event in response.events] == seen


def test_a_decision_taken_in_time_is_not_expired(gateway, stack):
    table = timed_table(gateway, gw.TIMEOUT_POLICY_RANDOM_ACTION, seconds=60)
    started = table.start()
    seat = started.deciding_seats[0]
    table.submit(seat, table.view(seat).legal_actions[0].action)
    internal = grpc.insecure_channel(stack.timer_address)
    timers = gateway_pb2_grpc.TimerServiceStub(internal)
    request = gw.ExpireDecisionRequest(table_id=table.table_id, seat=seat, version=started.version)
    timer_token = auth.metadata(auth.timer_token(stack.bot_secret, table.table_id))
    before = table.table()
    assert not timers.ExpireDecision(request, metadata=timer_token).expired
    assert table.table() == before
    with pytest.raises(grpc.RpcError) as caught:
        timers.ExpireDecision(request, metadata=auth.metadata(table.tokens[seat]))  # a player is no timer
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED and reason_of(caught.value) == "NOT_A_TIMER"
    internal.close()


def test_a_deadline_not_yet_passed_expires_nothing(gateway, stack):
    """ExpireDecision applies only once the deadline has passed, and only at the version
    the seat had to decide at."""
    table = timed_table(gateway, gw.TIMEOUT_POLICY_RANDOM_ACTION, seconds=60)
    started = table.start()
    seat = started.deciding_seats[0]
    timer_token = auth.metadata(auth.timer_token(stack.bot_secret, table.table_id))
    with grpc.insecure_channel(stack.timer_address) as internal:
        timers = gateway_pb2_grpc.TimerServiceStub(internal)
        for version in (started.version, started.version + 1, started.version - 1):
            request = gw.ExpireDecisionRequest(table_id=table.table_id, seat=seat, version=version)
            assert not timers.ExpireDecision(request, metadata=timer_token).expired
    assert table.table() == started


def test_the_timer_service_is_not_on_the_public_port(channel, stack):
    public = gateway_pb2_grpc.TimerServiceStub(channel)
    request = gw.ExpireDecisionRequest(table_id="t", seat=0, version=1)
    token = auth.metadata(auth.timer_token(stack.bot_secret, "t"))
    with pytest.raises(grpc.RpcError) as caught:
        public.ExpireDecision(request, metadata=token)
    assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_a_timer_without_a_policy_is_invalid(gateway):
    with pytest.raises(grpc.RpcError) as caught:
        gateway.CreateTable(
            gw.CreateTableRequest(game_id="borgia", player_count=2, decision_timer=gw.DecisionTimer(seconds=5))
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT and reason_of(caught.value) == "BAD_TIMER"


def test_a_seat_that_times_out_repeatedly_is_given_to_a_bot_as_one_that_left(gateway):
    """The third decision a seat lets expire in a game (TAVOLA_TIMEOUTS_TO_LEAVE, 3 by
    default) is not played at random: a bot takes the seat over, and its player has left
    (scored last when rated: common/ratings.py ``left_early``)."""
    table = timed_table(gateway, gw.TIMEOUT_POLICY_RANDOM_ACTION)
    table.start()
    events = events_until(
        gateway,
        table.table_id,
        lambda event: (
            event.HasField("decision_expired") and event.decision_expired.policy == gw.TIMEOUT_POLICY_BOT_TAKES_SEAT
        ),
    )
    left = events[-1].decision_expired.seat
    earlier = [
        e.decision_expired for e in events[:-1] if e.HasField("decision_expired") and e.decision_expired.seat == left
    ]
    assert [e.policy for e in earlier] == [gw.TIMEOUT_POLICY_RANDOM_ACTION] * 2
    seat = table.table().seats[left]
    assert seat.kind == gw.SEAT_KIND_BOT

"""Per-seat clocks (gateway/clocks.py): chosen at CreateTable within their mode's bounds,
each seat's time shown in the table, and a timeout acting as a decision timer's does."""

import time

import grpc
import pytest

from common.errors import reason_of
from common.redis_client import connect
from tavola.gateway.v1 import clocks_pb2 as ck
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.conftest import HumanTable
from tests.integration.test_timers import events_until

REAL_TIME = ck.CLOCK_MODE_REAL_TIME
CORRESPONDENCE = ck.CLOCK_MODE_CORRESPONDENCE
RANDOM = gw.DecisionTimer(policy=gw.TIMEOUT_POLICY_RANDOM_ACTION)


@pytest.mark.parametrize(
    ("clock", "timer", "says"),
    [
        (ck.TableClock(bank_seconds=60), RANDOM, "needs a mode"),
        (ck.TableClock(mode=REAL_TIME, bank_seconds=60), gw.DecisionTimer(), "timeout policy"),
        (ck.TableClock(mode=REAL_TIME, bank_seconds=60), gw.DecisionTimer(seconds=30, policy=1), "not both"),
        (ck.TableClock(mode=REAL_TIME, bank_seconds=60, move_seconds=10), RANDOM, "either"),
        (ck.TableClock(mode=REAL_TIME), RANDOM, "either"),
        (ck.TableClock(mode=REAL_TIME, bank_seconds=5), RANDOM, "10 seconds to 3 hours"),
        (ck.TableClock(mode=REAL_TIME, move_seconds=2 * 3600), RANDOM, "1 seconds to 1 hours a move"),
        (ck.TableClock(mode=CORRESPONDENCE, move_seconds=60), RANDOM, "1 hours to 14 days a move"),
        (ck.TableClock(mode=CORRESPONDENCE, bank_seconds=31 * 86400), RANDOM, "1 hours to 30 days"),
        (ck.TableClock(mode=CORRESPONDENCE, move_seconds=86400, increment_seconds=60), RANDOM, "with a bank"),
        (ck.TableClock(mode=REAL_TIME, bank_seconds=60, increment_seconds=-1), RANDOM, "not negative"),
        (ck.TableClock(mode=REAL_TIME, bank_seconds=60, remaining_ms=[1, 2]), RANDOM, "gateway's to set"),
    ],
)
def test_a_clock_out_of_bounds_is_refused_with_its_reason(gateway, clock, timer, says):
    request = gw.CreateTableRequest(game_id="borgia", player_count=3, clock=clock, decision_timer=timer)
    with pytest.raises(grpc.RpcError) as caught:
        gateway.CreateTable(request)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(caught.value) == "BAD_CLOCK"
    assert says in caught.value.details()


def test_each_seat_has_its_own_bank_shown_in_the_table(gateway):
    clock = ck.TableClock(mode=REAL_TIME, bank_seconds=600, increment_seconds=30)
    table = HumanTable(gateway, players=3, seed=11, clock=clock, decision_timer=RANDOM)
    opened = table.table()
    assert list(opened.clock.remaining_ms) == [600_000] * 3 and list(opened.clock.deadline_unix_ms) == [0] * 3
    started = table.start()
    seat = started.deciding_seats[0]
    deadline = started.clock.deadline_unix_ms[seat]
    assert deadline and started.decision_deadline.ToMilliseconds() == deadline
    assert 0 < deadline - time.time() * 1000 <= 600_000
    waiting = [other for other in range(3) if other not in started.deciding_seats]
    assert all(started.clock.deadline_unix_ms[other] == 0 for other in waiting)
    after = table.submit(seat, table.view(seat).legal_actions[0].action).table
    # The bank left when it decided, plus the increment: more than the bank, never more
    # than bank and increment.
    assert 600_000 < after.clock.remaining_ms[seat] <= 630_000
    if seat not in after.deciding_seats:
        assert after.clock.deadline_unix_ms[seat] == 0


def test_a_correspondence_clock_runs_for_days_and_its_table_is_due_then(gateway, stack):
    clock = ck.TableClock(mode=CORRESPONDENCE, move_seconds=3 * 86400)
    table = HumanTable(gateway, players=3, seed=12, clock=clock, decision_timer=RANDOM)
    started = table.start()
    seat = started.deciding_seats[0]
    deadline = started.clock.deadline_unix_ms[seat]
    left = deadline - time.time() * 1000
    assert 3 * 86400_000 - 60_000 < left <= 3 * 86400_000
    assert started.clock.remaining_ms[seat] == 3 * 86400_000
    # No timer task holds three days: the due sweep wakes the table at its deadline (plus
    # the grace), and its timer goes then.
    client = connect(stack.redis_url)
    try:
        due = client.zscore(f"{stack.key_prefix}:due", table.table_id)
    finally:
        client.close()
    assert due is not None and deadline / 1000 <= due <= deadline / 1000 + 60


def test_a_move_clock_that_runs_out_plays_the_timeout_policy(gateway):
    clock = ck.TableClock(mode=REAL_TIME, move_seconds=1)
    table = HumanTable(gateway, players=2, seed=77, clock=clock, decision_timer=RANDOM)
    started = table.start()
    late = started.deciding_seats[0]
    events = events_until(gateway, table.table_id, lambda event: event.HasField("decision_expired"))
    expired = events[-1].decision_expired
    assert (expired.seat, expired.policy) == (late, gw.TIMEOUT_POLICY_RANDOM_ACTION)
    after = table.table()
    assert after.version > started.version
    assert all(seat.kind == gw.SEAT_KIND_HUMAN for seat in after.seats)

"""A seat's clock, step by step (gateway/clocks.py run): a bank spent while deciding with
its increment after, a fixed time per move, a bot seat never timed, and the table's
deadline the earliest running one."""

from gateway import clocks
from tavola.gateway.v1 import clocks_pb2 as ck
from tavola.gateway.v1 import gateway_pb2 as gw

START = 1_000_000_000  # ms


def table_with(clock: ck.TableClock, kinds=(gw.SEAT_KIND_HUMAN, gw.SEAT_KIND_HUMAN)) -> gw.Table:
    request = gw.CreateTableRequest(player_count=len(kinds), clock=clock)
    table = gw.Table(status=gw.TABLE_STATUS_IN_PROGRESS, clock=clocks.new_clock(request, len(kinds)))
    for seat, kind in enumerate(kinds):
        table.seats.add(seat=seat, kind=kind)
    return table


def decide(table: gw.Table, seats: list[int], at_ms: int) -> None:
    del table.deciding_seats[:]
    table.deciding_seats.extend(seats)
    clocks.run(table, at_ms)


def test_a_bank_is_spent_while_deciding_and_gains_its_increment_after():
    table = table_with(ck.TableClock(mode=ck.CLOCK_MODE_REAL_TIME, bank_seconds=60, increment_seconds=5))
    decide(table, [0], START)
    assert list(table.clock.deadline_unix_ms) == [START + 60_000, 0]
    assert table.decision_deadline.ToMilliseconds() == START + 60_000
    decide(table, [1], START + 20_000)  # seat 0 took 20 s
    assert list(table.clock.remaining_ms) == [45_000, 60_000]
    assert list(table.clock.deadline_unix_ms) == [0, START + 80_000]
    decide(table, [0, 1], START + 30_000)  # seat 1 still decides: its time runs on
    assert list(table.clock.deadline_unix_ms) == [START + 75_000, START + 80_000]
    assert table.decision_deadline.ToMilliseconds() == START + 75_000
    decide(table, [1], START + 200_000)  # seat 0 past its time: nothing left but the increment
    assert table.clock.remaining_ms[0] == 5_000


def test_a_seat_that_decides_again_at_once_starts_a_new_move():
    table = table_with(ck.TableClock(mode=ck.CLOCK_MODE_REAL_TIME, bank_seconds=60, increment_seconds=5))
    decide(table, [0], START)
    clocks.decided(table, 0, START + 10_000)  # its action, and it must decide again
    decide(table, [0], START + 10_000)
    assert table.clock.remaining_ms[0] == 55_000
    assert table.clock.deadline_unix_ms[0] == START + 10_000 + 55_000
    moves = table_with(ck.TableClock(mode=ck.CLOCK_MODE_REAL_TIME, move_seconds=30))
    decide(moves, [1], START)
    clocks.decided(moves, 1, START + 29_000)
    decide(moves, [1], START + 29_000)
    assert moves.clock.deadline_unix_ms[1] == START + 29_000 + 30_000


def test_a_fixed_time_per_move_starts_afresh_each_decision():
    table = table_with(ck.TableClock(mode=ck.CLOCK_MODE_CORRESPONDENCE, move_seconds=86_400))
    decide(table, [0], START)
    decide(table, [1], START + 3_600_000)
    decide(table, [0], START + 7_200_000)
    assert table.clock.remaining_ms[0] == 86_400_000
    assert table.clock.deadline_unix_ms[0] == START + 7_200_000 + 86_400_000


def test_a_bot_seat_and_a_finished_table_run_no_clock():
    table = table_with(
        ck.TableClock(mode=ck.CLOCK_MODE_REAL_TIME, move_seconds=30), (gw.SEAT_KIND_HUMAN, gw.SEAT_KIND_BOT)
    )
    decide(table, [0, 1], START)
    assert list(table.clock.deadline_unix_ms) == [START + 30_000, 0]
    assert clocks.seat_deadline_ns(table, 1) is None
    table.status = gw.TABLE_STATUS_FINISHED
    clocks.run(table, START + 1_000)
    assert list(table.clock.deadline_unix_ms) == [0, 0] and not table.HasField("decision_deadline")

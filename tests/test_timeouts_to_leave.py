"""A seat that times out repeatedly has left (gateway/moves.py ``left_after``): under the
random-action policy its third expired decision in a game gives it to a bot."""

from gateway.moves import left_after
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2


def record(policy: int) -> store_pb2.TableRecord:
    table = gw.Table(decision_timer=gw.DecisionTimer(seconds=60, policy=policy))  # type: ignore[arg-type]
    return store_pb2.TableRecord(table=table)


def test_the_third_expiry_of_a_seat_gives_it_to_a_bot():
    kept = record(gw.TIMEOUT_POLICY_RANDOM_ACTION)
    assert [left_after(kept, 2, 3) for _ in range(3)] == [gw.TIMEOUT_POLICY_RANDOM_ACTION] * 2 + [
        gw.TIMEOUT_POLICY_BOT_TAKES_SEAT
    ]
    assert list(kept.expired_decisions) == [0, 0, 3]  # counted by seat
    assert left_after(kept, 0, 3) == gw.TIMEOUT_POLICY_RANDOM_ACTION  # another seat's own count


def test_zero_never_takes_a_seat_and_the_bot_policy_is_untouched():
    kept = record(gw.TIMEOUT_POLICY_RANDOM_ACTION)
    assert {left_after(kept, 0, 0) for _ in range(10)} == {gw.TIMEOUT_POLICY_RANDOM_ACTION}
    assert left_after(record(gw.TIMEOUT_POLICY_BOT_TAKES_SEAT), 0, 3) == gw.TIMEOUT_POLICY_BOT_TAKES_SEAT

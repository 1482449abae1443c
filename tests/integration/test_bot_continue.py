"""A bot worker continues at its table (SubmitActionRequest.continue_as_bot): when its action
leaves a seat of the same bot to decide, the gateway answers that seat's view instead of
sending a task for it; never for another bot's seat or to a human."""

import random

import redis

from common import auth
from common.tasks import queue_for
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.conftest import HumanTable


def test_a_bot_continues_with_its_own_seats_only(gateway, stack):
    """Seats 0 and 1 are the 'held' bot (no worker plays it), seat 2 a human; every
    submit asks to continue."""
    key = auth.bot_key(stack.bot_secret, "held")
    table = HumanTable(gateway, players=3, seed=45, bots={0: "held", 1: "held"})
    table.start()
    tokens = {seat: auth.bot_token(key, table.table_id, seat) for seat in (0, 1)} | table.tokens
    broker = redis.Redis.from_url(stack.redis_url)
    queue = f"{stack.key_prefix}:celery:{queue_for('held')}"
    chooser = random.Random(3)
    continued = 0
    try:
        for _ in range(500):
            now = table.table()
            if now.status == gw.TABLE_STATUS_FINISHED:
                break
            seat = now.deciding_seats[0]
            metadata = auth.metadata(tokens[seat])
            view = gateway.GetView(gw.GetViewRequest(table_id=table.table_id), metadata=metadata)
            queued = broker.llen(queue)
            response = gateway.SubmitAction(
                gw.SubmitActionRequest(
                    table_id=table.table_id,
                    action=chooser.choice(list(view.legal_actions)).action,
                    expected_version=now.version,
                    request_id=f"t-{seat}-{now.version}",
                    continue_as_bot=True,
                ),
                metadata=metadata,
            )
            after = response.table
            held_next = [s for s in after.deciding_seats if s in (0, 1)]
            if seat in (0, 1) and held_next and after.status == gw.TABLE_STATUS_IN_PROGRESS:
                answered = response.next_decision
                assert answered.seat == held_next[0] and answered.table.version == after.version
                own = gateway.GetView(
                    gw.GetViewRequest(table_id=table.table_id), metadata=auth.metadata(tokens[answered.seat])
                )
                assert answered == own
                # No task for it; a task for any other of the held seats that must decide.
                assert broker.llen(queue) == queued + len(held_next) - 1
                continued += 1
            else:
                assert not response.HasField("next_decision")
        assert table.table().status == gw.TABLE_STATUS_FINISHED
        assert continued > 0
    finally:
        broker.delete(queue)
        broker.close()

"""The gateway writes Celery task messages by hand (gateway/publisher.py, one LPUSH). For the
installed Celery, the message equals what Celery's own ``send_task`` puts on the queue for
the same task, but for what is unique to each send or sender: ids, the sender's name and
result queue (results are off), and the arguments' repr (the gateway names a view's
kwargs, it does not print them)."""

import asyncio
import base64
import json

import redis

from common.tasks import ALL_BOT_PRIORITY, DECIDE_TASK, celery_app, queue_for, queue_key
from gateway.publisher import TaskPublisher

PER_SEND_HEADERS = {"id", "root_id", "origin", "argsrepr", "kwargsrepr"}
PER_SEND_PROPERTIES = {"correlation_id", "delivery_tag", "reply_to"}


def normalized(message: dict) -> dict:
    message = json.loads(json.dumps(message))
    for name in PER_SEND_HEADERS:
        message["headers"].pop(name)
    for name in PER_SEND_PROPERTIES:
        message["properties"].pop(name)
    message["body"] = json.loads(base64.b64decode(message["body"]))
    return message


def test_the_hand_written_message_is_celerys_own(redis_url, key_prefix):
    prefix = f"{key_prefix}-message"
    app = celery_app("tavola-message-test", redis_url, prefix)
    client = redis.Redis.from_url(redis_url)
    queue = queue_for("held")
    args = ["table-1", 2, 17, "held"]
    kwargs = {"view": base64.b64encode(b"\x08\x01").decode()}

    def popped(key: str) -> dict:
        raw = client.rpop(key)
        assert raw is not None, f"nothing on {key}"
        return json.loads(raw)

    async def compare() -> None:
        publisher = TaskPublisher.for_app(app)
        assert publisher is not None
        try:
            for priority in (0, ALL_BOT_PRIORITY):
                key = f"{prefix}:celery:{queue_key(queue, priority)}"
                app.send_task(DECIDE_TASK, args=args, kwargs=kwargs, queue=queue, priority=priority, ignore_result=True)
                celerys = popped(key)
                await publisher.send(DECIDE_TASK, args, kwargs, queue, priority)
                ours = popped(key)
                assert normalized(ours) == normalized(celerys)
                assert ours["headers"]["root_id"] == ours["headers"]["id"] == ours["properties"]["correlation_id"]
        finally:
            await publisher.close()

    try:
        asyncio.run(compare())
    finally:
        keys = list(client.scan_iter(match=f"{prefix}:*"))
        if keys:
            client.delete(*keys)
        client.close()
        app.close()

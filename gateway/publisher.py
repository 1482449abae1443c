"""Bot and timer tasks, sent from the gateway's event loop.

``TaskPublisher`` writes a Celery task to a Redis broker with one LPUSH: ``send_task``
takes a thread and kombu's synchronous client, a large share of the gateway's CPU per bot
action. The message is Celery's protocol 2 as the Redis transport stores it, so any Celery
worker of the queue runs it as a task sent by Celery. ``Tasks`` sends through it, or
through Celery's own path for a broker it cannot write to; either way a failed send is
logged and counted, and the command that sent it stands (the due sweep sends it again).
"""

import asyncio
import base64
import json
import os
import socket
import time
import uuid
from dataclasses import dataclass
from typing import Any

import redis.asyncio as redis_async
import structlog

from common import tracing
from common.tasks import queue_key
from gateway import metrics

log = structlog.get_logger()


class TaskPublisher:
    """Writes Celery tasks to a Redis broker from the event loop, with one LPUSH each."""

    def __init__(self, broker_url: str, key_prefix: str):
        self.redis = redis_async.Redis.from_url(broker_url)
        self.key_prefix = key_prefix
        self.origin = f"gateway-{os.getpid()}@{socket.gethostname()}"

    @classmethod
    def for_app(cls, app) -> "TaskPublisher | None":
        """A publisher to the app's broker when it is a plain Redis; None otherwise."""
        conf = getattr(app, "conf", None)
        url = getattr(conf, "broker_url", None) or ""
        if conf is None or not url.startswith(("redis://", "rediss://", "unix://")):
            return None
        options = conf.broker_transport_options or {}
        return cls(url, options.get("global_keyprefix", ""))

    async def send(self, name: str, args: list, kwargs: dict, queue: str, priority: int = 0) -> None:
        task_id = str(uuid.uuid4())
        body = json.dumps([args, kwargs, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}])
        message: dict[str, Any] = {
            "body": base64.b64encode(body.encode()).decode(),
            "content-encoding": "utf-8",
            "content-type": "application/json",
            "headers": {
                "lang": "py",
                "task": name,
                "id": task_id,
                "shadow": None,
                "eta": None,
                "expires": None,
                "group": None,
                "group_index": None,
                "retries": 0,
                "timelimit": [None, None],
                "root_id": task_id,
                "parent_id": None,
                "argsrepr": repr(args),
                "kwargsrepr": repr(sorted(kwargs)),  # names only: a view is long
                "origin": self.origin,
                "ignore_result": True,
                # What Celery 5.3 and later send with every task (tests/integration/test_task_message.py).
                "replaced_task_nesting": 0,
                "stamped_headers": None,
                "stamps": {},
            },
            "properties": {
                "correlation_id": task_id,
                "reply_to": "",
                "delivery_mode": 2,
                "delivery_info": {"exchange": "", "routing_key": queue},
                "priority": priority,
                "body_encoding": "base64",
                # Unique, opaque to kombu; begins with the send time, so the due sweep
                # can tell a task sent after a table's commit (``sent_at``).
                "delivery_tag": f"{time.time_ns()}.{uuid.uuid4().hex}",
            },
        }
        tracing.inject_into(message["headers"])  # the worker's task continues this trace
        await self.redis.lpush(f"{self.key_prefix}{queue_key(queue, priority)}", json.dumps(message))

    async def backlog(self, name: str) -> "Backlog":
        """How many tasks wait in the broker's list ``name``, and when the next one to be
        taken (the oldest) was sent, when this publisher sent it."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.llen(f"{self.key_prefix}{name}")
            pipe.lindex(f"{self.key_prefix}{name}", -1)
            length, oldest = await pipe.execute()
        return Backlog(int(length), sent_at(oldest) if oldest else None)

    async def close(self) -> None:
        await self.redis.aclose()


@dataclass(frozen=True)
class Backlog:
    length: int
    oldest_sent: float | None  # epoch seconds; None: unknown (another sender's task), or none waits

    def may_hold(self, committed: float, slack: float) -> bool:
        """Whether a task sent after a commit at ``committed`` may still wait in the list:
        tasks are taken oldest first, so not once the oldest was sent later (``slack``:
        how long after its commit a table's task may be sent)."""
        if not self.length:
            return False
        return self.oldest_sent is None or self.oldest_sent <= committed + slack


def sent_at(raw: bytes) -> float | None:
    """The send time of a task message this publisher wrote (its delivery tag's), else None."""
    try:
        tag = json.loads(raw)["properties"]["delivery_tag"]
        stamp, _ = tag.split(".", 1)
        return int(stamp) / 1e9
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


class Tasks:
    """The gateway's one way to send a task (bots' decisions, timers' expiries)."""

    def __init__(self, celery_app):
        self.celery = celery_app
        self.publisher = TaskPublisher.for_app(celery_app)

    async def publish(
        self, name: str, table_id: str, seat: int, queue: str, args: list, kwargs: dict, priority: int = 0
    ) -> None:
        """A task on the event loop, straight onto its queue in the broker (Celery's
        message protocol 2, as ``send_task`` writes it); a broker this publisher cannot
        write to takes Celery's own path."""
        if self.publisher is None:
            await self.enqueue(name, table_id, seat, args=args, kwargs=kwargs, queue=queue, priority=priority)
            return
        try:
            await self.publisher.send(name, args, kwargs, queue, priority)
        except Exception:  # the command stands; the sweep enqueues the task again
            metrics.ENQUEUED.labels(name, "failed").inc()
            log.error("enqueue_failed", task=name, table_id=table_id, seat=seat, exc_info=True)
        else:
            metrics.ENQUEUED.labels(name, "ok").inc()

    async def enqueue(self, name: str, table_id: str, seat: int, **options) -> None:
        """A task sent by Celery's ``send_task`` (``options`` are its), in a thread."""
        try:
            await asyncio.to_thread(self.celery.send_task, name, **options)
        except Exception:  # the command stands; the sweep enqueues the task again
            metrics.ENQUEUED.labels(name, "failed").inc()
            log.error("enqueue_failed", task=name, table_id=table_id, seat=seat, exc_info=True)
        else:
            metrics.ENQUEUED.labels(name, "ok").inc()

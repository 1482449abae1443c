"""The Celery app of bot workers. Redis is the broker (TAVOLA_BROKER_URL, else REDIS_URL:
never a Redis Cluster, which Celery cannot use). A task carries only ids: table, seat,
version, bot; the task and queue names are shared with the gateway in
``common/tasks.py``.

Each bot has its own queue, ``bots.<name>``: a bot author runs a worker for their bot's
queue and the gateway routes that bot's seats to it.
"""

import logging
import os

from celery import signals
from kombu.transport import redis as kombu_redis

from common import logging as tavola_logging
from common import server, settings
from common.redis_client import broker_url
from common.tasks import DECIDE_TASK, EXPIRE_TASK, TIMER_QUEUE, celery_app, queue_for

__all__ = ["DECIDE_TASK", "EXPIRE_TASK", "TIMER_QUEUE", "app", "queue_for"]

_task_events = settings.flag("TAVOLA_TASK_EVENTS")


class _Channel(kombu_redis.Channel):
    """kombu's Redis channel, with one synchronous client per connection pool: kombu makes a
    new one (building its table of some 170 reply callbacks) for every message received and
    every acknowledgement, a noticeable share of a cheap bot's CPU. A client is a handle on
    the pool, safe to share between the pool's threads."""

    _shared_client = None

    def _create_client(self, asynchronous=False):
        if asynchronous:
            return super()._create_client(asynchronous=True)
        client = self._shared_client
        if client is None or client.connection_pool is not self.pool:  # a new pool after a reconnect
            client = self._shared_client = super()._create_client()
        return client


class Transport(kombu_redis.Transport):
    Channel = _Channel


_broker = broker_url()
app = celery_app("tavola-bots", _broker, settings.text("TAVOLA_KEY_PREFIX"))
if _broker.startswith("redis://"):  # rediss:// keeps kombu's own transport, which sets up TLS from the scheme
    app.conf.broker_transport = f"{__name__}:Transport"
app.conf.update(
    include=["bots.worker.tasks", "bots.worker.timers", "bots.worker.rating_tasks"],
    # A task is acknowledged only once done. One lost with a pool process goes back to its
    # queue at once, and a worker that stops puts back those it held; one lost with the
    # whole worker (killed) is sent again by the gateway within seconds (gateway/sweeper.py).
    task_acks_late=True,
    # Held tasks are kept in the worker's memory only, not also in Redis: kombu's ack
    # emulation writes each task to an unacknowledged hash and index when it is received
    # and removes it when acknowledged (two MULTI/EXEC round trips a task, a large share of
    # a cheap bot's CPU), only to hand it out again after the visibility timeout, a day
    # later. The gateway's due sweep already sends a lost task again within seconds.
    broker_transport_options={**app.conf.broker_transport_options, "ack_emulation": False},
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    worker_hijack_root_logger=False,
    task_default_queue=queue_for("random"),
    # Task events, so Flower (or celery events) shows the workers and their tasks: opt-in
    # (TAVOLA_TASK_EVENTS=true), since publishing them is about a quarter of a cheap bot's CPU.
    worker_send_task_events=_task_events,
    task_send_sent_event=_task_events,
)


# Celery's lines for every task ("received", "succeeded"): per-action lines are debug.
_PER_TASK_LOGGERS = ("celery.worker.strategy", "celery.app.trace")


@signals.setup_logging.connect
def _json_logs(**_: object) -> None:
    """Workers log structlog JSON lines like every other tavola process. Celery's per-task
    info lines are kept for TAVOLA_LOG_LEVEL=DEBUG: writing two JSON lines a task was a
    noticeable share of a cheap bot's CPU. Set before the worker builds its task tracers,
    which decide once whether to write them. Failures are errors and still logged;
    retries are counted (tavola_worker_tasks_total{result="retry"})."""
    tavola_logging.configure("bot-worker")
    if not logging.getLogger().isEnabledFor(logging.DEBUG):
        for name in _PER_TASK_LOGGERS:
            logging.getLogger(name).setLevel(logging.WARNING)


@signals.worker_process_init.connect
def _collect_less_in_pool_process(**_: object) -> None:
    """A prefork pool's process, once forked, collects garbage as the servers do."""
    server.collect_less()


@signals.worker_ready.connect
def _announce_ready(**_: object) -> None:
    """A launcher waiting on TAVOLA_READY_FILE learns that the worker consumes its queues.
    From now on the worker collects garbage as the servers do (common/server.py
    collect_less: what it has loaded frozen out of collections, young ones every
    TAVOLA_GC_THRESHOLD allocations): with CPython's own settings a young collection came
    every 700 allocations, a few times a bot decision."""
    server.collect_less()
    path = settings.text("TAVOLA_READY_FILE")
    if path:
        with open(path, "w") as handle:
            handle.write(str(os.getpid()))

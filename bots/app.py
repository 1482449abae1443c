"""The Celery app shared by bot workers (which run the tasks) and the gateway (which
enqueues them). Redis is the broker. A task carries only ids: table, seat, version, bot.

Each bot has its own queue, ``bots.<name>``: a bot author runs a worker for their bot's
queue and the gateway routes that bot's seats to it.
"""

import os

from celery import Celery, signals

from common import logging as tavola_logging

DECIDE_TASK = "tavola.bots.decide"
EXPIRE_TASK = "tavola.timers.expire"
# Decision deadlines: tasks due when a human seat's time runs out (bots/timers.py).
TIMER_QUEUE = "timers"


def queue_for(bot: str) -> str:
    return f"bots.{bot}"


app = Celery(
    "tavola-bots", broker=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"), include=["bots.tasks", "bots.timers"]
)
app.conf.update(
    # A task is acknowledged only once done; a worker lost mid-task hands it to another.
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    task_ignore_result=True,
    task_serializer="json",
    accept_content=["json"],
    worker_prefetch_multiplier=1,
    worker_hijack_root_logger=False,
    broker_connection_retry_on_startup=True,
    task_default_queue=queue_for("random"),
    # Keeps the broker's keys apart when several deployments share one Redis.
    broker_transport_options={"global_keyprefix": os.environ.get("TAVOLA_KEY_PREFIX", "tavola") + ":celery:"},
)


@signals.setup_logging.connect
def _json_logs(**_: object) -> None:
    """Workers log structlog JSON lines like every other tavola process."""
    tavola_logging.configure("bot-worker")


@signals.worker_ready.connect
def _announce_ready(**_: object) -> None:
    """A launcher waiting on TAVOLA_READY_FILE learns that the worker consumes its queues."""
    path = os.environ.get("TAVOLA_READY_FILE")
    if path:
        with open(path, "w") as handle:
            handle.write(str(os.getpid()))

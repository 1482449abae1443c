"""The names the gateway and the workers agree on: Celery task names and queues.

The gateway enqueues by name (it imports no worker code); workers register their tasks
under the same names.
"""

DECIDE_TASK = "tavola.bots.decide"  # (table_id, seat, version, bot): one bot decision
EXPIRE_TASK = "tavola.timers.expire"  # (table_id, seat, version): a decision deadline passed
TIMER_QUEUE = "timers"


def queue_for(bot: str) -> str:
    """Each bot has its own queue, so a bot author runs a worker for their bot alone.
    ``bot`` is a bot name or a bot with options (``ismcts:budget_ms=50``): the queue is the name's."""
    return f"bots.{bot.split(':', 1)[0]}"


def celery_app(name: str, redis_url: str, key_prefix: str):
    """A Celery app on the platform's broker. The gateway uses one to enqueue, workers to run."""
    from celery import Celery  # imported here: engines and clients that import this module need no Celery

    app = Celery(name, broker=redis_url)
    app.conf.update(
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        broker_connection_retry_on_startup=True,
        # Keeps the broker's keys apart when several deployments share one Redis.
        broker_transport_options={"global_keyprefix": f"{key_prefix}:celery:"},
    )
    return app

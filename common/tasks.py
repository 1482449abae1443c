"""The names the gateway and the workers agree on: Celery task names and queues.

The gateway enqueues by name (it imports no worker code); workers register their tasks
under the same names.
"""

DECIDE_TASK = "tavola.bots.decide"  # (table_id, seat, version, bot): one bot decision
BEGIN_TASK = "tavola.bots.begin"  # (table_id, seat, bot): begin an all-bot table, then play on
EXPIRE_TASK = "tavola.timers.expire"  # (table_id, seat, version): a decision deadline passed
TIMER_QUEUE = "timers"
VISIBILITY_TIMEOUT_SECONDS = 86_400 + 3_600  # the longest decision timer, and an hour
# The tasks of tables with no person at them go at a lower priority (kombu's Redis
# transport: a list of its own, ``<queue>\x06\x16<n>``, which a worker pops only when the
# lists before it are empty; the queue's own list, where the tasks of tables with people
# go, comes first): a bot answers a person first, however many all-bot tables wait.
# Among all-bot tables, those under way go before those that wait to begin. A table of
# bots only, auto-started, is begun by a worker (BEGIN_TASK) when it takes the table's
# begin task, not at its creation, and is played on to its end: so the tables in play at
# once are about as many as the workers' slots, each turn waits behind those few tables
# only, no table stands started and idle behind the others, and tables finish one after
# another rather than all together at the end.
ALL_BOT_PRIORITY = 9  # an all-bot table's begin task (or the first task of one a host started)
ALL_BOT_UNDER_WAY_PRIORITY = 6  # its later tasks
# An auto-started all-bot table is created at version 1 and begun at version 2; every later
# version is one bot action.
ALL_BOT_BEGUN_AT_VERSION = 2
ALL_BOT_PRIORITIES = (ALL_BOT_UNDER_WAY_PRIORITY, ALL_BOT_PRIORITY)
PRIORITY_SEPARATOR = "\x06\x16"  # kombu's Redis transport's, between a queue and its priority


def queue_key(queue: str, priority: int = 0) -> str:
    """The Redis list (without the key prefix) of ``queue``'s tasks at ``priority``
    (0 or one of ALL_BOT_PRIORITIES, steps of kombu's Redis transport)."""
    return f"{queue}{PRIORITY_SEPARATOR}{priority}" if priority else queue


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
        broker_transport_options={
            # Keeps the broker's keys apart when several deployments share one Redis.
            "global_keyprefix": f"{key_prefix}:celery:",
            # With kombu's ack emulation, a task unacknowledged this long is handed to
            # another worker. tavola's workers turn it off (bots/worker/app.py): lost tasks do not
            # wait for it, the gateway wakes a table whose task is overdue within seconds
            # (gateway/sweeper.py). Kept for a consumer that has it on: it must outlast
            # the longest hold of a live worker, a timer kept until its deadline (decision
            # timers go up to a day), or a held timer would be handed out again.
            "visibility_timeout": VISIBILITY_TIMEOUT_SECONDS,
        },
    )
    return app

"""Run a bot worker:  python -m bots.worker [celery worker options]

It consumes the queue of every bot in the ``tavola.bots`` registry (``bots.<name>``) and the
timers' queue, so a bot installed from any package is played without naming it anywhere.
``TAVOLA_WORKER_BOTS`` (comma-separated names) narrows it to some bots, e.g. a worker
of one's own bot only; ``TAVOLA_WORKER_TIMERS=false`` leaves the timers to other workers, and
``TAVOLA_WORKER_RATINGS`` (default: as the timers) the rating updates; ``TAVOLA_WORKER_BOTS=none``
plays no bot. ``TAVOLA_WORKER_BOTS=@search`` plays the registry's search bots (a thinking
budget, ``BotSpec.searches``), ``@light`` all the others: read from the registry as the worker
starts, as the container files run their two workers, so an installed bot is played by one
of them without regenerating anything. With
``TAVOLA_METRICS_PORT`` set it serves Prometheus metrics (bots/worker/metrics.py).

``TAVOLA_WORKER_EXTERNAL=true``: a bot author's worker, on a Redis user that reaches its
bot's queue only (deploy/redis_users.py). It then uses no broadcast channel: no remote
control, task events, gossip, mingle or heartbeats (through those any broker user could
reach, and stop, every worker of the platform).
"""

import logging
import sys
from collections.abc import Mapping

from celery.apps import worker as celery_worker

from bots.search import clock
from bots.worker import metrics
from common import generated, settings, tracing
from common import logging as tavola_logging
from common.ratings import RATINGS_QUEUE
from common.redis_client import broker_url
from common.tasks import TIMER_QUEUE, queue_for
from services.bot_specs import load_bots


def queues() -> list[str]:
    wanted = [name.strip() for name in settings.text("TAVOLA_WORKER_BOTS").split(",") if name.strip()]
    names = wanted or list(load_bots())
    if wanted in (["@search"], ["@light"]):
        names = [name for name, spec in load_bots().items() if spec.searches == (wanted == ["@search"])]
    if names == ["none"]:  # a worker of timers or ratings only
        names = []
    timers = settings.flag("TAVOLA_WORKER_TIMERS")
    # Rating updates (bots/worker/rating_tasks.py) go with the timers unless told otherwise.
    ratings = settings.optional_flag("TAVOLA_WORKER_RATINGS")
    rated = timers if ratings is None else ratings
    return [queue_for(name) for name in names] + ([TIMER_QUEUE] if timers else []) + ([RATINGS_QUEUE] if rated else [])


def _say_as_json(message: str, *_: object) -> None:
    """Celery's own notices on shutdown ("worker: Warm shutdown"), as a JSON line."""
    logging.getLogger("celery.apps.worker").warning(message.strip())


def external() -> bool:
    return settings.flag("TAVOLA_WORKER_EXTERNAL")


def restart_stale_bot_ratings() -> None:
    """Before it applies ratings, a worker starts again the bots' ratings earned with other
    settings (bots/worker/rating_tasks.py). A Redis not reachable yet only postpones that to each
    bot's next rated table."""
    from bots.worker import rating_tasks

    try:
        rating_tasks.restart_stale_bots(rating_tasks.redis_client(), rating_tasks.rating_keys())
    except Exception as error:  # a worker starts anyway
        logging.getLogger(__name__).warning("bot ratings not checked at start: %s", error)


# A decision's budget counts its thread's CPU time, as the arena's figures do, so people
# meet the bot that was measured; on the wall clock it ends at this many times the budget
# however little CPU the thread got. 5: the full search while the deciding process gets a
# fifth of a core (a loaded host gave it 40-50%), and a person waits at most a second for
# the default 200 ms budget on a host too overloaded to give it that.
DEFAULT_WALL_CEILING = settings.DECLARED["TAVOLA_BOT_WALL_CEILING"].default


def configure_clock(env: Mapping[str, str] | None = None) -> None:
    """The budget clock from TAVOLA_BOT_CLOCK (``cpu``, the default, or ``wall``) and
    TAVOLA_BOT_WALL_CEILING (a multiple of the budget, at least 1; 0: no ceiling); a
    ConfigError that names the variable when one is wrong."""
    ceiling = settings.number("TAVOLA_BOT_WALL_CEILING", env)
    if 0 < ceiling < 1:
        raise settings.ConfigError(f"TAVOLA_BOT_WALL_CEILING={ceiling:g}: 0 (none) or a multiple of at least 1")
    try:
        clock.use(settings.text("TAVOLA_BOT_CLOCK", env), ceiling)
    except ValueError as error:
        raise settings.ConfigError(f"TAVOLA_BOT_CLOCK: {error}") from None


def main() -> None:
    generated.check()
    with settings.exit_on_bad_config():  # a bad setting: one line, no traceback
        start()


def start() -> None:
    # JSON from the first line: Celery checks the user (a warning as root) before it sets
    # up its logging; its banner is left out (--quiet), and its shutdown notices, which it
    # prints straight to the terminal, go through the log.
    tavola_logging.configure("bot-worker")
    celery_worker.safe_say = _say_as_json
    settings.check()
    # The Celery app reads its settings as it is imported: after they were checked.
    from bots.worker.app import app

    # Traces (when configured): each task continues the trace in its message's headers,
    # and its calls to the gateway carry it on.
    if tracing.configure("bot-worker"):
        tracing.instrument_celery()
        tracing.instrument_sync_clients()
    # Set before the pool starts, so its processes and threads all count alike.
    configure_clock()
    consumed = queues()
    prefix = settings.text("TAVOLA_KEY_PREFIX")
    metrics.install(broker_url(), f"{prefix}:celery:", consumed)
    isolated: list[str] = []
    if external():
        app.conf.update(worker_enable_remote_control=False, worker_send_task_events=False, task_send_sent_event=False)
        isolated = ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    if RATINGS_QUEUE in consumed:
        restart_stale_bot_ratings()
    app.worker_main(["--quiet", "worker", "--queues", ",".join(consumed), *isolated, *sys.argv[1:]])


if __name__ == "__main__":
    main()

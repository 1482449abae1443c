"""Run a bot worker:  python -m bots.worker [celery worker options]

It consumes the queue of every bot in the ``tavola.bots`` registry (``bots.<name>``) and the
timers' queue, so a bot installed from any package is played without naming it anywhere.
``TAVOLA_WORKER_BOTS`` (comma-separated names) narrows it to some bots, e.g. a worker
of one's own bot only; ``TAVOLA_WORKER_TIMERS=false`` leaves the timers to other workers. With
``TAVOLA_METRICS_PORT`` set it serves Prometheus metrics (bots/metrics.py).
"""

import os
import sys

from bots import metrics
from bots.app import app
from bots.registry import load_bots
from common import defaults
from common.redis_client import broker_url
from common.tasks import TIMER_QUEUE, queue_for


def queues() -> list[str]:
    wanted = [name.strip() for name in os.environ.get("TAVOLA_WORKER_BOTS", "").split(",") if name.strip()]
    names = wanted or list(load_bots())
    timers = os.environ.get("TAVOLA_WORKER_TIMERS", "true").lower() not in ("false", "0", "no", "off")
    return [queue_for(name) for name in names] + ([TIMER_QUEUE] if timers else [])


def main() -> None:
    consumed = queues()
    prefix = os.environ.get("TAVOLA_KEY_PREFIX", defaults.KEY_PREFIX)
    metrics.install(broker_url(), f"{prefix}:celery:", consumed)
    app.worker_main(["worker", "--queues", ",".join(consumed), *sys.argv[1:]])


if __name__ == "__main__":
    main()

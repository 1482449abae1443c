"""Prometheus metrics of a bot worker, served on TAVOLA_METRICS_PORT (off when unset).

The endpoint lives in the worker's main process, so it sees every task with the threads
(or solo) pool, the one the platform runs; a prefork pool's children are not counted.
Queue lengths are read from the broker at each scrape: one Redis list per queue and
priority (kombu's layout: ``<queue>`` and ``<queue>\\x06\\x16<priority>``).
"""

import time
from collections.abc import Iterator

import structlog
from celery import signals
from prometheus_client import REGISTRY, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily

from common.metrics import serve_from_env

log = structlog.get_logger()

DECISION_SECONDS = Histogram(
    "tavola_bot_decision_seconds",
    "Time a bot takes to choose its action, by bot name and game",
    ["bot", "game"],
    buckets=(0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
TASKS = Counter("tavola_worker_tasks_total", "Tasks the worker ran, by task and result", ["task", "result"])
REDELIVERED = Counter("tavola_worker_tasks_redelivered_total", "Tasks delivered again after a lost worker", ["task"])

_PRIORITY_SEPARATOR = "\x06\x16"
_PRIORITIES = (3, 6, 9)


class QueueLengthCollector:
    """``tavola_queue_length{queue}``: messages waiting in each queue the worker consumes."""

    def __init__(self, broker_url: str, key_prefix: str, queues: list[str]):
        import redis

        self.client = redis.Redis.from_url(broker_url, socket_timeout=2, socket_connect_timeout=2)
        self.key_prefix = key_prefix
        self.queues = queues

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily("tavola_queue_length", "Tasks waiting in a Celery queue", labels=["queue"])
        try:
            with self.client.pipeline(transaction=False) as pipe:
                for queue in self.queues:
                    base = f"{self.key_prefix}{queue}"
                    pipe.llen(base)
                    for priority in _PRIORITIES:
                        pipe.llen(f"{base}{_PRIORITY_SEPARATOR}{priority}")
                lengths = pipe.execute()
        except Exception:  # a scrape while the broker is away reports nothing rather than failing
            log.warning("queue_metric_failed", exc_info=True)
            return
        step = 1 + len(_PRIORITIES)
        for index, queue in enumerate(self.queues):
            family.add_metric([queue], sum(lengths[index * step : (index + 1) * step]))
        yield family


def _short(name: str | None) -> str:
    return (name or "unknown").rsplit(".", 1)[-1]


def install(broker_url: str, key_prefix: str, queues: list[str]) -> None:
    """Counts tasks through Celery's signals and serves the endpoint once the worker is up."""

    @signals.task_prerun.connect(weak=False)
    def _prerun(task_id=None, task=None, **_):
        delivery = getattr(task.request, "delivery_info", None) or {}
        if delivery.get("redelivered"):
            REDELIVERED.labels(_short(task.name)).inc()

    @signals.task_success.connect(weak=False)
    def _success(sender=None, **_):
        TASKS.labels(_short(getattr(sender, "name", None)), "success").inc()

    @signals.task_failure.connect(weak=False)
    def _failure(sender=None, **_):
        TASKS.labels(_short(getattr(sender, "name", None)), "failure").inc()

    @signals.task_retry.connect(weak=False)
    def _retry(sender=None, **_):
        TASKS.labels(_short(getattr(sender, "name", None)), "retry").inc()

    @signals.worker_ready.connect(weak=False)
    def _serve(**_):
        REGISTRY.register(QueueLengthCollector(broker_url, key_prefix, queues))
        serve_from_env()


def timed_decision(bot: str, game: str, started: float) -> None:
    DECISION_SECONDS.labels(bot.split(":", 1)[0], game).observe(time.perf_counter() - started)

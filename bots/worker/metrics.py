"""Prometheus metrics of a bot worker, served on TAVOLA_METRICS_PORT (off when unset).

The endpoint lives in the worker's main process. With the threads (or solo) pool every
task runs there and is counted in its memory. A prefork pool's tasks run in its child
processes: their counts reach the endpoint through prometheus_client's multiprocess mode,
on when ``PROMETHEUS_MULTIPROC_DIR`` names a directory of this worker's own (set in the
environment before the worker starts: the library reads it when imported). Every process
then writes its counts to files there, the worker empties it as it starts, and the
endpoint sums the files of every child, gone or alive. Without it a prefork pool's
endpoint serves its queues' lengths only, and the worker says so as it starts.
Queue lengths are read from the broker at each scrape: one Redis list per queue and
priority (kombu's layout: ``<queue>`` and ``<queue>\\x06\\x16<priority>``).
"""

from collections.abc import Iterator
from pathlib import Path

import structlog
from celery import signals
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, multiprocess
from prometheus_client.core import GaugeMetricFamily

from bots.search.clock import Effort
from common import settings
from common.metrics import serve_from_env

log = structlog.get_logger()

DECISION_SECONDS = Histogram(
    "tavola_bot_decision_seconds",
    "Time a bot takes to choose its action, by bot name and game",
    ["bot", "game"],
    buckets=(0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
# The search a decision actually did, beside its time: a budget counts CPU time under a
# wall-clock ceiling (bots/search/clock.py), so these say whether live bots search as much as the
# arena's figures assume, and how often an overloaded worker cut a search short.
DECISION_CPU_SECONDS = Histogram(
    "tavola_bot_decision_cpu_seconds",
    "CPU time of the deciding thread per decision, by bot name and game",
    ["bot", "game"],
    buckets=(0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.5, 1, 2.5, 5, 10),
)
SEARCH_ITERATIONS = Histogram(
    "tavola_bot_search_iterations",
    "Search iterations (playouts, or rounds of paired playouts) per decision, by bot name and game",
    ["bot", "game"],
    buckets=(0, 1, 4, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384),
)
CEILING_REACHED = Counter(
    "tavola_bot_decision_ceiling_total",
    "Decisions whose thinking budget the wall-clock ceiling ended before its CPU time was spent",
    ["bot", "game"],
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


MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"


def multiprocess_dir() -> Path | None:
    """The directory of the multiprocess mode, when it is on."""
    path = settings.text(MULTIPROCESS_DIR)
    return Path(path) if path else None


def prepare_multiprocess_dir() -> None:
    """Called by the worker's main process before its pool starts: creates the directory
    or empties it of an earlier run's files, whose counts would otherwise be added again."""
    path = multiprocess_dir()
    if path is None:
        return
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):
        stale.unlink(missing_ok=True)


def _served(queue_lengths: QueueLengthCollector) -> CollectorRegistry:
    """The registry the endpoint serves: in multiprocess mode a registry of its own, which
    reads every process's files (the default registry would serve the main process's
    metrics a second time), with the queue lengths, read here at each scrape."""
    path = multiprocess_dir()
    if path is None:
        REGISTRY.register(queue_lengths)
        return REGISTRY
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(path))
    registry.register(queue_lengths)
    return registry


def _forks(consumer: object) -> bool:
    """Whether the worker's pool runs its tasks in child processes (prefork)."""
    from celery.concurrency.prefork import TaskPool

    return isinstance(getattr(consumer, "pool", None), TaskPool)


def install(broker_url: str, key_prefix: str, queues: list[str]) -> None:
    """Counts tasks through Celery's signals and serves the endpoint once the worker is up.
    Called by the worker's main process before its pool starts."""
    prepare_multiprocess_dir()

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

    @signals.worker_process_shutdown.connect(weak=False)
    def _child_gone(pid=None, **_):
        # The library's bookkeeping for a child that ends (its live gauges' files go; its
        # counts stay, so that the sums never go down).
        if pid is not None and multiprocess_dir() is not None:
            multiprocess.mark_process_dead(pid, str(multiprocess_dir()))

    @signals.worker_ready.connect(weak=False)
    def _serve(sender=None, **_):
        if settings.port("TAVOLA_METRICS_PORT") is not None and multiprocess_dir() is None and _forks(sender):
            log.warning(
                "metrics_of_pool_processes_not_counted",
                hint=f"set {MULTIPROCESS_DIR} to an empty directory of this worker's own to count them",
            )
        serve_from_env(_served(QueueLengthCollector(broker_url, key_prefix, queues)))


def observed_decision(bot: str, game: str, effort: Effort) -> None:
    """One decision's time, CPU time and search (``bots.search.clock.measure``)."""
    name = bot.split(":", 1)[0]
    DECISION_SECONDS.labels(name, game).observe(effort.wall_seconds)
    DECISION_CPU_SECONDS.labels(name, game).observe(effort.cpu_seconds)
    SEARCH_ITERATIONS.labels(name, game).observe(effort.iterations)
    if effort.ceiling_reached:
        CEILING_REACHED.labels(name, game).inc()

"""Prometheus metrics of the gateway, served on TAVOLA_METRICS_PORT (off when unset).

Counters are per process (sum them over gateways); ``tavola_tables`` counts the tables
of the shared indexes in Redis, so every gateway reports the same numbers (take the max).
"""

import structlog
from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily

from common.metrics import serve_from_env
from tavola.gateway.v1 import gateway_pb2 as gw

__all__ = ["serve_from_env"]

log = structlog.get_logger()

# ``protocol``: how the call came, "grpc" (the gRPC port), "connect" or "grpc-web" (the web port).
REQUESTS = Counter("tavola_gateway_requests_total", "Gateway RPCs handled", ["method", "code", "protocol"])
LATENCY = Histogram(
    "tavola_gateway_request_seconds",
    "Time to handle a unary gateway RPC",
    ["method", "protocol"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
STREAMS = Gauge("tavola_gateway_open_streams", "WatchTable, SpectateTable and FindGame streams open now")
# Apart: a bot worker holds its SubmitActions streams for as long as it runs.
ACTION_STREAMS = Gauge("tavola_gateway_action_streams", "ActionService.SubmitActions streams open now")
ENQUEUED = Counter("tavola_gateway_tasks_enqueued_total", "Bot and timer tasks enqueued", ["task", "result"])
LOG_READS = Counter(
    "tavola_gateway_watcher_log_reads_total",
    "Watchers' log reads: shared by a table's watchers, private (behind the buffer), or spared "
    "(a commit here delivered its entries)",
    ["kind"],
)
RULES_UP = Gauge("tavola_gateway_rules_up", "1 while the game's rules service answers its health check", ["game"])
SWEPT = Counter("tavola_gateway_tables_swept_total", "Quiet tables whose tasks the sweep enqueued again")

TABLES_CREATED = Counter("tavola_tables_created_total", "Tables created", ["game"])
TABLES_STARTED = Counter("tavola_tables_started_total", "Tables whose game started", ["game"])
GAMES_FINISHED = Counter("tavola_games_finished_total", "Games played to the end", ["game", "outcome"])
ACTIONS = Counter("tavola_actions_applied_total", "Seat actions committed", ["game"])


_ACTIONS_OF: dict[str, Counter] = {}


def outcome_label(outcome) -> str:
    """A bounded label for a game's outcome: who won by seat count, never free text."""
    winners = len(outcome.winners)
    if winners == 0:
        return "no_winner"
    return "one_winner" if winners == 1 else "shared"


class TableIndexCollector:
    """``tavola_tables{status}``: the lengths of the open and in-progress indexes, read
    from Redis at each scrape with a blocking client of its own (scrapes run in the
    metrics server's thread)."""

    def __init__(self, client, prefix: str):
        self.client = client
        self.prefix = prefix

    def collect(self):
        family = GaugeMetricFamily("tavola_tables", "Tables by status, from the shared indexes", labels=["status"])
        try:
            for status in ("open", "in-progress"):
                family.add_metric([status.replace("-", "_")], self.client.zcard(f"{self.prefix}:index:{status}"))
        except Exception:  # a scrape while Redis is away reports nothing rather than failing
            log.warning("tables_metric_failed", exc_info=True)
            return
        yield family


def register_table_index(client, prefix: str) -> None:
    REGISTRY.register(TableIndexCollector(client, prefix))


def count_commit(table, status_before: int, entries) -> None:
    """Counts what one committed command did: the table it created, the game it started or
    finished, the seat actions it applied."""
    game = table.game_id
    actions = sum(1 for entry in entries if entry.action)
    if actions:
        counter = _ACTIONS_OF.get(game)
        if counter is None:  # looked up once a game (labels() takes a lock each time)
            counter = _ACTIONS_OF[game] = ACTIONS.labels(game)
        counter.inc(actions)
    if table.status == status_before:
        return
    if status_before == gw.TABLE_STATUS_UNSPECIFIED:
        TABLES_CREATED.labels(game).inc()
    if table.status in (gw.TABLE_STATUS_IN_PROGRESS, gw.TABLE_STATUS_FINISHED) and status_before in (
        gw.TABLE_STATUS_UNSPECIFIED,
        gw.TABLE_STATUS_OPEN,
    ):
        TABLES_STARTED.labels(game).inc()
    if table.status == gw.TABLE_STATUS_FINISHED:
        GAMES_FINISHED.labels(game, outcome_label(table.outcome)).inc()

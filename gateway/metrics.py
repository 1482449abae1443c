"""Prometheus metrics of the gateway, served on TAVOLA_METRICS_PORT (off when unset)."""

import os

import structlog
from prometheus_client import Counter, Gauge, Histogram, start_http_server

log = structlog.get_logger()

REQUESTS = Counter("tavola_gateway_requests_total", "Gateway RPCs handled", ["method", "code"])
LATENCY = Histogram(
    "tavola_gateway_request_seconds",
    "Time to handle a unary gateway RPC",
    ["method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
STREAMS = Gauge("tavola_gateway_open_streams", "WatchTable and SpectateTable streams open now")
ENQUEUED = Counter("tavola_gateway_tasks_enqueued_total", "Bot and timer tasks enqueued", ["task", "result"])
SWEPT = Counter("tavola_gateway_tables_swept_total", "Quiet tables whose tasks the sweep enqueued again")


def serve_from_env() -> int | None:
    """Starts the metrics endpoint when TAVOLA_METRICS_PORT is set; returns its port."""
    port = os.environ.get("TAVOLA_METRICS_PORT")
    if not port:
        return None
    host = os.environ.get("TAVOLA_HOST", "127.0.0.1")
    server, _ = start_http_server(int(port), addr=host)
    bound = server.server_port
    log.info("metrics", address=f"{host}:{bound}")
    return bound

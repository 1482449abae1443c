"""The Prometheus endpoint every tavola process serves when TAVOLA_METRICS_PORT is set.

A port of 0 binds a free one; TAVOLA_METRICS_PORT_FILE then receives the bound port, for
launchers that asked for port 0 (the local stack).
"""

import os

import structlog
from prometheus_client import REGISTRY, CollectorRegistry, start_http_server

from common import settings

log = structlog.get_logger()


def serve_from_env(registry: CollectorRegistry = REGISTRY) -> int | None:
    """Starts the metrics endpoint of ``registry`` when TAVOLA_METRICS_PORT is set; returns its port."""
    port = settings.port("TAVOLA_METRICS_PORT")
    if port is None:
        return None
    host = settings.text("TAVOLA_HOST")
    server, _ = start_http_server(port, addr=host, registry=registry)
    bound = server.server_port
    port_file = settings.text("TAVOLA_METRICS_PORT_FILE")
    if port_file:
        with open(f"{port_file}.tmp", "w") as handle:
            handle.write(str(bound))
        os.replace(f"{port_file}.tmp", port_file)
    log.info("metrics", address=f"{host}:{bound}")
    return bound

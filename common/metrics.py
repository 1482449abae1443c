"""The Prometheus endpoint every tavola process serves when TAVOLA_METRICS_PORT is set.

A port of 0 binds a free one; TAVOLA_METRICS_PORT_FILE then receives the bound port, for
launchers that asked for port 0 (the local stack).
"""

import os

import structlog
from prometheus_client import REGISTRY, CollectorRegistry, start_http_server

log = structlog.get_logger()


def serve_from_env(registry: CollectorRegistry = REGISTRY) -> int | None:
    """Starts the metrics endpoint of ``registry`` when TAVOLA_METRICS_PORT is set; returns its port."""
    port = os.environ.get("TAVOLA_METRICS_PORT")
    if not port:
        return None
    host = os.environ.get("TAVOLA_HOST", "127.0.0.1")
    server, _ = start_http_server(int(port), addr=host, registry=registry)
    bound = server.server_port
    port_file = os.environ.get("TAVOLA_METRICS_PORT_FILE")
    if port_file:
        with open(f"{port_file}.tmp", "w") as handle:
            handle.write(str(bound))
        os.replace(f"{port_file}.tmp", port_file)
    log.info("metrics", address=f"{host}:{bound}")
    return bound

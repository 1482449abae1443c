"""structlog JSON logs on stdout. Bind table_id, seat and request_id with ``bound``."""

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import structlog


def configure(service: str) -> None:
    level = getattr(logging, os.environ.get("TAVOLA_LOG_LEVEL", "INFO").upper(), logging.INFO)
    logging.basicConfig(stream=sys.stdout, level=level, format="%(message)s")
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stdout),
        cache_logger_on_first_use=True,
    )
    structlog.contextvars.bind_contextvars(service=service)


@contextmanager
def bound(**values: object) -> Iterator[None]:
    """Bind values (table_id, seat, request_id...) to every log line inside the block."""
    with structlog.contextvars.bound_contextvars(**{k: v for k, v in values.items() if v is not None}):
        yield

"""JSON logs on stdout, one object per line, from structlog and from the standard library
alike (Celery's task lines, gRPC's and asyncio's messages, tracebacks), each with the
process's ``service`` and whatever is bound: table_id, seat, request_id (``bound``)."""

import contextvars
import logging
import sys
from collections.abc import Mapping

import structlog

from common import settings

# What every line gets, whether structlog or the standard library wrote it.
_SHARED: list[structlog.typing.Processor] = [
    structlog.contextvars.merge_contextvars,
    structlog.processors.add_log_level,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]
# A traceback becomes the line's "exception" field: JSON escapes its newlines.


def configure(service: str) -> None:
    from common import tracing

    level = getattr(logging, settings.text("TAVOLA_LOG_LEVEL").upper(), logging.INFO)
    # Every line names its process's service, from whatever thread or task wrote it (bound
    # as a context variable, it was missing from the lines of a worker's task threads).
    shared = [*_SHARED, _naming(service)]
    # With traces on, each line written inside a span names its trace.
    if tracing.wanted():
        shared.append(tracing.add_trace_id)
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                structlog.processors.JSONRenderer(),
            ],
        )
    )
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stdout),
        cache_logger_on_first_use=True,
    )
    # Whatever escapes every handler still ends as one JSON line.
    sys.excepthook = lambda kind, value, tb: logging.getLogger("tavola").critical(
        "uncaught_exception", exc_info=(kind, value, tb)
    )


def _naming(service: str) -> structlog.typing.Processor:
    def add_service(logger: object, method: str, event: structlog.typing.EventDict) -> structlog.typing.EventDict:
        event.setdefault("service", service)
        return event

    return add_service


class bound:
    """Bind values (table_id, seat, request_id...) to every log line inside the block; the
    values bound before come back after it. (structlog's ``bound_contextvars`` reads every
    bound value first, on each request's path.)"""

    __slots__ = ("tokens", "values")

    def __init__(self, **values: object):
        self.values = {k: v for k, v in values.items() if v is not None}
        self.tokens: Mapping[str, contextvars.Token] = {}

    def __enter__(self) -> None:
        if self.values:
            self.tokens = structlog.contextvars.bind_contextvars(**self.values)

    def __exit__(self, *exc: object) -> None:
        if self.tokens:
            try:
                structlog.contextvars.reset_contextvars(**self.tokens)
            except ValueError:  # left in another context (an async generator closed late)
                structlog.contextvars.unbind_contextvars(*self.tokens)

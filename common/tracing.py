"""OpenTelemetry traces, when an operator asks for them: one bot action can then be followed
from the gateway's SubmitAction through its rules call and the Celery task to the worker's
calls back to the gateway, under one trace id.

Tracing is on when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``)
is set, and off otherwise (``OTEL_SDK_DISABLED=true`` turns it off too): then nothing here is
imported and no call pays for it. Spans go to that OTLP endpoint over gRPC, in batches
(the exporter's own ``OTEL_*`` settings apply: ``OTEL_EXPORTER_OTLP_INSECURE``,
``OTEL_BSP_SCHEDULE_DELAY``...). The context travels in gRPC metadata (``traceparent``),
through the OpenTelemetry gRPC instrumentation on every server and client, and in the
headers of each Celery task message the gateway writes (``inject_into``), which the Celery
instrumentation of the worker reads. Each JSON log line written inside a span carries its
``trace_id``.
"""

import contextlib
import os
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Any

_enabled = False


def wanted(env: MutableMapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    if env.get("OTEL_SDK_DISABLED", "").lower() in ("1", "true", "yes"):
        return False
    return bool(env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def enabled() -> bool:
    return _enabled


def configure(service: str) -> bool:
    """Sets up this process's tracer provider and OTLP exporter when tracing is wanted;
    True when it is on. Call it once, before any gRPC channel or server is made."""
    global _enabled
    if _enabled or not wanted():
        return _enabled
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    _enabled = True
    return True


def shutdown() -> None:
    """Sends the spans still batched (a process that stops loses none)."""
    if not _enabled:
        return
    from opentelemetry import trace

    provider: Any = trace.get_tracer_provider()
    if hasattr(provider, "shutdown"):
        provider.shutdown()


def server_interceptors(untraced: Iterable[str] = ()) -> list:
    """For ``grpc.aio.server(interceptors=...)``: a span per call, continuing the caller's
    trace. The methods named in ``untraced`` are left alone: the instrumentation expects a
    streaming handler to be an async generator, while the gateway's streams write to
    their call themselves (gateway/service.py)."""
    if not _enabled:
        return []
    from opentelemetry.instrumentation.grpc import aio_server_interceptor, filters

    skipped = [filters.method_name(name) for name in untraced]
    return [aio_server_interceptor(filter_=filters.negate(filters.any_of(*skipped)) if skipped else None)]


def tag_protocol(protocol: str) -> None:
    """Names the wire protocol of the call being handled (``grpc``, ``connect``,
    ``grpc-web``) on its span, ``tavola.protocol``: a gRPC call's span is the
    instrumentation's, a browser call's ``web_span``."""
    if not _enabled:
        return
    from opentelemetry import trace

    trace.get_current_span().set_attribute("tavola.protocol", protocol)


@contextlib.contextmanager
def web_span(full_method: str, protocol: str, headers: Mapping[str, str], peer: str = "") -> Iterator[Any]:
    """A browser protocol call's server span (the gateway's web port), as the gRPC
    instrumentation makes one for a gRPC call: named by the full method
    ("/tavola.gateway.v1.GatewayService/SubmitAction"), continuing the trace of the request's
    ``traceparent`` header, with the same ``rpc.*`` attributes. Yields the span (None when
    tracing is off); ``end_status`` gives it the call's status."""
    if not _enabled:
        yield None
        return
    from opentelemetry import propagate, trace

    service, _, method = full_method.lstrip("/").partition("/")
    attributes = {
        "rpc.system": "connect_rpc" if protocol == "connect" else "grpc",
        "rpc.service": service,
        "rpc.method": method,
        "tavola.protocol": protocol,
    }
    if peer:
        attributes["net.peer.name"] = peer
    tracer = trace.get_tracer(__name__)
    with tracer.start_as_current_span(
        full_method,
        context=propagate.extract(headers),
        kind=trace.SpanKind.SERVER,
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        yield span


def end_status(span: Any, code: int, message: str = "") -> None:
    """A ``web_span``'s outcome: the gRPC status code's number, an error unless OK (0), as
    the gRPC instrumentation records a call's."""
    if span is None:
        return
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("rpc.grpc.status_code", code)
    if code:
        span.set_status(Status(StatusCode.ERROR, message))


def aio_client_interceptors() -> list:
    """For ``grpc.aio`` channels: a span per call, its context sent in the call's metadata."""
    if not _enabled:
        return []
    from opentelemetry.instrumentation.grpc import aio_client_interceptors as interceptors

    return list(interceptors())


def instrument_sync_clients() -> None:
    """Every synchronous gRPC channel made after this (a worker's calls to the gateway)
    sends its span's context."""
    if not _enabled:
        return
    from opentelemetry.instrumentation.grpc import GrpcInstrumentorClient

    GrpcInstrumentorClient().instrument()


def instrument_celery() -> None:
    """The worker's task runs continue the trace found in their message's headers."""
    if not _enabled:
        return
    from opentelemetry.instrumentation.celery import CeleryInstrumentor

    CeleryInstrumentor().instrument()


def inject_into(headers: dict[str, Any]) -> None:
    """Adds the current span's context (``traceparent``) to a message's headers."""
    if not _enabled:
        return
    from opentelemetry import propagate

    propagate.inject(headers)


def add_trace_id(_: object, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """A structlog processor: the current span's trace id on the line, when there is one."""
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    if context.is_valid:
        event.setdefault("trace_id", format(context.trace_id, "032x"))
    return event

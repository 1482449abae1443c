"""How each gRPC method is served: its request decoded and checked, its errors answered.

Every method is registered by ``add_to_server``, which hands the handler the request's raw
bytes: a request that does not decode is INVALID_ARGUMENT (MALFORMED_REQUEST) with one
JSON log line, instead of gRPC's UNKNOWN with Python's exception text. Then every id of
the request and the call's token are checked by their shapes (common/shapes.py) before the
method builds any key of them. Whatever a handler raises becomes a status with a reason;
an unexpected exception is logged (one JSON line with its traceback) and answered INTERNAL
with a generic message.
"""

import functools
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import structlog
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.message import DecodeError
from redis.exceptions import RedisError

from common import auth, shapes, tracing
from common.errors import RETRY_UNAVAILABLE_SECONDS, ApiError, abort
from common.logging import bound
from gateway import metrics
from gateway.limits import RequestLimits
from tavola.gateway.v1 import gateway_pb2 as gw

log = structlog.get_logger()


def _as_api_error(error: Exception, method: str) -> ApiError:
    """The one place where the gateway's failures become a status with a reason."""
    if isinstance(error, ApiError):
        return error
    if isinstance(error, RedisError):
        log.error("store_unavailable", method=method, exc_info=error)
        return ApiError(
            grpc.StatusCode.UNAVAILABLE,
            "STORE_UNAVAILABLE",
            "the table store is unavailable",
            retry_after=RETRY_UNAVAILABLE_SECONDS,
        )
    log.error("internal_error", method=method, exc_info=error)
    return ApiError(grpc.StatusCode.INTERNAL, "INTERNAL", "the gateway failed; the request changed nothing")


def _decode(request_class, raw: bytes, method: str):
    try:
        return request_class.FromString(raw)
    except (DecodeError, ValueError) as error:  # also a string field that is not UTF-8
        log.warning("malformed_request", method=method, size=len(raw), error=str(error)[:200])
        raise ApiError(
            grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", f"the request is not a valid {method} request"
        ) from None


def _about(request) -> dict[str, object]:
    """The request's table id, for the error's metadata and the log (when it is one)."""
    table_id = getattr(request, "table_id", "")
    return {"table_id": table_id} if table_id and shapes.HEX_ID.fullmatch(table_id) else {}


def _check_shapes(request, context) -> None:
    """The call's token and the request's ids by their shapes (common/shapes.py): a token
    is UNAUTHENTICATED, an id INVALID_ARGUMENT, when the platform never issues its like."""
    auth.token_from(context)  # raises for a token of no issued shape
    shapes.check_request(request)


def _failure(error: Exception, method: str, request) -> ApiError:
    api_error = _as_api_error(error, method)
    for key, value in _about(request).items():
        api_error.metadata.setdefault(key, str(value))
    # Detached from the failure's traceback and the exceptions behind it: their frames hold
    # the request (and the handler's frame holds this error, a reference cycle), which would
    # keep every refused request's bytes until a full collection.
    api_error.__traceback__ = api_error.__context__ = api_error.__cause__ = None
    return api_error


def _log_refusal(method: str, error: ApiError) -> None:
    """One INFO line per refused call, with what a client was told (failures of the
    platform itself, INTERNAL and UNAVAILABLE, are logged as errors where they happen)."""
    log.info("refused", method=method, code=error.code.name, reason=error.reason, about=error.metadata or None)


def _too_large(raw: bytes, limit: int, method: str) -> ApiError | None:
    if len(raw) <= limit:
        return None
    # Logged once, as every refusal is (_log_refusal), with the limit and size in it.
    return ApiError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "REQUEST_TOO_LARGE",
        f"a {method} request may have at most {limit} bytes",
        limit=limit,
        size=len(raw),
    )


def unary_rpc(method, request_class, limit: int, protocol: str = "grpc"):
    """A unary method's handler, for calls that come by ``protocol`` (the metrics' and the
    span's label: "grpc", or "connect" and "grpc-web" from the web port)."""
    name = method.__name__
    # The metrics of this method, looked up once (a labels() call takes a lock each time).
    latency = metrics.LATENCY.labels(name, protocol)
    answered = metrics.REQUESTS.labels(name, "OK", protocol)

    @functools.wraps(method)
    async def handler(raw: bytes, context):
        started = time.perf_counter()
        tracing.tag_protocol(protocol)
        request = None
        api_error = _too_large(raw, limit, name)
        try:
            if api_error is None:
                request = _decode(request_class, raw, name)
                _check_shapes(request, context)
                with bound(**_about(request)):
                    response = await method(request, context)
                answered.inc()
                return response
        except Exception as error:
            api_error = _failure(error, name, request)
        finally:
            latency.observe(time.perf_counter() - started)
        # Aborted outside the except block, with the request's bytes let go: the abort's own
        # exception then holds no traceback of the failure, whose frames would keep the
        # request alive in a reference cycle until a full collection.
        del raw, request
        assert api_error is not None  # the try returned otherwise
        _log_refusal(name, api_error)
        metrics.REQUESTS.labels(name, api_error.code.name, protocol).inc()
        await abort(context, api_error)

    return handler


def stream_rpc(method, request_class, limit: int, protocol: str = "grpc"):
    """A server-streaming method's handler: the method writes each response itself
    (``context.write``, handed serialized bytes), with no generator between it and
    grpc.aio: no generator layer to resume for every response to every watcher.
    ``protocol`` as for ``unary_rpc`` (streams make no span, on either port)."""
    name = method.__name__

    @functools.wraps(method)
    async def handler(raw: bytes, context) -> None:
        code = "OK"
        metrics.STREAMS.inc()
        request = None
        api_error = _too_large(raw, limit, name)
        try:
            if api_error is None:
                request = _decode(request_class, raw, name)
                _check_shapes(request, context)
                with bound(**_about(request)):
                    await method(request, context)
        except Exception as error:
            api_error = _failure(error, name, request)
        finally:
            metrics.STREAMS.dec()
            if api_error is not None:
                code = api_error.code.name
            metrics.REQUESTS.labels(name, code, protocol).inc()
        if api_error is not None:
            del raw, request  # as in unary_rpc
            _log_refusal(name, api_error)
            await abort(context, api_error)

    return handler


def bidi_rpc(method, request_class, limit: int, protocol: str = "grpc", gauge=metrics.ACTION_STREAMS):
    """A stream-stream method's handler: the method (an async generator of serialized
    answers) reads the decoded requests; a request over the method's limit, or one that
    does not decode, fails the stream as a unary call would fail."""
    name = method.__name__

    async def decoded(raw_requests: AsyncIterator[bytes]) -> AsyncIterator[Any]:
        async for raw in raw_requests:
            too_large = _too_large(raw, limit, name)
            if too_large is not None:
                raise too_large
            yield _decode(request_class, raw, name)

    @functools.wraps(method)
    async def handler(raw_requests: AsyncIterator[bytes], context) -> AsyncIterator[bytes]:
        gauge.inc()
        api_error = None
        try:
            async for answer in method(decoded(raw_requests), context):
                yield answer
        except Exception as error:
            api_error = _failure(error, name, None)
        finally:
            gauge.dec()
            metrics.REQUESTS.labels(name, api_error.code.name if api_error else "OK", protocol).inc()
        if api_error is not None:
            _log_refusal(name, api_error)
            await abort(context, api_error)

    return handler


def _serialized(response) -> bytes:
    """A unary response's bytes: a handler may answer with them already (GetView's view)."""
    return response if isinstance(response, bytes) else response.SerializeToString()


def _gauge_of(service_name: str):
    """The gauge of a service's open streams: a seat's sessions are event streams."""
    return metrics.STREAMS if service_name == "SessionService" else metrics.ACTION_STREAMS


def add_to_server(servicer, service_name: str, server: grpc.aio.Server, limits: RequestLimits | None = None) -> None:
    """Registers every method of ``service_name`` (a service of package tavola.gateway.v1) on
    the server, each handed raw bytes that its wrapper refuses when over the method's limit,
    or decodes."""
    limits = limits or RequestLimits()
    service = descriptor_pool.Default().FindServiceByName(f"{gw.DESCRIPTOR.package}.{service_name}")
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for method in service.methods:
        request_class = message_factory.GetMessageClass(method.input_type)
        implementation = getattr(servicer, method.name)
        if method.client_streaming:  # answers come serialized too
            handlers[method.name] = grpc.stream_stream_rpc_method_handler(
                bidi_rpc(implementation, request_class, limits.of(method.name), gauge=_gauge_of(service_name)),
                response_serializer=None,
            )
        elif method.server_streaming:
            # Its responses come serialized (TableStreams.stream): grpc.aio sends them as they are.
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                stream_rpc(implementation, request_class, limits.of(method.name)), response_serializer=None
            )
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                unary_rpc(implementation, request_class, limits.of(method.name)), response_serializer=_serialized
            )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service.full_name, handlers),))


def require_token(context) -> str:
    token = auth.token_from(context)
    if token is None:
        raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING", "send 'authorization: Bearer <token>'")
    return token

"""The web port's calls (gateway/web.py): each public service's method, reached over Connect or
gRPC-Web, goes through the gRPC server's own handler of that method. ``CallContext`` gives
the handler what it reads from a grpc context and turns its abort into the library's error
(``connect_error``); the codecs hand a request to it as bytes (binary as it came, JSON
parsed and re-serialized); a unary call runs inside a span like the gRPC port's, a server
stream's handler writes into a queue that the HTTP response drains (``STREAM_AHEAD``
ahead at most, and a client that takes nothing for the stall time ends it).
"""

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import grpc
import structlog
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.message import Message
from google.rpc import status_pb2
from protobuf.wkt import Any as WireAny

from common import tracing
from common.errors import ApiError
from gateway.handlers import stream_rpc, unary_rpc
from gateway.limits import RequestLimits
from tavola.gateway.v1 import gateway_pb2 as gw

log = structlog.get_logger()

# The web port's write timeout unless TAVOLA_WEB_WRITE_TIMEOUT_SECONDS says otherwise.
WRITE_TIMEOUT_SECONDS = 30.0
# Responses a stream's handler may write ahead of what the HTTP response has taken.
STREAM_AHEAD = 8

_STATUS_DETAILS = "grpc-status-details-bin"
# gRPC's codes as the Connect protocol names them (one spelling differs).
_CODES = {code: Code[code.name.replace("CANCELLED", "CANCELED")] for code in grpc.StatusCode if code.name != "OK"}
# And back, as the number a span records (rpc.grpc.status_code).
_CODE_NUMBERS = {connect: code.value[0] for code, connect in _CODES.items()}
# The wire protocols the web port speaks, as the metrics and spans name them.
WEB_PROTOCOLS = ("connect", "grpc-web", "grpc")


def connect_error(status: grpc.Status) -> ConnectError:
    """The library's error for a handler's gRPC status: the same code, message and
    details (the google.rpc messages packed in grpc-status-details-bin)."""
    details: list[ErrorDetail] = []
    for key, value in status.trailing_metadata or ():
        if key == _STATUS_DETAILS and isinstance(value, bytes):
            for detail in status_pb2.Status.FromString(value).details:
                details.append(ErrorDetail(WireAny(type_url=detail.type_url, value=detail.value)))
    return ConnectError(_CODES[status.code], status.details or "", details)


def _error(api_error: ApiError) -> ConnectError:
    return connect_error(api_error.to_status())


class CallContext:
    """What a gateway handler reads from its grpc.aio context, read from an HTTP request."""

    __slots__ = ("_request", "write")

    def __init__(self, request, write: Callable[[bytes], Awaitable[None]] | None = None):
        self._request = request  # connectrpc's RequestContext
        if write is not None:
            self.write = write

    def peer(self) -> str:
        """As gRPC names a peer ('ipv4:10.0.0.1:5000', 'ipv6:[::1]:5000'), for the quotas."""
        address = self._request.client_address or ""
        host, _, port = address.rpartition(":")
        return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{address}"

    def invocation_metadata(self) -> list[tuple[str, str]]:
        return list(self._request.request_headers.allitems())

    async def abort_with_status(self, status: grpc.Status) -> None:
        raise connect_error(status)


@dataclass(slots=True)
class Reply:
    """A handler's answer on its way to the codec: a message or its bytes (a stream's
    events and GetView come serialized), and its type, which JSON needs."""

    message: bytes | Message
    type: type[Message]


class BinaryCodec:
    """The wire format: a request's bytes go to the handler as they came."""

    def name(self) -> str:
        return "proto"

    def encode(self, reply: Reply) -> bytes:
        message = reply.message
        return message if isinstance(message, bytes) else message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> bytes:
        return bytes(data)


class JsonCodec:
    """Protobuf's JSON mapping: a request is parsed into its message and handed on as that
    message's bytes; a reply is written from its message (Any fields by the games' types,
    which the gateway has loaded)."""

    def name(self) -> str:
        return "json"

    def encode(self, reply: Reply) -> bytes:
        message = reply.message
        if isinstance(message, bytes):
            message = reply.type.FromString(message)
        return json_format.MessageToJson(message, indent=None).encode()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> bytes:
        message = message_class()
        try:
            json_format.Parse(bytes(data), message, ignore_unknown_fields=True)
        except Exception:  # not JSON, not this message, not UTF-8, nested too deep...
            method = message_class.DESCRIPTOR.name.removesuffix("Request")
            log.warning("malformed_request", method=method, size=len(data), encoding="json")
            raise _error(
                ApiError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "MALFORMED_REQUEST",
                    f"the request is not a valid {method} request",
                )
            ) from None
        return message.SerializeToString()


def _snake(name: str) -> str:
    """'ListGames' -> 'list_games', as the generated routes name the service's methods."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_END = object()


def protocol_of(request) -> str:
    """How a call came, from its content type: "grpc-web", "grpc" (which the library speaks
    too, over HTTP/2), else "connect" (its unary GETs have none)."""
    content_type = (request.request_headers.get("content-type") or "").lower()
    if content_type.startswith("application/grpc-web"):
        return "grpc-web"
    return "grpc" if content_type.startswith("application/grpc") else "connect"


def _unary(handlers: Mapping[str, Any], reply_type: type[Message], full_method: str):
    """A unary call: the handler of its protocol (each counts under its own label), inside
    a span like the gRPC instrumentation's for a call on the gRPC port."""

    async def call(raw: bytes, request) -> Reply:
        protocol = protocol_of(request)
        headers = dict(request.request_headers.allitems()) if tracing.enabled() else {}
        with tracing.web_span(full_method, protocol, headers, request.client_address or "") as span:
            try:
                reply = Reply(await handlers[protocol](raw, CallContext(request)), reply_type)
            except ConnectError as error:
                tracing.end_status(span, _CODE_NUMBERS.get(error.code, 2), error.message)
                raise
            tracing.end_status(span, 0)
            return reply

    return call


def _stream(handlers: Mapping[str, Any], reply_type: type[Message], stall_seconds: float = WRITE_TIMEOUT_SECONDS):
    """A server stream: the handler runs as a task writing its responses (serialized) into a
    queue that the HTTP response drains. A write waits while STREAM_AHEAD responses are
    untaken, as a gRPC write waits on flow control; a client that leaves cancels it. A
    client that takes none of its response for ``stall_seconds`` (the web port's write
    timeout) ends the stream with DEADLINE_EXCEEDED, reason CLIENT_NOT_READING: the
    handler's write raises it, so the stream ends as any refused one does (its metric and
    log line), a moment before the HTTP side's own write timeout closes the connection."""

    async def call(raw: bytes, request):
        handler = handlers[protocol_of(request)]
        queue: asyncio.Queue[Any] = asyncio.Queue()
        room = asyncio.Event()
        loop = asyncio.get_running_loop()
        sending_since: float | None = None  # when the response began sending what it took last

        async def write(data: bytes) -> None:
            queue.put_nowait(data)
            if queue.qsize() >= STREAM_AHEAD:
                room.clear()
                try:
                    async with asyncio.timeout_at((sending_since or loop.time()) + stall_seconds):
                        await room.wait()
                except TimeoutError:
                    raise ApiError(
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                        "CLIENT_NOT_READING",
                        f"the client took none of this stream for {stall_seconds:g} s",
                    ) from None

        def ended(task: asyncio.Task) -> None:
            if not task.cancelled():
                task.exception()  # retrieved: it is raised below when the response takes the end
            queue.put_nowait(_END)

        task = asyncio.ensure_future(handler(raw, CallContext(request, write)))
        task.add_done_callback(ended)
        try:
            while (item := await queue.get()) is not _END:
                if queue.qsize() < STREAM_AHEAD:
                    room.set()
                sending_since = loop.time()
                yield Reply(item, reply_type)
                sending_since = None
            task.result()  # the handler's abort: the stream's status
        finally:
            task.cancel()

    return call


def _grpc_port_only(service: str, method: str):
    """A method that streams both ways (SessionService.Play): a browser's HTTP/1.1 cannot,
    so the web port names the door that can and what does the same here."""

    async def refused(requests, request):
        raise ConnectError(
            Code.UNIMPLEMENTED,
            f"{service}.{method} streams both ways and is served on the gateway's gRPC port;"
            " here a seat follows with SessionService.Follow and acts with GatewayService.SubmitAction",
        )
        yield  # an async generator, as the library calls a streaming method

    return refused


def bridged_service(
    servicer, service_name: str, limits: RequestLimits, stall_seconds: float = WRITE_TIMEOUT_SECONDS
) -> Any:
    """A generated application's service: each of its methods is the gRPC server's own
    handler of that method (``unary_rpc``/``stream_rpc`` around the servicer's method, as
    ``add_to_server`` registers it). ``stall_seconds``: as ``_stream``'s."""
    methods: dict[str, Any] = {}
    service = descriptor_pool.Default().FindServiceByName(f"{gw.DESCRIPTOR.package}.{service_name}")
    for method in service.methods:
        request_class = message_factory.GetMessageClass(method.input_type)
        reply_type = message_factory.GetMessageClass(method.output_type)
        implementation = getattr(servicer, method.name)
        limit = limits.of(method.name)
        # A handler per protocol: each its own metric children, looked up once.
        if method.client_streaming:
            methods[_snake(method.name)] = _grpc_port_only(service.name, method.name)
        elif method.server_streaming:
            streams = {each: stream_rpc(implementation, request_class, limit, each) for each in WEB_PROTOCOLS}
            methods[_snake(method.name)] = _stream(streams, reply_type, stall_seconds)
        else:
            unary = {each: unary_rpc(implementation, request_class, limit, each) for each in WEB_PROTOCOLS}
            full_method = f"/{service.full_name}/{method.name}"
            methods[_snake(method.name)] = _unary(unary, reply_type, full_method)
    return SimpleNamespace(**methods)

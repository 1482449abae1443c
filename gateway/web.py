"""The browser protocol: the public services (GatewayService, PlayerService, ChatService) over the
Connect protocol and gRPC-Web, served by the gateway process itself on a port of its own
(TAVOLA_WEB_PORT).

Browsers cannot speak gRPC (HTTP/2 with trailers); they can speak Connect (unary calls as
plain POSTs, server streams as enveloped bodies) and gRPC-Web. The connectrpc library
speaks both wire protocols, on uvicorn; its routes come from ``make proto``
(gateway_connect.py, players_connect.py). Every call then goes through the very handlers
the gRPC server uses (gateway/service.py ``unary_rpc``/``stream_rpc`` around
``GatewayServicer`` and ``PlayerServicer``): the same byte limits, quotas, tokens, errors
and metrics (labelled ``protocol`` "connect" or "grpc-web", where the gRPC port's are
"grpc"), and with tracing on, each unary call the same span as on the gRPC port
(``common.tracing.web_span``, continuing the request's ``traceparent``); streams make none
on either port. What sits between the library and a handler
is only ``CallContext``, which gives the handler what it reads from a grpc context (the
peer's address, the ``authorization`` metadata, ``write`` for streams) and turns its abort
into the library's error with the same code, message and details (ErrorInfo, RetryInfo).

Requests reach the handler as bytes: a binary request as it came (the handler refuses it
over its method's limit, or decodes it), a JSON one parsed into its message and
re-serialized, so the limit is the same for the same message. The HTTP body itself may be
at most ``BODY_FACTOR`` times the largest limit (JSON is wordier than the wire format).

The port is closed to other sites' pages by default: a request whose Origin is neither
the page's own host nor one of TAVOLA_WEB_ORIGINS is refused (403), preflight or not. It
also serves a static directory at ``/`` (the built web client), so one URL gives the page
and its API.

Environment: TAVOLA_WEB_PORT (unset or empty: no web port; 0: a free one),
TAVOLA_WEB_PORT_FILE, TAVOLA_WEB_HOST (default TAVOLA_HOST, else 127.0.0.1),
TAVOLA_WEB_ORIGINS (origins allowed besides the page's own, comma-separated; "*": any),
TAVOLA_WEB_STATIC (a directory to serve at /; default clients/web/dist when built; "" for
none), TAVOLA_WEB_TRUSTED_PROXIES (addresses whose X-Forwarded-For names the client, for
quotas; default none), TAVOLA_WEB_WRITE_TIMEOUT_SECONDS (30: a client that takes no bytes
for that long is disconnected).
"""

import asyncio
import contextlib
import os
import re
import socket
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast
from urllib.parse import urlsplit

import grpc
import h11
import structlog
import uvicorn
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.message import Message
from google.rpc import status_pb2
from protobuf.wkt import Any as WireAny
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.staticfiles import StaticFiles
from uvicorn.protocols.http.h11_impl import H11Protocol

from common import settings, tracing
from common.errors import ApiError
from gateway.handlers import stream_rpc, unary_rpc
from gateway.limits import RequestLimits
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1.chat_connect import ChatServiceASGIApplication
from tavola.gateway.v1.gateway_connect import GatewayServiceASGIApplication
from tavola.gateway.v1.players_connect import PlayerServiceASGIApplication
from tavola.gateway.v1.social_connect import SocialServiceASGIApplication
from tavola.gateway.v1.turns_connect import TurnServiceASGIApplication

log = structlog.get_logger()

# The public services, by name: their generated Connect applications (the routes).
APPLICATIONS: dict[str, Any] = {
    "GatewayService": GatewayServiceASGIApplication,
    "PlayerService": PlayerServiceASGIApplication,
    "SocialService": SocialServiceASGIApplication,
    "TurnService": TurnServiceASGIApplication,
    "ChatService": ChatServiceASGIApplication,
}

ROOT = Path(__file__).resolve().parent.parent
# The built web client (clients/web), served at / when present.
DEFAULT_STATIC = ROOT / "clients" / "web" / "dist"
# The HTTP body of a request may be this many times the largest request limit.
BODY_FACTOR = 2
WRITE_TIMEOUT_SECONDS = 30.0
STALL_SHARE = 0.8  # of the write timeout: when a stream whose client reads nothing ends
# How long a request's head, and then its body, may take to arrive.
READ_TIMEOUT_SECONDS = 10.0
# Responses a stream's handler may write ahead of what the HTTP response has taken.
STREAM_AHEAD = 8

# Request headers a page may send, and response headers it may read, across origins: the
# Connect and gRPC-Web protocols' own, the seat token's and the reader's language's.
ALLOW_HEADERS = ["authorization", "tavola-locale", "content-type", "grpc-timeout", "x-grpc-web", "x-user-agent"]
ALLOW_HEADERS += ["connect-protocol-version", "connect-timeout-ms"]
ALLOW_HEADERS += ["connect-content-encoding", "connect-accept-encoding"]
EXPOSE_HEADERS = ["grpc-status", "grpc-message", "grpc-status-details-bin", "content-encoding"]

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
        if method.server_streaming:
            streams = {each: stream_rpc(implementation, request_class, limit, each) for each in WEB_PROTOCOLS}
            methods[_snake(method.name)] = _stream(streams, reply_type, stall_seconds)
        else:
            unary = {each: unary_rpc(implementation, request_class, limit, each) for each in WEB_PROTOCOLS}
            full_method = f"/{service.full_name}/{method.name}"
            methods[_snake(method.name)] = _unary(unary, reply_type, full_method)
    return SimpleNamespace(**methods)


def _header(scope: Mapping[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def _utf8(value: bytes) -> bool:
    try:
        value.decode()
    except UnicodeDecodeError:
        return False
    return True


def _utf8_headers(scope: Mapping[str, Any]) -> Mapping[str, Any]:
    """The scope with every header value in UTF-8, as the protocol library reads them (it
    fails with a traceback on other bytes). A browser sends a header's ISO-8859-1
    characters (a token typed as "p.ïd.sécret") as one byte each: such a value is read as
    ISO-8859-1, HTTP's own charset, so that the handler sees the characters sent and
    refuses them for what they are (a token of no issued shape, UNAUTHENTICATED) in the
    call's own protocol, where a plain 400 would reach a Connect client as INTERNAL."""
    headers = scope.get("headers", ())
    if all(_utf8(value) for _, value in headers):
        return scope
    return {
        **scope,
        "headers": [(key, value if _utf8(value) else value.decode("latin-1").encode()) for key, value in headers],
    }


class HeadTimeoutH11(H11Protocol):
    """uvicorn's h11 connection with a deadline on each request's head: a connection that
    has not sent a whole request head READ_TIMEOUT_SECONDS after it opened (or after its
    previous response) is closed. uvicorn has none: a client sending a header now and then
    held its connection, and a file descriptor, for ever."""

    head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:  # a whole head came
            self._disarm()

    def _arm(self) -> None:
        self._disarm()
        self.head_timer = self.loop.call_later(READ_TIMEOUT_SECONDS, self._head_overdue)

    def _disarm(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_overdue(self) -> None:
        self.head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


class _Stalled(Exception):
    """The client took no bytes of its response for the write timeout."""


@dataclass
class WebApp:
    """The ASGI application of the web port: the origin check, CORS, the RPC routes, and
    the static directory at / when there is one."""

    # Each public service's application, by its path ('/tavola.gateway.v1.GatewayService').
    rpcs: dict[str, Any]
    origins: tuple[str, ...] = ()
    static_dir: Path | None = None
    write_timeout: float = WRITE_TIMEOUT_SECONDS
    _routed: Any = field(init=False, repr=False)
    _static: StaticFiles | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        if self.static_dir is not None:
            self._static = StaticFiles(directory=self.static_dir, html=True)
        self._routed = CORSMiddleware(
            self._route,
            allow_origins=list(self.origins),
            allow_methods=["GET", "POST"],
            allow_headers=ALLOW_HEADERS,
            expose_headers=EXPOSE_HEADERS,
            max_age=3600,
        )

    def allowed(self, origin: str, host: str | None) -> bool:
        """The page's own origin (its host is the request's Host), or a configured one."""
        if "*" in self.origins or origin in self.origins:
            return True
        return host is not None and urlsplit(origin).netloc == host

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":  # no lifespan, no websockets
            return
        origin = _header(scope, b"origin")
        if origin is not None and not self.allowed(origin, _header(scope, b"host")):
            log.info("web_origin_refused", origin=origin[:200], path=scope.get("path", "")[:200])
            await _plain(send, 403, "this origin may not call the gateway (TAVOLA_WEB_ORIGINS)")
            return
        timeout = self.write_timeout
        body_due = asyncio.get_running_loop().time() + READ_TIMEOUT_SECONDS
        body_done = False

        async def timed_receive():
            """The body must have come READ_TIMEOUT_SECONDS after the head; after it, a
            receive waits for the client to leave, as long as the response lasts."""
            nonlocal body_done
            if body_done:
                return await receive()
            try:
                async with asyncio.timeout_at(body_due):
                    message = await receive()
            except TimeoutError:
                raise ConnectError(Code.DEADLINE_EXCEEDED, "the request's body did not arrive in time") from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            return message

        async def timed_send(message) -> None:
            try:
                async with asyncio.timeout(timeout):
                    await send(message)
            except TimeoutError:
                raise _Stalled from None

        try:
            await self._routed(scope, timed_receive, timed_send)
        except _Stalled:
            log.warning("web_client_stalled", path=scope.get("path", "")[:200], timeout=timeout)

    async def _route(self, scope, receive, send) -> None:
        path = scope["path"]
        rpc = self.rpcs.get(path.rpartition("/")[0])
        if rpc is not None:
            if scope["method"] != "POST":  # as over gRPC: no Connect GET
                await _plain(send, 405, "calls are POST requests")
                return
            scope = _utf8_headers(scope)
            content_type = _header(scope, b"content-type") or ""
            if content_type.startswith("application/grpc") and not content_type.startswith("application/grpc-web"):
                # gRPC itself needs HTTP/2 trailers: it has the gateway's gRPC port.
                await _plain(send, 415, "native gRPC is served on the gateway's gRPC port; here Connect or gRPC-Web")
                return
            await rpc(scope, receive, send)
        elif self._static is not None and scope["method"] in ("GET", "HEAD"):
            try:
                await self._static(scope, receive, send)
            except HTTPException as error:  # no such file (StaticFiles answers by raising)
                await _plain(send, error.status_code, error.detail)
        else:
            await _plain(send, 404, "not found")


async def _plain(send, status: int, text: str) -> None:
    body = text.encode() + b"\n"
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_app(
    servicers: Mapping[str, object],
    limits: RequestLimits,
    origins: Iterable[str] = (),
    static_dir: Path | None = None,
    write_timeout: float = WRITE_TIMEOUT_SECONDS,
) -> WebApp:
    """``servicers``: the gRPC server's servicer of each public service, by name."""
    rpcs = {}
    for name, servicer in servicers.items():
        rpc = APPLICATIONS[name](
            # A stream's own stall comes first (at 0.8 of the write timeout), so that it ends
            # with its status (CLIENT_NOT_READING) before the HTTP side's timeout cuts the
            # connection: at the same instant, a loaded host ran the cut first.
            cast(Any, bridged_service(servicer, name, limits, write_timeout * STALL_SHARE)),
            read_max_bytes=BODY_FACTOR * limits.largest(),
            # gzip (and identity), when the client asks: a request's decompressed size is
            # held to read_max_bytes too.
            codecs=cast(Any, [BinaryCodec(), JsonCodec()]),
        )
        rpcs[rpc.path] = rpc
    return WebApp(rpcs, tuple(origins), static_dir, write_timeout)


@dataclass
class WebSettings:
    host: str
    port: int
    port_file: str | None
    origins: tuple[str, ...]
    static_dir: Path | None
    trusted_proxies: str | None
    write_timeout: float

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "WebSettings | None":
        """None when TAVOLA_WEB_PORT is unset or empty: no web port."""
        port = settings.port("TAVOLA_WEB_PORT", env=env)
        if port is None:
            return None
        static = settings.optional_text("TAVOLA_WEB_STATIC", env)
        if static is None:
            static_dir = DEFAULT_STATIC if DEFAULT_STATIC.is_dir() else None
        else:
            static_dir = Path(static) if static.strip() else None
            if static_dir is not None and not static_dir.is_dir():
                raise ValueError(f"TAVOLA_WEB_STATIC: {static!r} is not a directory")
        origins = tuple(o.strip().rstrip("/") for o in settings.text("TAVOLA_WEB_ORIGINS", env).split(",") if o.strip())
        return cls(
            host=settings.text("TAVOLA_WEB_HOST", env) or settings.text("TAVOLA_HOST", env),
            port=port,
            port_file=settings.text("TAVOLA_WEB_PORT_FILE", env) or None,
            origins=origins,
            static_dir=static_dir,
            trusted_proxies=settings.text("TAVOLA_WEB_TRUSTED_PROXIES", env) or None,
            write_timeout=settings.number("TAVOLA_WEB_WRITE_TIMEOUT_SECONDS", env),
        )


class WebServer:
    """uvicorn serving the web application on the gateway's own event loop (its signal
    handling left to the gateway)."""

    def __init__(self, app: WebApp, settings: WebSettings):
        self.settings = settings
        self.config = uvicorn.Config(
            app,
            lifespan="off",
            log_config=None,
            access_log=False,
            server_header=False,
            # h11 bounds a request's head (16 KB), where httptools reads any length.
            http=HeadTimeoutH11,
            ws="none",
            proxy_headers=settings.trusted_proxies is not None,
            forwarded_allow_ips=settings.trusted_proxies or "",
            timeout_graceful_shutdown=2,
        )
        self.server = uvicorn.Server(self.config)
        self.socket: socket.socket | None = None
        self.loop_task: asyncio.Task | None = None

    async def start(self) -> int:
        host, port = self.settings.host, self.settings.port
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.setblocking(False)
        self.socket = sock
        self.config.load()
        self.server.lifespan = self.config.lifespan_class(self.config)
        await self.server.startup(sockets=[sock])
        self.loop_task = asyncio.ensure_future(self.server.main_loop())
        bound = sock.getsockname()[1]
        if self.settings.port_file:
            with open(f"{self.settings.port_file}.tmp", "w") as handle:
                handle.write(str(bound))
            os.replace(f"{self.settings.port_file}.tmp", self.settings.port_file)
        return bound

    async def stop(self) -> None:
        self.server.should_exit = True
        if self.loop_task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.loop_task
        await self.server.shutdown(sockets=[self.socket] if self.socket else None)

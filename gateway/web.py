"""The browser protocol: the public services (GatewayService, PlayerService, SocialService,
TurnService, ChatService, and SessionService's Follow) over the Connect protocol and
gRPC-Web, served by the gateway process itself on a port of its own (TAVOLA_WEB_PORT).

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

This module holds the application (origins, CORS, routes, timeouts), its settings and its
server; the calls' bridge to the handlers is gateway/web_calls.py, the HTTP plumbing (headers,
the request head's deadline, plain answers) gateway/web_http.py.

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
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import structlog
import uvicorn
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.staticfiles import StaticFiles

from common import settings
from gateway.limits import RequestLimits
from gateway.web_calls import (
    STREAM_AHEAD,
    WEB_PROTOCOLS,
    WRITE_TIMEOUT_SECONDS,
    BinaryCodec,
    CallContext,
    JsonCodec,
    Reply,
    bridged_service,
    connect_error,
    protocol_of,
)
from gateway.web_http import READ_TIMEOUT_SECONDS, HeadTimeoutH11, _header, _plain, _Stalled, _utf8_headers
from tavola.gateway.v1.chat_connect import ChatServiceASGIApplication
from tavola.gateway.v1.gateway_connect import GatewayServiceASGIApplication
from tavola.gateway.v1.players_connect import PlayerServiceASGIApplication
from tavola.gateway.v1.sessions_connect import SessionServiceASGIApplication
from tavola.gateway.v1.social_connect import SocialServiceASGIApplication
from tavola.gateway.v1.turns_connect import TurnServiceASGIApplication

log = structlog.get_logger()

# The calls' bridge (web_calls.py) and the HTTP plumbing (web_http.py) are read from here too.
__all__ = [
    "ALLOW_HEADERS",
    "APPLICATIONS",
    "BODY_FACTOR",
    "DEFAULT_STATIC",
    "EXPOSE_HEADERS",
    "READ_TIMEOUT_SECONDS",
    "ROOT",
    "STALL_SHARE",
    "STREAM_AHEAD",
    "WEB_PROTOCOLS",
    "WRITE_TIMEOUT_SECONDS",
    "BinaryCodec",
    "CallContext",
    "HeadTimeoutH11",
    "JsonCodec",
    "Reply",
    "WebApp",
    "WebServer",
    "WebSettings",
    "bridged_service",
    "build_app",
    "connect_error",
    "protocol_of",
]

# The public services, by name: their generated Connect applications (the routes).
APPLICATIONS: dict[str, Any] = {
    "GatewayService": GatewayServiceASGIApplication,
    "PlayerService": PlayerServiceASGIApplication,
    "SocialService": SocialServiceASGIApplication,
    "TurnService": TurnServiceASGIApplication,
    "ChatService": ChatServiceASGIApplication,
    "SessionService": SessionServiceASGIApplication,  # Follow; Play streams both ways (gRPC port)
}

ROOT = Path(__file__).resolve().parent.parent
# The built web client (clients/web), served at / when present.
DEFAULT_STATIC = ROOT / "clients" / "web" / "dist"
# The HTTP body of a request may be this many times the largest request limit.
BODY_FACTOR = 2
STALL_SHARE = 0.8  # of the write timeout: when a stream whose client reads nothing ends

# Request headers a page may send, and response headers it may read, across origins: the
# Connect and gRPC-Web protocols' own, the seat token's and the reader's language's.
ALLOW_HEADERS = ["authorization", "tavola-locale", "content-type", "grpc-timeout", "x-grpc-web", "x-user-agent"]
ALLOW_HEADERS += ["connect-protocol-version", "connect-timeout-ms"]
ALLOW_HEADERS += ["connect-content-encoding", "connect-accept-encoding"]
EXPOSE_HEADERS = ["grpc-status", "grpc-message", "grpc-status-details-bin", "content-encoding"]


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

"""The web port's HTTP plumbing (gateway/web.py): reading a request's headers from the ASGI
scope (every value made UTF-8 for the protocol library), uvicorn's h11 connection with a
deadline on each request's head, and the plain-text answers of refused requests.
"""

import asyncio
from collections.abc import Mapping
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

# How long a request's head, and then its body, may take to arrive.
READ_TIMEOUT_SECONDS = 10.0


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


async def _plain(send, status: int, text: str) -> None:
    body = text.encode() + b"\n"
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

"""One long-lived gRPC stream whose requests are answered by id: the client side of the
gateway's ApplyActions streams to the rules services and of the bot workers' SubmitActions
stream to the gateway. A message on an open stream costs both ends a fraction of a unary
call's CPU.

Each request is written in turn (one write at a time on a call) under an id of the
stream's, and its answer is the reply of that id: its ``response``, or its ``error`` (a
google.rpc.Status, raised as the ApiError the unary call would have raised). A stream that
fails fails the requests it holds as UNAVAILABLE (as a failed call) and stays failed: its
owner opens another for the next request. One whose service does not implement it
(UNIMPLEMENTED) raises ``Unimplemented``: its owner then asks call by call.
"""

import asyncio
import contextvars
import itertools
from collections.abc import Callable
from typing import Any

import grpc
import structlog
from google.protobuf.message import Message
from google.rpc import status_pb2

from common.errors import RETRY_UNAVAILABLE_SECONDS, ApiError, from_rpc_error, from_rpc_status

log = structlog.get_logger()


class Unimplemented(Exception):
    """The service has no such stream."""


# How a stream's break shows (the service's answers to its requests come in its messages).
BROKEN = frozenset(
    (
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    )
)


def unavailable(message: str) -> ApiError:
    return ApiError(
        grpc.StatusCode.UNAVAILABLE, "DEPENDENCY_UNAVAILABLE", message, retry_after=RETRY_UNAVAILABLE_SECONDS
    )


def _fresh(failure: ApiError | Unimplemented) -> ApiError | Unimplemented:
    """A copy of a stream's failure for one request: a caller adds its own metadata."""
    if isinstance(failure, Unimplemented):
        return Unimplemented()
    return ApiError(failure.code, failure.reason, failure.message, failure.retry_after, **failure.metadata)


class AnsweredStream:
    """One stream: ``call`` (a grpc.aio stream-stream call just opened), ``wrap`` making a
    stream message of an id and a request, ``name`` for the log lines (``<name>_stream_*``)
    and the failures' text (``peer``: "a rules service", "the gateway")."""

    def __init__(
        self,
        call: grpc.aio.StreamStreamCall,
        wrap: Callable[[int, Any], Message],
        name: str,
        peer: str,
        context: contextvars.Context | None = None,
        **log_fields: object,
    ):
        self.call = call
        self.wrap = wrap
        self.name = name
        self.peer = peer
        self.log_fields = log_fields
        self.pending: dict[int, asyncio.Future] = {}
        self.ids = itertools.count(1)
        self.writing = asyncio.Lock()  # one write at a time on a call
        self.failed: ApiError | Unimplemented | None = None
        self.answered = False
        # The first request goes alone, the others wait for its answer: a write racing the
        # service's refusal of the stream (UNIMPLEMENTED) turns it into gRPC's INTERNAL.
        self.opened = asyncio.Event()  # set once the stream answered or failed
        self.probing = False
        # In the owner's own context, not that of the request that opens the stream (a
        # table id bound to that request's log lines is not the stream's).
        self.log_context = context.copy() if context is not None else contextvars.copy_context()
        self.reader = asyncio.get_running_loop().create_task(self._read(), context=self.log_context)

    def _unavailable(self, what: str = "is unavailable") -> ApiError:
        return unavailable(f"{self.peer} {what}")

    async def ask(self, request: Any, timeout: float) -> Any:
        """The answer to ``request`` (what ``wrap`` takes; the reply's ``response``); raises the ApiError its
        ``error`` holds, UNAVAILABLE when the stream fails or ``timeout`` passes first, or
        Unimplemented."""
        if not self.opened.is_set():
            if self.probing:
                try:
                    await asyncio.wait_for(self.opened.wait(), timeout)
                except TimeoutError:
                    raise self._unavailable() from None
            else:
                self.probing = True
        if self.failed is not None:
            raise _fresh(self.failed)
        loop = asyncio.get_running_loop()
        number = next(self.ids)
        answer = self.pending[number] = loop.create_future()
        expiry = loop.call_later(timeout, self._expire, number)
        try:
            async with self.writing:
                await self.call.write(self.wrap(number, request))
            reply = await answer
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError, grpc.aio.UsageError):
            # The write found the stream failed or closed: its status is the reader's to
            # tell (a write may only see gRPC's "Internal error from Core").
            await asyncio.wait((self.reader,), timeout=timeout)
            raise _fresh(self.failed or unavailable(f"a {self.name} stream failed")) from None
        finally:
            expiry.cancel()
            self.pending.pop(number, None)
            if answer.done() and not answer.cancelled():
                answer.exception()  # retrieved: a failure the write raised first
        if reply.WhichOneof("result") == "error":
            raise from_rpc_status(status_pb2.Status.FromString(reply.error))
        return reply.response

    def _expire(self, number: int) -> None:
        if not self.answered:
            # A stream that never answered is not known to work: it fails whole (its queued
            # requests too), and the next request opens another.
            self._fail(self._unavailable())
            return
        answer = self.pending.pop(number, None)
        if answer is not None and not answer.done():
            answer.set_exception(self._unavailable())

    async def _read(self) -> None:
        try:
            while True:
                reply: Any = await self.call.read()
                if reply is grpc.aio.EOF:  # the service stops: the next request opens a stream anew
                    log.info(f"{self.name}_stream_ended", **self.log_fields)
                    self._fail(unavailable(f"a {self.name} stream ended"), quiet=True)
                    return
                if not self.answered:
                    self.answered = True
                    self.opened.set()
                answer = self.pending.pop(reply.id, None)
                if answer is not None and not answer.done():  # else: it expired meanwhile
                    answer.set_result(reply)
        except grpc.aio.AioRpcError as error:
            # The call's own status: a read racing a write may see only gRPC's "Internal
            # error from Core" where the service answered UNIMPLEMENTED.
            # A broken stream (the service stopped, the connection dropped) fails the
            # requests it holds as UNAVAILABLE, whatever gRPC says of the break.
            code = await self.call.code()
            if code == grpc.StatusCode.UNIMPLEMENTED and not self.answered:
                self._fail(Unimplemented())
            elif code in BROKEN or error.code() in BROKEN:
                self._fail(self._unavailable())
            else:
                self._fail(from_rpc_error(error))
        except ApiError as error:
            self._fail(error)
        except asyncio.CancelledError:
            self._fail(unavailable(f"a {self.name} stream was closed"))
            raise

    def _fail(self, failure: ApiError | Unimplemented, quiet: bool = False) -> None:
        self.opened.set()
        if self.failed is None:
            self.failed = failure
            if isinstance(failure, ApiError) and not quiet:
                log.warning(f"{self.name}_stream_failed", reason=failure.reason, **self.log_fields)
        for answer in self.pending.values():
            if not answer.done():
                answer.set_exception(_fresh(failure))
        self.pending.clear()

    def close(self) -> None:
        # Closed by its owner (replaced on schedule, or the owner stops): no failure to warn
        # of, and a request that still waits fails as on a broken stream.
        self._fail(unavailable(f"a {self.name} stream was closed"), quiet=True)
        self.call.cancel()
        self.reader.cancel()

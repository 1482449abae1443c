"""A worker process's submits to the gateway as messages on one long-lived stream
(tavola.gateway.v1.ActionService.SubmitActions) instead of a unary call each: a message on
an open stream costs the worker and the gateway a fraction of a call's CPU.

One ``GatewayActions`` per worker process and gateway address, made on first use (so
after a prefork pool's fork): an event loop of its own, in a thread, holds a grpc.aio
channel and the stream (common/answered_stream.py); the pool's threads hand it their
submits and wait for the answers, each with its seat token in the message. A stream that
fails is opened again for the next submit. A request whose stream fails before it ever
answered goes by a unary call (``submit`` answers None); when the gateway has no such
stream (UNIMPLEMENTED) or refuses another (its client's open streams used up:
RESOURCE_EXHAUSTED), the worker's submits go by unary calls for a while.

Off with ``TAVOLA_BOT_STREAM=false``, and while traces are on (common/tracing.py): a unary
call carries its action's trace to the gateway, a stream's message does not.
"""

import asyncio
import os
import threading
import time

import grpc
import structlog

from common import tracing
from common.answered_stream import AnsweredStream, Unimplemented
from common.channels import balanced_aio_channel
from common.errors import ApiError
from tavola.gateway.v1 import actions_pb2, actions_pb2_grpc
from tavola.gateway.v1 import gateway_pb2 as gw

log = structlog.get_logger()

# How long the worker makes unary calls after the gateway had no stream to give.
UNARY_SECONDS = 60.0


def wanted() -> bool:
    setting = os.environ.get("TAVOLA_BOT_STREAM", "true").lower() not in ("0", "false", "no", "off")
    return setting and not tracing.enabled()


class GatewayActions:
    def __init__(self, address: str):
        self.address = address
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="gateway-actions", daemon=True)
        self.thread.start()
        self.stub: actions_pb2_grpc.ActionServiceStub | None = None
        self.stream: AnsweredStream | None = None
        self.unary_until = 0.0

    def submit(self, token: str, request: gw.SubmitActionRequest, timeout: float) -> gw.SubmitActionResponse | None:
        """The gateway's answer to ``request`` with ``token``; raises the ApiError a call would
        fail with (UNAVAILABLE when the stream breaks or ``timeout`` passes). None: no stream
        now, make the unary call."""
        if time.monotonic() < self.unary_until:
            return None
        return asyncio.run_coroutine_threadsafe(self._submit(token, request, timeout), self.loop).result()

    async def _submit(
        self, token: str, request: gw.SubmitActionRequest, timeout: float
    ) -> gw.SubmitActionResponse | None:
        stream = self.stream
        if stream is None or stream.failed is not None:
            if stream is not None:
                stream.close()
            if self.stub is None:
                self.stub = actions_pb2_grpc.ActionServiceStub(balanced_aio_channel(self.address))
            stream = self.stream = AnsweredStream(self.stub.SubmitActions(), _message, "gateway_actions", "the gateway")
        try:
            return await stream.ask((token, request), timeout)
        except Unimplemented:
            self._unary("unimplemented")
            return None
        except ApiError as error:
            if stream.answered:
                raise  # the gateway's answer to this request, or a stream that worked broke
            # A stream not known to work: this request goes by a unary call (a copy that
            # reached the gateway is answered from its request id). One refused whole, its
            # client's streams used up, sends the next ones so too for a while.
            if error.code == grpc.StatusCode.RESOURCE_EXHAUSTED:
                self._unary(error.reason)
            return None

    def _unary(self, why: str) -> None:
        self.unary_until = time.monotonic() + UNARY_SECONDS
        log.info("gateway_stream_refused", reason=why, unary_seconds=UNARY_SECONDS)


def _message(number: int, submit: tuple[str, gw.SubmitActionRequest]) -> actions_pb2.SubmitActionsRequest:
    token, request = submit
    return actions_pb2.SubmitActionsRequest(id=number, seat_token=token, request=request)


_streams: dict[str, GatewayActions] = {}
_made = threading.Lock()


def gateway_actions(address: str) -> GatewayActions | None:
    """This process's stream holder for ``address``; None when streams are off."""
    if not wanted():
        return None
    holder = _streams.get(address)
    if holder is None:
        with _made:
            holder = _streams.get(address)
            if holder is None:
                holder = _streams[address] = GatewayActions(address)
    return holder

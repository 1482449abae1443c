"""A worker process's submits to the gateway as messages on a few long-lived streams
(tavola.gateway.v1.ActionService.SubmitActions) instead of a unary call each: a message on
an open stream costs the worker and the gateway a fraction of a call's CPU.

One ``GatewayActions`` per worker process and gateway address, made on first use (so
after a prefork pool's fork): an event loop of its own, in a thread, holds a grpc.aio
channel and its streams (common/answered_stream.py); the pool's threads hand it their
submits and wait for the answers, each with its seat token in the message. The submits go
over ``TAVOLA_BOT_STREAMS`` streams (4) in turn: each new stream goes to the next of the
gateways the address resolves to (round_robin), so a process's submits are spread over
several gateways as its calls were. The first streams are opened once the channel has had
a moment to connect to every gateway (those picked before would all go to the first), and
each is replaced after a minute, so that the streams follow the gateways as they come and
go. A stream that fails is opened again for the next submit. A request whose stream fails
before it ever answered goes by a unary call (``submit`` answers None); when the gateway
has no such stream (UNIMPLEMENTED) or refuses another (its client's open streams used up:
RESOURCE_EXHAUSTED), the worker's submits go by unary calls for a while.

Off with ``TAVOLA_BOT_STREAM=false``, and while traces are on (common/tracing.py): a unary
call carries its action's trace to the gateway, a stream's message does not.
"""

import asyncio
import itertools
import threading
import time

import grpc
import structlog

from common import settings, tracing
from common.answered_stream import AnsweredStream, Unimplemented
from common.channels import balanced_aio_channel
from common.errors import ApiError
from tavola.gateway.v1 import actions_pb2, actions_pb2_grpc
from tavola.gateway.v1 import gateway_pb2 as gw

log = structlog.get_logger()

# How long the worker makes unary calls after the gateway had no stream to give.
UNARY_SECONDS = 60.0
# After the channel is first ready, for its connections to the other gateways.
SETTLE_SECONDS = 0.1
# A stream's life: its replacement is picked a gateway afresh.
STREAM_SECONDS = 60.0


def wanted() -> bool:
    return settings.flag("TAVOLA_BOT_STREAM") and not tracing.enabled()


class GatewayActions:
    def __init__(self, address: str):
        self.address = address
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="gateway-actions", daemon=True)
        self.thread.start()
        self.stub: actions_pb2_grpc.ActionServiceStub | None = None
        count = max(1, settings.integer("TAVOLA_BOT_STREAMS"))
        self.streams: list[AnsweredStream | None] = [None] * count
        self.opened = [0.0] * count
        self.turn = itertools.count()
        self.unary_until = 0.0
        self.settled: asyncio.Task | None = None
        self.retiring: set[asyncio.Task] = set()

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
        stream = await self._stream(next(self.turn) % len(self.streams))
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

    async def _stream(self, index: int) -> AnsweredStream:
        """The stream in turn: opened, or opened again when it failed or has had its life."""
        if self.settled is None:
            channel = balanced_aio_channel(self.address)
            self.stub = actions_pb2_grpc.ActionServiceStub(channel)
            self.settled = asyncio.get_running_loop().create_task(_settle(channel))
        await self.settled
        assert self.stub is not None
        stream, now = self.streams[index], time.monotonic()
        if stream is not None and stream.failed is None and now - self.opened[index] < STREAM_SECONDS:
            return stream
        if stream is not None:
            retired = asyncio.get_running_loop().create_task(_retire(stream))
            self.retiring.add(retired)
            retired.add_done_callback(self.retiring.discard)
        self.opened[index] = now
        stream = self.streams[index] = AnsweredStream(
            self.stub.SubmitActions(), _message, "gateway_actions", "the gateway"
        )
        return stream

    def _unary(self, why: str) -> None:
        self.unary_until = time.monotonic() + UNARY_SECONDS
        log.info("gateway_stream_refused", reason=why, unary_seconds=UNARY_SECONDS)


async def _settle(channel: grpc.aio.Channel) -> None:
    """Once the channel is ready, a moment for it to connect to the other gateways."""
    try:
        await asyncio.wait_for(channel.channel_ready(), 10)
    except TimeoutError:
        return  # the streams' own failures tell
    await asyncio.sleep(SETTLE_SECONDS)


async def _retire(stream: AnsweredStream) -> None:
    """Closes a replaced stream once it has answered what it holds (at most 30 s)."""
    deadline = time.monotonic() + 30
    while stream.pending and stream.failed is None and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    stream.close()


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

"""The gateway's view of the rules services: one channel per game, descriptions cached.

ApplyAction, a command's rules call, goes over a few long-lived ApplyActions streams to
each game's service (``streams`` a game, TAVOLA_RULES_STREAMS): a message on an open stream
costs the gateway and the rules service a fraction of a unary call's CPU. Each stream
answers its requests in order, each by its id; a stream that fails fails the requests it
holds (UNAVAILABLE, as a failed call) and is opened again for the next one. A rules service
that does not implement the stream (UNIMPLEMENTED) is asked with unary calls from then on.
"""

import asyncio
import contextvars
import itertools

import grpc
import structlog
from google.rpc import status_pb2

from common import tracing
from common.errors import RETRY_UNAVAILABLE_SECONDS, ApiError, from_rpc_error, from_rpc_status
from tavola.rules.v1 import rules_pb2, rules_pb2_grpc

log = structlog.get_logger()

DEFAULT_STREAMS = 2


class _Unimplemented(Exception):
    """The rules service has no ApplyActions stream."""


# How a stream's break shows (the service's answers to its requests come in its messages).
_BROKEN = frozenset(
    (
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    )
)


def _unavailable(message: str) -> ApiError:
    return ApiError(
        grpc.StatusCode.UNAVAILABLE, "DEPENDENCY_UNAVAILABLE", message, retry_after=RETRY_UNAVAILABLE_SECONDS
    )


def _fresh(failure: ApiError | _Unimplemented) -> ApiError | _Unimplemented:
    """A copy of a stream's failure for one request: a caller adds its own metadata."""
    if isinstance(failure, _Unimplemented):
        return _Unimplemented()
    return ApiError(failure.code, failure.reason, failure.message, failure.retry_after, **failure.metadata)


class ActionStream:
    """One ApplyActions stream: requests written in turn, each answered by its id."""

    def __init__(self, stub: rules_pb2_grpc.RulesServiceStub, game_id: str, context: contextvars.Context | None = None):
        self.game_id = game_id
        self.call = stub.ApplyActions()
        self.pending: dict[int, asyncio.Future] = {}
        self.ids = itertools.count(1)
        self.writing = asyncio.Lock()  # one write at a time on a call
        self.failed: ApiError | _Unimplemented | None = None
        self.answered = False
        # The first request goes alone, the others wait for its answer: a write racing the
        # service's refusal of the stream (UNIMPLEMENTED) turns it into gRPC's INTERNAL.
        self.opened = asyncio.Event()  # set once the stream answered or failed
        self.probing = False
        # In the gateway's own context, not that of the request that opens the stream (its
        # table id bound to the log lines is not the stream's).
        self.log_context = context.copy() if context is not None else contextvars.copy_context()
        self.reader = asyncio.get_running_loop().create_task(self._read(), context=self.log_context)

    async def apply(self, request: rules_pb2.ApplyActionRequest, timeout: float) -> rules_pb2.ApplyActionResponse:
        if not self.opened.is_set():
            if self.probing:
                try:
                    await asyncio.wait_for(self.opened.wait(), timeout)
                except TimeoutError:
                    raise _unavailable("a rules service is unavailable") from None
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
                await self.call.write(rules_pb2.ApplyActionsRequest(id=number, request=request))
            reply: rules_pb2.ApplyActionsResponse = await answer
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError, grpc.aio.UsageError):
            # The write found the stream failed or closed: its status is the reader's to
            # tell (a write may only see gRPC's "Internal error from Core").
            await asyncio.wait((self.reader,), timeout=timeout)
            raise _fresh(self.failed or _unavailable("a rules stream failed")) from None
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
            self._fail(_unavailable("a rules service is unavailable"))
            return
        answer = self.pending.pop(number, None)
        if answer is not None and not answer.done():
            answer.set_exception(_unavailable("a rules service is unavailable"))

    async def _read(self) -> None:
        try:
            while True:
                reply = await self.call.read()
                if reply is grpc.aio.EOF:  # the service stops: the next request opens a stream anew
                    log.info("rules_stream_ended", game=self.game_id)
                    self._fail(_unavailable("a rules stream ended"), quiet=True)
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
                self._fail(_Unimplemented())
            elif code in _BROKEN or error.code() in _BROKEN:
                self._fail(_unavailable("a rules service is unavailable"))
            else:
                self._fail(from_rpc_error(error))
        except ApiError as error:
            self._fail(error)
        except asyncio.CancelledError:
            self._fail(_unavailable("a rules stream was closed"))
            raise

    def _fail(self, failure: ApiError | _Unimplemented, quiet: bool = False) -> None:
        self.opened.set()
        if self.failed is None:
            self.failed = failure
            if isinstance(failure, ApiError) and not quiet:
                log.warning("rules_stream_failed", game=self.game_id, reason=failure.reason)
        for answer in self.pending.values():
            if not answer.done():
                answer.set_exception(_fresh(failure))
        self.pending.clear()

    def close(self) -> None:
        self.call.cancel()
        self.reader.cancel()


class RulesDirectory:
    def __init__(self, addresses: dict[str, str], timeout: float, streams: int = DEFAULT_STREAMS):
        self.timeout = timeout
        # round_robin spreads calls over every address a name resolves to (e.g. dns:/// of a
        # headless service), since rules services are stateless; each stream stays on the
        # address it opened on.
        options = [("grpc.lb_policy_name", "round_robin")]
        self.channels = {
            game: grpc.aio.insecure_channel(address, options=options, interceptors=tracing.aio_client_interceptors())
            for game, address in addresses.items()
        }
        self.stubs = {game: rules_pb2_grpc.RulesServiceStub(channel) for game, channel in self.channels.items()}
        self.descriptions: dict[str, rules_pb2.GameDescription] = {}
        # ApplyActions streams by game, opened on first use; a game whose service has
        # none is left out of ``streaming`` (unary calls).
        self.streams_per_game = max(0, streams)
        self.streaming = set(self.stubs) if self.streams_per_game else set()
        self.streams: dict[str, list[ActionStream | None]] = {
            game: [None] * self.streams_per_game for game in self.streaming
        }
        self.turn = itertools.count()
        # The context the directory was made in (the service's, no request's): the streams'.
        self.context = contextvars.copy_context()

    async def close(self) -> None:
        for streams in self.streams.values():
            for stream in streams:
                if stream is not None:
                    stream.close()
        for channel in self.channels.values():
            await channel.close()

    def stub(self, game_id: str) -> rules_pb2_grpc.RulesServiceStub:
        stub = self.stubs.get(game_id)
        if stub is None:
            raise ApiError(grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME", f"no game {game_id!r} is hosted here")
        return stub

    async def call(self, game_id: str, method: str, request):
        if method == "ApplyAction" and game_id in self.streaming:
            return await self.apply(game_id, request)
        try:
            return await getattr(self.stub(game_id), method)(request, timeout=self.timeout)
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from None

    async def apply(self, game_id: str, request: rules_pb2.ApplyActionRequest) -> rules_pb2.ApplyActionResponse:
        """ApplyAction over one of the game's streams, in turn (opened, or opened again
        after a failure, here)."""
        streams = self.streams[game_id]
        index = next(self.turn) % len(streams)
        stream = streams[index]
        if stream is None or stream.failed is not None:
            if stream is not None:
                stream.close()
            stream = streams[index] = ActionStream(self.stub(game_id), game_id, self.context)
        try:
            return await stream.apply(request, self.timeout)
        except _Unimplemented:
            # The game's other streams fail alike, each request then asked call by call.
            if game_id in self.streaming:
                self.streaming.discard(game_id)
                log.info("rules_stream_unimplemented", game=game_id)
            return await self.call(game_id, "ApplyAction", request)

    async def view_if_up(self, game_id: str, request: rules_pb2.GetViewRequest) -> rules_pb2.GetViewResponse | None:
        """A view for a read that can answer without it (GetTable, GetReplay): None, logged,
        when the game's rules service is unavailable, so the store's part still answers."""
        try:
            return await self.call(game_id, "GetView", request)
        except ApiError as error:
            if error.code != grpc.StatusCode.UNAVAILABLE:
                raise
            log.warning("view_left_out", game=game_id, reason=error.reason)
            return None

    async def describe(self, game_id: str) -> rules_pb2.GameDescription:
        if game_id not in self.descriptions:
            response = await self.call(game_id, "DescribeGame", rules_pb2.DescribeGameRequest())
            self.descriptions[game_id] = response.game
        return self.descriptions[game_id]

    async def describe_all(self) -> list[rules_pb2.GameDescription]:
        """Every game whose rules service answers; one that is down is left out and logged."""
        games = []
        for game_id in sorted(self.stubs):
            try:
                games.append(await self.describe(game_id))
            except ApiError as error:
                log.warning("rules_service_unavailable", game=game_id, reason=error.reason)
        return games

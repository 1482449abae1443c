"""The gateway's view of the rules services: one channel per game, descriptions cached.

ApplyAction, a command's rules call, goes over a few long-lived ApplyActions streams to
each game's service (``streams`` a game, TAVOLA_RULES_STREAMS): a message on an open stream
costs the gateway and the rules service a fraction of a unary call's CPU. Each stream
answers its requests in order, each by its id; a stream that fails fails the requests it
holds (UNAVAILABLE, as a failed call) and is opened again for the next one. A rules service
that does not implement the stream (UNIMPLEMENTED) is asked with unary calls from then on,
and so is every service while traces are on (common/tracing.py).
"""

import asyncio
import contextlib
import contextvars
import itertools
from collections.abc import Awaitable, Callable

import grpc
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc

from common import tracing
from common.answered_stream import AnsweredStream, Unimplemented
from common.errors import ApiError, from_rpc_error
from gateway import metrics, text
from tavola.rules.v1 import rules_pb2, rules_pb2_grpc

log = structlog.get_logger()

DEFAULT_STREAMS = 2
# The gateway's health entry for each game ("rules/borgia"): SERVING while that game's rules
# service answers its health check, NOT_SERVING while no replica does.
HEALTH_PREFIX = "rules/"


def _action_stream(stub: rules_pb2_grpc.RulesServiceStub, game_id: str, context: contextvars.Context) -> AnsweredStream:
    """One ApplyActions stream to the game's service."""
    return AnsweredStream(
        stub.ApplyActions(),
        lambda number, request: rules_pb2.ApplyActionsRequest(id=number, request=request),
        "rules",
        "a rules service",
        context,
        game=game_id,
    )


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
        # While traces are on, unary calls: a call carries its command's trace to the rules
        # service (its ApplyAction span), a stream's message does not.
        self.streams_per_game = 0 if tracing.enabled() else max(0, streams)
        self.streaming = set(self.stubs) if self.streams_per_game else set()
        self.streams: dict[str, list[AnsweredStream | None]] = {
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
        if method in ("NewGame", "ApplyAction") and game_id not in self.descriptions and game_id in self.stubs:
            await self.describe(game_id)  # its catalogs, to tell the events this call makes
        if method == "ApplyAction" and game_id in self.streaming:
            return await self.apply(game_id, request)
        try:
            return await getattr(self.stub(game_id), method)(request, timeout=self.timeout)
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from None

    async def apply(self, game_id: str, request: rules_pb2.ApplyActionRequest) -> rules_pb2.ApplyActionResponse:
        """ApplyAction over one of the game's streams, in turn (opened, or opened again
        after a failure, here)."""
        if game_id not in self.descriptions and game_id in self.stubs:
            await self.describe(game_id)  # its catalogs, to tell the events this call makes
        streams = self.streams[game_id]
        index = next(self.turn) % len(streams)
        stream = streams[index]
        if stream is None or stream.failed is not None:
            if stream is not None:
                stream.close()
            stream = streams[index] = _action_stream(self.stub(game_id), game_id, self.context)
        try:
            return await stream.ask(request, self.timeout)
        except Unimplemented:
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

    async def answers(self, game_id: str, timeout: float = 1.0) -> bool:
        """Whether the game's rules service answers its health check SERVING now."""
        try:
            stub = health_pb2_grpc.HealthStub(self.channels[game_id])
            # The stubs declare HealthStub's methods nowhere; __init__ sets them at run time.
            reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=timeout)  # type: ignore[attr-defined]
        except grpc.aio.AioRpcError:
            return False
        return reply.status == health_pb2.HealthCheckResponse.SERVING

    async def watch_health(self, report: Callable[[str, bool], Awaitable[None]], interval: float) -> None:
        """Checks every game's rules service each ``interval`` seconds, for ever: ``report``
        hears each game's state at first and at every change, and each change is logged
        (a game whose every replica is dead: its commands fail UNAVAILABLE meanwhile)."""
        known: dict[str, bool] = {}
        while True:
            states = await asyncio.gather(*(self.answers(game) for game in self.channels))
            for game, up in zip(self.channels, states, strict=True):
                metrics.RULES_UP.labels(game).set(int(up))
                if up and game not in self.descriptions:  # its catalogs, to tell its events
                    with contextlib.suppress(ApiError):
                        await self.describe(game)
                if known.get(game) == up:
                    continue
                if not up:
                    log.warning("rules_service_down", game=game)
                elif game in known:
                    log.info("rules_service_up", game=game)
                known[game] = up
                await report(game, up)
            await asyncio.sleep(interval)

    async def describe(self, game_id: str) -> rules_pb2.GameDescription:
        if game_id not in self.descriptions:
            response = await self.call(game_id, "DescribeGame", rules_pb2.DescribeGameRequest())
            text.learn(response.game, response.catalogs)  # the game's words, as data
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

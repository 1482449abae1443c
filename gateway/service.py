"""The gRPC servicers: they translate requests and errors, and leave every decision to
the table core (``gateway/commands.py``) and its reads, streams and replays.

Every method is registered by ``add_to_server``, which hands the handler the request's raw
bytes: a request that does not decode is INVALID_ARGUMENT (MALFORMED_REQUEST) with one
JSON log line, instead of gRPC's UNKNOWN with Python's exception text. Then every id of
the request and the call's token are checked by their shapes (common/shapes.py) before the
method builds any key of them. Whatever a handler raises becomes a status with a reason;
an unexpected exception is logged (one JSON line with its traceback) and answered INTERNAL
with a generic message.
"""

import asyncio
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
from gateway.commands import TableCore
from gateway.leaving import AccountDeletion
from gateway.limits import RequestLimits
from gateway.locale import reading_in
from gateway.matchmaking import Matchmaker
from gateway.players import Players, is_player_token
from gateway.quotas import ACTION_STREAMS, client_of
from gateway.ratings import Ratings
from gateway.replay import replay
from tavola.gateway.v1 import actions_pb2
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl

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


def bidi_rpc(method, request_class, limit: int, protocol: str = "grpc"):
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
        metrics.ACTION_STREAMS.inc()
        api_error = None
        try:
            async for answer in method(decoded(raw_requests), context):
                yield answer
        except Exception as error:
            api_error = _failure(error, name, None)
        finally:
            metrics.ACTION_STREAMS.dec()
            metrics.REQUESTS.labels(name, api_error.code.name if api_error else "OK", protocol).inc()
        if api_error is not None:
            _log_refusal(name, api_error)
            await abort(context, api_error)

    return handler


def _serialized(response) -> bytes:
    """A unary response's bytes: a handler may answer with them already (GetView's view)."""
    return response if isinstance(response, bytes) else response.SerializeToString()


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
                bidi_rpc(implementation, request_class, limits.of(method.name)), response_serializer=None
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


class GatewayServicer:
    """The public API (tavola.gateway.v1.GatewayService)."""

    def __init__(self, core: TableCore, players: Players | None = None, ratings: Ratings | None = None):
        self.core = core
        self.players = players
        self.ratings = ratings

    async def ListGames(self, request, context):
        return gw.ListGamesResponse(games=await self.core.rules.describe_all())

    async def ListBots(self, request: gw.ListBotsRequest, context) -> gw.ListBotsResponse:
        bots = self.core.bots.describe(request.game_id)
        if request.game_id and self.ratings is not None:
            rated = await self.ratings.bot_ratings(request.game_id[:64])
            for bot in bots:
                bot.ratings.extend(rated.get(bot.name, ()))
        return gw.ListBotsResponse(bots=bots)

    async def CreateTable(self, request: gw.CreateTableRequest, context) -> gw.CreateTableResponse:
        record, host_token = await self.core.create_table(request, client_of(context))
        return gw.CreateTableResponse(table=record.table, host_token=host_token)

    async def GetTable(self, request, context):
        return await self.core.reads.table(request.table_id)

    async def ListTables(self, request: gw.ListTablesRequest, context) -> gw.ListTablesResponse:
        return await self.core.reads.list_tables(request.status, request.game_id, request.page_size, request.page_token)

    async def TakeSeat(self, request, context):
        wanted = request.seat if request.HasField("seat") else None
        caller = auth.token_from(context)
        name, player_id = request.display_name, ""
        if self.players is not None and is_player_token(caller):
            assert caller is not None
            player_id = await self.players.store.authenticate(caller)
            name = name or (await self.players.store.get(player_id)).display_name
        seat, token, record = await self.core.take_seat(request.table_id, wanted, name, client_of(context), player_id)
        if player_id:
            assert self.players is not None and caller is not None
            await self.players.store.note_table(player_id, request.table_id)
            await self.players.confirm_seat(caller, player_id, request.table_id)
        return gw.TakeSeatResponse(seat=seat, seat_token=token, table=record.table)

    async def StartTable(self, request, context):
        record, kept = await self.core.start_table(request.table_id, require_token(context), request.continue_as_bot)
        response = gw.StartTableResponse(table=record.table)
        if kept is not None:
            response.next_decision.MergeFromString(kept)
        return response

    async def GetView(self, request, context):
        return await self.core.reads.seat_view(request.table_id, require_token(context))

    async def SubmitAction(self, request: gw.SubmitActionRequest, context) -> gw.SubmitActionResponse:
        with reading_in(context):
            return await self.submit(request, require_token(context))

    async def submit(self, request: gw.SubmitActionRequest, token: str) -> gw.SubmitActionResponse:
        """A SubmitAction with the seat's token, whether it came as a call or on a stream."""
        expected = request.expected_version if request.HasField("expected_version") else None
        with bound(request_id=request.request_id[:128] or None):
            return await self.core.submit(
                request.table_id, token, request.action, expected, request.request_id, request.continue_as_bot
            )

    # The streams write WatchTableResponses and SpectateTableResponses, serialized (see
    # TableStreams.stream), straight to the call.

    async def WatchTable(self, request, context) -> None:
        token = require_token(context)
        await self.core.streams.stream(
            request.table_id, request.after_seq, token, context.write, client_of(context), request.batched
        )

    async def SpectateTable(self, request, context) -> None:
        await self.core.streams.stream(
            request.table_id, request.after_seq, None, context.write, client_of(context), request.batched
        )

    async def GetReplay(self, request: gw.GetReplayRequest, context) -> gw.GetReplayResponse:
        seat = request.seat if request.HasField("seat") else None
        with reading_in(context):
            return await replay(
                self.core.reads,
                self.core.quotas,
                request.table_id,
                seat,
                auth.token_from(context),
                request.with_views,
                client_of(context),
            )


class ActionServicer:
    """SubmitAction on a long-lived stream (tavola.gateway.v1.ActionService), for clients
    that act often at many tables: each message is one SubmitAction with its seat token."""

    # A stream's messages worked on or answered at once: the next is read when an answer
    # has been sent, so a client that writes faster than its commands are done, or that
    # reads no answers, waits (gRPC's flow control) instead of filling the gateway's memory.
    in_flight = 64

    def __init__(self, gateway: GatewayServicer):
        self.gateway = gateway
        # The commands under way, held here: one whose client left is done all the same.
        self.under_way: set[asyncio.Task] = set()
        # Each open stream's reader; set as the server stops (begin_stopping).
        self.readers: set[asyncio.Task] = set()
        self.stopping = False
        # The metrics' children, looked up once (a labels() call takes a lock each time).
        self.latency = metrics.LATENCY.labels("SubmitAction", "stream")
        self.answered: dict[str, Any] = {}

    async def SubmitActions(self, requests: AsyncIterator[actions_pb2.SubmitActionsRequest], context):
        answers: asyncio.Queue[bytes | Exception | None] = asyncio.Queue()
        slots = asyncio.Semaphore(self.in_flight)
        with self.gateway.core.quotas.stream(client_of(context), ACTION_STREAMS):
            reader = asyncio.get_running_loop().create_task(self._work(requests, answers, slots))
            self.readers.add(reader)
            reader.add_done_callback(self.readers.discard)
            try:
                while (answer := await answers.get()) is not None:
                    if isinstance(answer, Exception):  # the stream's own failure
                        raise answer
                    yield answer
                    slots.release()  # sent: the next request may be read
            finally:
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)

    async def _work(
        self, requests, answers: "asyncio.Queue[bytes | Exception | None]", slots: asyncio.Semaphore
    ) -> None:
        """Starts each request as it comes, while ``slots`` has room; once the client closes
        its side, waits for those under way. A command under way when the client leaves is
        done all the same (its answer dropped), as a unary call's commit stands."""
        mine: set[asyncio.Task] = set()
        loop = asyncio.get_running_loop()
        try:
            async for message in requests:
                await slots.acquire()
                task = loop.create_task(self._answer(message, answers))
                for held in (mine, self.under_way):
                    held.add(task)
                    task.add_done_callback(held.discard)
            await asyncio.gather(*mine)
        except ApiError as failure:  # a request over the limit, or not decodable
            answers.put_nowait(failure)
        except asyncio.CancelledError:
            if not self.stopping:
                raise  # the client left
            # The gateway stops: what is under way is answered, then the stream ends (OK),
            # and the client opens its next one on a gateway that goes on.
            await asyncio.gather(*mine, return_exceptions=True)
        except Exception:  # the client left: nothing more to read
            log.info("action_stream_left", exc_info=True)
        answers.put_nowait(None)

    def begin_stopping(self) -> None:
        """As the server stops: each stream reads no more requests, answers those under
        way and ends, rather than when the server's grace runs out (its client would see
        its requests fail, and a stream broken)."""
        self.stopping = True
        for reader in list(self.readers):
            reader.cancel()

    async def _answer(self, message: actions_pb2.SubmitActionsRequest, answers) -> None:
        started = time.perf_counter()
        reply = actions_pb2.SubmitActionsResponse(id=message.id)
        request = message.request
        code = "OK"
        try:
            if not message.seat_token:
                raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING", "send the seat's token in seat_token")
            shapes.token(message.seat_token)
            shapes.check_request(request)
            with bound(**_about(request)):
                reply.response.CopyFrom(await self.gateway.submit(request, message.seat_token))
        except Exception as error:
            failure = _failure(error, "SubmitAction", request)
            _log_refusal("SubmitActions", failure)
            code = failure.code.name
            reply.error = failure.to_rpc_status().SerializeToString()
        answers.put_nowait(reply.SerializeToString())
        # Counted as SubmitAction calls, whichever way they came (protocol "stream").
        counter = self.answered.get(code)
        if counter is None:
            counter = self.answered[code] = metrics.REQUESTS.labels("SubmitAction", code, "stream")
        counter.inc()
        self.latency.observe(time.perf_counter() - started)


class PlayerServicer:
    """Players who come back (tavola.gateway.v1.PlayerService), beside GatewayService."""

    # Account deletion (gateway/leaving.py), with the archive when there is one.
    leaving: AccountDeletion | None = None

    def __init__(self, players: Players, ratings: Ratings, matchmaker: Matchmaker):
        self.players = players
        self.ratings = ratings
        self.matchmaker = matchmaker

    async def CreatePlayer(self, request: pl.CreatePlayerRequest, context) -> pl.CreatePlayerResponse:
        return await self.players.create(request.display_name, client_of(context))

    async def GetPlayer(self, request: pl.GetPlayerRequest, context) -> pl.GetPlayerResponse:
        player_id = request.player_id or await self.players.caller(auth.token_from(context))
        return await self.ratings.player_page(player_id, request.recent_tables)

    async def RenamePlayer(self, request: pl.RenamePlayerRequest, context) -> pl.RenamePlayerResponse:
        player_id = await self.players.caller(auth.token_from(context))
        return pl.RenamePlayerResponse(player=await self.players.store.rename(player_id, request.display_name))

    async def ReissuePlayerToken(self, request, context) -> pl.ReissuePlayerTokenResponse:
        token, table_ids = await self._sign_out_everywhere(context)
        return pl.ReissuePlayerTokenResponse(player_token=token, signed_out_table_ids=table_ids)

    async def SignOutEverywhere(self, request, context) -> pl.SignOutEverywhereResponse:
        token, table_ids = await self._sign_out_everywhere(context)
        return pl.SignOutEverywhereResponse(player_token=token, signed_out_table_ids=table_ids)

    async def _sign_out_everywhere(self, context) -> tuple[str, list[str]]:
        token = require_token(context)
        player_id = await self.players.caller(token)
        return await self.players.sign_out_everywhere(player_id, token)

    async def DeletePlayer(self, request: pl.DeletePlayerRequest, context) -> pl.DeletePlayerResponse:
        player_id = await self.players.caller(auth.token_from(context))
        if self.leaving is None:  # set by the gateway's start (gateway/__main__.py)
            raise ApiError(grpc.StatusCode.UNIMPLEMENTED, "NOT_SERVED", "this gateway does not delete accounts")
        return await self.leaving.delete(player_id, request.player_id)

    async def ListMyTables(self, request: pl.ListMyTablesRequest, context) -> pl.ListMyTablesResponse:
        player_id = await self.players.caller(auth.token_from(context))
        return await self.players.my_tables(player_id, request.page_size)

    async def RejoinSeat(self, request: pl.RejoinSeatRequest, context) -> pl.RejoinSeatResponse:
        token = require_token(context)
        player_id = await self.players.caller(token)
        rejoined = await self.players.rejoin(player_id, request.table_id)
        await self.players.confirm_seat(token, player_id, request.table_id)
        return rejoined

    async def ListLeaderboard(self, request: pl.ListLeaderboardRequest, context) -> pl.ListLeaderboardResponse:
        return await self.ratings.leaderboard(request.game_id, request.page_size, request.around_player_id)

    async def FindGame(self, request: pl.FindGameRequest, context) -> None:
        """The search ends when the caller's player token is revoked, on any gateway: the
        stream with UNAUTHENTICATED (PLAYER_TOKEN_REVOKED), the search as if its client had
        left; a seat found meanwhile is signed out rather than handed over."""
        token = require_token(context)
        player_id = await self.players.caller(token)

        async def send(response: pl.FindGameResponse) -> None:
            if response.HasField("seated"):
                await self.players.confirm_seat(token, player_id, response.seated.table.table_id)
            await context.write(response.SerializeToString())

        search = self.matchmaker.find(player_id, request, client_of(context), send)
        await self.players.while_signed_in(player_id, token, search)


class TimerServicer:
    """Applies a table's timeout policy when a human seat's decision is overdue (DESIGN:
    timers). Served on the internal port only; called by the timer task with the
    platform's timer credential."""

    def __init__(self, core: TableCore):
        self.core = core

    async def ExpireDecision(self, request, context):
        expired, record = await self.core.expire_decision(
            request.table_id, request.seat, request.version, require_token(context)
        )
        return gw.ExpireDecisionResponse(expired=expired, table=record.table)

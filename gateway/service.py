"""The gRPC servicers: they translate requests and errors, and leave every decision to
the table-command core (``gateway/core.py``)."""

import functools
import time

import grpc
import structlog
from redis.exceptions import RedisError

from common import auth
from common.errors import ApiError, abort
from common.logging import bound
from gateway import metrics
from gateway.core import TableCore
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc

log = structlog.get_logger()


def _as_api_error(error: ApiError | RedisError) -> ApiError:
    """The one place where the gateway's failures become a status with a reason."""
    if isinstance(error, ApiError):
        return error
    log.error("store_unavailable", exc_info=error)
    return ApiError(grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE", "the table store is unavailable")


def unary_rpc(method):
    name = method.__name__

    @functools.wraps(method)
    async def handler(self, request, context):
        code = "OK"
        started = time.perf_counter()
        try:
            return await method(self, request, context)
        except (ApiError, RedisError) as error:
            api_error = _as_api_error(error)
            code = api_error.code.name
            await abort(context, api_error)
        finally:
            metrics.LATENCY.labels(name).observe(time.perf_counter() - started)
            metrics.REQUESTS.labels(name, code).inc()

    return handler


def stream_rpc(method):
    name = method.__name__

    @functools.wraps(method)
    async def handler(self, request, context):
        code = "OK"
        metrics.STREAMS.inc()
        try:
            async for item in method(self, request, context):
                yield item
        except (ApiError, RedisError) as error:
            api_error = _as_api_error(error)
            code = api_error.code.name
            await abort(context, api_error)
        finally:
            metrics.STREAMS.dec()
            metrics.REQUESTS.labels(name, code).inc()

    return handler


def require_token(context) -> str:
    token = auth.token_from(context)
    if token is None:
        raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING", "send 'authorization: Bearer <token>'")
    return token


class GatewayServicer(gateway_pb2_grpc.GatewayServiceServicer):
    """The public API."""

    def __init__(self, core: TableCore):
        self.core = core

    @unary_rpc
    async def ListGames(self, request, context):
        return gw.ListGamesResponse(games=await self.core.rules.describe_all())

    @unary_rpc
    async def ListBots(self, request: gw.ListBotsRequest, context) -> gw.ListBotsResponse:
        return gw.ListBotsResponse(bots=self.core.bots.describe(request.game_id))

    @unary_rpc
    async def CreateTable(self, request: gw.CreateTableRequest, context) -> gw.CreateTableResponse:
        record, host_token = await self.core.create_table(request)
        return gw.CreateTableResponse(table=record.table, host_token=host_token)

    @unary_rpc
    async def GetTable(self, request, context):
        return await self.core.table(request.table_id)

    @unary_rpc
    async def ListTables(self, request: gw.ListTablesRequest, context) -> gw.ListTablesResponse:
        return await self.core.list_tables(request.status, request.game_id, request.page_size, request.page_token)

    @unary_rpc
    async def TakeSeat(self, request, context):
        wanted = request.seat if request.HasField("seat") else None
        seat, token, record = await self.core.take_seat(request.table_id, wanted, request.display_name)
        return gw.TakeSeatResponse(seat=seat, seat_token=token, table=record.table)

    @unary_rpc
    async def StartTable(self, request, context):
        record = await self.core.start_table(request.table_id, require_token(context))
        return gw.StartTableResponse(table=record.table)

    @unary_rpc
    async def GetView(self, request, context):
        return await self.core.seat_view(request.table_id, require_token(context))

    @unary_rpc
    async def SubmitAction(self, request: gw.SubmitActionRequest, context) -> gw.SubmitActionResponse:
        token = require_token(context)
        expected = request.expected_version if request.HasField("expected_version") else None
        with bound(table_id=request.table_id, request_id=request.request_id or None):
            return await self.core.submit(request.table_id, token, request.action, expected, request.request_id)

    @stream_rpc
    async def WatchTable(self, request, context):
        token = require_token(context)
        async for event in self.core.stream(request.table_id, request.after_seq, token):
            yield gw.WatchTableResponse(event=event)

    @stream_rpc
    async def SpectateTable(self, request, context):
        async for event in self.core.stream(request.table_id, request.after_seq, None):
            yield gw.SpectateTableResponse(event=event)


class TimerServicer(gateway_pb2_grpc.TimerServiceServicer):
    """Applies a table's timeout policy when a human seat's decision is overdue (DESIGN:
    timers). Called by the timer task with the platform's timer credential."""

    def __init__(self, core: TableCore):
        self.core = core

    @unary_rpc
    async def ExpireDecision(self, request, context):
        expired, record = await self.core.expire_decision(
            request.table_id, request.seat, request.version, require_token(context)
        )
        return gw.ExpireDecisionResponse(expired=expired, table=record.table)

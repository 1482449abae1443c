"""The gRPC servicers: they translate requests and errors, and leave every decision to
the table core (``gateway/commands.py``) and its reads, streams and replays. Each method
is registered by ``add_to_server`` (``gateway/handlers.py``), which decodes, checks and
answers errors for it.
"""

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import structlog

from common import auth, shapes
from common.errors import ApiError
from common.logging import bound
from gateway import metrics, text
from gateway.bots import merged
from gateway.commands import TableCore
from gateway.framing import varint
from gateway.handlers import _about, _failure, _log_refusal, require_token
from gateway.leaving import AccountDeletion
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


class GatewayServicer:
    """The public API (tavola.gateway.v1.GatewayService)."""

    # The timer ListGames suggests for a table opened by hand (TAVOLA_LOBBY_DECISION_SECONDS).
    lobby_decision_seconds = 0

    def __init__(self, core: TableCore, players: Players | None = None, ratings: Ratings | None = None):
        self.core = core
        self.players = players
        self.ratings = ratings

    async def ListGames(self, request, context):
        games = await self.core.rules.describe_all()
        with reading_in(context):
            games = [text.described(game) for game in games]
        return gw.ListGamesResponse(games=games, lobby_decision_seconds=self.lobby_decision_seconds)

    async def ListBots(self, request: gw.ListBotsRequest, context) -> gw.ListBotsResponse:
        bots = self.core.bots.describe(request.game_id)
        if request.game_id:
            game_id = request.game_id[:64]
            rated = await self.ratings.bot_ratings(game_id) if self.ratings is not None else {}
            for bot in bots:
                bot.ratings.extend(merged(rated.get(bot.name, ()), self.core.bots.calibrated(bot.name, game_id)))
        return gw.ListBotsResponse(bots=bots)

    async def GetGameHelp(self, request: gw.GetGameHelpRequest, context) -> gw.GetGameHelpResponse:
        description = await self.core.rules.describe(request.game_id)
        with reading_in(context):
            entries = text.help_entries(description)
        return gw.GetGameHelpResponse(entries=[gw.HelpEntry(id=key, text=words) for key, words in entries])

    async def CreateTable(self, request: gw.CreateTableRequest, context) -> gw.CreateTableResponse:
        record, host_token = await self.core.create_table(request, client_of(context))
        return gw.CreateTableResponse(table=record.table, host_token=host_token)

    async def GetTable(self, request, context):
        return await self.core.reads.table(request.table_id)

    async def ListTables(self, request: gw.ListTablesRequest, context) -> gw.ListTablesResponse:
        listed = await self.core.reads.list_tables(
            request.status, request.game_id, request.page_size, request.page_token
        )
        if self.ratings is not None:  # who sits there, and how strong, to choose a table by
            await self.ratings.rate_seats(listed.tables)
        return listed

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
        with reading_in(context):
            return await self.core.reads.seat_view(request.table_id, require_token(context))

    async def SubmitAction(self, request: gw.SubmitActionRequest, context) -> bytes:
        expected = request.expected_version if request.HasField("expected_version") else None
        with bound(request_id=request.request_id[:128] or None), reading_in(context):
            response, view = await self.core.submit_parts(
                request.table_id,
                require_token(context),
                request.action,
                expected,
                request.request_id,
                request.continue_as_bot,
            )
        # The seat's view goes as the bytes it is (SubmitActionResponse.view, field 5).
        return response.SerializeToString() + (b"\x2a" + varint(len(view)) + view if view else b"")

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
        with reading_in(context):
            await self.core.streams.stream(
                request.table_id, request.after_seq, token, context.write, client_of(context), request.batched
            )

    async def SpectateTable(self, request, context) -> None:
        with reading_in(context):
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
        return await self.players.my_tables(player_id, request.page_size, request.your_turn_only)

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

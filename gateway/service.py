"""GatewayService: routes every public command to the game's rules service and keeps
the table in Redis. It holds no game knowledge: game state, actions, views and events
stay opaque ``Any`` messages that only the rules service reads.

Every command follows one path: load the record (one Redis trip), authorise the token,
check status and version, ask the rules service, then ``TableStore.commit`` (a
compare-and-set on the version). A concurrent change makes the commit fail and nothing
is written; without an ``expected_version`` the command is retried on the fresh table.
"""

import asyncio
import functools
import hashlib
import hmac
import random
import secrets
import time

import grpc
import structlog
from google.protobuf import timestamp_pb2
from redis.exceptions import RedisError

from bots.app import DECIDE_TASK, EXPIRE_TASK, TIMER_QUEUE, queue_for
from common import auth
from common.errors import ApiError, abort
from common.logging import bound
from gateway import metrics
from gateway.hub import Hub
from gateway.rules import RulesDirectory
from gateway.store import LogEntry, RequestUsed, TableMissing, TableStore, VersionConflict
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc
from tavola.rules.v1 import rules_pb2
from tavola.store.v1 import store_pb2

log = structlog.get_logger()

MAX_RETRIES = 8
WATCH_POLL_SECONDS = 10.0


def _error(code: grpc.StatusCode, reason: str, message: str) -> ApiError:
    return ApiError(code, reason, message)


def _now() -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromNanoseconds(time.time_ns())
    return stamp


def _table_event(seq: int, version: int, stamp: timestamp_pb2.Timestamp, **body) -> gw.TableEvent:
    return gw.TableEvent(seq=seq, version=version, time=stamp, **body)


def _as_api_error(error: ApiError | RedisError) -> ApiError:
    """The one place where the gateway's failures become a status with a reason."""
    if isinstance(error, ApiError):
        return error
    log.error("store_unavailable", exc_info=error)
    return _error(grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE", "the table store is unavailable")


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


_INDEX_OF_STATUS = {gw.TABLE_STATUS_OPEN: "open", gw.TABLE_STATUS_IN_PROGRESS: "in-progress"}
MAX_PAGE_SIZE = 100
MAX_DISPLAY_NAME = 64
MAX_REQUEST_ID = 128


class Commit:
    """The log entries of one command, numbered from the table's current last seq."""

    def __init__(self, record: store_pb2.TableRecord):
        self.record = record
        self.entries: list[LogEntry] = []
        self.version = record.table.version + 1
        self.stamp = _now()
        # A new table (version 0) has no status yet: its first commit files it.
        self.status_before = record.table.status if record.table.version else gw.TABLE_STATUS_UNSPECIFIED

    @property
    def next_seq(self) -> int:
        return self.record.table.last_seq + len(self.entries) + 1

    def public(self, **body) -> gw.TableEvent:
        event = _table_event(self.next_seq, self.version, self.stamp, **body)
        self.entries.append(LogEntry(spectator=event.SerializeToString()))
        return event

    def game_events(self, projected: list[rules_pb2.ProjectedEvent]) -> None:
        for item in projected:
            seq = self.next_seq
            spectator = b""
            if item.HasField("spectator"):
                spectator = _table_event(seq, self.version, self.stamp, game_event=item.spectator).SerializeToString()
            seats = {
                seat_event.seat: (
                    _table_event(seq, self.version, self.stamp, game_event=seat_event.event).SerializeToString()
                    if seat_event.HasField("event")
                    else b""
                )
                for seat_event in item.seats
            }
            self.entries.append(LogEntry(spectator=spectator, seats=seats))

    def seen_by(self, seat: int) -> list[gw.TableEvent]:
        seen = []
        for entry in self.entries:
            data = entry.seats.get(seat, entry.spectator)
            if data:
                seen.append(gw.TableEvent.FromString(data))
        return seen

    def finish(self) -> store_pb2.TableRecord:
        """Stamps the new version, last seq and update time on the record to be written."""
        self.record.table.version = self.version
        self.record.table.last_seq += len(self.entries)
        self.record.table.update_time.CopyFrom(self.stamp)
        return self.record

    @property
    def status_changed(self) -> bool:
        return self.record.table.status != self.status_before


class GatewayServicer(gateway_pb2_grpc.GatewayServiceServicer):
    def __init__(
        self, store: TableStore, hub: Hub, rules: RulesDirectory, bots: tuple[str, ...], bot_secret: str, celery_app
    ):
        self.store = store
        self.hub = hub
        self.rules = rules
        self.bots = bots
        self.bot_secret = bot_secret
        self.celery = celery_app

    # -- shared steps ----------------------------------------------------------------

    async def _load(self, table_id: str, request_key: str | None = None):
        if not table_id:
            raise _error(grpc.StatusCode.INVALID_ARGUMENT, "TABLE_ID_REQUIRED", "table_id is required")
        try:
            return await self.store.load(table_id, request_key)
        except TableMissing:
            raise _error(grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND", f"no table {table_id!r}") from None

    @staticmethod
    def _require_token(context) -> str:
        token = auth.token_from(context)
        if token is None:
            raise _error(grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING", "send 'authorization: Bearer <token>'")
        return token

    @staticmethod
    def _seat_of(record: store_pb2.TableRecord, token: str) -> int | None:
        digest = auth.digest(token)
        for seat, stored in enumerate(record.seat_token_sha256):
            if stored and hmac.compare_digest(stored, digest):
                return seat
        return None

    def _authorise_seat(self, record: store_pb2.TableRecord, token: str) -> int:
        seat = self._seat_of(record, token)
        if seat is None:
            raise _error(
                grpc.StatusCode.PERMISSION_DENIED, "TOKEN_NOT_FOR_TABLE", "this token holds no seat at this table"
            )
        return seat

    @staticmethod
    def _require_status(record: store_pb2.TableRecord, wanted: int) -> None:
        status = record.table.status
        if status == wanted:
            return
        reasons = {
            gw.TABLE_STATUS_OPEN: ("TABLE_NOT_STARTED", "the table has not started"),
            gw.TABLE_STATUS_IN_PROGRESS: ("TABLE_IN_PROGRESS", "the table has already started"),
            gw.TABLE_STATUS_FINISHED: ("TABLE_FINISHED", "the game is over"),
        }
        reason, message = reasons[status]
        raise _error(grpc.StatusCode.FAILED_PRECONDITION, reason, message)

    def _apply_status(self, record: store_pb2.TableRecord, status: rules_pb2.GameStatus, commit: Commit) -> None:
        table = record.table
        del table.deciding_seats[:]
        table.deciding_seats.extend(status.deciding_seats)
        if status.finished:
            table.status = gw.TABLE_STATUS_FINISHED
            table.outcome.CopyFrom(status.outcome)
            commit.public(game_finished=gw.GameFinished(outcome=status.outcome))
            commit.entries[-1].end = True
        self._set_deadline(record)

    @staticmethod
    def _set_deadline(record: store_pb2.TableRecord) -> None:
        """A timed table gives the human seats that must decide now a common deadline."""
        table = record.table
        table.ClearField("decision_deadline")
        timed = table.decision_timer.seconds > 0 and table.status == gw.TABLE_STATUS_IN_PROGRESS
        if timed and any(table.seats[seat].kind == gw.SEAT_KIND_HUMAN for seat in table.deciding_seats):
            table.decision_deadline.FromNanoseconds(time.time_ns() + table.decision_timer.seconds * 10**9)

    async def _apply(self, record: store_pb2.TableRecord, seat: int, action, commit: Commit):
        """Ask the rules service to apply one seat's action; put the result in the record."""
        applied = await self.rules.call(
            record.table.game_id,
            "ApplyAction",
            rules_pb2.ApplyActionRequest(state=record.state, seat=seat, action=action),
        )
        record.state.CopyFrom(applied.state)
        commit.game_events(list(applied.events))
        self._apply_status(record, applied.status, commit)
        return applied

    async def _start_game(
        self, record: store_pb2.TableRecord, commit: Commit, dealt: rules_pb2.NewGameResponse | None = None
    ) -> None:
        """Deals the game (``dealt``: a NewGame already made for this record's seed and options)."""
        table = record.table
        response = dealt or await self.rules.call(
            table.game_id,
            "NewGame",
            rules_pb2.NewGameRequest(player_count=table.player_count, options=dict(table.options), seed=record.seed),
        )
        record.state.CopyFrom(response.state)
        table.status = gw.TABLE_STATUS_IN_PROGRESS
        commit.public(table_started=gw.TableStarted(deciding_seats=response.status.deciding_seats))
        commit.game_events(list(response.events))
        self._apply_status(record, response.status, commit)

    async def _after_commit(self, commit: Commit) -> None:
        """Files a table whose status changed in its index, then wakes who must act."""
        table = commit.record.table
        if commit.status_changed:
            await self._index(table.table_id, _INDEX_OF_STATUS.get(table.status))
        await self._wake(commit.record)

    async def _wake(self, record: store_pb2.TableRecord) -> None:
        """Enqueue a task per bot seat that must decide now, and a timer per human seat that
        must decide on a timed table. Tasks carry ids only. Also called by the sweep."""
        table = record.table
        if table.status != gw.TABLE_STATUS_IN_PROGRESS:
            return
        for seat in table.deciding_seats:
            info = table.seats[seat]
            if info.kind == gw.SEAT_KIND_BOT:
                task = {"args": [table.table_id, seat, table.version, info.bot], "queue": queue_for(info.bot)}
                await self._enqueue(DECIDE_TASK, table.table_id, seat, **task)
            elif table.HasField("decision_deadline"):
                countdown = max(0.0, table.decision_deadline.ToNanoseconds() / 1e9 - time.time())
                task = {"args": [table.table_id, seat, table.version], "queue": TIMER_QUEUE, "countdown": countdown}
                await self._enqueue(EXPIRE_TASK, table.table_id, seat, **task)

    async def _index(self, table_id: str, status: str | None) -> None:
        try:
            await self.store.index(table_id, status, time.time())
        except RedisError:  # only the indexes: the commit stands
            log.warning("index_update_failed", table_id=table_id, exc_info=True)

    async def _enqueue(self, name: str, table_id: str, seat: int, **options) -> None:
        try:
            await asyncio.to_thread(self.celery.send_task, name, **options)
        except Exception:  # the command stands; the sweep enqueues the task again
            metrics.ENQUEUED.labels(name, "failed").inc()
            log.error("enqueue_failed", task=name, table_id=table_id, seat=seat, exc_info=True)
        else:
            metrics.ENQUEUED.labels(name, "ok").inc()

    async def _mutate(self, table_id: str, change) -> store_pb2.TableRecord:
        """Load, change, commit; retried from a fresh load when another command won."""
        for _ in range(MAX_RETRIES):
            record, _ = await self._load(table_id)
            expected = record.table.version
            commit = Commit(record)
            await change(record, commit)
            try:
                await self.store.commit(commit.finish(), expected, commit.entries)
            except VersionConflict:
                continue
            await self._after_commit(commit)
            return record
        raise _error(grpc.StatusCode.ABORTED, "CONTENTION", "the table changed too often; retry")

    # -- RPCs ------------------------------------------------------------------------

    @unary_rpc
    async def ListGames(self, request, context):
        return gw.ListGamesResponse(games=await self.rules.describe_all())

    @unary_rpc
    async def CreateTable(self, request: gw.CreateTableRequest, context) -> gw.CreateTableResponse:
        seed = request.seed if request.HasField("seed") else secrets.randbits(63)
        # NewGame validates player count and options, and fills in the defaults.
        check = await self.rules.call(
            request.game_id,
            "NewGame",
            rules_pb2.NewGameRequest(player_count=request.player_count, options=dict(request.options), seed=seed),
        )
        bot_of: dict[int, str] = {}
        for bot_seat in request.bot_seats:
            if not 0 <= bot_seat.seat < request.player_count or bot_seat.seat in bot_of:
                raise _error(
                    grpc.StatusCode.INVALID_ARGUMENT, "BAD_SEAT", f"bot seat {bot_seat.seat} is not a free seat"
                )
            if bot_seat.bot not in self.bots:
                raise _error(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "UNKNOWN_BOT",
                    f"no bot {bot_seat.bot!r}; bots: {', '.join(self.bots)}",
                )
            bot_of[bot_seat.seat] = bot_seat.bot
        timer = request.decision_timer
        if timer.seconds < 0 or (timer.seconds > 0 and timer.policy == gw.TIMEOUT_POLICY_UNSPECIFIED):
            raise _error(
                grpc.StatusCode.INVALID_ARGUMENT, "BAD_TIMER", "a decision timer needs seconds >= 0 and a policy"
            )
        table_id = secrets.token_hex(8)
        host_token = auth.new_token()
        table = gw.Table(
            table_id=table_id,
            game_id=request.game_id,
            player_count=request.player_count,
            options=dict(check.options),
            status=gw.TABLE_STATUS_OPEN,
            create_time=_now(),
            decision_timer=timer,
        )
        record = store_pb2.TableRecord(
            table=table, seed=seed, host_token_sha256=auth.digest(host_token), auto_start=request.auto_start
        )
        for seat in range(request.player_count):
            bot = bot_of.get(seat)
            if bot is None:
                record.table.seats.add(seat=seat, kind=gw.SEAT_KIND_HUMAN)
                record.seat_token_sha256.append(b"")
            else:
                name = f"{bot} bot"
                record.table.seats.add(seat=seat, kind=gw.SEAT_KIND_BOT, bot=bot, taken=True, display_name=name)
                record.seat_token_sha256.append(auth.digest(auth.bot_token(self.bot_secret, table_id, seat)))
        commit = Commit(record)
        for seat, bot in sorted(bot_of.items()):
            commit.public(seat_taken=gw.SeatTaken(seat=seat, kind=gw.SEAT_KIND_BOT, display_name=f"{bot} bot"))
        if request.auto_start and len(bot_of) == request.player_count:
            await self._start_game(record, commit, dealt=check)
        await self.store.commit(commit.finish(), 0, commit.entries)
        await self._after_commit(commit)
        with bound(table_id=table_id):
            log.info("table_created", game=request.game_id, players=request.player_count, bots=len(bot_of))
        return gw.CreateTableResponse(table=record.table, host_token=host_token)

    @unary_rpc
    async def GetTable(self, request, context):
        record, _ = await self._load(request.table_id)
        response = gw.GetTableResponse(table=record.table)
        if record.table.status != gw.TABLE_STATUS_OPEN:
            view = await self.rules.call(record.table.game_id, "GetView", rules_pb2.GetViewRequest(state=record.state))
            response.spectator_view.CopyFrom(view.view)
        return response

    @unary_rpc
    async def ListTables(self, request: gw.ListTablesRequest, context) -> gw.ListTablesResponse:
        status = request.status or gw.TABLE_STATUS_OPEN
        index = _INDEX_OF_STATUS.get(status)
        if index is None:
            raise _error(grpc.StatusCode.INVALID_ARGUMENT, "BAD_STATUS", "list open or in-progress tables")
        size = min(request.page_size or 20, MAX_PAGE_SIZE)
        if size < 0 or (request.page_token and not request.page_token.isdigit()):
            raise _error(
                grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE", "page_size >= 0 and a page_token from a response"
            )
        offset = int(request.page_token or 0)
        table_ids = await self.store.listed(index, offset, size)
        response = gw.ListTablesResponse()
        for table_id, record in zip(table_ids, await self.store.load_many(table_ids), strict=True):
            if record is None:  # expired since it was filed
                await self.store.index(table_id, None, 0)
            elif record.table.status == status and request.game_id in ("", record.table.game_id):
                response.tables.append(record.table)
        if len(table_ids) == size:
            response.next_page_token = str(offset + size)
        return response

    @unary_rpc
    async def TakeSeat(self, request, context):
        if len(request.display_name) > MAX_DISPLAY_NAME:
            raise _error(grpc.StatusCode.INVALID_ARGUMENT, "BAD_DISPLAY_NAME", f"at most {MAX_DISPLAY_NAME} characters")
        token = auth.new_token()
        taken: list[int] = []

        async def change(record: store_pb2.TableRecord, commit: Commit) -> None:
            self._require_status(record, gw.TABLE_STATUS_OPEN)
            seats = record.table.seats
            if request.HasField("seat"):
                if not 0 <= request.seat < len(seats):
                    raise _error(grpc.StatusCode.INVALID_ARGUMENT, "BAD_SEAT", f"no seat {request.seat}")
                seat = seats[request.seat]
                if seat.kind == gw.SEAT_KIND_BOT:
                    raise _error(grpc.StatusCode.FAILED_PRECONDITION, "SEAT_IS_BOT", "a bot plays that seat")
                if seat.taken:
                    raise _error(grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN", "that seat is taken")
            else:
                seat = next((s for s in seats if not s.taken), None)
                if seat is None:
                    raise _error(grpc.StatusCode.FAILED_PRECONDITION, "TABLE_FULL", "every seat is taken")
            seat.taken = True
            seat.display_name = request.display_name or f"player {seat.seat}"
            record.seat_token_sha256[seat.seat] = auth.digest(token)
            commit.public(
                seat_taken=gw.SeatTaken(seat=seat.seat, kind=gw.SEAT_KIND_HUMAN, display_name=seat.display_name)
            )
            taken[:] = [seat.seat]
            if record.auto_start and all(s.taken for s in seats):
                await self._start_game(record, commit)

        record = await self._mutate(request.table_id, change)
        with bound(table_id=request.table_id, seat=taken[0]):
            log.info("seat_taken")
        return gw.TakeSeatResponse(seat=taken[0], seat_token=token, table=record.table)

    @unary_rpc
    async def StartTable(self, request, context):
        token = self._require_token(context)

        async def change(record: store_pb2.TableRecord, commit: Commit) -> None:
            is_host = hmac.compare_digest(record.host_token_sha256, auth.digest(token))
            if not is_host:
                self._authorise_seat(record, token)
            self._require_status(record, gw.TABLE_STATUS_OPEN)
            if not all(seat.taken for seat in record.table.seats):
                raise _error(grpc.StatusCode.FAILED_PRECONDITION, "SEATS_OPEN", "every seat must be taken first")
            await self._start_game(record, commit)

        record = await self._mutate(request.table_id, change)
        with bound(table_id=request.table_id):
            log.info("table_started")
        return gw.StartTableResponse(table=record.table)

    @unary_rpc
    async def GetView(self, request, context):
        token = self._require_token(context)
        record, _ = await self._load(request.table_id)
        seat = self._authorise_seat(record, token)
        if record.table.status == gw.TABLE_STATUS_OPEN:
            self._require_status(record, gw.TABLE_STATUS_IN_PROGRESS)
        view = await self.rules.call(
            record.table.game_id, "GetView", rules_pb2.GetViewRequest(state=record.state, seat=seat)
        )
        return gw.GetViewResponse(
            table=record.table,
            seat=seat,
            view=view.view,
            must_decide=seat in record.table.deciding_seats,
            legal_actions=view.legal_actions,
        )

    @unary_rpc
    async def SubmitAction(self, request: gw.SubmitActionRequest, context) -> gw.SubmitActionResponse:
        token = self._require_token(context)
        with bound(table_id=request.table_id, request_id=request.request_id or None):
            return await self._submit(request, token)

    async def _submit(self, request: gw.SubmitActionRequest, token: str) -> gw.SubmitActionResponse:
        if len(request.request_id) > MAX_REQUEST_ID:
            raise _error(grpc.StatusCode.INVALID_ARGUMENT, "BAD_REQUEST_ID", f"at most {MAX_REQUEST_ID} characters")
        if not request.action.type_url:
            raise _error(grpc.StatusCode.INVALID_ARGUMENT, "ACTION_REQUIRED", "action is required")
        # Request ids are scoped to the caller's seat, known here by its token's digest.
        request_key = f"{auth.digest(token).hex()[:32]}:{request.request_id}" if request.request_id else ""
        for _ in range(MAX_RETRIES):
            record, stored = await self._load(request.table_id, request_key or None)
            seat = self._authorise_seat(record, token)
            command = hashlib.sha256(f"{seat}:".encode() + request.action.SerializeToString()).digest()
            if stored is not None:
                return self._replay(stored, command)
            table = record.table
            self._require_status(record, gw.TABLE_STATUS_IN_PROGRESS)
            if request.HasField("expected_version") and request.expected_version != table.version:
                raise _error(
                    grpc.StatusCode.ABORTED,
                    "VERSION_MISMATCH",
                    f"the table is at version {table.version}, not {request.expected_version}",
                )
            expected = table.version
            commit = Commit(record)
            applied = await self._apply(record, seat, request.action, commit)
            commit.finish()
            response = gw.SubmitActionResponse(table=record.table, events=commit.seen_by(seat))
            stored = store_pb2.StoredResponse(command_sha256=command, response=response) if request_key else None
            try:
                await self.store.commit(record, expected, commit.entries, request_key, stored)
            except VersionConflict:
                if request.HasField("expected_version"):
                    raise _error(
                        grpc.StatusCode.ABORTED, "VERSION_MISMATCH", "the table changed; fetch the view and retry"
                    ) from None
                continue
            except RequestUsed as used:
                return self._replay(used.stored, command)
            with bound(seat=seat):
                log.info("action_applied", label=applied.action_label, version=table.version)
            await self._after_commit(commit)
            return response
        raise _error(grpc.StatusCode.ABORTED, "CONTENTION", "the table changed too often; retry")

    @staticmethod
    def _replay(stored: store_pb2.StoredResponse, command: bytes) -> gw.SubmitActionResponse:
        if not hmac.compare_digest(stored.command_sha256, command):
            raise _error(
                grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_REUSED", "this request_id was used for another action"
            )
        response = gw.SubmitActionResponse()
        response.CopyFrom(stored.response)
        response.replayed = True
        return response

    @stream_rpc
    async def WatchTable(self, request, context):
        token = self._require_token(context)
        record, _ = await self._load(request.table_id)
        seat = self._authorise_seat(record, token)
        async for event in self._stream(request.table_id, request.after_seq, seat):
            yield gw.WatchTableResponse(event=event)

    @stream_rpc
    async def SpectateTable(self, request, context):
        await self._load(request.table_id)
        async for event in self._stream(request.table_id, request.after_seq, None):
            yield gw.SpectateTableResponse(event=event)

    async def _stream(self, table_id: str, after_seq: int, seat: int | None):
        """The log from after_seq on, then live, as ``seat`` sees it; ends after the game does."""
        channel = self.store.channel(table_id)
        await self.hub.join(channel)
        try:
            last = after_seq
            while True:
                generation = self.hub.generation(channel)
                entries = await self.store.read_log(table_id, last)
                for entry in entries:
                    last = entry.seq
                    data = entry.for_viewer(seat)
                    if data:
                        yield gw.TableEvent.FromString(data)
                    if entry.is_end:
                        return
                    if entry.revokes(seat):
                        raise _error(grpc.StatusCode.PERMISSION_DENIED, "TOKEN_REVOKED", "a bot has taken this seat")
                if not entries:
                    await self.hub.wait(channel, generation, WATCH_POLL_SECONDS)
        finally:
            await self.hub.leave(channel)


class TimerServicer(gateway_pb2_grpc.TimerServiceServicer):
    """Applies a table's timeout policy when a human seat's decision is overdue (DESIGN:
    timers). Called by the timer task; each expiry is one compare-and-set commit."""

    def __init__(self, gateway: GatewayServicer):
        self.gateway = gateway

    @unary_rpc
    async def ExpireDecision(self, request, context):
        gateway = self.gateway
        token = gateway._require_token(context)
        if not hmac.compare_digest(token, auth.timer_token(gateway.bot_secret, request.table_id)):
            raise _error(
                grpc.StatusCode.PERMISSION_DENIED, "NOT_A_TIMER", "only the platform's timers expire decisions"
            )
        expired = False

        async def change(record: store_pb2.TableRecord, commit: Commit) -> None:
            nonlocal expired
            table = record.table
            seat = request.seat
            expired = (
                table.status == gw.TABLE_STATUS_IN_PROGRESS
                and table.version == request.version
                and seat in table.deciding_seats
                and table.seats[seat].kind == gw.SEAT_KIND_HUMAN
                and table.decision_timer.seconds > 0
            )
            if not expired:
                raise _NothingToDo
            policy = table.decision_timer.policy
            commit.public(decision_expired=gw.DecisionExpired(seat=seat, policy=policy))
            if policy == gw.TIMEOUT_POLICY_BOT_TAKES_SEAT:
                commit.entries[-1].revoked_seat = seat
                bot = gateway.bots[0]
                table.seats[seat].kind = gw.SEAT_KIND_BOT
                table.seats[seat].bot = bot
                record.seat_token_sha256[seat] = auth.digest(auth.bot_token(gateway.bot_secret, table.table_id, seat))
                gateway._set_deadline(record)
                return
            legal = await gateway.rules.call(
                table.game_id, "ListLegalActions", rules_pb2.ListLegalActionsRequest(state=record.state, seat=seat)
            )
            chooser = random.Random(f"{table.table_id}:{seat}:{table.version}")
            await gateway._apply(record, seat, chooser.choice(list(legal.legal_actions)).action, commit)

        try:
            record = await gateway._mutate(request.table_id, change)
        except _NothingToDo:
            record, _ = await gateway._load(request.table_id)
        with bound(table_id=request.table_id, seat=request.seat):
            log.info("decision_timer", expired=expired, version=request.version)
        return gw.ExpireDecisionResponse(expired=expired, table=record.table)


class _NothingToDo(Exception):
    """The decision was taken in time: the expiry commits nothing."""

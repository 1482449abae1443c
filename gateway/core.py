"""The table-command core: every change to a table, whoever asks for it.

It holds no game knowledge: game state, actions, views and events stay opaque ``Any``
messages that only the rules service reads. Every command follows one path in
``TableCore.transact``: load the record (one Redis trip, with the stored response of the
request id when there is one), authorise, check status and version, ask the rules
service, then commit with one compare-and-set on the version. When another command got
there first nothing is written and the loop starts again from a fresh load, so a retried
request finds its stored response before any version check.

The gRPC servicers (``gateway/service.py``), the timer service and the sweeper are thin
callers of this class's public methods.
"""

import asyncio
import base64
import hashlib
import hmac
import json
import os
import random
import secrets
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, MutableSequence
from dataclasses import dataclass
from typing import Any

import grpc
import redis.asyncio as redis_async
import structlog
from google.protobuf import any_pb2, timestamp_pb2

from common import auth, tracing
from common.errors import RETRY_CONTENTION_SECONDS, ApiError
from common.logging import bound
from common.tasks import ALL_BOT_PRIORITY, DECIDE_TASK, EXPIRE_TASK, TIMER_QUEUE, queue_for, queue_key
from gateway import metrics
from gateway.bots import BotCatalog
from gateway.due import due_time
from gateway.hub import READ_PAGE, Hub
from gateway.quotas import CREATE, SEATS, Client, Limits, Quotas
from gateway.rules import RulesDirectory
from gateway.store import (
    NO_DUE_WRITE,
    LogEntry,
    RequestKey,
    RequestUsed,
    StoredEntry,
    TableMissing,
    TableStore,
    VersionConflict,
    nanos,
)
from gateway.verify import commitment
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2
from tavola.store.v1 import store_pb2

log = structlog.get_logger()

MAX_RETRIES = 8
# Views of seated people kept for their next GetView (see TableCore._keep_views).
KEPT_VIEWS = 4096
# Of a command's SHA-256 kept per request id: enough to tell apart two commands that one
# client sent under one request id (answered REQUEST_ID_REUSED); kept for every action.
COMMAND_BYTES = 8
WATCH_POLL_SECONDS = 10.0
# The most events one batched stream response holds (a backlog goes in several).
BATCH_EVENTS = 100
MAX_PAGE_SIZE = 100
MAX_DISPLAY_NAME = 64
MAX_REQUEST_ID = 128
# Bounds on what a client sends, so that every answer (and log line) stays small.
MAX_ID = 64  # table_id, game_id, option names
MAX_OPTIONS = 32
MAX_OPTION_VALUE = 256
MAX_BOT = 200
MAX_PAGE_OFFSET = 100_000
MAX_TIMER_SECONDS = 24 * 3600
INDEX_OF_STATUS = {gw.TABLE_STATUS_OPEN: "open", gw.TABLE_STATUS_IN_PROGRESS: "in-progress"}


def invalid(reason: str, message: str, **metadata: object) -> ApiError:
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, reason, message, retry_after=None, **metadata)


def failed(reason: str, message: str, **metadata: object) -> ApiError:
    return ApiError(grpc.StatusCode.FAILED_PRECONDITION, reason, message, retry_after=None, **metadata)


def draw_seed(request: gw.CreateTableRequest) -> int:
    """The table's seed: the client's only in replay mode; otherwise drawn from the OS's
    CSPRNG, and a client's seed is mixed with 256 bits of it, so it predicts nothing."""
    if request.replay_mode:
        if not request.HasField("seed"):
            raise invalid("SEED_REQUIRED", "replay mode plays a seed given by the creator")
        return request.seed
    entropy = secrets.token_bytes(32) + (request.seed.to_bytes(8, "big") if request.HasField("seed") else b"")
    return int.from_bytes(hashlib.sha256(entropy).digest()[:8], "big") >> 1


def view_response(table: gw.Table, seat: int, view: rules_pb2.GetViewResponse, must_decide: bool) -> bytes:
    """A seat's GetViewResponse, serialized, from the rules service's view of it. Its parts
    go across as bytes (store.proto's wire messages): copied message by message, a view's
    legal actions cost more than the rest of a GetView's own work; and it stays bytes all
    the way to the client (GetView's answer, a bot's task, a continuing bot's next decision)."""
    parts = store_pb2.RulesViewWire.FromString(view.SerializeToString())
    wire = store_pb2.GetViewResponseWire(
        table=table.SerializeToString(),
        seat=seat,
        view=parts.view,
        must_decide=must_decide,
        legal_actions=parts.legal_actions,
    )
    return wire.SerializeToString()


def _now() -> timestamp_pb2.Timestamp:
    seconds, nanos = divmod(time.time_ns(), 1_000_000_000)
    return timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)


class Commit:
    """The log entries of one command, numbered from the table's current last seq."""

    def __init__(self, record: store_pb2.TableRecord):
        self.record = record
        self.entries: list[LogEntry] = []
        self.version = record.table.version + 1
        self.stamp = _now()
        # A new table (version 0) has no status yet: its first commit files it.
        self.status_before = record.table.status if record.table.version else gw.TABLE_STATUS_UNSPECIFIED
        self.finished = False
        # The rules service's views of the seats that must decide after this command, by
        # seat, when it sent them with the applied action: a bot's goes in its task (the
        # wake-up asks for the rest), a person's answers that seat's next GetView.
        self.views: dict[int, rules_pb2.GetViewResponse] = {}
        # A bot seat whose view goes back to the caller instead of into a task (a bot
        # worker that continues at the table), and that view once the commit is done.
        self.keep_seat: int | None = None
        self.kept_view: bytes | None = None  # a GetViewResponse, serialized
        # Whether the commit wrote the table's due time (a single Redis: in its script).
        self.due_written = False

    @property
    def next_seq(self) -> int:
        return self.record.table.last_seq + len(self.entries) + 1

    def _event(self, seq: int, **body) -> gw.TableEvent:
        return gw.TableEvent(seq=seq, version=self.version, time=self.stamp, **body)

    def public(self, **body) -> LogEntry:
        """A table event every viewer sees alike."""
        entry = LogEntry(spectator=self._event(self.next_seq, **body).SerializeToString())
        self.entries.append(entry)
        return entry

    def game_events(self, projected: list[rules_pb2.ProjectedEvent]) -> None:
        for item in projected:
            seq = self.next_seq
            spectator = b""
            if item.HasField("spectator"):
                spectator = self._event(seq, game_event=item.spectator).SerializeToString()
            seats = {
                seat_event.seat: (
                    self._event(seq, game_event=seat_event.event).SerializeToString()
                    if seat_event.HasField("event")
                    else b""
                )
                for seat_event in item.seats
            }
            self.entries.append(LogEntry(spectator=spectator, seats=seats))

    def seen_by(self, seat: int, events: MutableSequence[gw.TableEvent]) -> None:
        """Adds the entries' events as ``seat`` sees them to ``events`` (a response's), each
        decoded into its place (no message of its own, copied in)."""
        for entry in self.entries:
            data = entry.seats.get(seat, entry.spectator)
            if data:
                events.add().MergeFromString(data)  # type: ignore[attr-defined]

    def finish(self) -> store_pb2.TableRecord:
        """Stamps the new version, last seq and update time on the record to be written
        (once: a command that answers with the new table finishes before the commit)."""
        if self.finished:
            return self.record
        self.finished = True
        self.record.table.version = self.version
        self.record.table.last_seq += len(self.entries)
        self.record.table.update_time.CopyFrom(self.stamp)
        return self.record

    @property
    def status_changed(self) -> bool:
        return self.record.table.status != self.status_before


@dataclass
class Idempotency:
    """A request id, scoped to the caller's token, and what the command it names is."""

    key: RequestKey
    command_sha256: bytes = b""

    def check(self, stored: store_pb2.StoredResponse) -> None:
        # Records keep the digest's first COMMAND_BYTES bytes (earlier ones 16, or all of it).
        known = stored.command_sha256
        if len(known) < COMMAND_BYTES or not hmac.compare_digest(known, self.command_sha256[: len(known)]):
            raise ApiError(
                grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_REUSED", "this request_id was used for another action"
            )


def compact_response(command: bytes, seat: int, table: gw.Table, entries: int) -> store_pb2.StoredResponse:
    """What a retry needs: where the action's events are in the log and the table fields it
    changed (the rest of the summary, the update time, which is its log entries' time, and
    the events themselves are read back)."""
    stored = store_pb2.StoredResponse(
        command_sha256=command[:COMMAND_BYTES],
        seat=seat,
        first_seq=table.last_seq - entries + 1,
        last_seq=table.last_seq,
        version=table.version,
        status=table.status,
        deciding_seats=table.deciding_seats,
    )
    if table.HasField("decision_deadline"):
        stored.decision_deadline.CopyFrom(table.decision_deadline)
    return stored


class Replay(Exception):
    """Raised inside a change: the request was already applied; answer with this response."""

    def __init__(self, response: gw.SubmitActionResponse):
        self.response = response


class NothingToDo(Exception):
    """Raised inside a change: the command commits nothing (e.g. a decision taken in time)."""


# A change mutates the loaded record, adds log entries to the commit, and returns what to
# store under the request id (None: nothing). ``stored`` is the request id's prior response.
Change = Callable[[store_pb2.TableRecord, Commit, store_pb2.StoredResponse | None], Awaitable[object]]


class TaskPublisher:
    """Writes Celery tasks to a Redis broker from the event loop, with one LPUSH each:
    ``send_task`` takes a thread and kombu's synchronous client, a large share of the
    gateway's CPU per bot action. The message is Celery's protocol 2 as the Redis transport
    stores it, so any Celery worker of the queue runs it as a task sent by Celery."""

    def __init__(self, broker_url: str, key_prefix: str):
        self.redis = redis_async.Redis.from_url(broker_url)
        self.key_prefix = key_prefix
        self.origin = f"gateway-{os.getpid()}@{socket.gethostname()}"

    @classmethod
    def for_app(cls, app) -> "TaskPublisher | None":
        """A publisher to the app's broker when it is a plain Redis; None otherwise."""
        conf = getattr(app, "conf", None)
        url = getattr(conf, "broker_url", None) or ""
        if conf is None or not url.startswith(("redis://", "rediss://", "unix://")):
            return None
        options = conf.broker_transport_options or {}
        return cls(url, options.get("global_keyprefix", ""))

    async def send(self, name: str, args: list, kwargs: dict, queue: str, priority: int = 0) -> None:
        task_id = str(uuid.uuid4())
        body = json.dumps([args, kwargs, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}])
        message: dict[str, Any] = {
            "body": base64.b64encode(body.encode()).decode(),
            "content-encoding": "utf-8",
            "content-type": "application/json",
            "headers": {
                "lang": "py",
                "task": name,
                "id": task_id,
                "shadow": None,
                "eta": None,
                "expires": None,
                "group": None,
                "group_index": None,
                "retries": 0,
                "timelimit": [None, None],
                "root_id": task_id,
                "parent_id": None,
                "argsrepr": repr(args),
                "kwargsrepr": repr(sorted(kwargs)),  # names only: a view is long
                "origin": self.origin,
                "ignore_result": True,
            },
            "properties": {
                "correlation_id": task_id,
                "reply_to": "",
                "delivery_mode": 2,
                "delivery_info": {"exchange": "", "routing_key": queue},
                "priority": priority,
                "body_encoding": "base64",
                "delivery_tag": str(uuid.uuid4()),
            },
        }
        tracing.inject_into(message["headers"])  # the worker's task continues this trace
        await self.redis.lpush(f"{self.key_prefix}{queue_key(queue, priority)}", json.dumps(message))

    async def close(self) -> None:
        await self.redis.aclose()


class TableCore:
    def __init__(
        self,
        store: TableStore,
        hub: Hub,
        rules: RulesDirectory,
        bots: BotCatalog,
        bot_secret: str,
        celery_app,
        quotas: Quotas | None = None,
    ):
        self.store = store
        self.hub = hub
        self.rules = rules
        self.bots = bots
        self.bot_secret = bot_secret
        self.celery = celery_app
        self.publisher = TaskPublisher.for_app(celery_app)
        # Unless given, quotas that limit nothing.
        self.quotas = quotas or Quotas(store.redis, store.prefix, Limits(0, 0, 0, 0, 0))
        # Views of people who must decide, by (table, version, seat): see _keep_views.
        self.kept_views: dict[tuple[str, int, int], rules_pb2.GetViewResponse] = {}
        # Called with the record of a rated table that has just finished (gateway/ratings.py).
        self.on_rated_finish: Callable[[store_pb2.TableRecord], Awaitable[None]] | None = None

    # -- loading and authorising ---------------------------------------------------------

    async def load(
        self, table_id: str, request_key: RequestKey | None = None
    ) -> tuple[store_pb2.TableRecord, store_pb2.StoredResponse | None]:
        """The table's record and the stored response of ``request_key`` (or None)."""
        if not table_id:
            raise invalid("TABLE_ID_REQUIRED", "table_id is required")
        if len(table_id) > MAX_ID:
            raise invalid("BAD_TABLE_ID", f"a table_id has at most {MAX_ID} characters")
        try:
            return await self.store.load(table_id, request_key)
        except TableMissing:
            raise ApiError(grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND", f"no table {table_id!r}") from None

    @staticmethod
    def seat_of(record: store_pb2.TableRecord, token: str) -> int | None:
        digest = auth.digest(token)
        for seat, stored in enumerate(record.seat_token_sha256):
            if stored and hmac.compare_digest(stored, digest):
                return seat
        return None

    def bot_seat_digest(self, bot: str, table_id: str, seat: int) -> bytes:
        """SHA-256 of a bot seat's token, derived from that bot's own key."""
        return auth.digest(auth.bot_token(auth.bot_key(self.bot_secret, bot), table_id, seat))

    def authorise_seat(self, record: store_pb2.TableRecord, token: str) -> int:
        seat = self.seat_of(record, token)
        if seat is None:
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED, "TOKEN_NOT_FOR_TABLE", "this token holds no seat at this table"
            )
        return seat

    @staticmethod
    def require_status(record: store_pb2.TableRecord, wanted: int) -> None:
        status = record.table.status
        if status == wanted:
            return
        reasons = {
            gw.TABLE_STATUS_OPEN: ("TABLE_NOT_STARTED", "the table has not started"),
            gw.TABLE_STATUS_IN_PROGRESS: ("TABLE_IN_PROGRESS", "the table has already started"),
            gw.TABLE_STATUS_FINISHED: ("TABLE_FINISHED", "the game is over"),
        }
        reason, message = reasons[status]
        raise failed(reason, message, table_id=record.table.table_id)

    # -- the one commit path ---------------------------------------------------------------

    async def transact(
        self, table_id: str, change: Change, idempotency: Idempotency | None = None, recent: bool = False
    ) -> tuple[store_pb2.TableRecord, object]:
        """Load, change, commit with a compare-and-set; from a fresh load when another
        command won. Returns the committed record and what ``change`` returned (stored
        under the request id when it is a StoredResponse).

        ``recent``: first try from the record this gateway last loaded or committed for the
        table (TableStore.recent), without a load. The compare-and-set tells whether it was
        still the table's, and the commit script refuses a used request id whatever the
        record; should it be outdated, or the change fail on it (a seat that no longer
        decides, a token since revoked), the command starts again from a load, so it
        answers as it would have from one."""
        key = idempotency.key if idempotency else None
        attempts = 0
        while attempts < MAX_RETRIES:
            known = self.store.recent(table_id) if recent else None
            recent = False  # once at most
            from_recent = known is not None
            if known is not None:
                record, stored = known, None
            else:
                attempts += 1
                record, stored = await self.load(table_id, key)
            expected = record.table.version
            commit = Commit(record)
            try:
                result = await change(record, commit, stored)
            except Exception:
                if from_recent:
                    continue
                raise
            to_store = result if key and isinstance(result, store_pb2.StoredResponse) else None
            record = commit.finish()
            written: list[StoredEntry] | None = [] if self.hub.watching(self.store.channel(table_id)) else None
            try:
                commit.due_written = await self.store.commit(
                    record, expected, commit.entries, key, to_store, self._due_of(record), written
                )
            except VersionConflict:
                continue
            except TableMissing:
                if from_recent:
                    continue
                raise
            except RequestUsed as used:
                assert idempotency is not None
                idempotency.check(used.stored)
                raise Replay(await self.replayed(table_id, used.stored)) from None
            if written:  # watched here: its watchers get the entries now, with no read
                self.hub.deliver(self.store.channel(table_id), written)
            await self._after_commit(commit)
            return record, result
        raise ApiError(
            grpc.StatusCode.ABORTED,
            "CONTENTION",
            "the table changed too often; retry",
            retry_after=RETRY_CONTENTION_SECONDS,
            table_id=table_id,
        )

    async def replayed(
        self, table_id: str, stored: store_pb2.StoredResponse, record: store_pb2.TableRecord | None = None
    ) -> gw.SubmitActionResponse:
        """The response to a retried request, from its compact record: the table summary as
        the action left it, and the action's events as its seat saw them."""
        if record is None:
            record, _ = await self.load(table_id)
        table = gw.Table()
        table.CopyFrom(record.table)
        table.version, table.last_seq, table.status = stored.version, stored.last_seq, stored.status
        del table.deciding_seats[:]
        table.deciding_seats.extend(stored.deciding_seats)
        table.ClearField("decision_deadline")
        if stored.HasField("decision_deadline"):
            table.decision_deadline.CopyFrom(stored.decision_deadline)
        if stored.status != gw.TABLE_STATUS_FINISHED:
            table.ClearField("outcome")
        entries = await self.store.read_log(table_id, stored.first_seq - 1, stored.last_seq - stored.first_seq + 1)
        if stored.HasField("update_time"):  # a record written before the log kept every entry's time
            table.update_time.CopyFrom(stored.update_time)
        elif entries and (stamp := entries[0].time_ns) is not None:
            table.update_time.FromNanoseconds(stamp)
        events = [gw.TableEvent.FromString(data) for entry in entries if (data := entry.for_viewer(stored.seat))]
        return gw.SubmitActionResponse(table=table, events=events, replayed=True)

    async def _after_commit(self, commit: Commit) -> None:
        """Files a table whose status changed in its index, then wakes who must act."""
        table = commit.record.table
        metrics.count_commit(commit.record.table, commit.status_before, commit.entries)
        if commit.status_changed:
            await self._index(table.table_id, INDEX_OF_STATUS.get(table.status))
        commit.kept_view = await self.wake(
            commit.record, views=commit.views, keep=commit.keep_seat, due_written=commit.due_written
        )
        if commit.views and table.status == gw.TABLE_STATUS_IN_PROGRESS:
            self._keep_views(table, commit.views)
        if commit.status_changed and table.status == gw.TABLE_STATUS_FINISHED and table.rated and self.on_rated_finish:
            await self.on_rated_finish(commit.record)

    # -- game steps inside a change ----------------------------------------------------------

    def _apply_status(self, record: store_pb2.TableRecord, status: rules_pb2.GameStatus, commit: Commit) -> None:
        table = record.table
        del table.deciding_seats[:]
        table.deciding_seats.extend(status.deciding_seats)
        if status.finished:
            table.status = gw.TABLE_STATUS_FINISHED
            table.outcome.CopyFrom(status.outcome)
            reveal = gw.SeedReveal(seed=record.seed, salt=record.seed_salt)
            commit.public(game_finished=gw.GameFinished(outcome=status.outcome, seed_reveal=reveal)).end = True
        self._set_deadline(record)

    @staticmethod
    def _set_deadline(record: store_pb2.TableRecord) -> None:
        """A timed table gives the human seats that must decide now a common deadline."""
        table = record.table
        table.ClearField("decision_deadline")
        timed = table.decision_timer.seconds > 0 and table.status == gw.TABLE_STATUS_IN_PROGRESS
        if timed and any(table.seats[seat].kind == gw.SEAT_KIND_HUMAN for seat in table.deciding_seats):
            table.decision_deadline.FromNanoseconds(time.time_ns() + table.decision_timer.seconds * 10**9)

    async def _apply(
        self, record: store_pb2.TableRecord, seat: int, action: any_pb2.Any, commit: Commit
    ) -> rules_pb2.ApplyActionResponse:
        """Ask the rules service to apply one seat's action; put the result in the record.
        The views of the seats that must decide next come with it: a bot's for its task, a
        person's for the GetView that seat is about to ask."""
        seats = range(len(record.table.seats))
        try:
            applied = await self.rules.call(
                record.table.game_id,
                "ApplyAction",
                rules_pb2.ApplyActionRequest(state=record.state, seat=seat, action=action, view_seats=seats),
            )
        except ApiError as error:
            error.metadata.setdefault("seat", str(seat))
            raise
        record.state.CopyFrom(applied.state)
        commit.views = {seat_view.seat: seat_view.view for seat_view in applied.views}
        first = len(commit.entries)
        commit.game_events(list(applied.events))
        if len(commit.entries) == first:  # the action's own entry, even when nobody sees it
            commit.entries.append(LogEntry(spectator=b""))
        # Kept in the log for replays and for checking the game once it is over.
        commit.entries[first].action = store_pb2.SeatAction(seat=seat, action=action).SerializeToString()
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
        commit.public(
            table_started=gw.TableStarted(
                deciding_seats=response.status.deciding_seats, seed_commitment=table.seed_commitment
            )
        )
        commit.game_events(list(response.events))
        self._apply_status(record, response.status, commit)

    # -- wake-ups -----------------------------------------------------------------------------

    # How long past its expected time a pending task is waited for before the due sweep
    # (gateway/sweeper.py) wakes its table again; the gateway sets TAVOLA_TASK_GRACE_SECONDS.
    task_grace_seconds = 5.0

    async def wake(
        self,
        record: store_pb2.TableRecord,
        not_before: float | None = None,
        views: dict[int, rules_pb2.GetViewResponse] | None = None,
        keep: int | None = None,
        due_written: bool = False,
    ) -> bytes | None:
        """Enqueue a task per bot seat that must decide now, and a timer per human seat that
        must decide on a timed table. A bot's task carries the seat's view, exactly what
        GetView would answer that seat's token at this version, so the worker asks the
        gateway nothing before it submits. The sweeps call it too, with ``not_before``: the
        earliest time to look at the table again. ``views``: the bot seats' views the rules
        service sent with the applied action, by seat (the others are asked for). ``keep``:
        a bot seat whose view is returned instead of sent in a task (the caller plays it).

        The table's due time is written first (``due_written``: the commit wrote it, in the
        same script): should this gateway stop before the enqueue, or a worker die holding
        the task, the due sweep finds the table within seconds."""
        table = record.table
        if not due_written:
            await self._set_due(record, not_before)
        if table.status != gw.TABLE_STATUS_IN_PROGRESS:
            return None
        kept = None
        # A bot answers a person first: the tasks of all-bot tables wait behind theirs.
        people = any(info.kind == gw.SEAT_KIND_HUMAN for info in table.seats)
        priority = 0 if people else ALL_BOT_PRIORITY
        for seat in table.deciding_seats:
            info = table.seats[seat]
            if info.kind == gw.SEAT_KIND_BOT:
                args = [table.table_id, seat, table.version, info.bot]
                view = await self._bot_view(record, seat, views.get(seat) if views else None)
                if seat == keep and view is not None:
                    kept = view  # its due time is set: should the caller not play it, the sweep sends it
                    metrics.ENQUEUED.labels(DECIDE_TASK, "continued").inc()
                    continue
                kwargs = {"view": base64.b64encode(view).decode()} if view is not None else {}
                await self._publish(DECIDE_TASK, table.table_id, seat, queue_for(info.bot), args, kwargs, priority)
            elif table.HasField("decision_deadline"):
                countdown = max(0.0, nanos(table.decision_deadline) / 1e9 - time.time())
                task = {"args": [table.table_id, seat, table.version], "queue": TIMER_QUEUE, "countdown": countdown}
                await self._enqueue(EXPIRE_TASK, table.table_id, seat, **task)
        return kept

    def _due_of(self, record: store_pb2.TableRecord, not_before: float | None = None) -> object:
        """The table's due time to write (None: it waits on no task), or NO_DUE_WRITE."""
        due = due_time(record, self.task_grace_seconds)
        if due is None and record.table.status == gw.TABLE_STATUS_OPEN:
            return NO_DUE_WRITE  # an open table never waited on a task
        if due is not None and not_before is not None:
            due = max(due, not_before)
        return due

    async def _set_due(self, record: store_pb2.TableRecord, not_before: float | None) -> None:
        table = record.table
        due = self._due_of(record, not_before)
        if due is NO_DUE_WRITE:
            return
        assert due is None or isinstance(due, float)
        try:
            await self.store.set_due(table.table_id, due)
        except Exception:  # the command stands; the sweep's walk finds a table without a due time
            log.warning("due_time_failed", table_id=table.table_id, exc_info=True)

    async def _index(self, table_id: str, status: str | None) -> None:
        try:
            await self.store.index(table_id, status, time.time())
        except Exception:  # only the indexes: the commit stands
            log.warning("index_update_failed", table_id=table_id, exc_info=True)

    async def _bot_view(
        self, record: store_pb2.TableRecord, seat: int, view: rules_pb2.GetViewResponse | None = None
    ) -> bytes | None:
        """The GetViewResponse of a bot seat that must decide, serialized; None when the rules service
        does not answer (the worker then asks GetView itself). ``view``: the rules
        service's view of the seat at this state, when it came with the applied action."""
        table = record.table
        if view is None:
            try:
                request = rules_pb2.GetViewRequest(state=record.state, seat=seat)
                view = await self.rules.call(table.game_id, "GetView", request)
            except ApiError as error:
                log.warning("bot_view_failed", table_id=table.table_id, seat=seat, reason=error.reason)
                return None
        return view_response(table, seat, view, must_decide=True)

    async def _publish(
        self, name: str, table_id: str, seat: int, queue: str, args: list, kwargs: dict, priority: int = 0
    ) -> None:
        """A task on the event loop, straight onto its queue in the broker (Celery's
        message protocol 2, as ``send_task`` writes it); a broker this publisher cannot
        write to takes Celery's own path."""
        if self.publisher is None:
            await self._enqueue(name, table_id, seat, args=args, kwargs=kwargs, queue=queue, priority=priority)
            return
        try:
            await self.publisher.send(name, args, kwargs, queue, priority)
        except Exception:  # the command stands; the sweep enqueues the task again
            metrics.ENQUEUED.labels(name, "failed").inc()
            log.error("enqueue_failed", task=name, table_id=table_id, seat=seat, exc_info=True)
        else:
            metrics.ENQUEUED.labels(name, "ok").inc()

    async def _enqueue(self, name: str, table_id: str, seat: int, **options) -> None:
        try:
            await asyncio.to_thread(self.celery.send_task, name, **options)
        except Exception:  # the command stands; the sweep enqueues the task again
            metrics.ENQUEUED.labels(name, "failed").inc()
            log.error("enqueue_failed", task=name, table_id=table_id, seat=seat, exc_info=True)
        else:
            metrics.ENQUEUED.labels(name, "ok").inc()

    # -- commands -----------------------------------------------------------------------------

    async def create_table(
        self, request: gw.CreateTableRequest, client: Client | None = None
    ) -> tuple[store_pb2.TableRecord, str]:
        """A new table and its host token; ``client`` (gateway/quotas.py) is charged first."""
        await self.quotas.charge(CREATE, client)
        self.check_table_request(request)
        seed = draw_seed(request)
        # NewGame validates player count and options, and fills in the defaults.
        check = await self.rules.call(
            request.game_id,
            "NewGame",
            rules_pb2.NewGameRequest(player_count=request.player_count, options=dict(request.options), seed=seed),
        )
        bot_of: dict[int, str] = {}
        for bot_seat in request.bot_seats:
            if not 0 <= bot_seat.seat < request.player_count or bot_seat.seat in bot_of:
                raise invalid("BAD_SEAT", f"bot seat {bot_seat.seat} is not a free seat")
            bot_of[bot_seat.seat] = self.bots.check(request.game_id, bot_seat.bot)
        timer = request.decision_timer
        table_id = secrets.token_hex(8)
        salt = secrets.token_bytes(16)
        host_token = auth.new_token()
        table = gw.Table(
            table_id=table_id,
            game_id=request.game_id,
            player_count=request.player_count,
            options=dict(check.options),
            status=gw.TABLE_STATUS_OPEN,
            create_time=_now(),
            decision_timer=timer,
            replay_mode=request.replay_mode,
            seed_commitment=commitment(seed, salt),
            rated=request.rated,
        )
        record = store_pb2.TableRecord(
            table=table,
            seed=seed,
            seed_salt=salt,
            host_token_sha256=auth.digest(host_token),
            auto_start=request.auto_start,
        )
        for seat in range(request.player_count):
            bot = bot_of.get(seat)
            if bot is None:
                record.table.seats.add(seat=seat, kind=gw.SEAT_KIND_HUMAN)
                record.seat_token_sha256.append(b"")
            else:
                name = f"{bot} bot"
                record.table.seats.add(seat=seat, kind=gw.SEAT_KIND_BOT, bot=bot, taken=True, display_name=name)
                record.seat_token_sha256.append(self.bot_seat_digest(bot, table_id, seat))
        commit = Commit(record)
        for seat, bot in sorted(bot_of.items()):
            commit.public(seat_taken=gw.SeatTaken(seat=seat, kind=gw.SEAT_KIND_BOT, display_name=f"{bot} bot"))
        if request.auto_start and len(bot_of) == request.player_count:
            await self._start_game(record, commit, dealt=check)
        # Version 0: a new key, no race.
        commit.due_written = await self.store.commit(commit.finish(), 0, commit.entries, due=self._due_of(record))
        await self._after_commit(commit)
        with bound(table_id=table_id):
            log.info(
                "table_created",
                game=request.game_id,
                players=request.player_count,
                bots=len(bot_of),
                replay_mode=request.replay_mode,
            )
        return record, host_token

    @staticmethod
    def check_table_request(request: gw.CreateTableRequest) -> None:
        """Bounds on a new table's settings; the rules service checks their meaning."""
        if len(request.game_id) > MAX_ID:
            raise invalid("UNKNOWN_GAME", f"a game_id has at most {MAX_ID} characters")
        if len(request.options) > MAX_OPTIONS:
            raise invalid("BAD_OPTION", f"at most {MAX_OPTIONS} options")
        for name, value in request.options.items():
            if len(name) > MAX_ID or len(value) > MAX_OPTION_VALUE:
                raise invalid("BAD_OPTION", f"option names have at most {MAX_ID} characters, values {MAX_OPTION_VALUE}")
        if len(request.bot_seats) > max(request.player_count, 0):
            raise invalid("BAD_SEAT", "more bot seats than seats")
        if any(len(bot_seat.bot) > MAX_BOT for bot_seat in request.bot_seats):
            raise invalid("UNKNOWN_BOT", f"a bot is named in at most {MAX_BOT} characters")
        if request.rated and request.replay_mode:
            raise invalid("RATED_REPLAY", "a rated table is never in replay mode: its creator would know every secret")
        timer = request.decision_timer
        if not 0 <= timer.seconds <= MAX_TIMER_SECONDS or (
            timer.seconds > 0 and timer.policy == gw.TIMEOUT_POLICY_UNSPECIFIED
        ):
            raise invalid("BAD_TIMER", f"a decision timer needs 0 to {MAX_TIMER_SECONDS} seconds and a policy")

    async def take_seat(
        self,
        table_id: str,
        seat_wanted: int | None,
        display_name: str,
        client: Client | None = None,
        player_id: str = "",
    ) -> tuple[int, str, store_pb2.TableRecord]:
        """Seat ``seat_wanted`` (None: the first free one); returns the seat, its token and the
        table. ``player_id``: the seat is that player's (gateway/players.py), else a guest's."""
        await self.quotas.charge(SEATS, client)
        if len(display_name) > MAX_DISPLAY_NAME:
            raise invalid("BAD_DISPLAY_NAME", f"at most {MAX_DISPLAY_NAME} characters")
        token = auth.new_token()
        taken: list[int] = []

        async def change(record: store_pb2.TableRecord, commit: Commit, _stored) -> None:
            self.require_status(record, gw.TABLE_STATUS_OPEN)
            seats = record.table.seats
            if record.table.rated and not player_id:
                raise ApiError(
                    grpc.StatusCode.UNAUTHENTICATED,
                    "PLAYER_REQUIRED",
                    "a rated table seats players: send a player token",
                )
            if player_id and any(s.player_id == player_id for s in seats):
                raise failed("ALREADY_SEATED", "this player already holds a seat at this table")
            if seat_wanted is not None:
                if not 0 <= seat_wanted < len(seats):
                    raise invalid("BAD_SEAT", f"no seat {seat_wanted}")
                seat = seats[seat_wanted]
                if seat.kind == gw.SEAT_KIND_BOT:
                    raise failed("SEAT_IS_BOT", "a bot plays that seat")
                if seat.taken:
                    raise failed("SEAT_TAKEN", "that seat is taken")
            else:
                free = next((s for s in seats if not s.taken), None)
                if free is None:
                    raise failed("TABLE_FULL", "every seat is taken")
                seat = free
            seat.taken = True
            seat.display_name = display_name or f"player {seat.seat}"
            seat.player_id = player_id
            record.seat_token_sha256[seat.seat] = auth.digest(token)
            commit.public(
                seat_taken=gw.SeatTaken(seat=seat.seat, kind=gw.SEAT_KIND_HUMAN, display_name=seat.display_name)
            )
            taken[:] = [seat.seat]
            if record.auto_start and all(s.taken for s in seats):
                await self._start_game(record, commit)

        record, _ = await self.transact(table_id, change)
        with bound(table_id=table_id, seat=taken[0]):
            log.info("seat_taken")
        return taken[0], token, record

    async def start_table(self, table_id: str, token: str) -> store_pb2.TableRecord:
        """The host or a seated player starts a table whose seats are all taken."""

        async def change(record: store_pb2.TableRecord, commit: Commit, _stored) -> None:
            if not hmac.compare_digest(record.host_token_sha256, auth.digest(token)):
                self.authorise_seat(record, token)
            self.require_status(record, gw.TABLE_STATUS_OPEN)
            if not all(seat.taken for seat in record.table.seats):
                raise failed("SEATS_OPEN", "every seat must be taken first")
            await self._start_game(record, commit)

        record, _ = await self.transact(table_id, change)
        with bound(table_id=table_id):
            log.info("table_started")
        return record

    async def submit(
        self,
        table_id: str,
        token: str,
        action: any_pb2.Any,
        expected_version: int | None,
        request_id: str,
        continue_as_bot: bool = False,
    ) -> gw.SubmitActionResponse:
        """One seat's action. The same request id with the same action answers the first
        response, whatever ``expected_version`` says and however many copies race.

        ``continue_as_bot``: the caller, a bot seat's worker, would play the next decision of
        a seat of the same bot: when the action leaves one to decide, its view is answered
        in ``next_decision`` and no task is sent for it (a bot worker thus plays several
        decisions a task, without a trip through the broker each). Its due time is set as
        for a task: should the worker not play it, the due sweep sends it."""
        if len(request_id) > MAX_REQUEST_ID:
            raise invalid("BAD_REQUEST_ID", f"at most {MAX_REQUEST_ID} characters")
        if not action.type_url:
            raise invalid("ACTION_REQUIRED", "action is required")
        idempotency = None
        if request_id:  # request ids are scoped to the caller's token
            idempotency = Idempotency(key=RequestKey.of(auth.digest(token), request_id))
        applied_label: list[str] = []
        seat_of: list[int] = []
        commits: list[Commit] = []

        response = gw.SubmitActionResponse()

        async def change(record: store_pb2.TableRecord, commit: Commit, stored) -> store_pb2.StoredResponse | None:
            seat = self.authorise_seat(record, token)
            command = hashlib.sha256(f"{seat}:".encode() + action.SerializeToString()).digest()
            if idempotency is not None:
                idempotency.command_sha256 = command
                if stored is not None:
                    idempotency.check(stored)
                    raise Replay(await self.replayed(table_id, stored, record))
            self.require_status(record, gw.TABLE_STATUS_IN_PROGRESS)
            if expected_version is not None and expected_version != record.table.version:
                raise ApiError(
                    grpc.StatusCode.ABORTED,
                    "VERSION_MISMATCH",
                    f"the table is at version {record.table.version}, not {expected_version}",
                    expected_version=expected_version,
                    current_version=record.table.version,
                    seat=seat,
                )
            applied = await self._apply(record, seat, action, commit)
            applied_label[:] = [applied.action_label]
            seat_of[:] = [seat]
            commits[:] = [commit]
            if continue_as_bot:
                commit.keep_seat = self._next_of_same_bot(record, seat)
            commit.finish()
            response.Clear()  # a change that runs again (from a load) answers afresh
            response.table.CopyFrom(record.table)
            commit.seen_by(seat, response.events)
            if idempotency is None:
                return None
            return compact_response(command, seat, record.table, len(commit.entries))

        try:
            record, _ = await self.transact(table_id, change, idempotency, recent=True)
        except Replay as replay:
            return replay.response
        # Debug only: an info line per action was a noticeable share of the gateway's CPU.
        log.debug("action_applied", seat=seat_of[0], label=applied_label[0], version=record.table.version)
        if commits and commits[0].kept_view is not None:
            response.next_decision.MergeFromString(commits[0].kept_view)
        return response

    @staticmethod
    def _next_of_same_bot(record: store_pb2.TableRecord, seat: int) -> int | None:
        """A seat of the bot that holds ``seat`` that must decide now (the first), if any."""
        table = record.table
        own = table.seats[seat]
        if own.kind != gw.SEAT_KIND_BOT or table.status != gw.TABLE_STATUS_IN_PROGRESS:
            return None
        for other in table.deciding_seats:
            info = table.seats[other]
            if info.kind == gw.SEAT_KIND_BOT and info.bot == own.bot:
                return other
        return None

    async def expire_decision(
        self, table_id: str, seat: int, version: int, token: str
    ) -> tuple[bool, store_pb2.TableRecord]:
        """Applies the table's timeout policy to an overdue decision of a human seat; does
        nothing if the seat decided in time or its deadline has not passed."""
        if not hmac.compare_digest(token, auth.timer_token(self.bot_secret, table_id)):
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED, "NOT_A_TIMER", "only the platform's timers expire decisions"
            )

        async def change(record: store_pb2.TableRecord, commit: Commit, _stored) -> None:
            table = record.table
            overdue = (
                table.status == gw.TABLE_STATUS_IN_PROGRESS
                and table.version == version
                and seat in table.deciding_seats
                and table.seats[seat].kind == gw.SEAT_KIND_HUMAN
                and table.decision_timer.seconds > 0
                and table.HasField("decision_deadline")
                and nanos(table.decision_deadline) <= time.time_ns()
            )
            if not overdue:
                raise NothingToDo
            policy = table.decision_timer.policy
            entry = commit.public(decision_expired=gw.DecisionExpired(seat=seat, policy=policy))
            if policy == gw.TIMEOUT_POLICY_BOT_TAKES_SEAT:
                entry.revoked_seat = seat
                table.seats[seat].kind = gw.SEAT_KIND_BOT
                table.seats[seat].bot = "random"
                record.seat_token_sha256[seat] = self.bot_seat_digest("random", table.table_id, seat)
                self._set_deadline(record)
                return
            legal = await self.rules.call(
                table.game_id, "ListLegalActions", rules_pb2.ListLegalActionsRequest(state=record.state, seat=seat)
            )
            chooser = random.Random(f"{table.table_id}:{seat}:{table.version}")
            await self._apply(record, seat, chooser.choice(list(legal.legal_actions)).action, commit)

        try:
            record, _ = await self.transact(table_id, change)
            expired = True
        except NothingToDo:
            record, _ = await self.load(table_id)
            expired = False
        with bound(table_id=table_id, seat=seat):
            log.info("decision_timer", expired=expired, version=version)
        return expired, record

    # -- reads ----------------------------------------------------------------------------------

    def _keep_views(self, table: gw.Table, views: dict[int, rules_pb2.GetViewResponse]) -> None:
        """Keeps the views of the people who must decide at the table's new version, which
        the rules service sent with the applied action, for their next GetView."""
        kept = self.kept_views
        for seat, view in views.items():
            if table.seats[seat].kind == gw.SEAT_KIND_HUMAN:
                while len(kept) >= KEPT_VIEWS:
                    del kept[next(iter(kept))]  # the oldest
                kept[(table.table_id, table.version, seat)] = view

    async def seat_view(self, table_id: str, token: str) -> bytes:
        """The token's seat's GetViewResponse, serialized (grpc sends it as it is)."""
        record, _ = await self.load(table_id)
        seat = self.authorise_seat(record, token)
        if record.table.status == gw.TABLE_STATUS_OPEN:
            self.require_status(record, gw.TABLE_STATUS_IN_PROGRESS)
        # The seat's view at this very version, if the command that made it brought it (the
        # version names the state: every commit changes it, through one compare-and-set).
        view = self.kept_views.pop((table_id, record.table.version, seat), None)
        if view is None:
            view = await self.rules.call(
                record.table.game_id, "GetView", rules_pb2.GetViewRequest(state=record.state, seat=seat)
            )
        else:
            self.kept_views[(table_id, record.table.version, seat)] = view  # asked again: still this version's
        return view_response(record.table, seat, view, must_decide=seat in record.table.deciding_seats)

    async def table(self, table_id: str) -> gw.GetTableResponse:
        record, _ = await self.load(table_id)
        response = gw.GetTableResponse(table=record.table)
        if record.table.status != gw.TABLE_STATUS_OPEN:
            view = await self.rules.call(record.table.game_id, "GetView", rules_pb2.GetViewRequest(state=record.state))
            response.spectator_view.CopyFrom(view.view)
        return response

    async def list_tables(
        self, status: gw.TableStatus, game_id: str, page_size: int, page_token: str
    ) -> gw.ListTablesResponse:
        status = status or gw.TABLE_STATUS_OPEN
        index = INDEX_OF_STATUS.get(status)
        if index is None:
            raise invalid("BAD_STATUS", "list open or in-progress tables")
        if len(game_id) > MAX_ID:
            raise invalid("UNKNOWN_GAME", f"a game_id has at most {MAX_ID} characters")
        size = min(page_size or 20, MAX_PAGE_SIZE)
        token_ok = not page_token or (page_token.isascii() and page_token.isdigit() and len(page_token) <= 6)
        if size < 0 or not token_ok or int(page_token or 0) > MAX_PAGE_OFFSET:
            raise invalid("BAD_PAGE", "page_size >= 0 and a page_token from a response")
        offset = int(page_token or 0)
        table_ids = await self.store.listed(index, offset, size)
        response = gw.ListTablesResponse()
        for table_id, record in zip(table_ids, await self.store.load_many(table_ids), strict=True):
            if record is None:  # expired since it was filed
                await self.store.index(table_id, None, 0)
            elif record.table.status == status and game_id in ("", record.table.game_id):
                response.tables.append(record.table)
        if len(table_ids) == size:
            response.next_page_token = str(offset + size)
        return response

    async def stream(
        self,
        table_id: str,
        after_seq: int,
        token: str | None,
        send: Callable[[bytes], Awaitable[None]],
        client: Client | None = None,
        batched: bool = False,
    ) -> None:
        """Sends (``send``) the log from after_seq on, then live, as the token's seat sees
        it (None: a spectator); ends after the game's last event, at once when after_seq is
        at or past it. It holds one of ``client``'s open streams, unless a bot's seat watches.
        Each event goes serialized as a stream response (``StoredEntry.framed_for_viewer``),
        so the watchers of a table share one serialization of it. ``batched``: each
        response holds every event known at once (up to BATCH_EVENTS), in its ``events``:
        a command's entries go to each watcher in one message, one send, instead of one
        after the other."""
        record, _ = await self.load(table_id)
        seat = None if token is None else self.authorise_seat(record, token)
        last_seq = record.table.last_seq
        if record.table.status == gw.TABLE_STATUS_FINISHED and after_seq >= last_seq:
            return
        if not 0 <= after_seq <= last_seq:
            raise invalid(
                "BAD_AFTER_SEQ", f"after_seq runs from 0 to the table's last_seq ({last_seq})", last_seq=last_seq
            )
        channel = self.store.channel(table_id)

        async def read(after: int) -> list[StoredEntry]:
            return await self.store.read_log(table_id, after, READ_PAGE)

        def make(entries: list[StoredEntry]) -> tuple[bytes, int, bool, bool]:
            """A batched response of ``entries`` as ``seat`` sees them, up to the game's end,
            a revocation of the seat or BATCH_EVENTS: (its bytes, b'' when the seat sees
            none of them; the last seq it covers; whether that entry ends the stream, and
            whether it revokes the seat)."""
            parts: list[bytes] = []
            for entry in entries:
                data = entry.framed_in_batch(seat)
                if data:
                    parts.append(data)
                if entry.is_end or entry.revokes(seat) or len(parts) >= BATCH_EVENTS:
                    break
            joined = parts[0] if len(parts) == 1 else b"".join(parts)
            return joined, entry.seq, entry.is_end, entry.revokes(seat)

        if seat is not None and record.table.seats[seat].kind == gw.SEAT_KIND_BOT:
            client = None  # the platform's own bots are never limited
        with self.quotas.stream(client):
            await self.hub.join(channel)
            try:
                last = after_seq
                while True:
                    batch = self.hub.batch_after(channel, last, seat, make) if batched else None
                    if batch is None:
                        # Shared with every watcher of the table on this gateway: one read per event.
                        entries, generation = await self.hub.entries_after(channel, last, read)
                        if batched and entries:  # behind the buffer: its own read
                            batch = make(entries)
                    if batch is not None:
                        data, last, end, revoked = batch
                        if data:
                            await send(data)
                        if end:
                            return
                        if revoked:
                            raise ApiError(
                                grpc.StatusCode.PERMISSION_DENIED, "TOKEN_REVOKED", "a bot has taken this seat"
                            )
                        continue
                    for entry in entries:
                        last = entry.seq
                        data = entry.framed_for_viewer(seat)
                        if data:
                            await send(data)
                        if entry.is_end:
                            return
                        if entry.revokes(seat):
                            raise ApiError(
                                grpc.StatusCode.PERMISSION_DENIED, "TOKEN_REVOKED", "a bot has taken this seat"
                            )
                    if not entries:
                        await self.hub.wait(channel, generation, WATCH_POLL_SECONDS)
            finally:
                await self.hub.leave(channel)

    async def replay(self, table_id: str, seat: int | None, token: str | None) -> gw.GetReplayResponse:
        """The log as ``seat`` (None: a spectator) saw it, with the actions it may know:
        its own, and every one once the game is over. While the game runs a seat's replay
        needs that seat's token."""
        record, _ = await self.load(table_id)
        table = record.table
        if seat is not None and not 0 <= seat < len(table.seats):
            raise invalid("BAD_SEAT", f"no seat {seat}")
        finished = table.status == gw.TABLE_STATUS_FINISHED
        if seat is not None and not finished:
            if token is None:
                raise ApiError(
                    grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING", "a seat's replay needs its token until the end"
                )
            if self.seat_of(record, token) != seat:
                raise ApiError(
                    grpc.StatusCode.PERMISSION_DENIED, "TOKEN_NOT_FOR_TABLE", "this token does not hold that seat"
                )
        response = gw.GetReplayResponse(table=table)
        for entry in await self.read_whole_log(table_id, table.last_seq):
            step = response.steps.add(seq=entry.seq)
            data = entry.for_viewer(seat)
            if data:
                step.event.ParseFromString(data)
            if entry.action:
                taken = store_pb2.SeatAction.FromString(entry.action)
                if finished or taken.seat == seat:
                    step.actor = taken.seat
                    step.action.CopyFrom(taken.action)
        if table.status != gw.TABLE_STATUS_OPEN:
            view = await self.rules.call(
                table.game_id, "GetView", rules_pb2.GetViewRequest(state=record.state, seat=seat)
            )
            response.view.CopyFrom(view.view)
        return response

    async def read_whole_log(self, table_id: str, last_seq: int) -> list[StoredEntry]:
        entries: list[StoredEntry] = []
        while not entries or entries[-1].seq < last_seq:
            page = await self.store.read_log(table_id, entries[-1].seq if entries else 0)
            if not page:
                break
            entries += page
        return entries

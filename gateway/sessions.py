"""A seat's session at a table (tavola.gateway.v1.SessionService): one stream carries the
seat's actions in, and pushes after every command at the table the events the seat may
see and its new view (a ``PlayResponse``). A move costs one message in and one out per
viewer: no GetView, no call a move, and the token is checked once, as the stream opens
(each action is then checked against the table's record, as every command is).

The session is a batched WatchTable of its seat (``gateway/streams.py``): it takes its
events from the table's shared buffer on this gateway (``gateway/hub.py``), the same bytes
for every stream of that seat, and writes each update out of parts already serialized (its
view's bytes, the events' bytes). Its view comes with the commit: while a session is open
here, each command at the table asks the rules service for the views of the session's
seat (``TableCore.session_seats``), kept for it (``TableReads.keep_views``); a command
made on another gateway, or a game's start, leaves it to a GetView of the rules service.

One action is worked on at a time; the updates of other seats' commands wait while it is,
so that the action's answer is the update that ends with its own command's events (any
events before them in it too): every update follows on from the last, in seq order.
"""

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import structlog

from common import shapes
from common.errors import invalid
from common.logging import bound
from gateway.commands import TableCore
from gateway.framing import varint
from gateway.handlers import _failure, _log_refusal, require_token
from gateway.hub import READ_PAGE
from gateway.locale import reading_in
from gateway.log_record import StoredEntry
from gateway.quotas import client_of
from gateway.reads import view_response
from gateway.streams import WATCH_POLL_SECONDS, Batch, batch_of
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import sessions_pb2 as sessions

log = structlog.get_logger()

# The updates written ahead of a client that reads none: the session then waits for it.
UPDATES_AHEAD = 8


def _length_delimited(tag: bytes, data: bytes) -> bytes:
    return tag + varint(len(data)) + data


def update_bytes(view: bytes | None, events: bytes, answers: int = 0, replayed: bool = False) -> bytes:
    """A PlayResponse, serialized from its parts: ``events`` already framed as its
    ``repeated TableEvent events = 2`` (``batch_of``), ``view`` a GetViewResponse's bytes."""
    parts = [_length_delimited(b"\x0a", view) if view is not None else b"", events]
    if answers:
        parts.append(b"\x18" + varint(answers))
    if replayed:
        parts.append(b"\x28\x01")
    return b"".join(parts)


class SeatSession:
    """One open session: its seat at its table, and the last seq it has sent."""

    def __init__(self, core: TableCore, table_id: str, seat: int, token: str, after_seq: int):
        self.core = core
        self.table_id = table_id
        self.seat = seat
        self.token = token
        self.sent = after_seq
        self.channel = core.store.channel(table_id)

    async def _read(self, after: int) -> list[StoredEntry]:
        return await self.core.store.read_log(self.table_id, after, READ_PAGE)

    def _make(self, entries: list[StoredEntry]) -> Batch:
        return batch_of(entries, self.seat)

    async def _next_batch(self, until: int) -> Batch | None:
        """The next batch after what was sent; None when nothing more is known and ``until``
        (the last seq of the session's own command, to be answered) is sent."""
        hub = self.core.hub
        batch = hub.batch_after(self.channel, self.sent, self.seat, self._make)
        if batch is not None:
            return batch
        entries, _ = await hub.entries_after(self.channel, self.sent, self._read)
        if not entries and self.sent < until:  # committed, not yet in the buffer: read it
            entries = await self._read(self.sent)
        return self._make(entries) if entries else None

    async def _view_at(self, last_seq: int) -> bytes | None:
        """The seat's view once the log ends at ``last_seq``; None when the table is past
        it (the next update carries the view)."""
        core = self.core
        record = core.session_records.get(self.table_id)
        if record is None or record.table.last_seq < last_seq:
            record, _ = await core.reads.load(self.table_id)
            core.session_records[self.table_id] = record
        table = record.table
        if table.last_seq != last_seq or table.status == gw.TABLE_STATUS_OPEN:
            return None  # more events follow, or no game is dealt yet
        # Kept from the command here, else (another gateway's, or the game's start) asked.
        view, phrased = await core.reads.view_of(record, self.seat)
        return view_response(table, self.seat, view, self.seat in table.deciding_seats, phrased)

    async def push(self, send: Callable[[bytes], Coroutine[Any, Any, None]], until: int = 0, answers: int = 0) -> bool:
        """Sends the updates of what the table's log holds past what was sent, the last with
        the seat's view, and the first that reaches ``until`` answering ``answers``.
        Returns whether the game is over (its last event sent)."""
        while (batch := await self._next_batch(until)) is not None:
            events, last, end, revoked = batch
            if revoked:  # the token must still hold the seat before anything of it goes out
                await self.core.streams.check_token(self.table_id, self.seat, self.token)
            self.sent = last
            view = await self._view_at(last)
            answering = answers if answers and last >= until else 0
            if events or view is not None or answering:
                await send(update_bytes(view, events, answering))
                if answering:
                    answers = 0
            if end:
                return True
        return False

    async def act(self, message: sessions.SessionAction, send: Callable[[bytes], Coroutine[Any, Any, None]]) -> bool:
        """One action, answered by the update that ends with its command (or by its
        refusal); whether the game is over."""
        expected = message.expected_version if message.HasField("expected_version") else None
        try:
            if message.request_id:
                shapes.request_id(message.request_id)
            with bound(request_id=message.request_id[:128] or None):
                response = await self.core.submit(
                    self.table_id, self.token, message.action, expected, message.request_id, with_view=False
                )
        except Exception as error:
            failure = _failure(error, "SubmitAction", None)
            failure.metadata.setdefault("table_id", self.table_id)
            _log_refusal("Play", failure)
            reply = sessions.PlayResponse(answers=message.id, error=failure.to_rpc_status().SerializeToString())
            await send(reply.SerializeToString())
            # Refused, most often because the table moved on meanwhile: what moved it goes out
            # now, as the wake-up it made was spent while this action was worked on.
            return await self.push(send)
        if response.replayed:  # its events went in an earlier update: the view now
            view = await self.core.reads.seat_view(self.table_id, self.token)
            await send(update_bytes(view, b"", message.id, replayed=True))
            return False
        return await self.push(send, until=response.table.last_seq, answers=message.id or 0)


class SessionServicer:
    """tavola.gateway.v1.SessionService: Play (both ways) and Follow (updates only)."""

    def __init__(self, core: TableCore):
        self.core = core

    async def Play(self, requests: AsyncIterator[sessions.PlayRequest], context) -> AsyncIterator[bytes]:
        token = require_token(context)
        first = await anext(requests, None)
        if first is None:
            return
        if first.WhichOneof("kind") != "open":
            raise invalid("SESSION_NOT_OPEN", "a session's first message opens it: set open")
        updates: asyncio.Queue[bytes] = asyncio.Queue(UPDATES_AHEAD)
        with reading_in(context):  # the session's task reads in the caller's language
            session = asyncio.get_running_loop().create_task(
                self._serve(first.open, token, client_of(context), updates.put, requests)
            )
        try:
            while True:
                getting = asyncio.ensure_future(updates.get())
                await asyncio.wait((getting, session), return_when=asyncio.FIRST_COMPLETED)
                if getting.done():
                    yield getting.result()
                    continue
                getting.cancel()
                while not updates.empty():  # the last updates, sent before the end
                    yield updates.get_nowait()
                session.result()  # raises the session's failure: the stream's status
                return
        finally:
            session.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await session

    async def Follow(self, request: sessions.FollowRequest, context) -> None:
        with reading_in(context):
            await self._serve(request, require_token(context), client_of(context), context.write, None)

    async def _serve(
        self,
        opening: sessions.FollowRequest,
        token: str,
        client,
        send: Callable[[bytes], Coroutine[Any, Any, None]],
        actions: AsyncIterator[sessions.PlayRequest] | None,
    ) -> None:
        """Opens the session (its token checked once, against the table's record), sends
        the backlog and the view, then the updates of every command at the table and the
        answers to ``actions`` (None: Follow), until the game's end."""
        core = self.core
        shapes.check_request(opening)
        table_id = opening.table_id
        record, _ = await core.reads.load(table_id)
        seat = core.reads.authorise_seat(record, token)
        last_seq = record.table.last_seq
        if not 0 <= opening.after_seq <= last_seq:
            raise invalid(
                "BAD_AFTER_SEQ", f"after_seq runs from 0 to the table's last_seq ({last_seq})", last_seq=last_seq
            )
        human = record.table.seats[seat].kind == gw.SEAT_KIND_HUMAN
        if not human:
            client = None  # the platform's own bots are never limited
        session = SeatSession(core, table_id, seat, token, opening.after_seq)
        with core.quotas.stream(client), self._registered(table_id, seat), bound(table_id=table_id, seat=seat):
            # A player with the table open is at it: no push of its turns (gateway/turns.py).
            async with core.streams.present(table_id, seat if human else None):
                await core.hub.join(session.channel)
                try:
                    await self._run(session, record, send, actions)
                finally:
                    await core.hub.leave(session.channel)

    @contextlib.contextmanager
    def _registered(self, table_id: str, seat: int):
        """While the block runs, the table's commands here bring the seat's view."""
        seats = self.core.session_seats.setdefault(table_id, Counter())
        seats[seat] += 1
        try:
            yield
        finally:
            seats[seat] -= 1
            if seats[seat] <= 0:
                del seats[seat]
            if not seats and self.core.session_seats.get(table_id) is seats:
                del self.core.session_seats[table_id]
                self.core.session_records.pop(table_id, None)

    async def _run(self, session: SeatSession, record, send, actions) -> None:
        core = self.core
        if record.table.status == gw.TABLE_STATUS_FINISHED and session.sent >= record.table.last_seq:
            return  # nothing more to tell (as WatchTable)
        # The first update: the backlog, and the view now (even with no event to tell).
        if session.sent == record.table.last_seq:
            core.session_records.setdefault(session.table_id, record)
            await send(update_bytes(await session._view_at(session.sent), b""))
        if await session.push(send):
            return
        reading = asyncio.ensure_future(anext(actions, None)) if actions is not None else None
        try:
            while True:
                generation = core.hub.generation(session.channel)
                changed = asyncio.ensure_future(core.hub.wait(session.channel, generation, WATCH_POLL_SECONDS))
                waited = {changed} if reading is None else {changed, reading}
                await asyncio.wait(waited, return_when=asyncio.FIRST_COMPLETED)
                if reading is not None and reading.done():
                    changed.cancel()
                    message = reading.result()  # a malformed message fails the stream here
                    if message is None:  # the client closed its side: updates only, from now
                        reading = None
                    else:
                        reading = asyncio.ensure_future(anext(actions, None))
                        if message.WhichOneof("kind") != "action":
                            raise invalid("SESSION_ALREADY_OPEN", "the session is open: send actions")
                        if await session.act(message.action, send):
                            return
                        continue
                if await session.push(send):
                    return
        finally:
            if reading is not None:
                reading.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reading

"""WatchTable and SpectateTable: a table's log as one viewer sees it, then live.

The watchers of a table on this gateway share its reads and its serialized events
(``gateway/hub.py``): one read of the log per event, one serialization per viewer.
"""

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager

import grpc

from common.errors import ApiError, invalid
from gateway.hub import READ_PAGE, Hub
from gateway.log_record import StoredEntry
from gateway.quotas import Client, Quotas
from gateway.reads import TableReads
from tavola.gateway.v1 import gateway_pb2 as gw

WATCH_POLL_SECONDS = 10.0
# The most events one batched stream response holds (a backlog goes in several).
BATCH_EVENTS = 100
# The most entries a stream behind the table's shared buffer (its backlog, or a client
# slow to read) reads at once. Those entries are its own until its client takes them: 200
# unread streams of a long table's backlog took the gateway 160 MB with a page of
# READ_PAGE (500), 16 MB with this (tests/integration/test_web_stream_memory.py).
BEHIND_PAGE = 16


@contextlib.asynccontextmanager
async def _nowhere(table_id: str, seat: int | None) -> AsyncIterator[None]:
    yield


# A batched response: (its bytes, b'' when the viewer sees none of its entries; the last
# seq it covers; whether that entry ends the stream, and whether it revokes the seat).
Batch = tuple[bytes, int, bool, bool]


def batch_of(entries: list[StoredEntry], seat: int | None) -> Batch:
    """A batched response of ``entries`` as ``seat`` sees them, up to the game's end, a
    revocation of the seat or BATCH_EVENTS (its events: ``repeated TableEvent events = 2``).
    The hub keeps it for every batched stream of the same viewer at the same seq, WatchTable's
    and a session's alike (``Hub.batch_after``)."""
    parts: list[bytes] = []
    for entry in entries:
        data = entry.framed_in_batch(seat)
        if data:
            parts.append(data)
        if entry.is_end or entry.revokes(seat) or len(parts) >= BATCH_EVENTS:
            break
    joined = parts[0] if len(parts) == 1 else b"".join(parts)
    return joined, entry.seq, entry.is_end, entry.revokes(seat)


class TableStreams:
    def __init__(self, reads: TableReads, hub: Hub, quotas: Quotas):
        self.reads = reads
        self.store = reads.store
        self.hub = hub
        self.quotas = quotas
        # Around a person's stream: their player is at the table (gateway/turns.py).
        self.present: Callable[[str, int | None], AbstractAsyncContextManager[None]] = _nowhere

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
        record, _ = await self.reads.load(table_id)
        seat = None if token is None else self.reads.authorise_seat(record, token)
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

        async def read_behind(after: int) -> list[StoredEntry]:
            return await self.store.read_log(table_id, after, BEHIND_PAGE)

        def make(entries: list[StoredEntry]) -> Batch:
            return batch_of(entries, seat)

        human = seat is not None and record.table.seats[seat].kind == gw.SEAT_KIND_HUMAN
        if seat is not None and not human:
            client = None  # the platform's own bots are never limited
        with self.quotas.stream(client):
            async with self.present(table_id, seat if human else None):
                await self.hub.join(channel)
                try:
                    last = after_seq
                    while True:
                        batch = self.hub.batch_after(channel, last, seat, make) if batched else None
                        if batch is None:
                            # Shared with every watcher of the table on this gateway: one read per event.
                            entries, generation = await self.hub.entries_after(channel, last, read, read_behind)
                            if batched and entries:  # behind the buffer: its own read
                                batch = make(entries)
                        if batch is not None:
                            data, last, end, revoked = batch
                            if data:
                                await send(data)
                            if end:
                                return
                            if revoked:
                                await self.check_token(table_id, seat, token)
                            continue
                        for entry in entries:
                            last = entry.seq
                            data = entry.framed_for_viewer(seat)
                            if data:
                                await send(data)
                            if entry.is_end:
                                return
                            if entry.revokes(seat):
                                await self.check_token(table_id, seat, token)
                        if not entries:
                            await self.hub.wait(channel, generation, WATCH_POLL_SECONDS)
                finally:
                    await self.hub.leave(channel)

    async def check_token(self, table_id: str, seat: int | None, token: str | None) -> None:
        """At a log entry that revokes the stream's seat's token (a bot took the seat, its
        player rejoined it from another device or signed out everywhere): ends the stream
        unless its token still holds the seat (a stream opened with the rejoined token,
        reading the log from before the rejoin, goes on). The table's record says which
        token holds the seat now."""
        record, _ = await self.reads.load(table_id)
        if seat is None or token is None or self.reads.seat_of(record, token) == seat:
            return
        if record.table.seats[seat].kind == gw.SEAT_KIND_BOT:
            raise ApiError(grpc.StatusCode.PERMISSION_DENIED, "TOKEN_REVOKED", "a bot has taken this seat", seat=seat)
        if not record.seat_token_sha256[seat]:  # no token holds it (gateway/players.py)
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                "SEAT_SIGNED_OUT",
                "this seat's player signed out everywhere: RejoinSeat with the new player token gives a new seat token",
                seat=seat,
            )
        raise ApiError(
            grpc.StatusCode.PERMISSION_DENIED,
            "SEAT_REJOINED",
            "this seat was rejoined from another device: this device's seat token no longer works",
            seat=seat,
        )

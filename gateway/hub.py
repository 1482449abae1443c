"""Wakes the watchers of a table when its log grows, and reads the log once for all of them.

One pub/sub connection per gateway process, subscribed to the channels of the tables
someone here is watching. Each table has a generation counter, bumped by every wake-up.
The watchers of a table share its reads: one read at a time per table fetches what is new
after the table's tail into a small buffer of recent entries, and every watcher takes its
own entries from that buffer. A read that began at generation ``g`` has seen every
commit published before ``g``; a watcher waits only when such a read found nothing after
its position, so no wake-up between reading and waiting is lost. Only a watcher behind
the buffer (its backlog when it joins, or a slow client) reads the log on its own.

The watcher that makes the shared read sends its entries as soon as it is done, and every
other watcher waiting for that read wakes at once (behind a lock, each would wake the next
in turn, one loop iteration each, so the fiftieth watcher of a table waited for forty-nine
others). Should that read fail, or its watcher leave, one of the others reads instead.

A command committed through this gateway hands its entries to the table's buffer itself
(``deliver``), so its watchers here need no read at all, nor the pub/sub round trip: the
wake-up that follows finds them known and is dropped. Only entries that follow the
buffer's tail are taken (otherwise the wake-up's read fetches them, as before), even while
a shared read is under way: that read, begun before them, adds only what lies past them.

Watchers also re-read on a timeout, which covers a dropped pub/sub message or a Redis
reconnect: a timeout counts as a wake-up, so the watchers of the table share that read too.
The timeout is the table's, not each watcher's: a table whose watchers wait with nothing
new for a whole timeout is woken once (one timer a table, armed at the first wait and
again after each wake-up, where a timer a waiting watcher cost each of the table's
watchers a timer set and cancelled for every event).

The same connection hears of revoked player tokens (SignOutEverywhere, ReissuePlayerToken
on any gateway): one standing channel, ``<control channel>:revoked-players``, whose
messages name a player; the streams that player's token opened here (FindGame) wake
(``player_revocations``). A table's watchers pay nothing for it.
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TypeVar

import redis.asyncio as redis
import structlog

from gateway import metrics
from gateway.locale import READER

log = structlog.get_logger()

# Recent entries kept per watched table; a watcher further behind reads on its own.
BUFFER_ENTRIES = 512
# The most entries one read returns: a full page means there may be more to read.
READ_PAGE = 500
# Messages a listener (``listen``) may leave unread before later ones are dropped.
LISTEN_QUEUE = 64

# The log-read counters, looked up once (a labels() call takes a lock each time).
_SHARED_READS = metrics.LOG_READS.labels("shared")
_PRIVATE_READS = metrics.LOG_READS.labels("private")
_DELIVERED = metrics.LOG_READS.labels("delivered")


# Reads the table's log: the entries after a seq (at most a page of them, in order).
Reader = Callable[[int], Awaitable[list]]
T = TypeVar("T")


class _Table:
    __slots__ = (
        "batches",
        "buffer",
        "changed",
        "generation",
        "poll",
        "read_generation",
        "reading",
        "tail",
        "watchers",
    )

    def __init__(self) -> None:
        self.generation = 0
        self.watchers = 0
        self.changed = asyncio.Event()
        # Entries with consecutive seqs up to ``tail``, the last seq any shared read saw.
        self.buffer: list = []
        self.tail: int | None = None
        # The generation at which the last completed shared read began (-1: none yet).
        self.read_generation = -1
        # Set when the shared read under way (if any) is over.
        self.reading: asyncio.Event | None = None
        # The table's timeout while its watchers wait: (the generation it was armed at, its timer).
        self.poll: tuple[int, asyncio.TimerHandle] | None = None
        # What the buffer holds after a seq for a viewer, made once for the table's watchers
        # (``Hub.batch_after``), by (seq, viewer); emptied whenever the buffer changes.
        self.batches: dict[tuple[int, int | None, str], object] = {}

    def wake(self) -> None:
        self.generation += 1
        self.changed.set()
        self.changed = asyncio.Event()

    def arm(self, timeout: float) -> None:
        """Wakes the table once ``timeout`` seconds pass with no wake-up (a poll), unless a
        timer is armed already at this generation."""
        generation = self.generation
        if self.poll is not None:
            if self.poll[0] == generation:
                return
            self.poll[1].cancel()
        self.poll = (generation, asyncio.get_running_loop().call_later(timeout, self._timed_out, generation))

    def _timed_out(self, generation: int) -> None:
        self.poll = None
        if self.generation == generation and self.watchers > 0:  # a poll, shared like a wake-up
            self.wake()

    def disarm(self) -> None:
        if self.poll is not None:
            self.poll[1].cancel()
            self.poll = None


class Hub:
    def __init__(self, client: redis.Redis, control_channel: str):
        self.redis = client
        self.control_channel = control_channel
        self.revoked_players_channel = f"{control_channel}:revoked-players"
        self.tables: dict[str, _Table] = {}
        # The streams open here that a player token opened, by player: set when it is revoked.
        self.player_streams: dict[str, set[asyncio.Event]] = {}
        # Other channels listened to here (a player's turns, gateway/turns.py): their queues.
        self.listeners: dict[str, set[asyncio.Queue]] = {}
        self.pubsub = client.pubsub(ignore_subscribe_messages=True)
        self.task: asyncio.Task | None = None
        self.lock = asyncio.Lock()
        # Log reads made, shared and private (for tests and metrics).
        self.shared_reads = 0
        self.private_reads = 0

    async def start(self) -> None:
        # A standing subscription keeps the connection open while no table is watched.
        await self.pubsub.subscribe(self.control_channel, self.revoked_players_channel)
        self.task = asyncio.create_task(self._listen(), name="hub-listen")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        await self.pubsub.aclose()

    async def _listen(self) -> None:
        while True:
            try:
                message = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:  # a reconnect: watchers poll on their timeout meanwhile
                log.warning("pubsub_error", exc_info=True)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            channel = message["channel"].decode()
            table = self.tables.get(channel)
            if table is not None:
                if not self._known(table, message["data"]):
                    table.wake()
            elif channel == self.revoked_players_channel:
                for revoked in self.player_streams.get(message["data"].decode(), ()):
                    revoked.set()
            else:
                for queue in self.listeners.get(channel, ()):
                    if not queue.full():  # a listener that lags re-reads on its own timeout
                        queue.put_nowait(message["data"])

    @staticmethod
    def _known(table: _Table, data: bytes) -> bool:
        """Whether a wake-up (its data: the table's new last seq) brings nothing new: the
        buffer, current, already holds that seq (its command was committed here and
        delivered)."""
        if table.tail is None or table.read_generation < table.generation:
            return False
        try:
            return int(data) <= table.tail
        except ValueError:
            return False

    @contextlib.contextmanager
    def player_revocations(self, player_id: str) -> Iterator[asyncio.Event]:
        """An event set whenever a token of ``player_id`` is revoked, on any gateway, while
        the block runs (a stream that the player's token opened waits on it)."""
        revoked = asyncio.Event()
        streams = self.player_streams.setdefault(player_id, set())
        streams.add(revoked)
        try:
            yield revoked
        finally:
            streams.discard(revoked)
            if not streams and self.player_streams.get(player_id) is streams:
                del self.player_streams[player_id]

    @contextlib.asynccontextmanager
    async def listen(self, channel: str) -> AsyncIterator[asyncio.Queue]:
        """The messages published on ``channel`` while the block runs, in a queue, over
        this gateway's one pub/sub connection (however many listen)."""
        queue: asyncio.Queue = asyncio.Queue(maxsize=LISTEN_QUEUE)
        async with self.lock:
            listeners = self.listeners.get(channel)
            if listeners is None:
                listeners = self.listeners[channel] = set()
                await self.pubsub.subscribe(channel)
            listeners.add(queue)
        try:
            yield queue
        finally:
            async with self.lock:
                listeners.discard(queue)
                if not listeners and self.listeners.get(channel) is listeners:
                    del self.listeners[channel]
                    with contextlib.suppress(Exception):  # as in leave
                        await self.pubsub.unsubscribe(channel)

    async def announce_revoked(self, player_id: str) -> None:
        """Tells every gateway that a token of ``player_id`` was revoked."""
        await self.redis.publish(self.revoked_players_channel, player_id)

    def watching(self, channel: str) -> bool:
        return channel in self.tables

    async def join(self, channel: str) -> None:
        async with self.lock:
            table = self.tables.get(channel)
            if table is None:
                table = self.tables[channel] = _Table()
                await self.pubsub.subscribe(channel)
            table.watchers += 1

    async def leave(self, channel: str) -> None:
        async with self.lock:
            table = self.tables.get(channel)
            if table is None:
                return
            table.watchers -= 1
            if table.watchers == 0:
                table.disarm()
                del self.tables[channel]
                try:
                    await self.pubsub.unsubscribe(channel)
                except Exception:  # Redis is away (redis-py may raise more than RedisError then)
                    # A channel left subscribed wakes no table; the watcher's own error stands.
                    log.warning("pubsub_unsubscribe_failed", channel=channel, exc_info=True)

    def generation(self, channel: str) -> int:
        return self.tables[channel].generation

    async def entries_after(
        self, channel: str, after_seq: int, read: Reader, read_behind: Reader | None = None
    ) -> tuple[list, int]:
        """(the entries after ``after_seq`` known now, the generation they are current for).
        Empty: nothing was committed after ``after_seq`` before that generation; wait for
        the next one. ``read_behind``: the read of a watcher behind the buffer (default
        ``read``), whose entries are its own to hold until its client takes them."""
        table = self.tables[channel]
        while True:
            generation = table.generation
            buffer = table.buffer
            if buffer and buffer[0].seq <= after_seq + 1 <= buffer[-1].seq:
                return buffer[after_seq + 1 - buffer[0].seq :], generation
            if table.tail is not None and after_seq < table.tail:  # behind the buffer
                self.private_reads += 1
                _PRIVATE_READS.inc()
                return await (read_behind or read)(after_seq), generation
            if table.read_generation >= generation:
                return [], generation
            await self._refresh(table, generation, after_seq, read)

    async def _refresh(self, table: _Table, wanted: int, after_seq: int, read: Reader) -> None:
        """One read at a time per table, past the tail: a watcher that finds one under way
        waits for it, then reads itself if that read began before ``wanted`` (or failed)."""
        while table.read_generation < wanted:
            if table.reading is not None:
                await table.reading.wait()
                continue
            done = table.reading = asyncio.Event()
            try:
                began = table.generation
                start = after_seq if table.tail is None else table.tail
                self.shared_reads += 1
                _SHARED_READS.inc()
                entries = await read(start)
                if entries:
                    self._extend(table, entries)
                elif table.tail is None:
                    table.tail = start
                if len(entries) < READ_PAGE:
                    table.read_generation = began
            finally:  # done, failed or cancelled: wake every watcher waiting for it at once
                table.reading = None
                done.set()

    def batch_after(self, channel: str, after_seq: int, viewer: int | None, make: Callable[[list], T]) -> T | None:
        """``make`` of the buffer's entries after ``after_seq`` (a batched stream's next
        response for ``viewer``), made once for every watcher of the table at that seq who
        sees alike, where each would make its own; None when the buffer does not hold the
        next entry (``entries_after`` then reads, or waits)."""
        table = self.tables[channel]
        buffer = table.buffer
        if not buffer or not buffer[0].seq <= after_seq + 1 <= buffer[-1].seq:
            return None
        key = (after_seq, viewer, READER.get())  # each reader's language its own
        made = table.batches.get(key)
        if made is None:
            made = table.batches[key] = make(buffer[after_seq + 1 - buffer[0].seq :])
        return made  # type: ignore[return-value]

    @staticmethod
    def _extend(table: _Table, entries: list) -> None:
        """Adds entries read or delivered to the buffer: those past its tail, after it when
        they follow on, in its place when there is a gap."""
        table.batches = {}
        if table.tail is not None:
            if entries[-1].seq <= table.tail:
                return
            if entries[0].seq <= table.tail + 1:
                entries = entries[table.tail + 1 - entries[0].seq :]
                table.buffer = (table.buffer + entries)[-BUFFER_ENTRIES:]
                table.tail = entries[-1].seq
                return
        table.buffer = list(entries[-BUFFER_ENTRIES:])
        table.tail = entries[-1].seq

    def deliver(self, channel: str, entries: list) -> bool:
        """Entries a command committed through this gateway, in seq order, for the table's
        watchers here (if any). Taken when they follow the buffer's tail; the table's
        watchers then wake with them in the buffer, and the buffer stays current if it was
        (a shared read under way means it was not). Returns whether they were taken."""
        table = self.tables.get(channel)
        if table is None or not entries or table.tail is None:
            return False
        if entries[0].seq != table.tail + 1:
            return False  # known already, or a gap: the wake-up's read fetches them
        current = table.read_generation >= table.generation
        _DELIVERED.inc()
        self._extend(table, entries)
        table.wake()
        if current:
            table.read_generation = table.generation
        return True

    async def wait(self, channel: str, seen_generation: int, timeout: float) -> None:
        """Until the table's next wake-up after ``seen_generation``: a commit, or ``timeout``
        seconds with none (the table's timer: see the module's docstring)."""
        table = self.tables[channel]
        if table.generation != seen_generation:
            return
        table.arm(timeout)
        await table.changed.wait()

"""Spectator streams on one gateway at a stated event rate: how many complete, and how
soon events arrive.

Seats people, not bots: every seat of ``tables`` tables is taken through the gateway
(TakeSeat, as any client), ``per_table`` SpectateTable streams open on each table, then
one client per table plays a random legal action of whichever seat must decide (GetView
then SubmitAction with that seat's token) at a fixed pace, so that the tables commit
``committed_per_second`` log entries a second in all, for ``seconds``. All-bot tables
would set the rate themselves (their bots play flat out); here the bench does. The games
are long enough (Mortadella, 3 players: about 300 entries and more) to outlast the run.

The streams are read by processes of their own (bench/readers.py), as the references'
streams are: one process reading them all made each arrival wait behind the others it
was decoding. The pacing client plays from the bench's process, a GetView and a
SubmitAction an action as the bare pipeline's client makes an event of a view and a
submit; it knows who decides from the answers of the commands (nothing else plays).

Delivery latency is measured twice. From the event's own stamp (TableEvent.time, taken
when its command began in the gateway, so it includes the command's own rules call and
commit: compared with the bare pipeline, whose stamp is taken alike) to its arrival at
the client. And from its commit (``CommitStamps``): the time Redis appended the entry to
the table's log, as its commit script ran, read off Redis's MONITOR feed (its server clock,
in microseconds; the log's entry ids are "<seq>-0", which carry no time), the moment the
event comes into being, as a bare gRPC stream's event does when it is sent. MONITOR is an
operator's read-only tap, on while every side plays; the stamp is taken as the XADD
begins, a few microseconds before the script ends, so this latency is overstated by those
microseconds, never understated. Redis and the readers share this machine's clock. A
stream completes when it ends with no error status after it has brought every entry its
table committed during the run; the bench then cancels it (the games do not end). Bounded
in time; 127.0.0.1 only.
"""

import asyncio
import multiprocessing
import random
import statistics
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

import grpc
import redis
import redis.asyncio as redis_async

from bench.readers import SPECTATE, SPECTATE_BATCHED, Readers
from common import auth
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc

GAME, PLAYERS = "mortadella", 3


@dataclass
class WatchFigures:
    streams: int
    completed: int
    failed: dict[str, int]
    events: int  # delivered during the run, over every stream
    seconds: float
    committed: int  # log entries the tables committed during the run
    submits: int
    submit_ms: list[float] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    # From an event's commit stamp to its arrival at the first of its table's streams.
    first_ms: list[float] = field(default_factory=list)
    # How long after the first of its table's streams each stream got an event: the
    # fan-out's own share of the latency (the gateway's and this client's).
    spread_ms: list[float] = field(default_factory=list)
    reader_cpu_seconds: float = 0.0  # the reading processes', opening the streams included
    # Every delivery of the first entry of its command (a command may commit several, all
    # stamped alike, and a stream sends them one after the other): the bare pipeline's
    # events are one a command.
    leading_ms: list[float] = field(default_factory=list)
    entries_per_command: float = 0.0
    # Every delivery's latency from its entry's commit in Redis (CommitStamps); each
    # event's to the first of its table's streams; the deliveries that had no commit stamp
    # (none, unless the MONITOR feed lost some).
    from_commit_ms: list[float] = field(default_factory=list)
    first_from_commit_ms: list[float] = field(default_factory=list)
    unstamped: int = 0

    def percentile(self, fraction: float) -> float:
        return percentile(self.latencies_ms, fraction)


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


async def _seated_table(stub) -> tuple[str, str, dict[int, str]]:
    """An open table with every seat taken: (table id, host token, seat -> seat token)."""
    created = await stub.CreateTable(gw.CreateTableRequest(game_id=GAME, player_count=PLAYERS), timeout=30)
    table_id = created.table.table_id
    tokens = {}
    for seat in range(PLAYERS):
        taken = await stub.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=seat), timeout=30)
        tokens[taken.seat] = taken.seat_token
    return table_id, created.host_token, tokens


def _monitor(conn: Connection, redis_url: str, key_prefix: str) -> None:
    """CommitStamps' process: reads Redis's MONITOR feed until told to finish, then answers
    {(table id, seq): the ns at which the commit script appended that entry to its log}."""
    marker = f'lua] "XADD" "{key_prefix}:{{'.encode()
    stamps: dict[tuple[str, int], int] = {}
    link = redis.ConnectionPool.from_url(redis_url).make_connection()
    link.connect()
    link.send_command("MONITOR")
    link.read_response()  # OK

    def read() -> None:
        # A line: +<seconds>.<microseconds> [<db> lua] "XADD" "<prefix>:{<table>}:log" "<seq>-0" ...
        while True:
            line = link.read_response()
            if not isinstance(line, bytes) or marker not in line:
                continue
            seconds, _, rest = line.partition(b".")
            table_start = line.index(marker) + len(marker)
            table_end = line.index(b"}:log", table_start)
            seq_start = table_end + len(b'}:log" "')
            seq = int(line[seq_start : line.index(b"-", seq_start)])
            stamps[(line[table_start:table_end].decode(), seq)] = int(seconds) * 10**9 + int(rest[:6]) * 1000

    threading.Thread(target=read, daemon=True).start()
    conn.send(("monitoring",))
    conn.recv()  # ("finish",)
    conn.send(("stamps", dict(stamps)))
    conn.close()


class CommitStamps:
    """When Redis committed each log entry of the tables under ``key_prefix``: the time its
    MONITOR feed gives the commit script's XADD of it (Redis's clock, in microseconds), read
    by a process of its own from ``start`` to ``finish``."""

    def __init__(self, redis_url: str, key_prefix: str):
        context = multiprocessing.get_context("spawn")  # no fork of a process that runs gRPC
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_monitor, args=(child, redis_url, key_prefix), daemon=True)

    async def start(self, timeout: float = 30) -> None:
        self.process.start()
        await self._recv(timeout)

    async def finish(self, timeout: float = 60) -> dict[tuple[str, int], int]:
        self.conn.send(("finish",))
        try:
            return (await self._recv(timeout))[1]
        finally:
            self.close()

    async def _recv(self, timeout: float):
        ready = await asyncio.get_running_loop().run_in_executor(None, self.conn.poll, timeout)
        if not ready:
            raise TimeoutError("the MONITOR reader did not answer")
        return self.conn.recv()

    def close(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()


class Spectated:
    """The watched tables and their spectator streams, played in slices (``play``) that
    the references' slices can come between; ``close`` reads the figures. Given
    ``redis_url`` and the store's ``key_prefix``, each entry's commit is stamped too
    (``CommitStamps``), from ``open`` to ``close``."""

    def __init__(
        self,
        address: str,
        tables: int,
        per_table: int,
        readers: int = 4,
        channels: int = 10,
        batched: bool = True,
        redis_url: str = "",
        key_prefix: str = "",
    ):
        self.address, self.tables, self.per_table = address, tables, per_table
        self.readers, self.channels, self.batched = readers, channels, batched
        self.commits = CommitStamps(redis_url, key_prefix) if redis_url else None
        # The last slice's commands: the log entries each committed, table by table (for
        # the references to make alike).
        self.counts: list[list[int]] = []
        self.submit_ms: list[float] = []
        self.seconds = 0.0  # played, over every slice
        # The last seq each table had when the run began, and the last it committed in it.
        self.first_seq: dict[str, int] = {}
        self.last_seq: dict[str, int] = {}
        # What each table's seats must decide, from the answers of the commands that change
        # it (StartTable, then each SubmitAction): nothing else plays these tables.
        self.deciding: dict[str, list[int]] = {}
        self.slices = 0

    async def open(self) -> None:
        if self.commits is not None:
            await self.commits.start()
        self.player_channel = grpc.aio.insecure_channel(self.address)  # the players' own
        self.player = gateway_pb2_grpc.GatewayServiceStub(self.player_channel)
        self.seated = [await _seated_table(self.player) for _ in range(self.tables)]
        self.keys = [self.seated[index % self.tables][0] for index in range(self.tables * self.per_table)]
        kind = SPECTATE_BATCHED if self.batched else SPECTATE
        self.reading: Readers | None = Readers(self.address, kind, self.keys, self.readers, self.channels)
        await self.reading.subscribed(timeout=60)
        for table_id, host_token, _ in self.seated:
            started = await self.player.StartTable(
                gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(host_token), timeout=30
            )
            self.first_seq[table_id] = self.last_seq[table_id] = started.table.last_seq
            self.deciding[table_id] = list(started.table.deciding_seats)

    async def play(self, committed_per_second: float, seconds: float) -> None:
        """One slice: the tables commit ``committed_per_second`` entries a second in all
        for ``seconds``, each paced on its own entries (tables offset evenly)."""
        player, deciding, last_seq = self.player, self.deciding, self.last_seq
        per_table_rate = committed_per_second / self.tables
        began = time.perf_counter()
        stop = began + seconds
        self.slices += 1
        slice_number = self.slices
        self.counts = [[] for _ in self.seated]

        async def one(number: int, table_id: str, tokens: dict[int, str]) -> None:
            """Each action is a GetView and a SubmitAction, as the bare pipeline's events are
            a view and a submit."""
            chooser = random.Random(number * 1000 + slice_number)
            offset = number / committed_per_second
            start_seq = last_seq[table_id]
            while True:
                due = began + offset + (last_seq[table_id] - start_seq) / per_table_rate
                if due >= stop or not deciding[table_id]:
                    return
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                metadata = auth.metadata(tokens[chooser.choice(deciding[table_id])])
                view = await player.GetView(gw.GetViewRequest(table_id=table_id), metadata=metadata, timeout=30)
                if not view.must_decide:
                    deciding[table_id] = list(view.table.deciding_seats)
                    continue
                sent = time.perf_counter()
                try:
                    response = await player.SubmitAction(
                        gw.SubmitActionRequest(
                            table_id=table_id,
                            action=chooser.choice(view.legal_actions).action,
                            expected_version=view.table.version,
                        ),
                        metadata=metadata,
                        timeout=30,
                    )
                except grpc.aio.AioRpcError as error:
                    if error.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED):
                        continue  # the table moved on: the next GetView tells who decides
                    raise
                self.submit_ms.append((time.perf_counter() - sent) * 1000)
                if response.table.last_seq > last_seq[table_id]:
                    self.counts[number].append(response.table.last_seq - last_seq[table_id])
                last_seq[table_id] = max(last_seq[table_id], response.table.last_seq)
                in_progress = response.table.status == gw.TABLE_STATUS_IN_PROGRESS
                deciding[table_id] = list(response.table.deciding_seats) if in_progress else []

        await asyncio.gather(
            *(one(number, table_id, tokens) for number, (table_id, _, tokens) in enumerate(self.seated))
        )
        self.seconds += time.perf_counter() - began

    async def event_bytes(self) -> int:
        """The mean size of the events spectators got from the tables so far (serialized
        TableEvents), for the references to send alike."""
        sizes = []
        for table_id, _, _ in self.seated:
            log = await self.player.GetReplay(gw.GetReplayRequest(table_id=table_id), timeout=30)
            sizes += [step.event.ByteSize() for step in log.steps if step.HasField("event")]
        return round(statistics.fmean(sizes)) if sizes else 0

    async def close(self, timeout: float) -> WatchFigures:
        """The figures, once every stream has its table's entries of the run (the readers
        wait at most 30 s for the last ones, then cancel every stream)."""
        first_seq, last_seq = self.first_seq, self.last_seq
        try:
            # What a spectator of each table should have had from the run: its log as a
            # spectator sees it (an entry may hold nothing for spectators).
            wanted: dict[str, tuple[int, int]] = {}
            for table_id, _, _ in self.seated:
                log = await self.player.GetReplay(gw.GetReplayRequest(table_id=table_id), timeout=30)
                run = range(first_seq[table_id] + 1, last_seq[table_id] + 1)
                events = sum(1 for step in log.steps if step.seq in run and step.HasField("event"))
                wanted[table_id] = (first_seq[table_id], events)
            assert self.reading is not None
            read = await self.reading.finish(wanted, timeout=timeout)
            self.reading = None
            stamps = await self.commits.finish() if self.commits is not None else {}
        finally:
            if self.reading is not None:
                self.reading.close()
            if self.commits is not None:
                self.commits.close()
            await self.player_channel.close()
        failed: dict[str, int] = {}
        for code in read.errors.values():
            failed[code] = failed.get(code, 0) + 1
        completed = [
            index
            for index, key in enumerate(self.keys)
            if index not in read.errors and read.counts.get(index, 0) >= wanted[key][1]
        ]
        short = len(self.keys) - len(completed) - len(read.errors)
        if short:
            failed["INCOMPLETE"] = short
        committed = sum(last_seq[table_id] - first_seq[table_id] for table_id in last_seq)
        from_commit_ms, first_from_commit_ms, unstamped = from_commit(read.arrivals, stamps)
        return WatchFigures(
            self.tables * self.per_table,
            len(completed),
            failed,
            sum(read.counts.values()),
            self.seconds,
            committed,
            len(self.submit_ms),
            self.submit_ms,
            *spread_of(read.arrivals),
            read.cpu_seconds,
            *leading_of(read.arrivals),
            from_commit_ms,
            first_from_commit_ms,
            unstamped,
        )


async def watch(
    address: str,
    tables: int,
    per_table: int,
    committed_per_second: float,
    seconds: float,
    timeout: float,
    channels: int = 10,
    readers: int = 4,
) -> WatchFigures:
    """``tables`` x ``per_table`` spectator streams, read by ``readers`` processes
    (bench/readers.py); the tables commit ``committed_per_second`` entries a second in all,
    for ``seconds`` (in one slice)."""
    spectated = Spectated(address, tables, per_table, readers, channels)
    await spectated.open()
    await spectated.play(committed_per_second, seconds)
    return await spectated.close(timeout)


def spread_of(arrivals: list[tuple[int, str, int, int, int]]) -> tuple[list[float], list[float], list[float]]:
    """(every delivery's latency, each event's latency to the first of its table's streams,
    each further stream's delay after that first), in ms, from the readers' arrivals
    (index, table, seq, stamp, arrival); an event is its table, seq and stamp (the raw
    streams number the events of a message from 1)."""
    latencies = [(arrived - stamp) / 1e6 for _, _, _, stamp, arrived in arrivals]
    by_event: dict[tuple[str, int, int], list[int]] = {}
    for _, key, seq, stamp, arrived in arrivals:
        by_event.setdefault((key, seq, stamp), [stamp]).append(arrived)
    first = [(min(times[1:]) - times[0]) / 1e6 for times in by_event.values()]
    spread = [(arrived - min(times[1:])) / 1e6 for times in by_event.values() for arrived in times[1:]]
    return latencies, first, spread


def leading_of(arrivals: list[tuple[int, str, int, int, int]]) -> tuple[list[float], float]:
    """(every delivery's latency of the first entry of its command, in ms; the entries a
    command committed, on average), from the readers' arrivals: a command's entries are
    those of a table with the same commit stamp."""
    commands: dict[tuple[str, int], int] = {}
    for _, key, seq, stamp, _ in arrivals:
        known = commands.get((key, stamp))
        if known is None or seq < known:
            commands[(key, stamp)] = seq
    events = {(key, seq, stamp) for _, key, seq, stamp, _ in arrivals}
    leading = [(arrived - stamp) / 1e6 for _, key, seq, stamp, arrived in arrivals if commands[(key, stamp)] == seq]
    return leading, len(events) / max(1, len(commands))


def from_commit(
    arrivals: list[tuple[int, str, int, int, int]], stamps: dict[tuple[str, int], int]
) -> tuple[list[float], list[float], int]:
    """(every delivery's latency from its entry's commit, in ms; each event's to the first
    of its table's streams; the deliveries whose entry has no commit stamp), from the
    readers' arrivals and CommitStamps' stamps."""
    latencies = []
    first: dict[tuple[str, int], int] = {}
    for _, key, seq, _, arrived in arrivals:
        committed = stamps.get((key, seq))
        if committed is not None:
            latencies.append((arrived - committed) / 1e6)
            first[key, seq] = min(arrived, first.get((key, seq), arrived))
    first_ms = [(arrived - stamps[event]) / 1e6 for event, arrived in first.items()]
    return latencies, first_ms, len(arrivals) - len(latencies)


async def redis_publish_latency(redis_url: str, channel: str, messages: int = 500) -> float:
    """p99 milliseconds from PUBLISH to a subscriber's receipt, on the same Redis."""
    client = redis_async.Redis.from_url(redis_url)
    pubsub = client.pubsub()
    await pubsub.subscribe(channel)
    await pubsub.get_message(timeout=1)  # the subscribe confirmation
    latencies = []
    for _ in range(messages):
        await client.publish(channel, str(time.time_ns()))
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
            if message is not None:
                latencies.append((time.time_ns() - int(message["data"])) / 1e6)
                break
    await pubsub.aclose()
    await client.aclose()
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else statistics.fmean([0])

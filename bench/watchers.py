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

Delivery latency is the time from an event's commit stamp (taken when its command began,
so it includes the command's own rules call and commit) to its arrival at the client. A
stream completes when it ends with no error status after it has brought every entry its
table committed during the run; the bench then cancels it (the games do not end). Bounded
in time; 127.0.0.1 only.
"""

import asyncio
import random
import statistics
import time
from dataclasses import dataclass, field

import grpc
import redis.asyncio as redis_async

from bench.readers import SPECTATE, Readers
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
    for ``seconds``."""
    player_channel = grpc.aio.insecure_channel(address)  # the players' own, apart from the spectators'
    player = gateway_pb2_grpc.GatewayServiceStub(player_channel)
    submit_ms: list[float] = []
    reading: Readers | None = None
    try:
        seated = [await _seated_table(player) for _ in range(tables)]
        # The last seq each table had when the run began, and the last it committed in it.
        first_seq: dict[str, int] = {}
        last_seq: dict[str, int] = {}
        keys = [seated[index % tables][0] for index in range(tables * per_table)]
        reading = Readers(address, SPECTATE, keys, readers, channels)
        await reading.subscribed(timeout=60)
        # What each table's seats must decide, from the answers of the commands that change
        # it (StartTable, then each SubmitAction): nothing else plays these tables.
        deciding: dict[str, list[int]] = {}
        for table_id, host_token, _ in seated:
            started = await player.StartTable(
                gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(host_token), timeout=30
            )
            first_seq[table_id] = last_seq[table_id] = started.table.last_seq
            deciding[table_id] = list(started.table.deciding_seats)
        per_table_rate = committed_per_second / tables
        began = time.perf_counter()
        stop = began + seconds

        async def play(number: int, table_id: str, tokens: dict[int, str]) -> None:
            """Paces the table on its committed entries: the next action waits until the
            entries so far are due at ``per_table_rate`` (tables offset evenly). Each action
            is a GetView and a SubmitAction, as the bare pipeline's events are a view and a
            submit."""
            chooser = random.Random(number)
            offset = number / committed_per_second
            while True:
                due = began + offset + (last_seq[table_id] - first_seq[table_id]) / per_table_rate
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
                submit_ms.append((time.perf_counter() - sent) * 1000)
                last_seq[table_id] = max(last_seq[table_id], response.table.last_seq)
                in_progress = response.table.status == gw.TABLE_STATUS_IN_PROGRESS
                deciding[table_id] = list(response.table.deciding_seats) if in_progress else []

        await asyncio.gather(*(play(number, table_id, tokens) for number, (table_id, _, tokens) in enumerate(seated)))
        elapsed = time.perf_counter() - began
        # What a spectator of each table should have had from the run: its log as a
        # spectator sees it (an entry may hold nothing for spectators).
        wanted: dict[str, tuple[int, int]] = {}
        for table_id, _, _ in seated:
            log = await player.GetReplay(gw.GetReplayRequest(table_id=table_id), timeout=30)
            run = range(first_seq[table_id] + 1, last_seq[table_id] + 1)
            wanted[table_id] = (first_seq[table_id], sum(1 for s in log.steps if s.seq in run and s.HasField("event")))
        # A stream completes when it has every entry of its run with no error; the readers
        # wait at most 30 s for the last ones, then cancel every stream.
        read = await reading.finish(wanted, timeout=timeout)
        reading = None
    finally:
        if reading is not None:
            reading.close()
        await player_channel.close()
    failed: dict[str, int] = {}
    for code in read.errors.values():
        failed[code] = failed.get(code, 0) + 1
    completed = [
        index
        for index, key in enumerate(keys)
        if index not in read.errors and read.counts.get(index, 0) >= wanted[key][1]
    ]
    short = len(keys) - len(completed) - len(read.errors)
    if short:
        failed["INCOMPLETE"] = short
    committed = sum(last_seq[table_id] - first_seq[table_id] for table_id in last_seq)
    return WatchFigures(
        tables * per_table,
        len(completed),
        failed,
        sum(read.counts.values()),
        elapsed,
        committed,
        len(submit_ms),
        submit_ms,
        *spread_of(read.arrivals),
    )


def spread_of(arrivals: list[tuple[int, str, int, int, int]]) -> tuple[list[float], list[float], list[float]]:
    """(every delivery's latency, each event's latency to the first of its table's streams,
    each further stream's delay after that first), in ms, from the readers' arrivals
    (index, table, seq, stamp, arrival); an event is its table and seq, or its table and
    stamp on streams without seqs."""
    latencies = [(arrived - stamp) / 1e6 for _, _, _, stamp, arrived in arrivals]
    by_event: dict[tuple[str, int], list[int]] = {}
    for _, key, seq, stamp, arrived in arrivals:
        by_event.setdefault((key, seq or stamp), [stamp]).append(arrived)
    first = [(min(times[1:]) - times[0]) / 1e6 for times in by_event.values()]
    spread = [(arrived - min(times[1:])) / 1e6 for times in by_event.values() for arrived in times[1:]]
    return latencies, first, spread


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

"""Spectator streams on one gateway at a stated event rate: how many complete, and how
soon events arrive.

Seats people, not bots: every seat of ``tables`` tables is taken through the gateway
(TakeSeat, as any client), ``per_table`` SpectateTable streams open on each table, then
one client per table plays a random legal action of whichever seat must decide (GetView
then SubmitAction with that seat's token) at a fixed pace, so that the tables commit
``committed_per_second`` log entries a second in all, for ``seconds``. All-bot tables
would set the rate themselves (their bots play flat out); here the bench does. The games
are long enough (Mortadella, 3 players: about 300 entries and more) to outlast the run.

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
) -> WatchFigures:
    """``tables`` x ``per_table`` spectator streams; the tables commit
    ``committed_per_second`` entries a second in all, for ``seconds``."""
    opened = [grpc.aio.insecure_channel(address) for _ in range(channels + 1)]
    stubs = [gateway_pb2_grpc.GatewayServiceStub(channel) for channel in opened]
    player = stubs[-1]  # the players' own connection, apart from the spectators'
    latencies: list[float] = []
    failed: dict[str, int] = {}
    submit_ms: list[float] = []
    try:
        seated = [await _seated_table(player) for _ in range(tables)]
        # The last seq each table had when the run began, and the last it committed in it.
        # Unknown until StartTable answers: the start's own entries are not the run's.
        first_seq = dict.fromkeys((table_id for table_id, _, _ in seated), 2**62)
        last_seq = dict(first_seq)
        counts = [0] * (tables * per_table)  # per stream: entries of the run delivered
        subscribed: set[int] = set()
        # (table, seq) -> its commit stamp, then its arrival times at the table's streams
        arrivals: dict[tuple[str, int], list[int]] = {}

        async def spectate(index: int, table_id: str) -> None:
            stream = stubs[index % channels].SpectateTable(gw.SpectateTableRequest(table_id=table_id), timeout=timeout)
            try:
                async for message in stream:
                    subscribed.add(index)  # the backlog (seats taken) has come: it is live
                    event = message.event
                    if event.seq > first_seq[table_id]:
                        counts[index] += 1
                        arrived = time.time_ns()
                        latencies.append((arrived - event.time.ToNanoseconds()) / 1e6)
                        arrivals.setdefault((table_id, event.seq), [event.time.ToNanoseconds()]).append(arrived)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.CANCELLED:
                    failed[error.code().name] = failed.get(error.code().name, 0) + 1
                    errored.add(index)
            finally:
                stream.cancel()

        errored: set[int] = set()
        tasks = [asyncio.create_task(spectate(index, seated[index % tables][0])) for index in range(tables * per_table)]
        deadline = time.monotonic() + 60
        while len(subscribed) < len(tasks) and time.monotonic() < deadline and not all(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        for table_id, host_token, _ in seated:
            started = await player.StartTable(
                gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(host_token), timeout=30
            )
            first_seq[table_id] = last_seq[table_id] = started.table.last_seq
        per_table_rate = committed_per_second / tables
        began = time.perf_counter()
        stop = began + seconds

        async def play(number: int, table_id: str, tokens: dict[int, str]) -> None:
            """Paces the table on its committed entries: the next action waits until the
            entries so far are due at ``per_table_rate`` (tables offset evenly)."""
            chooser = random.Random(number)
            offset = number / committed_per_second
            while True:
                due = began + offset + (last_seq[table_id] - first_seq[table_id]) / per_table_rate
                if due >= stop:
                    return
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                table = (await player.GetTable(gw.GetTableRequest(table_id=table_id), timeout=30)).table
                if table.status != gw.TABLE_STATUS_IN_PROGRESS or not table.deciding_seats:
                    return
                metadata = auth.metadata(tokens[chooser.choice(list(table.deciding_seats))])
                view = await player.GetView(gw.GetViewRequest(table_id=table_id), metadata=metadata, timeout=30)
                if not view.must_decide:
                    continue
                sent = time.perf_counter()
                try:
                    response = await player.SubmitAction(
                        gw.SubmitActionRequest(
                            table_id=table_id,
                            action=chooser.choice(list(view.legal_actions)).action,
                            expected_version=view.table.version,
                        ),
                        metadata=metadata,
                        timeout=30,
                    )
                except grpc.aio.AioRpcError as error:
                    if error.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED):
                        continue  # the table moved on (a timer, another seat): look again
                    raise
                submit_ms.append((time.perf_counter() - sent) * 1000)
                last_seq[table_id] = max(last_seq[table_id], response.table.last_seq)

        await asyncio.gather(*(play(number, table_id, tokens) for number, (table_id, _, tokens) in enumerate(seated)))
        elapsed = time.perf_counter() - began
        # What a spectator of each table should have had from the run: its log as a
        # spectator sees it (an entry may hold nothing for spectators).
        expected = {}
        for table_id, _, _ in seated:
            log = await player.GetReplay(gw.GetReplayRequest(table_id=table_id), timeout=30)
            run = range(first_seq[table_id] + 1, last_seq[table_id] + 1)
            expected[table_id] = sum(1 for step in log.steps if step.seq in run and step.HasField("event"))
        wanted = [expected[seated[index % tables][0]] for index in range(len(tasks))]
        # A stream completes when it has every entry of its run with no error; the bench
        # waits at most 30 s for the last ones, then cancels every stream.
        drain_deadline = time.monotonic() + 30
        while time.monotonic() < drain_deadline and not all(
            task.done() or count >= want for task, count, want in zip(tasks, counts, wanted, strict=True)
        ):
            await asyncio.sleep(0.05)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        completed = [index for index in range(len(tasks)) if index not in errored and counts[index] >= wanted[index]]
        short = len(tasks) - len(completed) - len(errored)
        if short:
            failed["INCOMPLETE"] = short
    finally:
        for channel in opened:
            await channel.close()
    committed = sum(last_seq[table_id] - first_seq[table_id] for table_id in last_seq)
    first = [(min(times[1:]) - times[0]) / 1e6 for times in arrivals.values()]
    spread = [(arrived - min(times[1:])) / 1e6 for times in arrivals.values() for arrived in times[1:]]
    return WatchFigures(
        tables * per_table,
        len(completed),
        failed,
        sum(counts),
        elapsed,
        committed,
        len(submit_ms),
        submit_ms,
        latencies,
        first,
        spread,
    )


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

"""Many watchers on one gateway: 50 spectators on each of 20 all-bot tables (1,000 streams),
opened before the tables start. Every stream gets every event of its table, in order,
and ends with OK after the last; none fails (before the gateway shared log reads and
sized its Redis pool, most of them failed UNAVAILABLE). The watchers of a table share one
log read; should it fail, or its watcher leave, another reads for the rest.

Nothing here is bounded by a time a loaded host stretches: unloaded the 1,000 streams take
some 6 s, and on a host so loaded that every process of the test runs a tenth of the time
about ten times as long, so each wait is generous and the streams carry no deadline of
their own. The waits are the test's own, and its loop wakes every second while it waits: awaiting
its streams with no timer due, the client's loop slept in epoll with no timeout, and
pytest-timeout's SIGALRM (or a SIGTERM), taken by one of gRPC's threads, waited for that
loop to wake (a run with every process of the test stopped 95% of the time hung so, its
streams ended at the gateway, long past its 120 s timeout)."""

import asyncio
import time

import grpc
import pytest

from common import auth
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc

TABLES = 20
WATCHERS = 50  # per table
CHANNELS = 10  # client connections the streams are spread over
# Generous waits (unloaded: about 1 s to the first events, 5 s for the games).
FIRST_EVENTS_SECONDS = 300
GAMES_SECONDS = 600


async def _spectate(stub, table_id: str, seqs: list[int]) -> None:
    async for message in stub.SpectateTable(gw.SpectateTableRequest(table_id=table_id)):
        seqs.append(message.event.seq)


async def _watch_all(address: str) -> None:
    channels = [grpc.aio.insecure_channel(address) for _ in range(CHANNELS)]
    try:
        stubs = [gateway_pb2_grpc.GatewayServiceStub(channel) for channel in channels]
        tables = []
        for _ in range(TABLES):
            bots = [gw.BotSeat(seat=seat, bot="random") for seat in range(3)]
            request = gw.CreateTableRequest(game_id="borgia", player_count=3, bot_seats=bots)
            created = await stubs[0].CreateTable(request)
            tables.append((created.table.table_id, created.host_token))
        seen: dict[tuple[str, int], list[int]] = {}
        streams = []
        for index in range(TABLES * WATCHERS):
            table_id = tables[index % TABLES][0]
            seqs = seen[table_id, index] = []
            streams.append(asyncio.create_task(_spectate(stubs[index % CHANNELS], table_id, seqs)))
        # Every stream has its table's first events (the bots taking their seats) before any game starts.
        deadline = time.monotonic() + FIRST_EVENTS_SECONDS
        while not all(seen.values()):
            failed = [stream for stream in streams if stream.done()]
            assert not failed, f"{len(failed)} streams ended before their table started, e.g. {failed[0]!r}"
            waiting = sum(1 for seqs in seen.values() if not seqs)
            assert time.monotonic() < deadline, f"{waiting} streams without their first event"
            await asyncio.sleep(0.05)
        for table_id, host_token in tables:
            await stubs[0].StartTable(gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(host_token))
        # A wake-up every second, so that the loop never sleeps with no timeout (above).
        deadline, pending = time.monotonic() + GAMES_SECONDS, set(streams)
        while pending and time.monotonic() < deadline:
            _, pending = await asyncio.wait(pending, timeout=1)
        for stream in pending:
            stream.cancel()
        assert not pending, f"{len(pending)} streams not ended {GAMES_SECONDS} s after their tables started"
        results = [stream.exception() or stream.result() for stream in streams]
        failures = [result for result in results if isinstance(result, BaseException)]
        assert not failures, f"{len(failures)} streams failed, e.g. {failures[0]!r}"
        for table_id, _ in tables:
            table = (await stubs[0].GetTable(gw.GetTableRequest(table_id=table_id))).table
            assert table.status == gw.TABLE_STATUS_FINISHED
            replay = await stubs[0].GetReplay(gw.GetReplayRequest(table_id=table_id))
            expected = [step.seq for step in replay.steps if step.HasField("event")]
            for (watched, _), seqs in seen.items():
                if watched == table_id:
                    assert seqs == expected
    finally:
        for channel in channels:
            await channel.close()


@pytest.mark.timeout(FIRST_EVENTS_SECONDS + GAMES_SECONDS + 120)  # past the test's own waits
def test_a_thousand_spectators_on_one_gateway_all_complete(stack):
    asyncio.run(_watch_all(stack.gateway_address))


class _Entry:
    def __init__(self, seq: int):
        self.seq = seq


class _NoRedis:
    def pubsub(self, **_):
        return None


async def _one_read_for_the_watchers_of_a_table() -> None:
    from gateway.hub import Hub, _Table

    hub = Hub(_NoRedis(), "control")  # type: ignore[arg-type]
    reads: list[int] = []
    release = asyncio.Event()
    outcomes = [ConnectionError("the store went away"), None]

    async def read(after: int) -> list:
        reads.append(after)
        await release.wait()
        if failure := outcomes.pop(0):
            raise failure
        return [_Entry(after + 1), _Entry(after + 2)]

    hub.tables["t"] = _Table()
    hub.tables["t"].watchers = 51
    leaving = asyncio.create_task(hub.entries_after("t", 0, read))  # it starts the read
    await asyncio.sleep(0)
    watchers = [asyncio.create_task(hub.entries_after("t", 0, read)) for _ in range(50)]
    await asyncio.sleep(0.01)
    assert reads == [0]  # one read for all of them
    leaving.cancel()  # its read goes with it: another watcher reads instead
    await asyncio.sleep(0.01)
    assert reads == [0, 0]
    release.set()  # that read fails: its watcher fails, another reads for the rest
    results = await asyncio.gather(*watchers, return_exceptions=True)
    assert reads == [0, 0, 0]
    failed = [result for result in results if isinstance(result, BaseException)]
    assert len(failed) == 1 and isinstance(failed[0], ConnectionError)
    assert all([entry.seq for entry in result[0]] == [1, 2] for result in results if result not in failed)  # type: ignore[index]


def test_the_watchers_of_a_table_share_one_read():
    asyncio.run(_one_read_for_the_watchers_of_a_table())


async def _delivered_entries_need_no_read() -> None:
    from gateway.hub import Hub, _Table

    hub = Hub(_NoRedis(), "control")  # type: ignore[arg-type]
    reads: list[int] = []
    log = [_Entry(seq) for seq in range(1, 6)]

    async def read(after: int) -> list:
        reads.append(after)
        return [entry for entry in log if entry.seq > after][:3]

    table = hub.tables["t"] = _Table()
    table.watchers = 2
    assert not hub.deliver("t", [log[0]])  # nothing read yet: the watchers read the log
    first, generation = await hub.entries_after("t", 0, read)
    assert [entry.seq for entry in first] == [1, 2, 3] and reads == [0]
    caught_up, generation = await hub.entries_after("t", 3, read)
    assert caught_up == [] and reads == [0]  # that read found all there was
    waiting = [asyncio.create_task(hub.wait("t", generation, 10)) for _ in range(2)]
    await asyncio.sleep(0)
    assert hub.deliver("t", [log[3]])  # a commit made here: the watchers wake with it
    await asyncio.wait_for(asyncio.gather(*waiting), 1)
    fourth, _ = await hub.entries_after("t", 3, read)
    assert [entry.seq for entry in fourth] == [4] and reads == [0]
    # Its wake-up through Redis brings nothing new: dropped, and the buffer stays current.
    assert hub._known(table, b"4")
    nothing, _ = await hub.entries_after("t", 4, read)
    assert nothing == [] and reads == [0]
    # Known already, or after a gap: not taken; the next wake-up's read fetches them.
    assert not hub.deliver("t", [log[3]]) and not hub.deliver("t", [_Entry(7)])
    assert not hub._known(table, b"5")
    table.wake()
    fifth, _ = await hub.entries_after("t", 4, read)
    assert [entry.seq for entry in fifth] == [5] and reads == [0, 4]
    # Delivered while a shared read is under way: taken, and the read, begun before them,
    # adds only what lies past them.
    log.extend(_Entry(seq) for seq in (6, 7))
    release = asyncio.Event()

    async def slow_read(after: int) -> list:
        reads.append(after)
        await release.wait()
        return [entry for entry in log if entry.seq > after]

    table.wake()
    reading = asyncio.create_task(hub.entries_after("t", 5, slow_read))
    await asyncio.sleep(0)
    assert table.reading is not None and hub.deliver("t", [log[5]])
    release.set()
    sixth, _ = await reading
    assert [entry.seq for entry in sixth] == [6, 7] and table.tail == 7
    assert [entry.seq for entry in table.buffer][-3:] == [5, 6, 7]


def test_entries_committed_through_the_gateway_reach_its_watchers_without_a_read():
    asyncio.run(_delivered_entries_need_no_read())


async def _a_quiet_table_is_polled_once() -> None:
    from gateway.hub import Hub, _Table

    hub = Hub(_NoRedis(), "control")  # type: ignore[arg-type]
    table = hub.tables["t"] = _Table()
    table.watchers = 3
    waiting = [asyncio.create_task(hub.wait("t", 0, 0.05)) for _ in range(3)]
    await asyncio.sleep(0.01)
    assert not any(task.done() for task in waiting) and table.poll is not None
    await asyncio.wait_for(asyncio.gather(*waiting), 1)  # the table's one timeout wakes them all
    assert table.generation == 1 and table.poll is None
    # A commit before the timeout: the timer armed before it wakes nobody.
    waiting = [asyncio.create_task(hub.wait("t", 1, 0.05)) for _ in range(2)]
    await asyncio.sleep(0)
    table.wake()
    await asyncio.wait_for(asyncio.gather(*waiting), 1)
    await asyncio.sleep(0.1)
    assert table.generation == 2
    # A watcher that waits with nothing new arms the table's timer again.
    again = asyncio.create_task(hub.wait("t", 2, 0.05))
    await asyncio.wait_for(again, 1)
    assert table.generation == 3


def test_the_watchers_of_a_quiet_table_share_one_timeout():
    asyncio.run(_a_quiet_table_is_polled_once())


def test_a_batch_is_made_once_for_the_watchers_of_a_table_who_see_alike():
    from gateway.hub import Hub, _Table

    hub = Hub(_NoRedis(), "control")  # type: ignore[arg-type]
    table = hub.tables["t"] = _Table()
    table.watchers = 3
    hub._extend(table, [_Entry(seq) for seq in range(1, 4)])
    made: list[tuple[list[int], int | None]] = []

    def make(viewer: int | None):
        def made_for(entries: list) -> tuple:
            made.append(([entry.seq for entry in entries], viewer))
            return (viewer, entries[-1].seq)

        return made_for

    assert hub.batch_after("t", 1, None, make(None)) == (None, 3)
    assert hub.batch_after("t", 1, None, make(None)) == (None, 3)  # the same, not made again
    assert hub.batch_after("t", 1, 0, make(0)) == (0, 3)  # a seat sees otherwise
    assert made == [([2, 3], None), ([2, 3], 0)]
    assert hub.batch_after("t", 3, None, make(None)) is None  # nothing after the buffer's tail
    hub._extend(table, [_Entry(4)])  # the buffer grew: batches are made afresh
    assert hub.batch_after("t", 1, None, make(None)) == (None, 4)
    assert made[-1] == ([2, 3, 4], None)

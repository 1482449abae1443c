"""Bots answering people: how long a bot takes to reply when tables are live, not saturated.

The all-bot tables of ``bench/tables.py`` keep one decision waiting at every table, so
their turn latency is the length of the queue over the throughput. A person does not
play like that: they think. Here each of N tables seats one paced client, a stand-in for
a person, and bots in the other seats. The client plays a random legal action after a
think time drawn around ``think`` seconds; whenever its move leaves only bots to decide,
the reply latency is the time from the commit of its move (the table's update time in
the SubmitAction response) to the commit of the next version (that event's time), both
stamped by the gateway, so the client's own delays do not count. Bounded in time;
127.0.0.1 only.
"""

import asyncio
import random
import time
from dataclasses import dataclass

import grpc

from common import auth
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


@dataclass
class RepliesFigures:
    tables: int
    replies_ms: list[float]
    moves: int
    seconds: float

    def percentile(self, fraction: float) -> float:
        if not self.replies_ms:
            return 0.0
        ordered = sorted(self.replies_ms)
        return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


async def _table(stub, game: str, players: int, bot: str) -> tuple[str, str]:
    """A started table: seat 0 for the paced client, bots everywhere else."""
    bots = [gw.BotSeat(seat=seat, bot=bot) for seat in range(1, players)]
    created = await stub.CreateTable(
        gw.CreateTableRequest(game_id=game, player_count=players, bot_seats=bots, auto_start=True), timeout=30
    )
    taken = await stub.TakeSeat(gw.TakeSeatRequest(table_id=created.table.table_id, seat=0), timeout=30)
    return created.table.table_id, taken.seat_token


async def _player(stub, game: str, players: int, bot: str, index: int, think: float, deadline: float, out: dict):
    chooser = random.Random(index)
    while time.perf_counter() < deadline:
        table_id, token = await _table(stub, game, players, bot)
        metadata = auth.metadata(token)
        events = stub.WatchTable(gw.WatchTableRequest(table_id=table_id), metadata=metadata)
        stamps: dict[int, int] = {}  # version -> commit time (ns) of its first event
        changed = asyncio.Event()  # set on every new version the stream brings

        async def read(events=events, stamps=stamps, changed=changed) -> None:
            async for message in events:
                if message.event.version not in stamps:
                    stamps[message.event.version] = message.event.time.ToNanoseconds()
                    changed.set()

        async def newer_than(version: int, stamps=stamps, changed=changed) -> None:
            while max(stamps, default=0) <= version and time.perf_counter() < deadline:
                changed.clear()
                try:
                    await asyncio.wait_for(changed.wait(), max(0.01, deadline - time.perf_counter()))
                except TimeoutError:
                    return

        reader = asyncio.create_task(read())
        try:
            while time.perf_counter() < deadline:
                view = await stub.GetView(gw.GetViewRequest(table_id=table_id), metadata=metadata, timeout=30)
                if view.table.status == gw.TABLE_STATUS_FINISHED:
                    break
                if not view.must_decide:
                    await newer_than(view.table.version)  # the bots still decide: no polling
                    continue
                await asyncio.sleep(chooser.uniform(0.5 * think, 1.5 * think))
                action = chooser.choice(list(view.legal_actions)).action
                response = await stub.SubmitAction(
                    gw.SubmitActionRequest(table_id=table_id, action=action, expected_version=view.table.version),
                    metadata=metadata,
                    timeout=30,
                )
                out["moves"] += 1
                table = response.table
                if table.status == gw.TABLE_STATUS_FINISHED or 0 in table.deciding_seats:
                    continue
                # Only bots decide now: wait for the version their reply makes.
                committed, version = table.update_time.ToNanoseconds(), table.version
                await newer_than(version)
                if version + 1 in stamps:
                    out["replies"].append((stamps[version + 1] - committed) / 1e6)
        finally:
            reader.cancel()
            events.cancel()


async def _run(address: str, game: str, players: int, bot: str, tables: int, think: float, seconds: float):
    out: dict = {"replies": [], "moves": 0}
    async with grpc.aio.insecure_channel(address) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        started = time.perf_counter()
        deadline = started + seconds
        await asyncio.gather(
            *(_player(stub, game, players, bot, index, think, deadline, out) for index in range(tables))
        )
        elapsed = time.perf_counter() - started
    return RepliesFigures(tables, out["replies"], out["moves"], elapsed)


def bot_replies(
    address: str,
    tables: int,
    seconds: float,
    game: str = "borgia",
    players: int = 2,
    bot: str = "random",
    think: float = 2.0,
) -> RepliesFigures:
    """``tables`` tables of ``game``, each one paced client against bots, for ``seconds``."""
    return asyncio.run(_run(address, game, players, bot, tables, think, seconds))

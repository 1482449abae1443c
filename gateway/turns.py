"""Turns: telling players when it becomes their turn, wherever they are.

After every commit (``TableCore._after_commit``), ``Turns.committed`` looks for the human
seats of players (Seat.player_id) that must decide now and did not before: each such
turn is published on the player's channel (WatchMyTurns streams follow it, on any
gateway) and, unless the player is watching that table (a WatchTable stream or a session
of the seat open on some gateway: ``present``), pushed once to the player's browsers (gateway/push.py).
"Once" holds across gateways and retries: a turn is told under a key of its table, seat
and version, set only if absent.
"""

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable

import structlog

from gateway.hub import Hub
from gateway.push import Pusher
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.store.v1 import store_pb2

log = structlog.get_logger()

# A presence count outlives a gateway that died holding it by this much at most.
PRESENCE_TTL_SECONDS = 6 * 3600
TOLD_TTL_SECONDS = 30 * 24 * 3600  # as long as a correspondence turn may last
WATCH_POLL_SECONDS = 60.0
TOLD_KEPT = 1000  # turns a stream remembers having told


def seat_of_player(table: gw.Table, player_id: str) -> int | None:
    for seat in table.seats:
        if seat.player_id == player_id:
            return seat.seat
    return None


def your_turn(table: gw.Table, seat: int) -> bool:
    """Whether ``seat`` (a person's) must decide now."""
    return (
        table.status == gw.TABLE_STATUS_IN_PROGRESS
        and seat in table.deciding_seats
        and table.seats[seat].kind == gw.SEAT_KIND_HUMAN
    )


def new_turns(table: gw.Table, deciding_before: tuple[int, ...]) -> list[int]:
    """The seats of players that must decide now and did not before the commit."""
    return [
        seat
        for seat in table.deciding_seats
        if seat not in deciding_before and your_turn(table, seat) and table.seats[seat].player_id
    ]


def turn_text(game_name: str, table: gw.Table, seat: int) -> str:
    """'Your turn at House of Borgia with Ada and Bruno.'"""
    others = [info.display_name for info in table.seats if info.seat != seat and info.display_name]
    if len(others) > 1:
        return f"Your turn at {game_name} with {', '.join(others[:-1])} and {others[-1]}."
    return f"Your turn at {game_name} with {others[0]}." if others else f"Your turn at {game_name}."


class Turns:
    def __init__(
        self, redis, hub: Hub, key_prefix: str, game_name: Callable[[str], Awaitable[str]], pusher: Pusher | None
    ):
        self.redis = redis
        self.hub = hub
        self.key_prefix = key_prefix
        self.game_name = game_name
        self.pusher = pusher
        self.sending: set[asyncio.Task] = set()  # pushes under way (their references kept)

    def channel(self, player_id: str) -> str:
        return f"{self.key_prefix}:turns:{player_id}"

    def _presence_key(self, table_id: str, seat: int) -> str:
        return f"{self.key_prefix}:present:{table_id}:{seat}"

    @contextlib.asynccontextmanager
    async def present(self, table_id: str, seat: int | None) -> AsyncIterator[None]:
        """Around a seat's WatchTable stream: its player is at the table meanwhile."""
        if seat is None:
            yield
            return
        key = self._presence_key(table_id, seat)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.incr(key)
            pipe.expire(key, PRESENCE_TTL_SECONDS)
            await pipe.execute()
        try:
            yield
        finally:
            with contextlib.suppress(Exception):  # the TTL ends a count a failure leaves
                await asyncio.shield(self.redis.decr(key))

    async def is_present(self, table_id: str, seat: int) -> bool:
        count = await self.redis.get(self._presence_key(table_id, seat))
        return count is not None and int(count) > 0

    async def committed(self, record: store_pb2.TableRecord, deciding_before: tuple[int, ...]) -> None:
        """Tells each player whose turn the commit began: on their channel now, by push
        in the background (never holding the command up)."""
        table = record.table
        for seat in new_turns(table, deciding_before):
            player_id = table.seats[seat].player_id
            try:
                await self.redis.publish(self.channel(player_id), json.dumps([table.table_id, seat]))
            except Exception:  # the turn stands; a stream reads ListMyTables when it (re)starts
                log.warning("turn_publish_failed", table_id=table.table_id, exc_info=True)
            if self.pusher is not None and self.pusher.vapid is not None:
                task = asyncio.create_task(self._push(table, seat, player_id))
                self.sending.add(task)
                task.add_done_callback(self.sending.discard)

    async def _push(self, table: gw.Table, seat: int, player_id: str) -> None:
        assert self.pusher is not None
        try:
            if await self.is_present(table.table_id, seat):
                return  # at the table: it tells them itself
            told = f"{self.key_prefix}:told:{table.table_id}:{seat}:{table.version}"
            if not await self.redis.set(told, 1, nx=True, ex=TOLD_TTL_SECONDS):
                return
            name = await self.game_name(table.game_id)
            payload = {
                "kind": "your_turn",
                "title": "Your turn",
                "body": turn_text(name, table, seat),
                "table_id": table.table_id,
                "game_id": table.game_id,
                "game": name,
                "seat": seat,
                "url": f"#/table/{table.table_id}",
            }
            await self.pusher.send(player_id, payload)
        except Exception:
            log.warning("turn_push_failed", table_id=table.table_id, exc_info=True)

    async def watch(
        self,
        player_id: str,
        current: Callable[[], Awaitable[list[pl.MyTable]]],
        one: Callable[[str], Awaitable[pl.MyTable | None]],
        send: Callable[[pl.MyTable], Awaitable[None]],
    ) -> None:
        """WatchMyTurns: listening first, then every table where it is the player's turn
        now (``current``), then each that becomes so (``one`` reads it, None once it is no
        longer their turn), until the client leaves. A quiet while reads ``current``
        again: a message lost to a Redis reconnect is made up for."""
        told: set[tuple[str, int]] = set()

        async def tell(mine: pl.MyTable | None) -> None:
            if mine is None or (mine.table.table_id, mine.table.version) in told:
                return
            if len(told) >= TOLD_KEPT:
                told.clear()  # a turn told again, at worst
            told.add((mine.table.table_id, mine.table.version))
            await send(mine)

        async with self.hub.listen(self.channel(player_id)) as published:
            while True:
                for mine in await current():
                    await tell(mine)
                try:
                    while True:
                        data = await asyncio.wait_for(published.get(), WATCH_POLL_SECONDS)
                        table_id, _seat = json.loads(data)
                        await tell(await one(table_id))
                except TimeoutError:
                    continue

"""ListMyTables' tables: those where it is the player's turn first, then the others, each
part newest first (the order of the player's kept tables, gateway/players.py).

The turn index (gateway/turn_index.py) says where it may be their turn, so a page loads
only the tables it needs: the hinted ones, newest first, until the page has its turns,
then the others, newest first, until it is full. Each table loaded is checked against its
record: a hinted table where it is not their turn is not listed as such and its entry is
dropped; one not hinted where it is their turn is listed as such and its entry added; a
table gone (expired, or no longer seating the player) leaves the player's list and the
index. Without the index's mark, every kept table is loaded and the index rebuilt.
"""

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from gateway.store import TableStore
from gateway.turn_index import TurnIndex, turn_score
from gateway.turns import seat_of_player, your_turn
from tavola.gateway.v1 import players_pb2 as pl

if TYPE_CHECKING:
    from gateway.players import PlayerStore

# An entry of a table not (yet) in the player's list is dropped once this old.
UNKEPT_GRACE_SECONDS = 600


class Page:
    """What one listing loaded, by table, in the order of the player's kept tables."""

    def __init__(self, player_id: str, kept: list[str], hint: dict[str, float]):
        self.player_id = player_id
        self.kept = kept
        self.place = {table_id: place for place, table_id in enumerate(kept)}
        self.hint = hint
        self.loaded: set[str] = set()
        self.turns: list[pl.MyTable] = []
        self.others: list[pl.MyTable] = []
        self.gone: list[str] = []
        self.stale: dict[str, float] = {}  # hinted, not their turn: the score read
        self.missed: dict[str, float] = {}  # their turn, not hinted: the turn's score

    def sort(self, record, table_id: str) -> None:
        seat = None if record is None else seat_of_player(record.table, self.player_id)
        if record is None or seat is None:
            self.gone.append(table_id)
            return
        turn = your_turn(record.table, seat)
        (self.turns if turn else self.others).append(pl.MyTable(table=record.table, seat=seat, your_turn=turn))
        if turn and table_id not in self.hint:
            self.missed[table_id] = turn_score(record.table)
        elif not turn and table_id in self.hint:
            self.stale[table_id] = self.hint[table_id]

    def listed(self, count: int, your_turn_only: bool) -> list[pl.MyTable]:
        def newest_first(tables: list[pl.MyTable]) -> list[pl.MyTable]:
            return sorted(tables, key=lambda mine: self.place[mine.table.table_id])

        mine = newest_first(self.turns) + ([] if your_turn_only else newest_first(self.others))
        return mine[:count]

    def unhinted(self, now_ms: float) -> dict[str, float]:
        """Entries that a listing drops: stale, of tables gone, or of tables no longer kept
        (not of one too new to be: a seat is noted in the list after its commit)."""
        dropped = dict(self.stale)
        dropped.update((table_id, self.hint[table_id]) for table_id in self.gone if table_id in self.hint)
        old = now_ms - UNKEPT_GRACE_SECONDS * 1000
        dropped.update(
            (table_id, score) for table_id, score in self.hint.items() if table_id not in self.place and score < old
        )
        return dropped


class MyTables:
    def __init__(self, players: "PlayerStore", tables: TableStore, index: TurnIndex):
        self.players = players
        self.tables = tables
        self.index = index

    async def mine(self, player_id: str, kept_count: int, count: int, your_turn_only: bool) -> list[pl.MyTable]:
        """The first ``count`` of the player's tables (of their newest ``kept_count``)."""
        kept, (hint, built) = await asyncio.gather(
            self.players.tables(player_id, kept_count), self.index.read(player_id)
        )
        page = Page(player_id, kept, hint)
        if not built:
            await self._walk(page, kept, lambda: len(kept))
        else:
            hinted = [table_id for table_id in kept if table_id in hint]
            await self._walk(page, hinted, lambda: count - len(page.turns))
            if not your_turn_only:
                await self._fill(page, count)
        await self._tidy(page, rebuilt=not built)
        return page.listed(count, your_turn_only)

    async def _walk(self, page: Page, table_ids: Iterable[str], wanted: Callable[[], int]) -> None:
        """Loads the tables of ``table_ids`` not loaded yet, in order, ``wanted()`` at a time,
        until it wants none."""
        waiting = [table_id for table_id in table_ids if table_id not in page.loaded]
        while waiting and (want := wanted()) > 0:
            batch, waiting = waiting[:want], waiting[want:]
            await self._load(page, batch)

    async def _load(self, page: Page, batch: list[str]) -> None:
        page.loaded.update(batch)
        for table_id, record in zip(batch, await self.tables.load_many(batch), strict=True):
            page.sort(record, table_id)

    async def _fill(self, page: Page, count: int) -> None:
        """Loads the kept tables in order (skipping those loaded) until the turns and the
        others above the last one reached fill the page: so the others listed are the
        newest, whatever stale entries further down were loaded before."""
        front = 0
        while front < len(page.kept):
            others = sum(1 for mine in page.others if page.place[mine.table.table_id] < front)
            want = count - len(page.turns) - others
            if want <= 0:
                return
            batch: list[str] = []
            while front < len(page.kept) and len(batch) < want:
                if page.kept[front] not in page.loaded:
                    batch.append(page.kept[front])
                front += 1
            if batch:
                await self._load(page, batch)

    async def _tidy(self, page: Page, rebuilt: bool) -> None:
        """What the listing learned goes back to the player's list and the index."""
        await self.players.forget_tables(page.player_id, page.gone)
        await self.index.forget(page.player_id, page.unhinted(time.time() * 1000))
        await self.index.add(page.player_id, page.missed)
        if rebuilt:
            await self.index.mark_built(page.player_id)

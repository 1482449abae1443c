"""Where it may be a player's turn: a hint that ListMyTables reads (gateway/my_tables.py).

``<prefix>:player:<id>:turns`` is a sorted set of table ids, scored by when the turn came
(the commit's time, in ms). A table's keys share one Redis Cluster slot (hash tags) and a
player's keys lie elsewhere, so the commit's script cannot write it: ``committed`` writes
it right after the commit, for the players whose turn the commit began (added, or its
score raised) or ended (removed unless a later turn scored it since, whatever the order in
which two commits' writes arrive). Written again, it changes nothing.

So it is a hint, not the truth: a table that expires makes no commit, and a gateway may
stop between a commit and this write. ListMyTables checks every entry it uses against the
table it loads, drops stale ones (the same compare on the score), adds one it finds
missing, and rebuilds the set from the player's tables when the mark
``<prefix>:player:<id>:turns:built`` is absent: on first use, then once a day, so an entry
lost with a gateway is back within a day at the latest.
"""

import asyncio
from typing import cast

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from gateway.turns import your_turn
from tavola.gateway.v1 import gateway_pb2 as gw

BUILT_SECONDS = 24 * 3600

# Removes each table (ARGV: table id, score seen) unless a later turn scored it since.
_FORGET = """
local removed = 0
for i = 1, #ARGV, 2 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) <= tonumber(ARGV[i + 1]) then
    removed = removed + redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return removed
"""


def turn_keys(player_prefix: str, player_id: str) -> tuple[str, str]:
    """The player's set and its mark, under ``<prefix>:player``."""
    key = f"{player_prefix}:{player_id}:turns"
    return key, f"{key}:built"


def turn_players(table: gw.Table) -> frozenset[str]:
    """The players (by id) whose turn it is at the table."""
    seats = table.seats
    return frozenset(
        seats[seat].player_id for seat in table.deciding_seats if your_turn(table, seat) and seats[seat].player_id
    )


def turn_score(table: gw.Table) -> float:
    """A turn's score: the time of the commit that began it, in ms."""
    return float(table.update_time.ToMilliseconds())


class TurnIndex:
    def __init__(self, client: "Redis | RedisCluster", key_prefix: str):
        self.redis = client
        self.prefix = f"{key_prefix}:player"
        self._forget = client.register_script(_FORGET)

    def key(self, player_id: str) -> str:
        return turn_keys(self.prefix, player_id)[0]

    def built_key(self, player_id: str) -> str:
        return turn_keys(self.prefix, player_id)[1]

    async def committed(self, table: gw.Table, before: frozenset[str]) -> None:
        """After a commit: the table under the players whose turn it began, off those whose
        turn it ended. ``before``: whose turn it was before the commit."""
        now, score = turn_players(table), turn_score(table)
        # A turn that goes on is not written again: a commit after which the same players
        # must decide writes nothing here.
        writes = [self.redis.zadd(self.key(player), {table.table_id: score}, gt=True) for player in now - before]
        writes += [self.forget(player, {table.table_id: score}) for player in before - now]
        await asyncio.gather(*writes)

    async def read(self, player_id: str) -> tuple[dict[str, float], bool]:
        """The player's entries (table id: score) and whether the set was built."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrange(self.key(player_id), 0, -1, withscores=True)
            pipe.exists(self.built_key(player_id))
            entries, built = await pipe.execute()
        # redis-py types replies for every client flavour at once; this one does not decode.
        pairs = cast("list[tuple[bytes, float]]", entries)
        return {table_id.decode(): score for table_id, score in pairs}, bool(built)

    async def forget(self, player_id: str, seen: dict[str, float]) -> None:
        """Drops each table of ``seen`` (table id: the score read) unless rescored since."""
        if seen:
            args = [part for table_id, score in seen.items() for part in (table_id, repr(score))]
            await self._forget(keys=[self.key(player_id)], args=args)

    async def add(self, player_id: str, found: dict[str, float]) -> None:
        """Entries found missing (table id: score); an entry there stays as it is."""
        if found:
            await self.redis.zadd(self.key(player_id), found, nx=True)

    async def mark_built(self, player_id: str) -> None:
        await self.redis.set(self.built_key(player_id), 1, ex=BUILT_SECONDS)

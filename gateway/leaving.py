"""A player's right to leave: DeletePlayer deletes an account for good.

The caller's player token authenticates it, and the request repeats the caller's player id
(a token alone deletes nothing by mistake). In this order, so that a failure part way
leaves the token working for a retry:

1. the archive (gateway/archive.py ``forget_player``): the player's seats in archived
   games read "deleted player" (the record, the log's names and texts, the seats), their
   rating changes and chat go, and a table archived later is archived without them; the
   player's finished tables still in Redis are archived so and trimmed from Redis at once
   (their retry window cut short);
2. the ratings (common/ratings.py): the player's rating at each game, leaderboard places,
   recent rated tables and games list;
3. the player: its list of tables (history) and, last, its hash with the token.

Tables still being played keep the seat (the game goes on, a bot may take it over); their
names go when they are archived. Without an archive (no TAVOLA_DATABASE_URL) there are no
archived games to rename: steps 2 and 3 alone.
"""

from collections.abc import Awaitable, Callable

import grpc
import structlog
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from common import ratings
from common.errors import ApiError, invalid
from gateway.archiver import Archiver
from gateway.players import KEPT_TABLES, PlayerStore, text
from tavola.gateway.v1 import players_pb2 as pl

log = structlog.get_logger()


class AccountDeletion:
    def __init__(self, redis: "Redis | RedisCluster", key_prefix: str, players: PlayerStore, archiver: Archiver | None):
        self.redis = redis
        self.keys = ratings.Keys(key_prefix)
        self.players = players
        self.archiver = archiver
        # What else keeps something of a player: each forgets it (its push subscriptions, its digest).
        self.forgetters: list[Callable[[str], Awaitable[None]]] = []

    async def delete(self, player_id: str, confirmed_id: str) -> pl.DeletePlayerResponse:
        """Deletes the account of ``player_id`` (the token's), if ``confirmed_id`` names it."""
        if confirmed_id != player_id:
            raise invalid("PLAYER_ID_MISMATCH", "player_id must be the caller's own player id")
        renamed = 0
        if self.archiver is not None:
            archive = self.archiver.archive
            renamed = await archive.forget_player(player_id)
            # Finished tables still in Redis: archived (without the player) and trimmed now.
            for table_id in await self.players.tables(player_id, KEPT_TABLES):
                renamed += await self.archiver.archive_now(table_id)
            # Again: a copy that was under way as the account went is renamed too.
            await archive.forget_player(player_id)
        games = [text(game) for game in await self.redis.smembers(self.keys.games(player_id))]
        # The ratings keys share a hash tag: one pipeline, one slot on a cluster.
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id in games:
                pipe.delete(self.keys.rating(game_id, player_id))
                pipe.zrem(self.keys.board(game_id), player_id)
            pipe.delete(self.keys.recent(player_id), self.keys.games(player_id))
            await pipe.execute()
        for forget in self.forgetters:
            await forget(player_id)
        if not await self.players.forget(player_id):
            raise ApiError(grpc.StatusCode.NOT_FOUND, "PLAYER_NOT_FOUND", "this account was deleted already")
        log.info("player_deleted", player_id=player_id, archived_tables=renamed)
        return pl.DeletePlayerResponse(archived_tables=renamed)

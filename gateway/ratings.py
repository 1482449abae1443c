"""The gateway's side of ratings: queueing a finished rated table's update, sending it again
until a worker has applied it, and reading ratings and leaderboards (common/ratings.py
has the layout; bots/worker/rating_tasks.py applies updates).

When a rated table finishes, its RatingJob (the table as it ended, with its seed and salt)
goes to Redis with a time to send its task again, then the task is sent. Until the task's
script clears the job, the rating sweep (every gateway runs one) sends it again each
TAVOLA_RATING_RESEND_SECONDS: a worker killed mid-update loses nothing, and the update
script's done marker makes the copies harmless.

The job is written by the game's finishing commit itself, in its script (gateway/commit_script.py),
so a gateway that dies right after that commit leaves the job pending, and another
gateway's sweep sends it: the table is rated, once. On a Redis Cluster that script runs on
the table's slot (hash tag ``{<table id>}``), and the jobs live under ``{ratings}``, where
the update script needs them beside the ratings: one script cannot write both. There the
table's own record stands for its job until it is written: the finished rated table stays
in the in-progress index (written outside the commit, after it) until the gateway has
written the job, and the sweep's walk of that index (gateway/sweeper.py) writes the job of
any finished rated table it finds there (a gateway died in between) before filing it. A
job written twice is harmless: its table's done marker makes the second a no-op.
"""

import asyncio
import json
import time
from collections.abc import Sequence
from typing import cast

import grpc
import structlog
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from common import ratings, settings
from common.errors import ApiError, invalid
from gateway.commands import TableCore
from gateway.commit_script import RatingJobWrite
from gateway.limits import MAX_ID
from gateway.players import PlayerStore, text
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.store.v1 import ratings_pb2, store_pb2

log = structlog.get_logger()

MAX_PAGE_SIZE = 100
MAX_RECENT = 50


def rating_message(game_id: str, standing: ratings.Standing) -> pl.Rating:
    return pl.Rating(
        game_id=game_id,
        rating=round(standing.rating, 1),
        uncertainty=round(standing.uncertainty, 1),
        conservative=round(standing.conservative, 1),
        games=standing.games,
        wins=standing.wins,
        provisional=not standing.established,
        left=standing.left,
    )


class Ratings:
    def __init__(
        self,
        redis: "Redis | RedisCluster",
        key_prefix: str,
        core: TableCore,
        players: PlayerStore,
        resend_seconds: float = 30.0,
    ):
        self.redis = redis
        self.keys = ratings.Keys(key_prefix)
        self.core = core
        self.players = players
        self.resend_seconds = resend_seconds
        self._sweep: asyncio.Task | None = None

    # -- updates ---------------------------------------------------------------------

    def job(self, record: store_pb2.TableRecord) -> RatingJobWrite:
        """The finishing commit's rating job (TableCore.rating_job), to send by a time."""
        job = ratings_pb2.RatingJob(table=record.table, seed=record.seed, seed_salt=record.seed_salt)
        send_at = time.time() + self.resend_seconds
        return RatingJobWrite(self.keys.jobs, self.keys.pending, job.SerializeToString(), send_at)

    async def table_finished(self, record: store_pb2.TableRecord, written: bool = False) -> bool:
        """The game-end hook (TableCore.on_rated_finish): the job, unless the finishing
        commit wrote it (``written``), then the task. Whether the job is in Redis now."""
        # Tests only: the gateway hangs whole this long after a rated table's finishing
        # commit, as if it had died (the window in which a test kills it).
        pause = settings.number("TAVOLA_RATING_FINISH_PAUSE_SECONDS")
        if pause:
            log.warning("rating_finish_paused", table_id=record.table.table_id, seconds=pause)
            time.sleep(pause)
        table_id = record.table.table_id
        if not written:
            job = self.job(record)
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    pipe.hset(self.keys.jobs, table_id, job.job)
                    pipe.zadd(self.keys.pending, {table_id: job.send_at})
                    await pipe.execute()
            except Exception:  # the game stands; the sweep's walk writes the job later
                log.error("rating_job_not_written", table_id=table_id, exc_info=True)
                return False
        try:
            await self._send(table_id)
        except Exception:  # the job is pending: the rating sweep sends its task again
            log.warning("rating_task_not_sent", table_id=table_id, exc_info=True)
        return True

    async def _send(self, table_id: str) -> None:
        await self.core.tasks.enqueue(
            ratings.RATING_TASK, table_id, -1, args=[table_id], queue=ratings.RATINGS_QUEUE, priority=0
        )

    async def sweep_once(self) -> int:
        """Sends again the tasks of jobs still pending past their time; returns how many."""
        now = time.time()
        due = await self.redis.zrangebyscore(self.keys.pending, 0, now, start=0, num=200)
        sent = 0
        for raw in due:
            table_id = text(raw)
            # Only while still pending (XX): an applied job left the set.
            if await self.redis.zadd(self.keys.pending, {table_id: now + self.resend_seconds}, xx=True, ch=True):
                log.warning("rating_resent", table_id=table_id)
                await self._send(table_id)
                sent += 1
        return sent

    def start(self) -> None:
        async def loop() -> None:
            while True:
                await asyncio.sleep(max(self.resend_seconds / 4, 0.2))
                try:
                    await self.sweep_once()
                except Exception:
                    log.error("rating_sweep_failed", exc_info=True)

        self._sweep = asyncio.create_task(loop())

    async def stop(self) -> None:
        if self._sweep is not None:
            self._sweep.cancel()
            await asyncio.gather(self._sweep, return_exceptions=True)

    # -- reads -----------------------------------------------------------------------

    async def standings(self, game_id: str, player_ids: list[str]) -> list[ratings.Standing]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hmget(self.keys.rating(game_id, player_id), ratings.FIELDS)
            replies = await pipe.execute()
        return [ratings.Standing.of(fields) for fields in replies]

    async def bot_ratings(self, game_id: str) -> dict[str, list[gw.BotRating]]:
        """The rated settings of each bot (by name) at ``game_id``, best first."""
        specs = sorted(text(raw) for raw in await self.redis.smembers(self.keys.bots(game_id)))
        standings = await self.standings(game_id, [ratings.BOT_PREFIX + spec for spec in specs])
        by_bot: dict[str, list[gw.BotRating]] = {}
        for spec, standing in sorted(zip(specs, standings, strict=True), key=lambda pair: -pair[1].rating):
            by_bot.setdefault(spec.split(":", 1)[0], []).append(
                gw.BotRating(
                    bot=spec,
                    rating=round(standing.rating, 1),
                    uncertainty=round(standing.uncertainty, 1),
                    games=standing.games,
                )
            )
        return by_bot

    async def rate_seats(self, tables: "Sequence[gw.Table]") -> None:
        """Sets each seat's rating (Seat.rating) where its participant has one at the
        table's game: public, as on the leaderboard; one pipeline for the page."""
        wanted = [
            (seat, table.game_id, participant)
            for table in tables
            for seat in table.seats
            if (participant := ratings.participant(seat)) is not None
        ]
        async with self.redis.pipeline(transaction=False) as pipe:
            for _, game_id, participant in wanted:
                pipe.hmget(self.keys.rating(game_id, participant), ratings.FIELDS)
            replies = await pipe.execute()
        for (seat, _, _), fields in zip(wanted, replies, strict=True):
            if fields[0] is None:  # no rated game of this game yet
                continue
            standing = ratings.Standing.of(fields)
            seat.rating.CopyFrom(
                gw.SeatRating(
                    rating=round(standing.rating, 1),
                    uncertainty=round(standing.uncertainty, 1),
                    games=standing.games,
                    provisional=not standing.established,
                )
            )

    async def every_standing(self, player_id: str) -> dict[str, ratings.Standing]:
        """The player's standing at each game they are rated at, by game id."""
        games = sorted(text(game) for game in await self.redis.smembers(self.keys.games(player_id)))
        return {game_id: (await self.standings(game_id, [player_id]))[0] for game_id in games}

    async def reputation(self, player_id: str) -> tuple[int, int]:
        """(rated games, of them finished) over every game (quick play's min_reputation)."""
        return ratings.reputation(list((await self.every_standing(player_id)).values()))

    async def player_page(self, player_id: str, recent: int) -> pl.GetPlayerResponse:
        if recent < 0:
            raise invalid("BAD_PAGE_SIZE", "recent_tables must not be negative")
        page = pl.GetPlayerResponse(player=await self.players.get(player_id))
        standings = await self.every_standing(player_id)
        for game_id, standing in standings.items():
            page.ratings.append(rating_message(game_id, standing))
        games, finished = ratings.reputation(list(standings.values()))
        page.reputation.CopyFrom(pl.Reputation(games=games, finished=finished))
        for raw in await self.redis.lrange(self.keys.recent(player_id), 0, min(recent or 10, MAX_RECENT) - 1):
            entry = json.loads(text(raw))
            line = page.recent_tables.add(
                table_id=entry["t"], game_id=entry["g"], place=entry["p"], player_count=entry["n"]
            )
            line.rating_change = entry["d"]
            line.finish_time.FromNanoseconds(entry["f"])
        return page

    async def leaderboard(self, game_id: str, page_size: int, around: str) -> pl.ListLeaderboardResponse:
        if not game_id or len(game_id) > MAX_ID:
            raise invalid("UNKNOWN_GAME", f"a game_id has 1 to {MAX_ID} characters")
        if page_size < 0 or len(around) > MAX_ID * 2:
            raise invalid("BAD_PAGE_SIZE", "page_size must not be negative")
        size = min(page_size or 20, MAX_PAGE_SIZE)
        board = self.keys.board(game_id)
        start = 0
        if around:
            rank = await self.redis.zrevrank(board, around)
            if rank is None:
                raise ApiError(
                    grpc.StatusCode.NOT_FOUND,
                    "NOT_ON_LEADERBOARD",
                    "that player is not on this leaderboard (unknown, or still provisional)",
                    player_id=around,
                )
            start = max(cast(int, rank) - size // 2, 0)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrevrange(board, start, start + size - 1)
            pipe.zcard(board)
            ids_raw, total = await pipe.execute()
        ids = [text(raw) for raw in ids_raw]
        standings = await self.standings(game_id, ids)
        people = await self.players.names(ids)
        response = pl.ListLeaderboardResponse(total=total)
        for offset, (player_id, standing) in enumerate(zip(ids, standings, strict=True)):
            player = people.get(player_id) or pl.Player(player_id=player_id)
            response.entries.add(rank=start + offset + 1, player=player, rating=rating_message(game_id, standing))
        return response

"""Quick play: FindGame queues a player until a table seats them.

The queues live in Redis, so any gateway serves any searcher, and every gateway with a
searcher in a pool also runs the matching of that pool. A pool is one (game, rated,
options); each searcher's ticket holds its player, rating, wanted player counts and when it
joined. Matching, oldest searcher first: the searchers whose ratings are within the
anchor's window (which widens with the anchor's wait) and whose player counts agree make a
table when they are enough; once the anchor has waited the bot-fill time (default 20 s),
its group is completed with bots of the rating nearest the people's. A group is claimed by
one Lua script that removes every member from the pool only if all are still there, so two
gateways matching the same pool never seat a player twice: the loser's claim changes
nothing. The winner creates the table (rated or not, auto-start, a decision timer after
which a bot takes a silent seat) with each person seated for its player in the same commit,
and leaves the seat and its token for the searcher's own stream (a key read once and deleted, kept two
minutes at most).

A searcher whose stream closes (cancel, disconnect) leaves the pool at once; one whose
gateway died stops refreshing its ticket and is dropped by the next matching. One search per
player at a time: a second is refused (ALREADY_SEARCHING).

Keys, all under one hash tag (``<prefix>:{mm}:``) for the claim script: ``pool:<pool>``
(sorted set: search id -> join time), ``t:<search id>`` (hash: the ticket),
``alive`` (sorted set: search id -> when its gateway last saw it waiting),
``searching:<player>`` (the player's search id) and ``result:<search id>``. Each gateway
serves its searchers in one trip every quarter second (alive, seated or not), not a
round trip per searcher.
"""

import asyncio
import hashlib
import json
import os
import secrets
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import grpc
import structlog
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from common import ratings
from common.errors import ApiError, failed, invalid
from gateway.commands import TableCore
from gateway.limits import MAX_ID, MAX_OPTION_VALUE, MAX_OPTIONS
from gateway.players import PlayerStore, text
from gateway.quotas import CREATE, Client
from gateway.ratings import Ratings
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.rules.v1 import rules_pb2

log = structlog.get_logger()

MAX_PLAYERS = 8
RESULT_TTL_SECONDS = 120
# A ticket not refreshed for this long belongs to a searcher whose gateway is gone.
STALE_SECONDS = 5.0
# A claimed searcher with no seat after this long (its claimer died) goes back to the pool.
CLAIM_TIMEOUT_SECONDS = 15.0
PROGRESS_SECONDS = 2.0
SCAN = 200

# KEYS: the pool, the alive set, then each member's ticket. ARGV: now, the stale limit,
# then the ids. Takes every member from the pool, or none.
CLAIM_SCRIPT = """
for i = 3, #ARGV do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then return 0 end
  local seen = redis.call('ZSCORE', KEYS[2], ARGV[i])
  if not seen or tonumber(seen) < tonumber(ARGV[1]) - tonumber(ARGV[2]) then return 0 end
end
for i = 3, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('HSET', KEYS[i], 'claimed', ARGV[1])
end
return 1
"""

# KEYS: the player's searching key. ARGV: the search id. Deletes it only if it is this search's.
RELEASE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


# Quick play fills seats with the search bot's levels (its spec's presets, as the gateway's
# bot catalog holds them: the gateway loads no bot code), each a rated player
# (``bot:ismcts:level=N``); until one has played a rated game, with level 4, a middle level
# and a cheap one (16 paired rounds a searched decision, a quarter of them played at random).
SEARCH_BOT = "ismcts"
DEFAULT_FILL = "ismcts:level=4"


@dataclass(frozen=True)
class Settings:
    bot_fill_seconds: float = 20.0
    timeout_seconds: float = 120.0
    # The rating window either side of a searcher's rating: base, widened per second waited.
    window_base: float = 100.0
    window_per_second: float = 50.0
    # A decision timer for quick-play tables: a silent seat is taken over by a bot.
    decision_seconds: int = 120
    # The bots that may fill seats (those the gateway accepts for the game count): the search
    # bot's levels when empty; when the gateway accepts none of them, every bot it accepts.
    fill_bots: tuple[str, ...] = ()
    # The one that fills seats while none of them has a rating at the game yet.
    fill_default: str = DEFAULT_FILL

    @classmethod
    def from_env(cls) -> "Settings":
        env = os.environ
        return cls(
            bot_fill_seconds=float(env.get("TAVOLA_QUICKPLAY_BOT_FILL_SECONDS", cls.bot_fill_seconds)),
            timeout_seconds=float(env.get("TAVOLA_QUICKPLAY_TIMEOUT_SECONDS", cls.timeout_seconds)),
            window_base=float(env.get("TAVOLA_QUICKPLAY_WINDOW", cls.window_base)),
            window_per_second=float(env.get("TAVOLA_QUICKPLAY_WINDOW_PER_SECOND", cls.window_per_second)),
            decision_seconds=int(env.get("TAVOLA_QUICKPLAY_DECISION_SECONDS", cls.decision_seconds)),
            fill_bots=tuple(b.strip() for b in env.get("TAVOLA_QUICKPLAY_BOTS", "").split(";") if b.strip()),
            fill_default=env.get("TAVOLA_QUICKPLAY_DEFAULT_BOT", "").strip() or DEFAULT_FILL,
        )

    def window(self, waited: float) -> float:
        return self.window_base + self.window_per_second * max(waited, 0.0)


@dataclass
class Ticket:
    search_id: str
    player_id: str
    name: str
    rating: float
    low: int
    high: int
    since: float
    bot_fill: bool

    @classmethod
    def of(cls, search_id: str, fields: dict) -> "Ticket | None":
        try:
            return cls(
                search_id,
                text(fields[b"player"]),
                text(fields[b"name"]),
                float(fields[b"rating"]),
                int(fields[b"low"]),
                int(fields[b"high"]),
                float(fields[b"since"]),
                fields[b"fill"] == b"1",
            )
        except KeyError:
            return None


def pooled_options(description: rules_pb2.GameDescription, options: dict[str, str]) -> dict[str, str]:
    """Every option of the game, as given or its default, in one spelling (booleans and
    integers as the rules service writes them), so searchers who mean the same table share a
    pool whether they send a default or leave it out. The rules service has accepted
    ``options`` already (an unknown name or a bad value was refused)."""
    pooled = {}
    for spec in description.options:
        value = options.get(spec.name, spec.default_value).strip()
        if spec.kind == rules_pb2.OPTION_KIND_BOOL:  # the spellings the engines accept
            value = "true" if value.lower() in ("true", "1", "yes", "on") else "false"
        elif spec.kind == rules_pb2.OPTION_KIND_INT:
            value = str(int(value))
        pooled[spec.name] = value
    return pooled


def pool_of(game_id: str, rated: bool, options: dict[str, str]) -> str:
    spec = json.dumps([game_id, rated, sorted(options.items())], separators=(",", ":"))
    return hashlib.sha256(spec.encode()).hexdigest()[:24]


class Matchmaker:
    def __init__(
        self,
        redis: "Redis | RedisCluster",
        key_prefix: str,
        core: TableCore,
        players: PlayerStore,
        ratings_book: Ratings,
        settings: Settings | None = None,
    ):
        self.redis = redis
        self.base = f"{key_prefix}:{{mm}}"
        self.core = core
        self.players = players
        self.ratings = ratings_book
        self.settings = settings or Settings()
        # The pools this gateway has searchers in, and each pool's table spec.
        self.local: Counter[str] = Counter()
        self.specs: dict[str, tuple[str, bool, dict[str, str]]] = {}
        # The searches waiting on this gateway: the future of each one's seat, and its player.
        self.waiting: dict[str, tuple[asyncio.Future, str]] = {}
        self.alive = f"{self.base}:alive"
        self.ticket_cache: dict[str, Ticket] = {}
        self._seating: set[asyncio.Task] = set()
        self._loop: asyncio.Task | None = None

    def _pool(self, pool: str) -> str:
        return f"{self.base}:pool:{pool}"

    def _ticket(self, search_id: str) -> str:
        return f"{self.base}:t:{search_id}"

    def _searching(self, player_id: str) -> str:
        return f"{self.base}:searching:{player_id}"

    def _result(self, search_id: str) -> str:
        return f"{self.base}:result:{search_id}"

    # -- the searcher's stream ----------------------------------------------------------

    async def check(self, request: pl.FindGameRequest) -> tuple[int, int]:
        """The request's player counts, after the rules service has accepted the game,
        the options and both counts."""
        if not request.game_id or len(request.game_id) > MAX_ID:
            raise invalid("UNKNOWN_GAME", f"a game_id has 1 to {MAX_ID} characters")
        if len(request.options) > MAX_OPTIONS or any(
            len(name) > MAX_ID or len(value) > MAX_OPTION_VALUE for name, value in request.options.items()
        ):
            raise invalid("BAD_OPTION", f"at most {MAX_OPTIONS} options of {MAX_ID}/{MAX_OPTION_VALUE} characters")
        low = request.min_players
        high = request.max_players or low
        if not 2 <= low <= high <= MAX_PLAYERS:
            raise invalid("BAD_PLAYER_COUNT", f"min_players 2 to {MAX_PLAYERS}, max_players 0 or at least min_players")
        for count in sorted({low, high}):
            await self.core.rules.call(
                request.game_id,
                "NewGame",
                rules_pb2.NewGameRequest(player_count=count, options=dict(request.options), seed=1),
            )
        return low, high

    async def find(self, player_id: str, request: pl.FindGameRequest, client: Client | None, send_out) -> None:
        """Seats the player at a table of the game it asks for: answers through ``send_out``,
        each answer with when bots fill the empty seats (0 without bot fill) and when the
        search ends, for the searcher's waiting screen."""
        bot_fill = not request.HasField("bot_fill") or request.bot_fill

        async def send(response: pl.FindGameResponse) -> None:
            response.bot_fill_seconds = self.settings.bot_fill_seconds if bot_fill else 0.0
            response.timeout_seconds = self.settings.timeout_seconds
            await send_out(response)

        await self.core.quotas.charge(CREATE, client)
        low, high = await self.check(request)
        search_id = secrets.token_hex(8)
        searching = self._searching(player_id)
        if not await self.redis.set(searching, search_id, nx=True, ex=int(STALE_SECONDS * 3)):
            raise failed("ALREADY_SEARCHING", "this player is searching already; cancel that search first")
        options = pooled_options(await self.core.rules.describe(request.game_id), dict(request.options))
        pool = pool_of(request.game_id, request.rated, options)
        self.specs[pool] = (request.game_id, request.rated, options)
        self.local[pool] += 1
        ticket_key = self._ticket(search_id)
        seated: asyncio.Future = asyncio.get_running_loop().create_future()
        self.waiting[search_id] = (seated, player_id)
        try:
            player = await self.players.get(player_id)
            standing = (await self.ratings.standings(request.game_id, [player_id]))[0]
            now = time.time()
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hset(
                    ticket_key,
                    mapping={
                        "player": player_id,
                        "name": player.display_name,
                        "rating": standing.rating,
                        "low": low,
                        "high": high,
                        "since": now,
                        "fill": "1" if bot_fill else "0",
                    },
                )
                pipe.expire(ticket_key, int(self.settings.timeout_seconds + 60))
                pipe.zadd(self.alive, {search_id: now})
                pipe.zadd(self._pool(pool), {search_id: now})
                await pipe.execute()
            log.info("search_started", search_id=search_id, player_id=player_id, game=request.game_id)
            await send(pl.FindGameResponse(search_id=search_id, rating_window=self.settings.window(0)))
            await self._wait(search_id, pool, now, seated, send)
        finally:
            self.waiting.pop(search_id, None)
            self.local[pool] -= 1
            if self.local[pool] <= 0:
                del self.local[pool]
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.zrem(self._pool(pool), search_id)
                pipe.zrem(self.alive, search_id)
                pipe.delete(ticket_key)
                pipe.eval(RELEASE_SCRIPT, 1, searching, search_id)
                await pipe.execute()

    async def _wait(self, search_id: str, pool: str, since: float, seated: asyncio.Future, send) -> None:
        """Waits for the heartbeat (below) to find the search's seat, sending progress."""
        while True:
            waited = time.time() - since
            left = self.settings.timeout_seconds - waited
            if left <= 0:
                raise ApiError(
                    grpc.StatusCode.DEADLINE_EXCEEDED,
                    "SEARCH_TIMED_OUT",
                    f"no table found in {self.settings.timeout_seconds:.0f} s",
                    search_id=search_id,
                )
            try:
                response: gw.TakeSeatResponse = await asyncio.wait_for(
                    asyncio.shield(seated), min(PROGRESS_SECONDS, left)
                )
            except TimeoutError:
                claimed = await self.redis.hget(self._ticket(search_id), "claimed")
                if claimed is not None and time.time() - float(claimed) > CLAIM_TIMEOUT_SECONDS:
                    # Its claimer never seated it: back in the pool, with its place in the queue.
                    await self.redis.hdel(self._ticket(search_id), "claimed")
                    await self.redis.zadd(self._pool(pool), {search_id: since})
                waited = time.time() - since
                await send(
                    pl.FindGameResponse(
                        search_id=search_id, waited_seconds=waited, rating_window=self.settings.window(waited)
                    )
                )
                continue
            await self.players.note_table(self.waiting[search_id][1], response.table.table_id)
            log.info("search_seated", search_id=search_id, table_id=response.table.table_id, seat=response.seat)
            await send(pl.FindGameResponse(search_id=search_id, waited_seconds=time.time() - since, seated=response))
            return

    async def heartbeat(self) -> None:
        """For every search waiting on this gateway, in one trip: marks it alive, refreshes
        its player's one-search key, and collects the seat of those seated."""
        waiting = list(self.waiting.items())
        if not waiting:
            return
        now = time.time()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(self.alive, {search_id: now for search_id, _ in waiting})
            for search_id, (_, player_id) in waiting:
                pipe.getdel(self._result(search_id))
                pipe.expire(self._searching(player_id), int(STALE_SECONDS * 3))
            replies = await pipe.execute()
        for (_, (future, _)), result in zip(waiting, replies[1::2], strict=True):
            if result is not None and not future.done():
                future.set_result(gw.TakeSeatResponse.FromString(bytes(result)))

    # -- matching -------------------------------------------------------------------------

    def start(self, interval: float = 0.25) -> None:
        async def loop() -> None:
            while True:
                await asyncio.sleep(interval)
                try:
                    await self.heartbeat()
                except Exception:
                    log.error("search_heartbeat_failed", exc_info=True)
                for pool in list(self.local):
                    try:
                        await self.match_pool(pool)
                    except Exception:
                        log.error("matching_failed", pool=pool, exc_info=True)

        self._loop = asyncio.create_task(loop())

    async def stop(self) -> None:
        tasks = [task for task in (self._loop, *self._seating) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _tickets(self, pool: str) -> list[Ticket]:
        """The pool's live tickets, oldest first: the fields from this gateway's cache (a
        ticket does not change while it waits), liveness from the alive set."""
        ids = [text(entry) for entry in await self.redis.zrange(self._pool(pool), 0, SCAN - 1)]
        if not ids:
            return []
        seen = await self.redis.zmscore(self.alive, ids)
        now = time.time()
        live = [sid for sid, at in zip(ids, seen, strict=True) if at is not None and now - at <= STALE_SECONDS]
        stale = [sid for sid in ids if sid not in set(live)]
        if stale:
            await self.redis.zrem(self._pool(pool), *stale)
        missing = [sid for sid in live if sid not in self.ticket_cache]
        if missing:
            async with self.redis.pipeline(transaction=False) as pipe:
                for search_id in missing:
                    pipe.hgetall(self._ticket(search_id))
                replies = await pipe.execute()
            for search_id, fields in zip(missing, replies, strict=True):
                ticket = Ticket.of(search_id, fields) if fields else None
                if ticket is not None:
                    self.ticket_cache[search_id] = ticket
        if len(self.ticket_cache) > 4 * SCAN * max(len(self.local), 1):
            keep = set(live)
            self.ticket_cache = {sid: t for sid, t in self.ticket_cache.items() if sid in keep}
        return [self.ticket_cache[sid] for sid in live if sid in self.ticket_cache]

    def group_for(self, anchor: Ticket, tickets: list[Ticket], now: float) -> tuple[list[Ticket], int] | None:
        """The anchor's table: its people and its player count, or None (wait on)."""
        window = self.settings.window(now - anchor.since)
        near = sorted(
            (t for t in tickets if t is not anchor and abs(t.rating - anchor.rating) <= window),
            key=lambda t: abs(t.rating - anchor.rating),
        )
        group, low, high = [anchor], anchor.low, anchor.high
        for other in near:
            new_low, new_high = max(low, other.low), min(high, other.high)
            if new_low > new_high or len(group) >= new_high:
                continue
            group.append(other)
            low, high = new_low, new_high
        if len(group) >= low:
            return group[:high], min(len(group), high)
        if anchor.bot_fill and now - anchor.since >= self.settings.bot_fill_seconds:
            return group, low
        return None

    async def match_pool(self, pool: str) -> int:
        """Makes what tables it can of the pool, each anchored on a searcher of this gateway
        (the oldest first), so gateways seldom reach for the same group; returns how many."""
        tickets = await self._tickets(pool)
        now = time.time()
        taken: set[str] = set()
        made = 0
        for anchor in tickets:
            if anchor.search_id in taken or anchor.search_id not in self.waiting:
                continue
            free = [t for t in tickets if t.search_id not in taken]
            found = self.group_for(anchor, free, now)
            if found is None:
                continue
            group, count = found
            keys = [self._pool(pool), self.alive, *(self._ticket(t.search_id) for t in group)]
            claimed = await self.redis.eval(
                CLAIM_SCRIPT, len(keys), *keys, now, STALE_SECONDS, *(t.search_id for t in group)
            )
            taken.update(t.search_id for t in group)
            if not claimed:  # another gateway took a member, or one left: the next round sees
                continue
            for ticket in group:
                self.ticket_cache.pop(ticket.search_id, None)
            task = asyncio.create_task(self._seat_logged(pool, group, count))
            self._seating.add(task)
            task.add_done_callback(self._seating.discard)
            made += 1
        return made

    def _accepted(self, game_id: str, bots: Iterable[str]) -> list[str]:
        """The canonical form of each of ``bots`` that the gateway accepts for ``game_id``."""
        accepted: list[str] = []
        for spec in bots:
            try:
                bot = self.core.bots.check(game_id, spec)
            except ApiError:
                continue
            if bot not in accepted:
                accepted.append(bot)
        return accepted

    async def fill_bots(self, game_id: str, rating: float, count: int) -> list[str]:
        """``count`` seats of the bot whose rating at ``game_id`` is nearest ``rating`` (the
        people's mean) among the candidates (TAVOLA_QUICKPLAY_BOTS, by default the search
        bot's levels) rated there; with none rated yet, the default one
        (TAVOLA_QUICKPLAY_DEFAULT_BOT, else the first candidate). When the gateway accepts
        no candidate for the game, every bot it accepts is one."""
        candidates = self._accepted(game_id, self.settings.fill_bots or self.core.bots.preset_bots(SEARCH_BOT))
        if not candidates:
            candidates = self._accepted(game_id, (b.name for b in self.core.bots.describe(game_id)))
        if not candidates:
            raise failed("NO_BOTS", f"no bot may fill a seat of {game_id}")
        standings = await self.ratings.standings(game_id, [ratings.BOT_PREFIX + bot for bot in candidates])
        rated = [(bot, standing) for bot, standing in zip(candidates, standings, strict=True) if standing.games]
        if rated:
            chosen = min(rated, key=lambda pair: abs(pair[1].rating - rating))[0]
        else:
            default = self._accepted(game_id, [self.settings.fill_default])
            chosen = default[0] if default else candidates[0]
        return [chosen] * count

    async def _seat_logged(self, pool: str, group: list[Ticket], count: int) -> None:
        try:
            await self._seat(pool, group, count)
        except Exception:  # its searchers go back to the pool after CLAIM_TIMEOUT_SECONDS
            log.error("seating_failed", pool=pool, searches=[t.search_id for t in group], exc_info=True)

    async def _seat(self, pool: str, group: list[Ticket], count: int) -> None:
        game_id, rated, options = self.specs[pool]
        people = len(group)
        mean = sum(t.rating for t in group) / people
        bots = await self.fill_bots(game_id, mean, count - people) if count > people else []
        request = gw.CreateTableRequest(
            game_id=game_id,
            player_count=count,
            options=options,
            rated=rated,
            auto_start=True,
            bot_seats=[gw.BotSeat(seat=people + index, bot=bot) for index, bot in enumerate(bots)],
            decision_timer=gw.DecisionTimer(
                seconds=self.settings.decision_seconds, policy=gw.TIMEOUT_POLICY_BOT_TAKES_SEAT
            ),
        )
        people_seats = [(ticket.player_id, ticket.name) for ticket in group]
        record, _, seated = await self.core.create_seated(request, people=people_seats)
        table_id = record.table.table_id
        async with self.redis.pipeline(transaction=False) as pipe:
            for ticket, (seat, token) in zip(group, seated, strict=True):
                response = gw.TakeSeatResponse(seat=seat, seat_token=token, table=record.table)
                pipe.set(self._result(ticket.search_id), response.SerializeToString(), ex=RESULT_TTL_SECONDS)
            await pipe.execute()
        log.info("match_made", table_id=table_id, game=game_id, people=people, bots=len(bots), rated=rated)

"""Quick play: FindGame queues a player until a table seats them, and seats them only
together with telling them.

The queues live in Redis, so any gateway serves any searcher, and every gateway with a
searcher in a pool also runs the matching of that pool. A pool is one (game, rated,
options); each searcher's ticket holds its player, rating, wanted player counts, when it
joined, and its *home*: the gateway that holds its stream, the only one that can tell it
anything. Matching, oldest searcher first: the searchers whose ratings are within the
anchor's window (which widens with the anchor's wait) and whose player counts agree make a
table when they are enough; once the anchor has waited the bot-fill time (default 20 s),
its group is completed with bots of the rating nearest the people's.

Exactly once. A seat is made by one gateway (the matcher) and told by another (each
searcher's home); either may die, and a searcher may cancel, at any instant. So every
ticket moves through states, each change one Lua script on the ticket (all keys share one
hash tag), and a seat that its searcher is not told of is given to a bot at once:

1. ``waiting`` -> ``claimed``: the matcher's claim takes every member of a group from the
   pool, or none (only members still waiting and whose home is alive), and names the table
   it is about to make. Two gateways matching the same pool never both claim a searcher.
2. The matcher creates the table (that id) with the people seated, in one commit.
3. ``claimed`` -> ``offered``: for each member still claimed for this table, the seat is
   written in its ticket and its id pushed to its home's inbox; a member that is no longer
   claimed for it (it cancelled, or its claim was settled, below) has its seat released.
4. ``offered`` -> ``delivering``: the home takes the offer (only while the searcher's stream
   is open: a search that ended is no longer waited on), notes the table in the player's
   tables, and writes the seated message.
5. ``delivering`` -> ``told`` once the message is written. A write that fails releases the
   seat, and so does a cancel in the 100 ms the stream stays open after the message (the
   told seat is taken back): a cancel that crossed the message on the wire reaches the
   gateway after the write, and cannot be told from a client that read the message and
   closed, so a client reads the stream to its end (docs/clients.md). A home that dies in
   those 100 ms leaves the seat told: its client most likely read it.

A searcher whose stream ends untold (cancel, disconnect, its search timing out) ends its
ticket in one script: waiting, it leaves the pool; claimed, it is marked ``cancelled`` and
step 3 releases its seat; offered or delivering, its seat is released now. Whatever dies,
nothing is left to one gateway's memory: each claimed, offered or delivering ticket has a
deadline in ``pending`` (15 s to be offered, 5 s to be taken by its home, 10 s to be told),
and every gateway settles the overdue ones: an untold seat is released, and the searcher
goes back to the pool (its home, if alive, goes on waiting for it) or, once delivering or
cancelled, is dropped. So a matcher that dies after its commit leaves seats that are
released when their claims fall due, and a home that dies leaves offers that are released
when they fall due; a matcher slower than the deadline finds the claims settled at step 3
and releases the seats itself. A release is queued in ``releases`` before it is tried, and
every gateway retries the queued ones (a table whose matcher has not committed yet is
looked for again for two minutes), so a gateway that dies mid-release loses none. A release
gives the player's seat to a bot (the table's wake-up lets that bot act at once), revokes
its token and takes the player's name off it.

The last hop has no acknowledgement: a searcher whose cancel crosses the seated message on
the wire and reaches its gateway more than the grace after the write (a gateway that busy)
misses a seat that stays its own. That seat is listed by ListMyTables (the table is noted
before the message is written) and rejoined by RejoinSeat; the table's decision timer
covers a player who never comes. The one other seat left to that timer: a matcher that
commits its table more than two minutes after its claim (the release queued when the claim
fell due has given up looking for the table) and then dies before its offers.

One search per player at a time: a second is refused (ALREADY_SEARCHING) unless the first
one's home has stopped refreshing it (its gateway died): then the new search ends the old
ticket (releasing what it was offered) and takes over, so a client whose gateway died may
search again at another after a few seconds.

Keys, all under one hash tag (``<prefix>:{mm}:``) for the scripts (which also name a
ticket's pool key from the ticket), each with a TTL:
``pool:<pool>`` (sorted set: search id -> join time), ``t:<search id>`` (hash: the ticket),
``alive`` (sorted set: search id -> when its home last saw it waiting; entries older than
``2 * STALE_SECONDS`` are swept by every gateway), ``searching:<player>`` (the player's
search id), ``inbox:<gateway>`` (list: offers for that gateway's searchers), ``pending``
(sorted set: search id -> deadline) and ``releases`` (sorted set: seat to release -> when to
try). Each gateway serves its searchers in one trip every quarter second (alive, one-search
keys), reads its inbox every 50 ms, and settles what is overdue every second.
"""

import asyncio
import hashlib
import json
import secrets
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import grpc
import structlog
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from common import ratings, settings
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
# A ticket not refreshed for this long belongs to a searcher whose gateway is gone.
STALE_SECONDS = 5.0
# How long each step may take before any gateway settles it: the matcher's commit and
# offer after a claim, the home's taking an offer, the home's telling after taking it.
CLAIM_SECONDS = 15.0
OFFER_SECONDS = 5.0
DELIVER_SECONDS = 10.0
# A release whose table is not there yet (its matcher has not committed) is tried again,
# every RELEASE_RETRY_SECONDS for RELEASE_PATIENCE_SECONDS.
RELEASE_RETRY_SECONDS = 2.0
RELEASE_PATIENCE_SECONDS = 120.0
# The TTL of the shared sets (pending, releases, alive), refreshed by every write, and of an
# inbox; every gateway sweeps them, so the TTL only matters once every gateway is gone.
SHARED_TTL_SECONDS = 600
INBOX_TTL_SECONDS = 60
# After writing the seat, how long a cancel still releases it (one that crossed the message).
TELL_GRACE_SECONDS = 0.1
PROGRESS_SECONDS = 2.0
INBOX_SECONDS = 0.05
SETTLE_SECONDS = 1.0
SCAN = 200

# KEYS: the pool, the alive set, pending, then each member's ticket. ARGV: now, the stale
# limit, the table id, the deadline, the shared TTL, then the ids. Claims every member for
# the table, or none: only members still in the pool, waiting, and whose home is alive.
CLAIM_SCRIPT = """
for i = 6, #ARGV do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then return 0 end
  if redis.call('HGET', KEYS[i - 2], 'state') ~= 'waiting' then return 0 end
  local seen = redis.call('ZSCORE', KEYS[2], ARGV[i])
  if not seen or tonumber(seen) < tonumber(ARGV[1]) - tonumber(ARGV[2]) then return 0 end
end
for i = 6, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('HSET', KEYS[i - 2], 'state', 'claimed', 'table', ARGV[3])
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[i])
end
redis.call('EXPIRE', KEYS[3], ARGV[5])
return 1
"""

# KEYS: pending, releases, then each member's ticket and its home's inbox. ARGV: now, the
# table id, the deadline, the shared TTL, the inbox TTL, then each member's id, seat (the
# TakeSeatResponse) and release entry. Offers each member still claimed for the table its
# seat; queues the release of the others' seats and answers their entries (a member that
# cancelled while claimed for it is done with: its ticket goes).
OFFER_SCRIPT = """
local released = {}
for i = 0, (#ARGV - 5) / 3 - 1 do
  local sid, seat, entry = ARGV[6 + 3 * i], ARGV[7 + 3 * i], ARGV[8 + 3 * i]
  local ticket, inbox = KEYS[3 + 2 * i], KEYS[4 + 2 * i]
  local state = redis.call('HGET', ticket, 'state')
  local ours = redis.call('HGET', ticket, 'table') == ARGV[2]
  if state == 'claimed' and ours then
    redis.call('HSET', ticket, 'state', 'offered', 'offer', seat)
    redis.call('ZADD', KEYS[1], ARGV[3], sid)
    redis.call('RPUSH', inbox, sid)
    redis.call('EXPIRE', inbox, ARGV[5])
  else
    redis.call('ZADD', KEYS[2], ARGV[1], entry)
    released[#released + 1] = entry
    if state == 'cancelled' and ours then
      redis.call('DEL', ticket)
      redis.call('ZREM', KEYS[1], sid)
    end
  end
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return released
"""

# KEYS: an inbox. Empties it, answering what it held.
TAKE_INBOX_SCRIPT = """
local ids = redis.call('LRANGE', KEYS[1], 0, -1)
if #ids > 0 then redis.call('DEL', KEYS[1]) end
return ids
"""

# KEYS: the ticket, pending. ARGV: the id, the deadline. The home takes its searcher's offer.
DELIVER_SCRIPT = """
if redis.call('HGET', KEYS[1], 'state') ~= 'offered' then return false end
redis.call('HSET', KEYS[1], 'state', 'delivering')
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return redis.call('HGET', KEYS[1], 'offer')
"""

# KEYS: the ticket, pending. ARGV: the id. The seated message was written: the seat stands
# (0: the offer was settled first, its seat released).
TOLD_SCRIPT = """
if redis.call('HGET', KEYS[1], 'state') ~= 'delivering' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'told')
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
"""

# The release entry of a ticket's seat: "table|player|game|rating|since" (RELEASE_FIELDS).
RELEASE_ENTRY = """
local function release_entry(ticket, now)
  local f = redis.call('HMGET', ticket, 'table', 'player', 'game', 'rating')
  return f[1] .. '|' .. f[2] .. '|' .. f[3] .. '|' .. f[4] .. '|' .. now
end
"""

# KEYS: the ticket, pending, releases, the player's one-search key. ARGV: the id, now, the
# key prefix (for the ticket's pool), the shared TTL, '1' to take back a told seat. A search
# ends: waiting, it leaves its pool; claimed, it is marked cancelled (its matcher, or the
# settling, releases the seat); offered or delivering (or told and taken back), its seat's
# release is queued and answered; told, its ticket is dropped.
END_SCRIPT = (
    RELEASE_ENTRY
    + """
if redis.call('GET', KEYS[4]) == ARGV[1] then redis.call('DEL', KEYS[4]) end
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'claimed' then
  redis.call('HSET', KEYS[1], 'state', 'cancelled')
  return false
end
if state == 'offered' or state == 'delivering' or (state == 'told' and ARGV[5] == '1') then
  local entry = release_entry(KEYS[1], ARGV[2])
  redis.call('ZADD', KEYS[3], ARGV[2], entry)
  redis.call('EXPIRE', KEYS[3], ARGV[4])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('DEL', KEYS[1])
  return entry
end
if state == 'waiting' then
  redis.call('ZREM', ARGV[3] .. ':pool:' .. redis.call('HGET', KEYS[1], 'pool'), ARGV[1])
end
if state ~= 'cancelled' then redis.call('DEL', KEYS[1]) end
return false
"""
)

# KEYS: the ticket, pending, releases. ARGV: the id, now, the key prefix, the shared TTL, the
# pool TTL. Settles an overdue ticket: a claimed or offered searcher's seat is released and
# it goes back to its pool, in its place (its home, if alive, waits on); a delivering or
# cancelled one's seat is released and the ticket dropped. Answers the release entry.
SETTLE_SCRIPT = (
    RELEASE_ENTRY
    + """
local state = redis.call('HGET', KEYS[1], 'state')
redis.call('ZREM', KEYS[2], ARGV[1])
if state ~= 'claimed' and state ~= 'offered' and state ~= 'delivering' and state ~= 'cancelled' then
  return false
end
local entry = release_entry(KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[2], entry)
redis.call('EXPIRE', KEYS[3], ARGV[4])
if state == 'claimed' or state == 'offered' then
  local pool = ARGV[3] .. ':pool:' .. redis.call('HGET', KEYS[1], 'pool')
  redis.call('HSET', KEYS[1], 'state', 'waiting')
  redis.call('HDEL', KEYS[1], 'offer', 'table')
  redis.call('ZADD', pool, redis.call('HGET', KEYS[1], 'since'), ARGV[1])
  redis.call('EXPIRE', pool, ARGV[5])
else
  redis.call('DEL', KEYS[1])
end
return entry
"""
)

# KEYS: the player's one-search key, the alive set. ARGV: the new id, now, the stale limit,
# the key's TTL. Takes the key over from a search whose home stopped refreshing it: answers
# the old id ('' if there was none), or false while the old search is alive.
TAKE_OVER_SCRIPT = """
local old = redis.call('GET', KEYS[1])
if old then
  local seen = redis.call('ZSCORE', KEYS[2], old)
  if seen and tonumber(seen) >= tonumber(ARGV[2]) - tonumber(ARGV[3]) then return false end
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[4])
return old or ''
"""

# KEYS: releases. ARGV: the entry, now, the lease. Leases a due release to this gateway.
LEASE_SCRIPT = """
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due or tonumber(due) > tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
return 1
"""


@dataclass(frozen=True)
class Release:
    """A seat to give to a bot: the player's at the table (quick play's untold seat)."""

    table_id: str
    player_id: str
    game_id: str
    rating: float
    since: float
    # Its member of the releases set, as written ("table|player|game|rating|since").
    entry: str

    @classmethod
    def of(cls, table_id: str, player_id: str, game_id: str, rating: float, since: float) -> "Release":
        return cls(table_id, player_id, game_id, rating, since, f"{table_id}|{player_id}|{game_id}|{rating}|{since}")

    @classmethod
    def parse(cls, entry: object) -> "Release":
        table_id, player_id, game_id, rating, since = text(entry).split("|")
        return cls(table_id, player_id, game_id, float(rating), float(since), text(entry))


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
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        return cls(
            bot_fill_seconds=settings.number("TAVOLA_QUICKPLAY_BOT_FILL_SECONDS", env),
            timeout_seconds=settings.number("TAVOLA_QUICKPLAY_TIMEOUT_SECONDS", env),
            window_base=settings.number("TAVOLA_QUICKPLAY_WINDOW", env),
            window_per_second=settings.number("TAVOLA_QUICKPLAY_WINDOW_PER_SECOND", env),
            decision_seconds=settings.integer("TAVOLA_QUICKPLAY_DECISION_SECONDS", env),
            fill_bots=tuple(b.strip() for b in settings.text("TAVOLA_QUICKPLAY_BOTS", env).split(";") if b.strip()),
            fill_default=settings.text("TAVOLA_QUICKPLAY_DEFAULT_BOT", env) or DEFAULT_FILL,
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
    home: str

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
                text(fields[b"home"]),
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
        # This gateway, as its searchers' home: offers for them come through its inbox.
        self.gateway_id = secrets.token_hex(6)
        # The pools this gateway has searchers in, and each pool's table spec.
        self.local: Counter[str] = Counter()
        self.specs: dict[str, tuple[str, bool, dict[str, str]]] = {}
        # The searches waiting on this gateway: the future of each one's offer, and its player.
        self.waiting: dict[str, tuple[asyncio.Future, str]] = {}
        self.alive = f"{self.base}:alive"
        self.pending = f"{self.base}:pending"
        self.releases = f"{self.base}:releases"
        self.inbox = f"{self.base}:inbox:{self.gateway_id}"
        self.ticket_cache: dict[str, Ticket] = {}
        self._seating: set[asyncio.Task] = set()
        self._loops: list[asyncio.Task] = []

    def _pool(self, pool: str) -> str:
        return f"{self.base}:pool:{pool}"

    def _ticket(self, search_id: str) -> str:
        return f"{self.base}:t:{search_id}"

    def _searching(self, player_id: str) -> str:
        return f"{self.base}:searching:{player_id}"

    def _inbox(self, gateway_id: str) -> str:
        return f"{self.base}:inbox:{gateway_id}"

    @property
    def ticket_ttl(self) -> int:
        return int(self.settings.timeout_seconds + CLAIM_SECONDS + OFFER_SECONDS + DELIVER_SECONDS + 60)

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

    async def _begin(self, player_id: str, search_id: str) -> None:
        """Takes the player's one-search key, or over from a search whose home died (whose
        ticket is then ended as a cancel ends it); else ALREADY_SEARCHING."""
        searching = self._searching(player_id)
        ttl = int(STALE_SECONDS * 3)
        if await self.redis.set(searching, search_id, nx=True, ex=ttl):
            return
        old = await self.redis.eval(
            TAKE_OVER_SCRIPT, 2, searching, self.alive, search_id, time.time(), STALE_SECONDS, ttl
        )
        if old is None:
            raise failed("ALREADY_SEARCHING", "this player is searching already; cancel that search first")
        if text(old):
            log.info("search_taken_over", search_id=search_id, old_search_id=text(old), player_id=player_id)
            await self._end(text(old), player_id)

    async def _end(self, search_id: str, player_id: str, take_back: bool = False) -> None:
        """Ends a search; a seat it was offered and not told (or told, and ``take_back``: a
        cancel crossed it) goes to a bot."""
        keys = [self._ticket(search_id), self.pending, self.releases, self._searching(player_id)]
        entry = await self.redis.eval(
            END_SCRIPT, len(keys), *keys, search_id, time.time(), self.base, SHARED_TTL_SECONDS, int(take_back)
        )
        if entry:
            await self._release(Release.parse(entry))

    async def find(self, player_id: str, request: pl.FindGameRequest, client: Client | None, send_out) -> None:
        """Seats the player at a table of the game it asks for: answers through ``send_out``,
        each answer with when bots fill the empty seats (0 without bot fill) and when the
        search ends, for the searcher's waiting screen. The seat is the player's only once
        ``send_out`` has written its message: a search that ends before (this call
        cancelled, a message failing, the search timing out) leaves no seat held."""
        bot_fill = not request.HasField("bot_fill") or request.bot_fill

        async def send(response: pl.FindGameResponse) -> None:
            response.bot_fill_seconds = self.settings.bot_fill_seconds if bot_fill else 0.0
            response.timeout_seconds = self.settings.timeout_seconds
            await send_out(response)

        await self.core.quotas.charge(CREATE, client)
        low, high = await self.check(request)
        search_id = secrets.token_hex(8)
        await self._begin(player_id, search_id)
        pool = ""
        written: gw.TakeSeatResponse | None = None
        crossed = True  # until the grace has passed
        seated: asyncio.Future = asyncio.get_running_loop().create_future()
        self.waiting[search_id] = (seated, player_id)
        try:
            options = pooled_options(await self.core.rules.describe(request.game_id), dict(request.options))
            pool = pool_of(request.game_id, request.rated, options)
            self.specs[pool] = (request.game_id, request.rated, options)
            self.local[pool] += 1
            ticket_key = self._ticket(search_id)
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
                        "game": request.game_id,
                        "pool": pool,
                        "home": self.gateway_id,
                        "state": "waiting",
                    },
                )
                pipe.expire(ticket_key, self.ticket_ttl)
                pipe.zadd(self.alive, {search_id: now})
                pipe.expire(self.alive, SHARED_TTL_SECONDS)
                pipe.zadd(self._pool(pool), {search_id: now})
                pipe.expire(self._pool(pool), self.pool_ttl)
                await pipe.execute()
            log.info("search_started", search_id=search_id, player_id=player_id, game=request.game_id)
            await send(pl.FindGameResponse(search_id=search_id, rating_window=self.settings.window(0)))
            seat = await self._wait(search_id, player_id, now, seated, send)
            await send(pl.FindGameResponse(search_id=search_id, waited_seconds=time.time() - now, seated=seat))
            written = seat
            await asyncio.shield(self._told(search_id, seat))
            # A cancel that crossed the message on the wire reaches this task after the write:
            # one that comes within the grace takes the seat back, so the stream ends after
            # it (a client reads the stream to its end, docs/clients.md). A gateway that dies
            # meanwhile leaves the seat told: its client most likely read it.
            await asyncio.sleep(TELL_GRACE_SECONDS)
            crossed = False
        finally:
            self.waiting.pop(search_id, None)
            if pool:
                self.local[pool] -= 1
                if self.local[pool] <= 0:
                    del self.local[pool]
            # Shielded, so that the stream's end cannot cut it: told and past the grace, the
            # ticket is only dropped; else a seat it was offered (or told) goes to a bot.
            await asyncio.shield(self._end(search_id, player_id, take_back=written is not None and crossed))

    async def _told(self, search_id: str, seat: gw.TakeSeatResponse) -> None:
        told = await self.redis.eval(TOLD_SCRIPT, 2, self._ticket(search_id), self.pending, search_id)
        log.info(
            "search_seated", search_id=search_id, table_id=seat.table.table_id, seat=seat.seat, released_first=not told
        )

    @property
    def pool_ttl(self) -> int:
        return int(self.settings.timeout_seconds + 60)

    async def _wait(
        self, search_id: str, player_id: str, since: float, seated: asyncio.Future, send
    ) -> gw.TakeSeatResponse:
        """Waits for this gateway's inbox (below) to take the search's offer, sending
        progress; the seat, noted in the player's tables."""
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
                offer: bytes = await asyncio.wait_for(asyncio.shield(seated), min(PROGRESS_SECONDS, left))
            except TimeoutError:
                waited = time.time() - since
                await send(
                    pl.FindGameResponse(
                        search_id=search_id, waited_seconds=waited, rating_window=self.settings.window(waited)
                    )
                )
                continue
            response = gw.TakeSeatResponse.FromString(offer)
            # Noted first: a searcher who misses the message on the wire finds its seat there.
            await self.players.note_table(player_id, response.table.table_id)
            return response

    async def heartbeat(self) -> None:
        """For every search waiting on this gateway, in one trip: marks it alive and
        refreshes its player's one-search key."""
        waiting = list(self.waiting.items())
        if not waiting:
            return
        now = time.time()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(self.alive, {search_id: now for search_id, _ in waiting})
            pipe.expire(self.alive, SHARED_TTL_SECONDS)
            for _, (_, player_id) in waiting:
                pipe.expire(self._searching(player_id), int(STALE_SECONDS * 3))
            await pipe.execute()

    async def read_inbox(self) -> int:
        """Takes the offers made for this gateway's searchers: each one still waiting here
        takes its offer (DELIVER_SCRIPT) and is woken with it. Returns how many."""
        ids = await self.redis.eval(TAKE_INBOX_SCRIPT, 1, self.inbox)
        return await self._deliver([text(sid) for sid in ids])

    async def _deliver(self, search_ids: list[str]) -> int:
        here = [sid for sid in dict.fromkeys(search_ids) if sid in self.waiting and not self.waiting[sid][0].done()]
        if not here:
            return 0
        deadline = time.time() + DELIVER_SECONDS
        async with self.redis.pipeline(transaction=False) as pipe:
            for search_id in here:
                pipe.eval(DELIVER_SCRIPT, 2, self._ticket(search_id), self.pending, search_id, deadline)
            offers = await pipe.execute()
        woken = 0
        for search_id, offer in zip(here, offers, strict=True):
            if offer is None:
                continue
            waiter = self.waiting.get(search_id)
            # A stream that ended meanwhile: its own end, after this, releases the seat.
            if waiter is not None and not waiter[0].done():
                waiter[0].set_result(bytes(offer))
                woken += 1
        return woken

    # -- settling what a dead or slow gateway left ----------------------------------------

    async def settle(self, now: float | None = None) -> int:
        """Settles the overdue tickets (SETTLE_SCRIPT), releases the due seats, and sweeps
        the alive set; returns how many seats were released."""
        now = time.time() if now is None else now
        overdue = [text(sid) for sid in await self.redis.zrangebyscore(self.pending, "-inf", now, start=0, num=SCAN)]
        for search_id in overdue:
            entry = await self.redis.eval(
                SETTLE_SCRIPT,
                3,
                self._ticket(search_id),
                self.pending,
                self.releases,
                search_id,
                now,
                self.base,
                SHARED_TTL_SECONDS,
                self.pool_ttl,
            )
            if entry:
                log.warning("search_settled", search_id=search_id, release=text(entry))
        released = 0
        due = [text(entry) for entry in await self.redis.zrangebyscore(self.releases, "-inf", now, start=0, num=SCAN)]
        for entry in due:
            if await self.redis.eval(LEASE_SCRIPT, 1, self.releases, entry, now, RELEASE_RETRY_SECONDS):
                released += await self._release(Release.parse(entry))
        await self.redis.zremrangebyscore(self.alive, "-inf", now - 2 * STALE_SECONDS)
        return released

    async def _release(self, release: Release) -> int:
        """Gives the released seat to a bot; drops the queued release once done, or once the
        table has not appeared in RELEASE_PATIENCE_SECONDS (else it is tried again)."""
        try:
            bot = (await self.fill_bots(release.game_id, release.rating, 1))[0]
            given = await self.core.release_seat(release.table_id, release.player_id, bot)
        except Exception as error:
            # Tried again once its lease lapses (a table not made yet, contention, Redis away).
            given_up = time.time() - release.since > RELEASE_PATIENCE_SECONDS
            reason = error.reason if isinstance(error, ApiError) else type(error).__name__
            if given_up:
                await self.redis.zrem(self.releases, release.entry)
            if given_up or reason != "TABLE_NOT_FOUND":
                log.error(
                    "release_failed",
                    table_id=release.table_id,
                    player_id=release.player_id,
                    reason=reason,
                    given_up=given_up,
                )
            return 0
        await self.redis.zrem(self.releases, release.entry)
        if given:
            log.info("untold_seat_released", table_id=release.table_id, player_id=release.player_id, bot=bot)
        return int(given)

    # -- matching -------------------------------------------------------------------------

    def start(self, interval: float = 0.25) -> None:
        async def every(seconds: float, step, name: str) -> None:
            while True:
                await asyncio.sleep(seconds)
                try:
                    await step()
                except Exception:
                    log.error(name, exc_info=True)

        async def beat() -> None:
            await self.heartbeat()
            for pool in list(self.local):
                try:
                    await self.match_pool(pool)
                except Exception:
                    log.error("matching_failed", pool=pool, exc_info=True)

        async def inbox() -> None:
            if self.waiting:
                await self.read_inbox()

        self._loops = [
            asyncio.create_task(every(interval, beat, "search_heartbeat_failed")),
            asyncio.create_task(every(INBOX_SECONDS, inbox, "search_inbox_failed")),
            asyncio.create_task(every(SETTLE_SECONDS, self.settle, "search_settling_failed")),
        ]

    async def stop(self) -> None:
        tasks = [*self._loops, *self._seating]
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
            table_id = secrets.token_hex(8)
            keys = [self._pool(pool), self.alive, self.pending, *(self._ticket(t.search_id) for t in group)]
            claimed = await self.redis.eval(
                CLAIM_SCRIPT,
                len(keys),
                *keys,
                now,
                STALE_SECONDS,
                table_id,
                now + CLAIM_SECONDS,
                SHARED_TTL_SECONDS,
                *(t.search_id for t in group),
            )
            taken.update(t.search_id for t in group)
            if not claimed:  # another gateway took a member, or one left: the next round sees
                continue
            for ticket in group:
                self.ticket_cache.pop(ticket.search_id, None)
            task = asyncio.create_task(self._seat_logged(pool, table_id, group, count))
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

    async def _seat_logged(self, pool: str, table_id: str, group: list[Ticket], count: int) -> None:
        try:
            await self._seat(pool, table_id, group, count)
        except Exception:
            log.error("seating_failed", pool=pool, searches=[t.search_id for t in group], exc_info=True)

    async def _seat(self, pool: str, table_id: str, group: list[Ticket], count: int) -> None:
        """Makes the claimed group's table, then offers each member its seat (steps 2 and 3
        above); a member claimed no more has its seat released at once."""
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
        try:
            record, _, seated = await self.core.create_seated(request, people=people_seats, table_id=table_id)
        except Exception:
            # The claims fall due now rather than at their deadline: the searchers go back to
            # the pool, and their seats are released should the table have been made after all.
            await self.redis.zadd(self.pending, {ticket.search_id: 0 for ticket in group})
            raise
        now = time.time()
        keys = [self.pending, self.releases]
        args: list[str | bytes | float] = [now, table_id, now + OFFER_SECONDS, SHARED_TTL_SECONDS, INBOX_TTL_SECONDS]
        for ticket, (seat, token) in zip(group, seated, strict=True):
            keys += [self._ticket(ticket.search_id), self._inbox(ticket.home)]
            offer = gw.TakeSeatResponse(seat=seat, seat_token=token, table=record.table)
            release = Release.of(table_id, ticket.player_id, game_id, ticket.rating, now)
            args += [ticket.search_id, offer.SerializeToString(), release.entry]
        released = await self.redis.eval(OFFER_SCRIPT, len(keys), *keys, *args)
        log.info(
            "match_made",
            table_id=table_id,
            game=game_id,
            people=people,
            bots=len(bots),
            rated=rated,
            released=len(released),
        )
        # This gateway's own searchers are told now, not at its next inbox read.
        await self._deliver([t.search_id for t in group if t.home == self.gateway_id])
        for entry in released:
            await self._release(Release.parse(entry))

"""A gateway's part in quick play: the searchers whose streams it holds, the pools it
matches, and the settling of what a dead or slow gateway left (the protocol is told in
``gateway.matchmaking``)."""

import asyncio
import secrets
import time
from collections import Counter
from typing import TYPE_CHECKING

import grpc
import structlog
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from common.errors import ApiError, failed
from gateway.commands import TableCore
from gateway.matchmaking import fill
from gateway.matchmaking.scripts import (
    CLAIM_SCRIPT,
    CLAIM_SECONDS,
    DELIVER_SCRIPT,
    DELIVER_SECONDS,
    END_SCRIPT,
    INBOX_SECONDS,
    INBOX_TTL_SECONDS,
    LEASE_SCRIPT,
    OFFER_SCRIPT,
    OFFER_SECONDS,
    PROGRESS_SECONDS,
    RELEASE_RETRY_SECONDS,
    SCAN,
    SETTLE_SCRIPT,
    SETTLE_SECONDS,
    SHARED_TTL_SECONDS,
    STALE_SECONDS,
    TAKE_INBOX_SCRIPT,
    TAKE_OVER_SCRIPT,
    TELL_GRACE_SECONDS,
    TOLD_SCRIPT,
)
from gateway.matchmaking.tickets import Release, Settings, Ticket, group_for, pool_of, pooled_options, requested_counts
from gateway.players import PlayerStore, text

if TYPE_CHECKING:
    from gateway.social import Social
from gateway.quotas import CREATE, Client
from gateway.ratings import Ratings
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl

log = structlog.get_logger()


class Matchmaker:
    # Who blocked whom (gateway/social.py): set by the gateway's start; None seats anyone.
    social: "Social | None" = None

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
        low, high = await requested_counts(request, self.core.rules)
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
            games, finished = await self.ratings.reputation(player_id)
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
                        "rg": games,
                        "rf": finished,
                        "minrep": request.min_reputation,
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
        return await fill.give_to_bot(self, release)

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

    async def match_pool(self, pool: str) -> int:
        """Makes what tables it can of the pool, each anchored on a searcher of this gateway
        (the oldest first), so gateways seldom reach for the same group; returns how many."""
        tickets = await self._tickets(pool)
        blocked = await self.social.blocked_among([t.player_id for t in tickets]) if self.social else set()
        now = time.time()
        taken: set[str] = set()
        made = 0
        for anchor in tickets:
            if anchor.search_id in taken or anchor.search_id not in self.waiting:
                continue
            free = [t for t in tickets if t.search_id not in taken]
            found = group_for(anchor, free, now, self.settings, blocked)
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

    async def fill_bots(self, game_id: str, rating: float, count: int) -> list[str]:
        """``count`` seats of the bot nearest ``rating`` (see ``fill.fill_bots``)."""
        return await fill.fill_bots(self.core.bots, self.ratings, self.settings, game_id, rating, count)

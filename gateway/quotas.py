"""Per-client quotas: table creation, seat taking and replays with views (each a rules
call per logged action) per minute, and open streams.

A client is its token when it sends one, else its peer's IP address. A token proves
nothing when a table is created or a seat taken, so an address's calls together, whatever
tokens they send, get at most ``PEER_FACTOR`` times a client's allowance: a client that
invents a token per call gains no unbounded allowance. Rates are fixed
one-minute windows counted in Redis (one key per client, quota and window: INCR, then
EXPIRE), so every gateway shares them and a cluster needs no hash tag. Open streams are
counted in this process's memory, since a stream lives on one gateway. A limit of 0 turns
that quota off; event streams and action streams (a bot worker's) are counted apart. A
refused call is RESOURCE_EXHAUSTED (QUOTA_EXCEEDED) with a RetryInfo,
and is refused before it changes anything.

What a person does often and in bursts (chat) is limited by a token bucket instead
(``take``): a burst at once, then a steady rate, kept in one Redis hash per player and
quota and refilled by Redis's own clock, so every gateway shares it.
"""

import contextlib
import hashlib
import math
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import grpc
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from common import auth
from common.errors import ApiError

WINDOW_SECONDS = 60
# What RetryInfo suggests when a client has too many streams open: one may close soon.
STREAM_RETRY_SECONDS = 5.0

CREATE = "create_table"
SEATS = "take_seat"
REPLAYS = "replay_with_views"
PLAYERS = "create_player"  # charged to the address alone (gateway/players.py)
STREAMS = "open_streams"
ACTION_STREAMS = "open_action_streams"  # ActionService.SubmitActions: a bot worker's, apart
# How many clients' worth of calls one address may make with tokens (proxies, NAT, tests).
PEER_FACTOR = 10


@dataclass(frozen=True)
class Limits:
    create_per_minute: int = 30
    seats_per_minute: int = 30
    streams: int = 20
    # A worker process holds 4 (bots/worker/gateway_stream.py): a host's workers, apart from the
    # event streams of the people who may share its address.
    action_streams: int = 64
    replays_per_minute: int = 30
    players_per_minute: int = 10

    def per_minute(self, quota: str) -> int:
        return {
            CREATE: self.create_per_minute,
            SEATS: self.seats_per_minute,
            REPLAYS: self.replays_per_minute,
            PLAYERS: self.players_per_minute,
        }[quota]


@dataclass(frozen=True)
class Client:
    """Short, opaque names for the caller: its address, and its token when it sends one."""

    peer: str
    token: str | None = None

    def charges(self, limit: int) -> list[tuple[str, int]]:
        """(key, limit) pairs a call counts against: an anonymous call, its address's; a
        call with a token, the token's own allowance and the one that every token sent
        from its address shares."""
        if self.token is None:
            return [(self.peer, limit)]
        return [(self.token, limit), (f"{self.peer}-tokens", limit * PEER_FACTOR)]


def client_of(context: grpc.aio.ServicerContext) -> Client:
    peer = "p" + hashlib.sha256(peer_ip(context.peer() or "").encode()).hexdigest()[:24]
    token = auth.token_from(context)
    return Client(peer, None if token is None else "t" + hashlib.sha256(token.encode()).hexdigest()[:24])


def peer_ip(peer: str) -> str:
    """'ipv4:10.0.0.1:5000' -> '10.0.0.1', 'ipv6:[::1]:5000' (gRPC may percent-encode the
    brackets) -> '::1'; others as given."""
    kind, _, address = unquote(peer).partition(":")
    if kind == "ipv4":
        return address.rpartition(":")[0] or address
    if kind == "ipv6":
        host = address.rpartition(":")[0] or address
        return host.strip("[]")
    return peer


def exceeded(quota: str, limit: int, retry_after: float) -> ApiError:
    return ApiError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "QUOTA_EXCEEDED",
        f"quota {quota} exceeded ({limit}); retry in {math.ceil(retry_after)} s",
        retry_after=retry_after,
        quota=quota,
        limit=limit,
    )


# A token bucket: KEYS[1] a hash (tokens, at: microseconds); ARGV rate per second, burst.
# Returns 0 when a token was taken, else the seconds until one is there (as a string).
_BUCKET = """
local now = redis.call('TIME')
local micros = tonumber(now[1]) * 1000000 + tonumber(now[2])
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or micros
tokens = math.min(burst, tokens + math.max(0, micros - at) / 1000000 * rate)
if tokens < 1 then return tostring((1 - tokens) / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'at', tostring(micros))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 5)
return '0'
"""


class Quotas:
    def __init__(self, redis: "Redis | RedisCluster", key_prefix: str, limits: Limits):
        self.redis = redis
        self.prefix = f"{key_prefix}:quota"
        self.limits = limits
        self.open: Counter[str] = Counter()
        self._bucket: Any = None  # the token bucket's script, registered at its first use

    async def take(self, quota: str, owner: str, per_minute: int, burst: int) -> None:
        """Takes one token of ``owner``'s bucket of ``quota`` (``burst`` at most, refilled
        at ``per_minute``), or raises QUOTA_EXCEEDED with the wait for the next one. A rate
        of 0 turns it off."""
        if per_minute <= 0:
            return
        if self._bucket is None:
            self._bucket = self.redis.register_script(_BUCKET)
        wait = float(await self._bucket(keys=[f"{self.prefix}:{quota}:{owner}"], args=[per_minute / 60, burst]))
        if wait > 0:
            raise exceeded(quota, per_minute, wait)

    async def charge(self, quota: str, client: Client | None) -> None:
        """Counts one call of ``quota`` for ``client`` (None: the platform, never limited),
        or raises QUOTA_EXCEEDED when the window's limit is used up."""
        limit = self.limits.per_minute(quota)
        if client is None or limit <= 0:
            return
        now = time.time()
        window = int(now // WINDOW_SECONDS)
        charges = client.charges(limit)
        # One trip; the keys outlive their window a little, for gateways' clocks a bit apart.
        async with self.redis.pipeline(transaction=False) as pipe:
            for name, _ in charges:
                key = f"{self.prefix}:{quota}:{name}:{window}"
                pipe.incr(key)
                pipe.expire(key, WINDOW_SECONDS + 5)
            replies = await pipe.execute()
        for (_, allowed), count in zip(charges, replies[::2], strict=True):
            if count > allowed:
                raise exceeded(quota, allowed, (window + 1) * WINDOW_SECONDS - now)

    @contextlib.contextmanager
    def stream(self, client: Client | None, quota: str = STREAMS) -> Iterator[None]:
        """Holds one of ``client``'s open streams (``quota``: event streams, or with
        ACTION_STREAMS action streams, counted apart) on this gateway while the block runs."""
        limit = self.limits.action_streams if quota == ACTION_STREAMS else self.limits.streams
        if client is None or limit <= 0:
            yield
            return
        charges = [(f"{quota}:{name}", allowed) for name, allowed in client.charges(limit)]
        for name, allowed in charges:
            if self.open[name] >= allowed:
                raise exceeded(quota, allowed, STREAM_RETRY_SECONDS)
        for name, _ in charges:
            self.open[name] += 1
        try:
            yield
        finally:
            for name, _ in charges:
                self.open[name] -= 1
                if not self.open[name]:
                    del self.open[name]

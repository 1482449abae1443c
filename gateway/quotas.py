"""Per-client quotas: table creation and seat taking per minute, and open streams.

A client is its token when it sends one, else its peer's IP address. Rates are fixed
one-minute windows counted in Redis (one key per client, quota and window: INCR, then
EXPIRE), so every gateway shares them and a cluster needs no hash tag. Open streams are
counted in this process's memory, since a stream lives on one gateway. A limit of 0 turns
that quota off. A refused call is RESOURCE_EXHAUSTED (QUOTA_EXCEEDED) with a RetryInfo,
and is refused before it changes anything.
"""

import contextlib
import hashlib
import math
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
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
STREAMS = "open_streams"


@dataclass(frozen=True)
class Limits:
    create_per_minute: int = 30
    seats_per_minute: int = 30
    streams: int = 20


def client_of(context: grpc.aio.ServicerContext) -> str:
    """A short, opaque name for the caller: a digest of its token, else of its IP."""
    token = auth.token_from(context)
    if token is not None:
        return "t" + hashlib.sha256(token.encode()).hexdigest()[:24]
    return "p" + hashlib.sha256(peer_ip(context.peer() or "").encode()).hexdigest()[:24]


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


class Quotas:
    def __init__(self, redis: "Redis | RedisCluster", key_prefix: str, limits: Limits):
        self.redis = redis
        self.prefix = f"{key_prefix}:quota"
        self.limits = limits
        self.open: Counter[str] = Counter()

    async def charge(self, quota: str, client: str | None) -> None:
        """Counts one call of ``quota`` for ``client`` (None: the platform, never limited),
        or raises QUOTA_EXCEEDED when the window's limit is used up."""
        limit = self.limits.create_per_minute if quota == CREATE else self.limits.seats_per_minute
        if client is None or limit <= 0:
            return
        now = time.time()
        window = int(now // WINDOW_SECONDS)
        key = f"{self.prefix}:{quota}:{client}:{window}"
        # One trip; the key outlives its window a little, for gateways' clocks a bit apart.
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.incr(key)
            pipe.expire(key, WINDOW_SECONDS + 5)
            count, _ = await pipe.execute()
        if count > limit:
            raise exceeded(quota, limit, (window + 1) * WINDOW_SECONDS - now)

    @contextlib.contextmanager
    def stream(self, client: str | None) -> Iterator[None]:
        """Holds one of ``client``'s open streams on this gateway while the block runs."""
        limit = self.limits.streams
        if client is None or limit <= 0:
            yield
            return
        if self.open[client] >= limit:
            raise exceeded(STREAMS, limit, STREAM_RETRY_SECONDS)
        self.open[client] += 1
        try:
            yield
        finally:
            self.open[client] -= 1
            if not self.open[client]:
                del self.open[client]

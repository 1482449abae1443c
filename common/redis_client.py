"""Redis connections from a URL: a single Redis or a Redis Cluster.

``REDIS_URL`` names either. A cluster is ``redis+cluster://host:port`` (``rediss+cluster://``
with TLS), any one node being enough to discover the others, or a plain ``redis://`` URL
with ``TAVOLA_REDIS_CLUSTER=true``. Celery cannot use a cluster as its broker, so workers
and the gateway's enqueuer take ``TAVOLA_BROKER_URL``, which defaults to ``REDIS_URL``
only when that is a single Redis.
"""

import os
from collections.abc import Mapping

from common import defaults

_CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def is_cluster(url: str, env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    scheme = url.split("://", 1)[0].lower()
    return scheme in _CLUSTER_SCHEMES or env.get("TAVOLA_REDIS_CLUSTER", "").lower() in ("1", "true", "yes")


def plain_url(url: str) -> str:
    """The URL redis-py understands: the ``+cluster`` marker removed."""
    scheme, _, rest = url.partition("://")
    return f"{_CLUSTER_SCHEMES.get(scheme.lower(), scheme)}://{rest}"


def redis_url(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    return env.get("REDIS_URL") or defaults.REDIS_URL


def broker_url(env: Mapping[str, str] | None = None) -> str:
    """Celery's broker: TAVOLA_BROKER_URL, else REDIS_URL when that is a single Redis."""
    env = os.environ if env is None else env
    explicit = env.get("TAVOLA_BROKER_URL")
    if explicit:
        return explicit
    url = redis_url(env)
    if is_cluster(url, env):
        raise ValueError("REDIS_URL is a Redis Cluster, which Celery cannot use: set TAVOLA_BROKER_URL (a plain Redis)")
    return url


def connect_async(url: str, env: Mapping[str, str] | None = None, **options):
    """An asyncio client (redis.asyncio.Redis or RedisCluster) for ``url``."""
    if is_cluster(url, env):
        from redis.asyncio.cluster import RedisCluster

        return RedisCluster.from_url(plain_url(url), **options)
    import redis.asyncio as redis

    return redis.Redis.from_url(url, **options)


def connect(url: str, env: Mapping[str, str] | None = None, **options):
    """A blocking client (redis.Redis or RedisCluster) for ``url``."""
    if is_cluster(url, env):
        from redis.cluster import RedisCluster

        return RedisCluster.from_url(plain_url(url), **options)
    import redis

    return redis.Redis.from_url(url, **options)

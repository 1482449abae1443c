"""Redis connections from a URL: a single Redis or a Redis Cluster.

``REDIS_URL`` names either. A cluster is ``redis+cluster://host:port`` (``rediss+cluster://``
with TLS), any one node being enough to discover the others, or a plain ``redis://`` URL
with ``TAVOLA_REDIS_CLUSTER=true``. Celery cannot use a cluster as its broker, so workers
and the gateway's enqueuer take ``TAVOLA_BROKER_URL``, which defaults to ``REDIS_URL``
only when that is a single Redis.
"""

from collections.abc import Mapping

from common import settings

_CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def is_cluster(url: str, env: Mapping[str, str] | None = None) -> bool:
    scheme = url.split("://", 1)[0].lower()
    return scheme in _CLUSTER_SCHEMES or settings.flag("TAVOLA_REDIS_CLUSTER", env)


def plain_url(url: str) -> str:
    """The URL redis-py understands: the ``+cluster`` marker removed."""
    scheme, _, rest = url.partition("://")
    return f"{_CLUSTER_SCHEMES.get(scheme.lower(), scheme)}://{rest}"


def redis_url(env: Mapping[str, str] | None = None) -> str:
    return settings.text("REDIS_URL", env)


def broker_url(env: Mapping[str, str] | None = None) -> str:
    """Celery's broker: TAVOLA_BROKER_URL, else REDIS_URL when that is a single Redis."""
    explicit = settings.text("TAVOLA_BROKER_URL", env)
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


def without_maintenance_handshake() -> dict[str, object]:
    """Pool options that turn off the maintenance-notification handshake (a managed Redis
    service's feature) where redis-py's asyncio client has it (8.1 and later): a connection
    made while Redis restarts fails there with redis-py's own AttributeError, not a
    ConnectionError, and a watcher would get INTERNAL, not UNAVAILABLE."""
    import inspect

    from redis.asyncio.connection import AbstractConnection

    if "maint_notifications_config" not in inspect.signature(AbstractConnection.__init__).parameters:
        return {}
    from redis.maint_notifications import MaintNotificationsConfig

    return {"maint_notifications_config": MaintNotificationsConfig(enabled=False)}


def lean_blocking_pool(url: str, max_connections: int, timeout: float, **options):
    """A sized asyncio pool that waits for a free connection rather than failing (redis-py's
    BlockingConnectionPool), with a short path when a connection is free: that pool takes a
    condition, a timeout and its observability hooks on every command, a third of the CPU
    redis-py spends on one (about 130 us against 95 us for a plain pool's, by a loop of
    HMGETs from 16 tasks). It reaches into the pool's own attributes, as they are in every
    redis-py release that pyproject.toml admits (7.0 to 8.x; tests/test_redis_versions.py
    runs it on the lowest and on the installed one)."""
    import redis.asyncio as redis
    from redis.event import AsyncAfterConnectionReleasedEvent

    class LeanBlockingConnectionPool(redis.BlockingConnectionPool):
        async def get_connection(self, command_name=None, *keys, **options):
            available = self._available_connections
            if getattr(self, "_in_maintenance", False) or not available:
                return await super().get_connection()  # waits, or makes a connection
            connection = available.pop()
            self._in_use_connections.add(connection)
            try:
                await self.ensure_connection(connection)
            except BaseException:
                await self.release(connection)
                raise
            return connection

        async def release(self, connection) -> None:
            if getattr(self, "_in_maintenance", False):  # redis-py 8.1 and later
                await super().release(connection)
                return
            self._in_use_connections.remove(connection)
            if connection.should_reconnect():
                await connection.disconnect()
            self._available_connections.append(connection)
            dispatcher = self._event_dispatcher
            if dispatcher is not None and self.connection_kwargs.get("credential_provider") is not None:
                await dispatcher.dispatch_async(AsyncAfterConnectionReleasedEvent(connection))  # re-authentication
            async with self._condition:  # a task waiting for a connection takes this one
                self._condition.notify()

    pool = LeanBlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=timeout, **options)
    pool.connection_class = _lean_connection(pool.connection_class)
    return pool


def _lean_connection(base: type) -> type:
    """``base`` (redis-py's connection class for the URL) writing a command without a task of
    its own: with a socket timeout (redis-py's default is 5 s) it sends every command through
    ``asyncio.wait_for``, a new task each time. A write that the socket takes at once (its
    buffer empty after it) has nothing to wait for; one that waits keeps the timeout.

    It packs commands in C with hiredis when installed, as redis-py's blocking client does
    (its HiredisRespSerializer); redis-py's asyncio client packs them in Python, argument by
    argument, re-joining the whole command after each: 26 us for the gateway's commit script
    (some 25 arguments, 2 KB) against 14 us."""
    import asyncio

    from redis.connection import HIREDIS_AVAILABLE, HiredisRespSerializer
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    serializer = HiredisRespSerializer() if HIREDIS_AVAILABLE else None

    class LeanConnection(base):
        def pack_command(self, *args):
            encoder = self.encoder
            # hiredis encodes text as UTF-8, strictly: the same bytes as redis-py's default.
            if (
                serializer is None
                or encoder.encoding.lower() not in ("utf-8", "utf8")
                or encoder.encoding_errors != "strict"
            ):
                return super().pack_command(*args)
            return serializer.pack(*args)

        async def send_packed_command(self, command, check_health: bool = True) -> None:
            writer = self._writer
            if not self.socket_timeout or not self.is_connected or writer is None:
                await super().send_packed_command(command, check_health)
                return
            if check_health:
                await self.check_health()
            try:
                if isinstance(command, str):
                    command = command.encode()
                if isinstance(command, bytes):
                    command = [command]
                writer.writelines(command)
                if writer.transport.get_write_buffer_size():
                    await asyncio.wait_for(writer.drain(), self.socket_timeout)
                else:
                    await writer.drain()  # returns at once; raises if the connection was lost
            except TimeoutError:
                await self.disconnect(nowait=True)
                raise RedisTimeoutError("Timeout writing to socket") from None
            except OSError as e:
                await self.disconnect(nowait=True)
                err_no, errmsg = ("UNKNOWN", e.args[0]) if len(e.args) == 1 else (e.args[0], e.args[1])
                raise RedisConnectionError(f"Error {err_no} while writing to socket. {errmsg}.") from e
            except BaseException:
                # As redis-py: a send cut short leaves the connection unusable.
                await self.disconnect(nowait=True)
                raise

    LeanConnection.__name__ = f"Lean{base.__name__}"
    return LeanConnection

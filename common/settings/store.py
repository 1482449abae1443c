"""Where tavola keeps its state: Redis (tables, logs, the broker), its keys and users, how long
tables live there, and the PostgreSQL archive of finished tables."""

from common.defaults import KEY_PREFIX, REDIS_URL
from common.settings.variable import Variable

# Descriptions shared by variables that make one row of the table.
_REDIS_PASSWORDS = (
    "the platform user's password (in `REDIS_URL` as `redis://tavola:<password>@...`), and a bot author's user's"
)

VARIABLES: tuple[Variable, ...] = (
    Variable(
        "REDIS_URL",
        "str",
        REDIS_URL,
        "gateway (tables, logs, idempotency, wake-ups), workers (broker, unless `TAVOLA_BROKER_URL`)",
        "`redis://127.0.0.1:6379/0`; a Redis Cluster as `redis+cluster://host:port` (`rediss+cluster://` with TLS; any node, the others are discovered)",
    ),
    Variable(
        "TAVOLA_REDIS_CLUSTER",
        "bool",
        False,
        "gateway",
        "unset; `true` reads a plain `redis://` `REDIS_URL` as a cluster node",
    ),
    Variable(
        "TAVOLA_BROKER_URL",
        "str",
        "",
        "gateway (enqueues), workers",
        "`REDIS_URL`; required when `REDIS_URL` is a cluster, since Celery needs a plain Redis (the gateway refuses to start without it)",
    ),
    Variable(
        "TAVOLA_REDIS_CONNECTIONS",
        "int",
        64,
        "gateway",
        "64: Redis connections per gateway (per cluster node on a cluster)",
        minimum=1,
    ),
    Variable("TAVOLA_KEY_PREFIX", "str", KEY_PREFIX, "gateway, workers", "`tavola`"),
    Variable("TAVOLA_TABLE_TTL_SECONDS", "int", 7 * 24 * 3600, "gateway", "7 days after the last change", minimum=1),
    Variable(
        "TAVOLA_OPEN_TABLE_TTL_SECONDS",
        "int",
        3600,
        "gateway",
        "3600: an open table nobody starts expires an hour after its last change and leaves the lobby",
        minimum=1,
    ),
    Variable(
        "TAVOLA_FINISHED_TABLE_TTL_SECONDS",
        "int",
        None,
        "gateway",
        "without an archive: `TAVOLA_TABLE_TTL_SECONDS`, how long a finished table (its record and log, for GetTable, GetView, GetReplay and `services.verify`) is kept after its last event; 0: until deleted. With an archive (`TAVOLA_DATABASE_URL`) it does not apply: a finished table stays in Redis until it is archived and its retry window is over",
        minimum=1,
    ),
    Variable(
        "TAVOLA_DATABASE_URL",
        "str",
        "",
        "gateway, `python -m gateway.archiver`, `python -m gateway.export`",
        "unset: no archive (finished tables expire from Redis with their TTL, and the gateway logs `no_archive`); a `postgresql://user:password@host:port/database` URL: finished tables are archived there ([The archive](#the-archive-postgresql)); the gateway brings its schema up to date as it starts (with PostgreSQL away it starts all the same, logs `archive_unreachable`, and its archiver does it once the server answers; a URL that is not `postgresql://` stops it). `make run` and `make demo` set it to the database `tavola` of the local server (made if missing), or of a private one",
    ),
    Variable(
        "TAVOLA_ARCHIVE_SECONDS",
        "float",
        1.0,
        "gateway, `python -m gateway.archiver run`",
        "1: how often the gateway's archiver copies due tables and trims archived ones (batches of 100; at once again while a backlog lasts); 0: this gateway archives nothing (its reads still fall through to the archive), for a deployment that runs `python -m gateway.archiver run` apart",
        minimum=0,
    ),
    Variable(
        "TAVOLA_ARCHIVE_LEASE_SECONDS",
        "float",
        60.0,
        "`python -m gateway.archiver run`",
        "60: how long a table taken for copying is left to its archiver before another one takes it (the archiver died, or PostgreSQL was away)",
        minimum=0.1,
    ),
    Variable(
        "TAVOLA_RETRY_WINDOW_SECONDS",
        "int",
        3600,
        "gateway",
        "3600: how long a finished table's request ids still answer retries (`replayed: true`); after it a retry is told `TABLE_FINISHED`",
        minimum=0,
    ),
    Variable(
        "TAVOLA_REDIS_POOL_TIMEOUT_SECONDS",
        "float",
        10.0,
        "gateway",
        "10: how long a command waits for a free Redis connection of the pool before it fails",
        minimum=0,
    ),
    Variable("TAVOLA_REDIS_PASSWORD", "str", "", "`python -m deploy.redis_users`, the deploy files", _REDIS_PASSWORDS),
    Variable(
        "TAVOLA_BOT_REDIS_PASSWORD", "str", "", "`python -m deploy.redis_users`, the deploy files", _REDIS_PASSWORDS
    ),
)

"""Gateway settings from the environment, with defaults that run locally."""

import os
from dataclasses import dataclass, field

from common import defaults, redis_client
from common.settings import ConfigError, env_bool, env_float, env_int
from gateway.limits import RequestLimits
from gateway.quotas import Limits


def default_rules() -> str:
    """Every registered game's rules service at its default local port."""
    from services.registry import game_ids, rules_port  # only when TAVOLA_RULES is unset

    return ",".join(f"{game}=127.0.0.1:{rules_port(game)}" for game in game_ids())


def parse_rules(text: str) -> dict[str, str]:
    """'borgia=host:port,mortadella=host:port' -> {'borgia': 'host:port', ...}. An item
    without '=' continues the previous game's target, so a gRPC target list such as
    'borgia=ipv4:127.0.0.1:7001,127.0.0.1:7002' names several replicas."""
    routes: dict[str, str] = {}
    game = None
    for item in (item.strip() for item in text.split(",")):
        if not item:
            continue
        if "=" in item:
            game, address = (part.strip() for part in item.split("=", 1))
            routes[game] = address
        elif game is not None:
            routes[game] += f",{item}"
        else:
            raise ConfigError(f"TAVOLA_RULES: {item!r} names no game (game=host:port)")
    return routes


@dataclass(frozen=True)
class Settings:
    # A single Redis or a Redis Cluster (redis+cluster://, or TAVOLA_REDIS_CLUSTER=true).
    redis_url: str = defaults.REDIS_URL
    redis_cluster: bool = False
    # Celery's broker, always a plain Redis (TAVOLA_BROKER_URL; default REDIS_URL if not a cluster).
    broker_url: str = defaults.REDIS_URL
    key_prefix: str = defaults.KEY_PREFIX
    rules: dict[str, str] = field(default_factory=lambda: parse_rules(default_rules()))
    bots: tuple[str, ...] = ()  # empty: every registered bot (gateway/bots.py)
    # A JSON file of declared bots whose workers run elsewhere (TAVOLA_BOT_SPECS; gateway/bots.py).
    bot_specs_file: str = ""
    bot_secret: str = defaults.DEV_BOT_SECRET
    table_ttl_seconds: int = 7 * 24 * 3600
    open_table_ttl_seconds: int = 3600
    # None: as table_ttl_seconds.
    finished_table_ttl_seconds: int | None = None
    # How long a finished table's request ids still answer retries.
    retry_window_seconds: int = 3600
    # Records of the tables this gateway handled last, that a SubmitAction may start from
    # without a load (gateway/store.py TableStore.recent); 0: every command loads.
    recent_records: int = 4096
    rules_timeout_seconds: float = 5.0
    # ApplyActions streams to each game's rules service (gateway/rules.py); 0: unary calls.
    rules_streams: int = 2
    # The walk of the tables in progress, for a table that lost its due time (gateway/sweeper.py).
    sweep_seconds: float = 30.0
    # How often overdue tables are woken again, and how late a task may be before they are.
    due_sweep_seconds: float = 1.0
    task_grace_seconds: float = 5.0
    # The archive of finished tables (gateway/archive.py): a postgresql:// URL, "" for none
    # (finished tables then stay in Redis until their TTL), and how often this gateway's
    # archiver round runs (0: reads fall through to the archive, but another process archives).
    database_url: str = ""
    archive_seconds: float = 1.0
    # A development run (TAVOLA_DEVELOPMENT=true) may use the development bot secret.
    development: bool = False
    # Per-client quotas (gateway/quotas.py); 0 turns one off.
    quotas: Limits = field(default_factory=Limits)
    # The most bytes a request of each public method may have (gateway/limits.py).
    request_limits: RequestLimits = field(default_factory=RequestLimits)

    @classmethod
    def from_env(cls) -> "Settings":
        env = os.environ
        redis_url = redis_client.redis_url(env)
        return cls(
            redis_url=redis_url,
            redis_cluster=redis_client.is_cluster(redis_url, env),
            broker_url=redis_client.broker_url(env),
            key_prefix=env.get("TAVOLA_KEY_PREFIX", cls.key_prefix),
            rules=parse_rules(env.get("TAVOLA_RULES") or default_rules()),
            bots=tuple(name.strip() for name in env.get("TAVOLA_BOTS", "").split(",") if name.strip()),
            bot_specs_file=env.get("TAVOLA_BOT_SPECS", ""),
            bot_secret=env.get("TAVOLA_BOT_SECRET", cls.bot_secret),
            table_ttl_seconds=env_int("TAVOLA_TABLE_TTL_SECONDS", cls.table_ttl_seconds, 1, env),
            open_table_ttl_seconds=env_int("TAVOLA_OPEN_TABLE_TTL_SECONDS", cls.open_table_ttl_seconds, 1, env),
            finished_table_ttl_seconds=(
                env_int("TAVOLA_FINISHED_TABLE_TTL_SECONDS", 0, 1, env)
                if env.get("TAVOLA_FINISHED_TABLE_TTL_SECONDS")
                else None
            ),
            retry_window_seconds=env_int("TAVOLA_RETRY_WINDOW_SECONDS", cls.retry_window_seconds, 0, env),
            recent_records=env_int("TAVOLA_RECENT_RECORDS", cls.recent_records, 0, env),
            rules_timeout_seconds=env_float("TAVOLA_RULES_TIMEOUT_SECONDS", cls.rules_timeout_seconds, 0, env),
            rules_streams=env_int("TAVOLA_RULES_STREAMS", cls.rules_streams, 0, env),
            sweep_seconds=env_float("TAVOLA_SWEEP_SECONDS", cls.sweep_seconds, 0, env),
            due_sweep_seconds=env_float("TAVOLA_DUE_SWEEP_SECONDS", cls.due_sweep_seconds, 0, env),
            task_grace_seconds=env_float("TAVOLA_TASK_GRACE_SECONDS", cls.task_grace_seconds, 0, env),
            database_url=env.get("TAVOLA_DATABASE_URL", ""),
            archive_seconds=env_float("TAVOLA_ARCHIVE_SECONDS", cls.archive_seconds, 0, env),
            development=env_bool("TAVOLA_DEVELOPMENT", False, env),
            quotas=Limits(
                create_per_minute=env_int("TAVOLA_QUOTA_CREATE_PER_MINUTE", Limits.create_per_minute, 0, env),
                seats_per_minute=env_int("TAVOLA_QUOTA_SEATS_PER_MINUTE", Limits.seats_per_minute, 0, env),
                streams=env_int("TAVOLA_QUOTA_STREAMS", Limits.streams, 0, env),
                action_streams=env_int("TAVOLA_QUOTA_ACTION_STREAMS", Limits.action_streams, 0, env),
                replays_per_minute=env_int("TAVOLA_QUOTA_REPLAYS_PER_MINUTE", Limits.replays_per_minute, 0, env),
                players_per_minute=env_int("TAVOLA_QUOTA_PLAYERS_PER_MINUTE", Limits.players_per_minute, 0, env),
            ),
            request_limits=RequestLimits.from_env(env),
        )

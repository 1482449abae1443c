"""Gateway settings from the environment, with defaults that run locally."""

import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from common import defaults, redis_client, settings
from common.settings import ConfigError
from gateway.chat_policy import ChatSettings
from gateway.limits import RequestLimits
from gateway.matchmaking import Settings as QuickPlay
from gateway.quotas import Limits
from gateway.web import WebSettings


@cache
def default_rules() -> str:
    """Every registered game's rules service at its default local port (``python -m
    services.registry``), only when TAVOLA_RULES is unset: asked of a child process, so
    that the gateway loads no game's code."""
    listed = subprocess.run(
        [sys.executable, "-m", "services.registry"], capture_output=True, text=True, check=True, timeout=120
    )
    return listed.stdout.strip()


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
    timeouts_to_leave: int = 3
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

    # The Redis pool: connections per gateway (per node on a cluster), and how long a command
    # waits for a free one.
    redis_connections: int = 64
    redis_pool_timeout_seconds: float = 10.0
    # The public port (TAVOLA_HOST, TAVOLA_PORT).
    host: str = "127.0.0.1"
    port: int = defaults.GATEWAY_PORT
    # The internal port serving TimerService only (the timer workers).
    timer_host: str = "127.0.0.1"
    timer_port: int = 50052
    timer_port_file: str = ""
    rating_resend_seconds: float = 30.0
    abandon_open_seconds: float = 1800.0
    abandon_idle_seconds: float = 86400.0
    lobby_decision_seconds: int = 120
    rules_health_seconds: float = 2.0
    # The browser protocol's port (gateway/web.py); None: none.
    web: WebSettings | None = None
    quick_play: QuickPlay = field(default_factory=QuickPlay)
    # Chat (gateway/chat.py, gateway/chat_policy.py).
    chat: ChatSettings = field(default_factory=ChatSettings)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        """Every setting of the gateway, read and checked at once (declared in common/settings/)."""
        redis_url = redis_client.redis_url(env)

        def count(name: str) -> int:
            return settings.integer(name, env)

        def seconds(name: str) -> float:
            return settings.number(name, env)

        return cls(
            redis_url=redis_url,
            redis_cluster=redis_client.is_cluster(redis_url, env),
            broker_url=redis_client.broker_url(env),
            key_prefix=settings.text("TAVOLA_KEY_PREFIX", env),
            rules=parse_rules(settings.text("TAVOLA_RULES", env) or default_rules()),
            bots=tuple(name.strip() for name in settings.text("TAVOLA_BOTS", env).split(",") if name.strip()),
            bot_specs_file=settings.text("TAVOLA_BOT_SPECS", env),
            bot_secret=settings.text("TAVOLA_BOT_SECRET", env),
            table_ttl_seconds=count("TAVOLA_TABLE_TTL_SECONDS"),
            open_table_ttl_seconds=count("TAVOLA_OPEN_TABLE_TTL_SECONDS"),
            finished_table_ttl_seconds=settings.optional_integer("TAVOLA_FINISHED_TABLE_TTL_SECONDS", env),
            retry_window_seconds=count("TAVOLA_RETRY_WINDOW_SECONDS"),
            recent_records=count("TAVOLA_RECENT_RECORDS"),
            rules_timeout_seconds=seconds("TAVOLA_RULES_TIMEOUT_SECONDS"),
            rules_streams=count("TAVOLA_RULES_STREAMS"),
            sweep_seconds=seconds("TAVOLA_SWEEP_SECONDS"),
            due_sweep_seconds=seconds("TAVOLA_DUE_SWEEP_SECONDS"),
            task_grace_seconds=seconds("TAVOLA_TASK_GRACE_SECONDS"),
            timeouts_to_leave=settings.integer("TAVOLA_TIMEOUTS_TO_LEAVE", env),
            database_url=settings.text("TAVOLA_DATABASE_URL", env),
            archive_seconds=seconds("TAVOLA_ARCHIVE_SECONDS"),
            development=settings.flag("TAVOLA_DEVELOPMENT", env),
            quotas=Limits(
                create_per_minute=count("TAVOLA_QUOTA_CREATE_PER_MINUTE"),
                seats_per_minute=count("TAVOLA_QUOTA_SEATS_PER_MINUTE"),
                streams=count("TAVOLA_QUOTA_STREAMS"),
                action_streams=count("TAVOLA_QUOTA_ACTION_STREAMS"),
                replays_per_minute=count("TAVOLA_QUOTA_REPLAYS_PER_MINUTE"),
                players_per_minute=count("TAVOLA_QUOTA_PLAYERS_PER_MINUTE"),
            ),
            request_limits=RequestLimits.from_env(env),
            redis_connections=count("TAVOLA_REDIS_CONNECTIONS"),
            redis_pool_timeout_seconds=seconds("TAVOLA_REDIS_POOL_TIMEOUT_SECONDS"),
            host=settings.text("TAVOLA_HOST", env),
            port=settings.port("TAVOLA_PORT", defaults.GATEWAY_PORT, env) or 0,
            timer_host=settings.text("TAVOLA_TIMER_HOST", env),
            timer_port=settings.port("TAVOLA_TIMER_PORT", env=env) or 0,
            timer_port_file=settings.text("TAVOLA_TIMER_PORT_FILE", env),
            rating_resend_seconds=seconds("TAVOLA_RATING_RESEND_SECONDS"),
            abandon_open_seconds=seconds("TAVOLA_ABANDON_OPEN_SECONDS"),
            abandon_idle_seconds=seconds("TAVOLA_ABANDON_IDLE_SECONDS"),
            lobby_decision_seconds=count("TAVOLA_LOBBY_DECISION_SECONDS"),
            rules_health_seconds=seconds("TAVOLA_RULES_HEALTH_SECONDS"),
            web=WebSettings.from_env(env),
            quick_play=QuickPlay.from_env(env),
            chat=ChatSettings.from_env(env),
        )

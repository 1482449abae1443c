"""Gateway settings from the environment, with defaults that run locally."""

import os
from dataclasses import dataclass, field

DEFAULT_RULES = "borgia=127.0.0.1:50061,mortadella=127.0.0.1:50062,pecunia=127.0.0.1:50063"


def parse_rules(text: str) -> dict[str, str]:
    """'borgia=host:port,mortadella=host:port' -> {'borgia': 'host:port', ...}"""
    pairs = (item.split("=", 1) for item in text.split(",") if item.strip())
    return {game.strip(): address.strip() for game, address in pairs}


@dataclass(frozen=True)
class Settings:
    redis_url: str = "redis://127.0.0.1:6379/0"
    key_prefix: str = "tavola"
    rules: dict[str, str] = field(default_factory=lambda: parse_rules(DEFAULT_RULES))
    bots: tuple[str, ...] = ("random", "borgia-odds")
    bot_secret: str = "tavola-local-bot-secret"
    table_ttl_seconds: int = 7 * 24 * 3600
    rules_timeout_seconds: float = 5.0
    sweep_seconds: float = 30.0

    @classmethod
    def from_env(cls) -> "Settings":
        env = os.environ
        return cls(
            redis_url=env.get("REDIS_URL", cls.redis_url),
            key_prefix=env.get("TAVOLA_KEY_PREFIX", cls.key_prefix),
            rules=parse_rules(env.get("TAVOLA_RULES", DEFAULT_RULES)),
            bots=tuple(name.strip() for name in env.get("TAVOLA_BOTS", ",".join(cls.bots)).split(",") if name.strip()),
            bot_secret=env.get("TAVOLA_BOT_SECRET", cls.bot_secret),
            table_ttl_seconds=int(env.get("TAVOLA_TABLE_TTL_SECONDS", cls.table_ttl_seconds)),
            rules_timeout_seconds=float(env.get("TAVOLA_RULES_TIMEOUT_SECONDS", cls.rules_timeout_seconds)),
            sweep_seconds=float(env.get("TAVOLA_SWEEP_SECONDS", cls.sweep_seconds)),
        )

"""Gateway settings from the environment, with defaults that run locally."""

import os
from dataclasses import dataclass, field

from common import defaults


def default_rules() -> str:
    """Every registered game's rules service at its default local port."""
    from services.registry import game_ids, rules_port  # only when TAVOLA_RULES is unset

    return ",".join(f"{game}=127.0.0.1:{rules_port(game)}" for game in game_ids())


def parse_rules(text: str) -> dict[str, str]:
    """'borgia=host:port,mortadella=host:port' -> {'borgia': 'host:port', ...}"""
    pairs = (item.split("=", 1) for item in text.split(",") if item.strip())
    return {game.strip(): address.strip() for game, address in pairs}


@dataclass(frozen=True)
class Settings:
    redis_url: str = defaults.REDIS_URL
    key_prefix: str = defaults.KEY_PREFIX
    rules: dict[str, str] = field(default_factory=lambda: parse_rules(default_rules()))
    bots: tuple[str, ...] = ()  # empty: every registered bot (gateway/bots.py)
    bot_secret: str = defaults.DEV_BOT_SECRET
    table_ttl_seconds: int = 7 * 24 * 3600
    open_table_ttl_seconds: int = 3600
    rules_timeout_seconds: float = 5.0
    sweep_seconds: float = 30.0
    # A development run (TAVOLA_DEVELOPMENT=true) may use the development bot secret.
    development: bool = False

    @classmethod
    def from_env(cls) -> "Settings":
        env = os.environ
        return cls(
            redis_url=env.get("REDIS_URL", cls.redis_url),
            key_prefix=env.get("TAVOLA_KEY_PREFIX", cls.key_prefix),
            rules=parse_rules(env.get("TAVOLA_RULES") or default_rules()),
            bots=tuple(name.strip() for name in env.get("TAVOLA_BOTS", "").split(",") if name.strip()),
            bot_secret=env.get("TAVOLA_BOT_SECRET", cls.bot_secret),
            table_ttl_seconds=int(env.get("TAVOLA_TABLE_TTL_SECONDS", cls.table_ttl_seconds)),
            open_table_ttl_seconds=int(env.get("TAVOLA_OPEN_TABLE_TTL_SECONDS", cls.open_table_ttl_seconds)),
            rules_timeout_seconds=float(env.get("TAVOLA_RULES_TIMEOUT_SECONDS", cls.rules_timeout_seconds)),
            sweep_seconds=float(env.get("TAVOLA_SWEEP_SECONDS", cls.sweep_seconds)),
            development=env.get("TAVOLA_DEVELOPMENT", "").lower() in ("1", "true", "yes"),
        )

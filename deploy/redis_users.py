"""Redis's ACL users: who may touch which keys. Redis is both the table store and Celery's
broker, so a bot author's worker gets a user of its own that reaches its bot's queue and
nothing else: no table, log, token or other bot's queue, and no channel (so no Celery
broadcast that could stop the platform's workers).

    TAVOLA_REDIS_PASSWORD=... python -m deploy.redis_users > users.acl
        the ACL file: ``default`` may only PING (health checks), ``tavola`` (the gateway
        and the platform's workers) everything
    TAVOLA_BOT_REDIS_PASSWORD=... python -m deploy.redis_users --bot NAME [--host redis:6379]
        the line to add for a bot author's worker, and the broker URL to give its author

Files carry SHA-256 digests of the passwords, never the passwords. A worker on a bot
user runs with ``TAVOLA_WORKER_EXTERNAL=true`` (bots/worker/main.py), which leaves out what
needs broadcast channels (remote control, events, gossip, mingle, heartbeats).
"""

import argparse
import hashlib
import sys
from urllib.parse import quote

from common import defaults, settings
from common.tasks import PRIORITY_SEPARATOR, queue_for

PLATFORM_USER = "tavola"


def _digest(password: str) -> str:
    if len(password) < 32:
        raise ValueError("a Redis password needs at least 32 characters: openssl rand -hex 32")
    return hashlib.sha256(password.encode()).hexdigest()


def default_user() -> str:
    """Unauthenticated connections may only PING: probes and health checks."""
    return "user default on nopass resetkeys resetchannels -@all +ping"


def platform_user(password: str) -> str:
    return f"user {PLATFORM_USER} on #{_digest(password)} ~* &* +@all"


def bot_user_name(bot: str) -> str:
    return f"bot-{bot}"


def bot_key_patterns(bot: str, key_prefix: str = defaults.KEY_PREFIX) -> list[str]:
    """The keys a worker of ``bot`` uses: its queue's lists (one per priority, kombu's
    ``<queue>\\x06\\x16<n>``) and the queue's binding sets. An ACL file cannot hold the
    separator's control bytes, so the pattern takes two characters outside printable ASCII
    (``[^!-~]``), which no bot name has: another bot's queue never matches."""
    queue = queue_for(bot)
    broker = f"{key_prefix}:celery:"
    assert len(PRIORITY_SEPARATOR) == 2 and not PRIORITY_SEPARATOR.isprintable()
    return [
        f"{broker}{queue}",
        f"{broker}{queue}[^!-~][^!-~][0-9]",
        f"{broker}_kombu.binding.{queue}",
        f"{broker}_kombu.binding_permanent.{queue}",
    ]


# What a Celery worker consuming one Redis queue sends: the connection's handshake, the
# blocking pop over its priority lists, queue lengths, the binding set it declares and
# reads, and a retried task's push back onto its own queue.
BOT_COMMANDS = (
    "+ping +hello +auth +select +client|setinfo +client|setname +client|id +info "
    "+brpop +rpop +lpush +rpush +llen +sadd +smembers +sismember +multi +exec +discard +watch +unwatch"
)


def bot_acl(bot: str, key_prefix: str = defaults.KEY_PREFIX) -> list[str]:
    """ACL SETUSER arguments (after the user name) for ``bot``'s author, without a password."""
    return [
        "on",
        "resetkeys",
        "resetchannels",
        "-@all",
        *BOT_COMMANDS.split(),
        *(f"~{p}" for p in bot_key_patterns(bot, key_prefix)),
    ]


def bot_user(bot: str, password: str, key_prefix: str = defaults.KEY_PREFIX) -> str:
    rules = [*bot_acl(bot, key_prefix), f"#{_digest(password)}"]
    return f"user {bot_user_name(bot)} " + " ".join(rules)


def bot_broker_url(bot: str, password: str, host: str = "redis:6379", db: int = 0) -> str:
    return f"redis://{quote(bot_user_name(bot))}:{quote(password, safe='')}@{host}/{db}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Redis ACL users for tavola")
    parser.add_argument("--bot", help="print the user of this bot's author (password: TAVOLA_BOT_REDIS_PASSWORD)")
    parser.add_argument("--host", default="redis:6379", help="host:port in the bot author's broker URL")
    parser.add_argument("--key-prefix", default=settings.text("TAVOLA_KEY_PREFIX"))
    args = parser.parse_args(argv)
    variable = "TAVOLA_BOT_REDIS_PASSWORD" if args.bot else "TAVOLA_REDIS_PASSWORD"
    password = settings.text(variable)
    try:
        if args.bot:
            print(bot_user(args.bot, password, args.key_prefix))
            print(f"# the author's TAVOLA_BROKER_URL: {bot_broker_url(args.bot, password, args.host)}", file=sys.stderr)
        else:
            print(default_user())
            print(platform_user(password))
    except ValueError as error:
        print(f"{variable}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

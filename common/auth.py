"""Seat tokens travel as gRPC metadata: ``authorization: Bearer <token>``."""

import base64
import hashlib
import hmac
import secrets

import grpc

METADATA_KEY = "authorization"


def metadata(token: str) -> tuple[tuple[str, str], ...]:
    return ((METADATA_KEY, f"Bearer {token}"),)


def token_from(context: grpc.aio.ServicerContext) -> str | None:
    for key, value in context.invocation_metadata() or ():
        if key == METADATA_KEY and isinstance(value, str) and value.startswith("Bearer "):
            return value[len("Bearer ") :].strip() or None
    return None


def new_token() -> str:
    return secrets.token_urlsafe(24)


def digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _mac(key: str, message: str) -> str:
    mac = hmac.new(key.encode(), message.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def bot_key(secret: str, bot: str) -> str:
    """One bot's key, derived from the platform's secret and the bot's name (its queue's
    name: ``ismcts:budget_ms=50`` is ``ismcts``). The platform's worker derives the key of
    each bot it plays; a third-party bot's worker is given its bot's key alone
    (TAVOLA_BOT_KEY), which acts for that bot's seats and for nothing else."""
    return _mac(secret, f"bot:{bot.split(':', 1)[0]}")


def bot_token(key: str, table_id: str, seat: int) -> str:
    """A bot seat's token, derived from its bot's key so that the worker can act for the
    seat while the task itself carries only ids (table, seat, version)."""
    return _mac(key, f"seat:{table_id}:{seat}")


def timer_token(secret: str, table_id: str) -> str:
    """The credential with which the platform's timer tasks expire a table's decisions;
    no bot key derives it."""
    return _mac(secret, f"timer:{table_id}")


def main() -> None:
    """python -m common.auth <bot>: prints that bot's key (TAVOLA_BOT_KEY for its author's
    worker), derived from TAVOLA_BOT_SECRET."""
    import os
    import sys

    secret = os.environ.get("TAVOLA_BOT_SECRET")
    if len(sys.argv) != 2 or not secret:
        raise SystemExit("usage: TAVOLA_BOT_SECRET=... python -m common.auth <bot name>")
    print(bot_key(secret, sys.argv[1]))


if __name__ == "__main__":
    main()

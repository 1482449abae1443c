"""Seat tokens travel as gRPC metadata: ``authorization: Bearer <token>``."""

import base64
import hashlib
import hmac
import secrets

import grpc

from common import settings, shapes

METADATA_KEY = "authorization"


def metadata(token: str) -> tuple[tuple[str, str], ...]:
    return ((METADATA_KEY, f"Bearer {token}"),)


def token_from(context: grpc.aio.ServicerContext) -> str | None:
    """The call's bearer token (None without one); UNAUTHENTICATED when it has the shape
    of no token the platform issues (common/shapes.py), before anything is made of it."""
    for key, value in context.invocation_metadata() or ():
        if key == METADATA_KEY and isinstance(value, str) and value.startswith("Bearer "):
            token = value[len("Bearer ") :].strip()
            return shapes.token(token) if token else None
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


# Secrets seen in examples and templates: anyone who read them can act for every bot seat.
PLACEHOLDER_SECRETS = frozenset(
    {"change-me", "changeme", "change_me", "replace-me", "replaceme", "secret", "password", "tavola", "example"}
)
SECRET_BITS = 256
HOW_TO_MAKE_A_SECRET = (
    "make one with: openssl rand -hex 32  (or: python -c 'import secrets; print(secrets.token_hex(32))')"
)


def secret_bits(secret: str) -> float:
    """A generous estimate of a secret's randomness: its length times the bits of the
    smallest usual alphabet that spells it (hex 4, base64 6, printable ASCII 6.5), and no
    more than so few distinct characters can hold when it uses fewer than 8 (``aaaa...``
    holds nothing)."""
    import math

    if not secret:
        return 0.0
    if all(char in "0123456789abcdefABCDEF" for char in secret):
        per_char = 4.0
    elif all(char.isascii() and (char.isalnum() or char in "+/-_=") for char in secret):
        per_char = 6.0
    else:
        per_char = 6.5
    distinct = len(set(secret))
    if distinct < 8:  # a random string of this length would use more of its alphabet
        per_char = min(per_char, math.log2(distinct) if distinct > 1 else 0.0)
    return len(secret) * per_char


def secret_problem(secret: str, known: frozenset[str] = frozenset()) -> str | None:
    """Why ``secret`` may not be the platform's secret (None when it may): the HMAC key of
    every bot key, seat token and timer credential must hold 32 random bytes."""
    if not secret:
        return f"no secret is set; {HOW_TO_MAKE_A_SECRET}"
    if secret.strip().lower() in PLACEHOLDER_SECRETS | known:
        return f"the secret is a published placeholder; {HOW_TO_MAKE_A_SECRET}"
    if secret_bits(secret) < SECRET_BITS:
        bits = secret_bits(secret)
        return f"the secret holds about {bits:.0f} random bits, fewer than {SECRET_BITS}; {HOW_TO_MAKE_A_SECRET}"
    return None


def main(argv: list[str] | None = None) -> None:
    """python -m common.auth <bot> [--secret-file PATH]: prints that bot's key (TAVOLA_BOT_KEY
    for its author's worker), derived from the platform's secret: TAVOLA_BOT_SECRET, or the
    file ``make run`` writes it to."""
    import argparse
    from pathlib import Path

    parser = argparse.ArgumentParser(
        prog="python -m common.auth", description="Print a bot's key (TAVOLA_BOT_KEY) for its author's worker."
    )
    parser.add_argument("bot", help="the bot's name, as its queue is named (bots.<name>)")
    parser.add_argument(
        "--secret-file", type=Path, help="a file holding the platform's secret (make run's .run/run/bot-secret)"
    )
    args = parser.parse_args(argv)
    secret = (
        args.secret_file.read_text().strip() if args.secret_file else settings.optional_text("TAVOLA_BOT_SECRET") or ""
    )
    if not secret:
        parser.error("set TAVOLA_BOT_SECRET or pass --secret-file")
    print(bot_key(secret, args.bot))


if __name__ == "__main__":
    main()

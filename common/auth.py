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


def bot_token(secret: str, table_id: str, seat: int) -> str:
    """A bot seat's token, derived so that a bot worker holding the shared secret can act
    for the seat while the task itself carries only ids (table, seat, version)."""
    mac = hmac.new(secret.encode(), f"{table_id}:{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def timer_token(secret: str, table_id: str) -> str:
    """The credential with which the platform's timer tasks expire a table's decisions."""
    return bot_token(secret, table_id, -1)

"""Web Push (RFC 8030, with VAPID, RFC 8292, and aes128gcm payloads, RFC 8291) to players
away from their tables, through pywebpush.

A browser's subscription names an endpoint on its push service. The gateway POSTs to that
URL, so an endpoint is an address a client chose for the gateway to reach: checked
(``check_endpoint``) when it is added and again before each push, https only and never a
loopback, private, link-local or otherwise reserved address, the host's name resolved to
check where it points, and redirects never followed. Only a development setting
(TAVOLA_PUSH_ALLOW_PRIVATE) lets http and local addresses through, for tests.

``python -m gateway.push`` prints a fresh VAPID key pair for TAVOLA_PUSH_VAPID_PRIVATE_KEY.
"""

import asyncio
import base64
import ipaddress
import json
import socket
import sys
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
import structlog
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from common import settings
from common.errors import invalid

log = structlog.get_logger()

MAX_ENDPOINT = 2000
MAX_KEY = 200
MAX_SUBSCRIPTIONS = 10  # per player: a few browsers and devices
PUSH_TIMEOUT_SECONDS = 10.0
# How long a push waits at the push service for a browser that is offline.
PUSH_TTL_SECONDS = 24 * 3600
ANSWER_BYTES = 16_384  # of a push service's answer, the most read
GONE = (404, 410)  # the subscription expired or was withdrawn: forget it


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class PushSettings:
    vapid_private_key: str = ""  # base64url of the raw P-256 scalar; "": no Web Push
    subject: str = "mailto:operator@tavola.invalid"
    allow_private: bool = False  # development only: http and local endpoints

    @classmethod
    def from_env(cls, env=None) -> "PushSettings":
        return cls(
            vapid_private_key=settings.text("TAVOLA_PUSH_VAPID_PRIVATE_KEY", env),
            subject=settings.text("TAVOLA_PUSH_VAPID_SUBJECT", env),
            allow_private=settings.flag("TAVOLA_PUSH_ALLOW_PRIVATE", env),
        )


def new_vapid_keys() -> tuple[str, str]:
    """A fresh key pair: (private, base64url raw scalar; public, base64url uncompressed point)."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return b64url(private), b64url(public)


def _public_address(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def check_endpoint(endpoint: str, allow_private: bool, resolve: bool = True) -> None:
    """Refuses (INVALID_ARGUMENT, BAD_PUSH_ENDPOINT) an endpoint the gateway must not POST
    to: not https, with credentials or an odd port, or whose host is, or resolves to, an
    address that is not public."""
    if not endpoint or len(endpoint) > MAX_ENDPOINT or any(ch.isspace() or ord(ch) < 32 for ch in endpoint):
        raise invalid("BAD_PUSH_ENDPOINT", f"a push endpoint is a URL of at most {MAX_ENDPOINT} characters")
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        raise invalid("BAD_PUSH_ENDPOINT", "the push endpoint is not a URL") from None
    host = parts.hostname or ""
    schemes = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in schemes or not host:
        raise invalid("BAD_PUSH_ENDPOINT", "a push endpoint is an https URL")
    if parts.username is not None or parts.password is not None:
        raise invalid("BAD_PUSH_ENDPOINT", "a push endpoint carries no credentials")
    if allow_private:
        return
    if port not in (None, 443):
        raise invalid("BAD_PUSH_ENDPOINT", "a push endpoint is on port 443")
    try:
        addresses = [ipaddress.ip_address(host).compressed]
    except ValueError:
        if host == "localhost" or host.endswith((".localhost", ".local", ".internal", ".invalid")):
            raise invalid("BAD_PUSH_ENDPOINT", "a push endpoint is on a public host") from None
        if not resolve:
            return
        try:
            found = socket.getaddrinfo(host, 443, proto=socket.IPPROTO_TCP)
        except (OSError, UnicodeError):
            raise invalid("BAD_PUSH_ENDPOINT", "the push endpoint's host does not resolve") from None
        addresses = [str(item[4][0]) for item in found]
    if not addresses or not all(_public_address(address) for address in addresses):
        raise invalid("BAD_PUSH_ENDPOINT", "a push endpoint is on a public address, never a private or local one")


def check_keys(p256dh: str, auth: str) -> None:
    """The subscription's keys: a P-256 public point and a 16-byte secret, base64url."""
    try:
        if len(p256dh) > MAX_KEY or len(auth) > MAX_KEY:
            raise ValueError
        point = b64url_decode(p256dh)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        if len(b64url_decode(auth)) != 16:
            raise ValueError
    except (ValueError, TypeError):
        raise invalid("BAD_PUSH_KEYS", "keys.p256dh is a P-256 point and keys.auth 16 bytes, both base64url") from None


class PushSubscriptions:
    """Each player's subscriptions: a Redis hash, endpoint -> the subscription's JSON."""

    def __init__(self, redis, key_prefix: str):
        self.redis = redis
        self.key_prefix = key_prefix

    def _key(self, player_id: str) -> str:
        return f"{self.key_prefix}:push:{player_id}"

    async def add(self, player_id: str, endpoint: str, p256dh: str, auth: str) -> int:
        key = self._key(player_id)
        subscription = {"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}
        if not await self.redis.hexists(key, endpoint) and await self.redis.hlen(key) >= MAX_SUBSCRIPTIONS:
            raise invalid("TOO_MANY_SUBSCRIPTIONS", f"a player keeps at most {MAX_SUBSCRIPTIONS} push subscriptions")
        await self.redis.hset(key, endpoint, json.dumps(subscription))
        return int(await self.redis.hlen(key))

    async def remove(self, player_id: str, endpoint: str) -> bool:
        return bool(await self.redis.hdel(self._key(player_id), endpoint))

    async def of(self, player_id: str) -> list[dict]:
        stored = await self.redis.hvals(self._key(player_id))
        return [json.loads(value) for value in stored]

    async def forget_player(self, player_id: str) -> None:
        await self.redis.delete(self._key(player_id))


class _PushSession(requests.Session):
    """A push service answers; it never sends the gateway elsewhere (a redirect could point
    anywhere the endpoint check would refuse), and what it answers is read only up to
    ANSWER_BYTES (an endpoint that answers gigabytes holds no gateway's memory)."""

    def post(self, *args, **kwargs):
        kwargs.update(allow_redirects=False, stream=True)
        response = super().post(*args, **kwargs)
        try:
            response._content = response.raw.read(ANSWER_BYTES, decode_content=True) or b""
        finally:
            response.close()
        return response


class Pusher:
    """Posts one encrypted message to each of a player's subscriptions."""

    def __init__(self, subscriptions: PushSubscriptions, push: PushSettings):
        self.subscriptions = subscriptions
        self.settings = push
        self.vapid = Vapid.from_string(private_key=push.vapid_private_key) if push.vapid_private_key else None

    @property
    def public_key(self) -> str:
        if self.vapid is None:
            return ""
        point = self.vapid.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    async def send(self, player_id: str, payload: dict) -> int:
        """Pushes ``payload`` (JSON) to every subscription of the player; forgets those the
        push service says are gone (404, 410); returns how many took it."""
        if self.vapid is None:
            return 0
        delivered = 0
        data = json.dumps(payload)
        for subscription in await self.subscriptions.of(player_id):
            endpoint = subscription["endpoint"]
            try:
                await asyncio.to_thread(check_endpoint, endpoint, self.settings.allow_private)
                await asyncio.to_thread(self._post, subscription, data)
                delivered += 1
            except WebPushException as error:
                status = error.response.status_code if error.response is not None else None
                if status in GONE:
                    await self.subscriptions.remove(player_id, endpoint)
                log.info("push_refused", player_id=player_id, status=status)
            except Exception as error:  # one bad subscription must not stop the others
                log.info("push_failed", player_id=player_id, error=type(error).__name__)
        return delivered

    def _post(self, subscription: dict, data: str) -> None:
        with _PushSession() as session:
            response = webpush(
                subscription,
                data=data,
                vapid_private_key=self.vapid,
                vapid_claims={"sub": self.settings.subject},
                ttl=PUSH_TTL_SECONDS,
                timeout=PUSH_TIMEOUT_SECONDS,
                requests_session=session,
            )
        log.debug("pushed", status=getattr(response, "status_code", None))


def main() -> int:
    private, public = new_vapid_keys()
    sys.stdout.write(f"TAVOLA_PUSH_VAPID_PRIVATE_KEY={private}\n# public key (GetPushKey answers it): {public}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

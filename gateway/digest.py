"""The daily digest: one email a day at most to each player who asked for it
(TurnService.SetDigest), listing the tables waiting for them; never a mail per move.

Mail goes through an ``EmailSender`` the operator chooses (TAVOLA_DIGEST_SENDER): ``smtp``
(the standard library's smtplib, to TAVOLA_SMTP_HOST) or ``file`` (the default, for
development: each mail an .eml file in TAVOLA_DIGEST_DIR). Every
TAVOLA_DIGEST_CHECK_SECONDS one gateway at a time (a self-expiring lock) looks at the
players who opted in; a player is mailed when tables wait for them and no digest went to
them in the last TAVOLA_DIGEST_EVERY_SECONDS (a day), which a key set only if absent
ensures across gateways.
"""

import asyncio
import re
import smtplib
import ssl
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.headerregistry import Address
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol

import structlog

from common import settings
from common.errors import invalid
from tavola.gateway.v1 import players_pb2 as pl

log = structlog.get_logger()

MAX_EMAIL = 254
BATCH = 200  # opted-in players looked at per round


@dataclass(frozen=True)
class DigestSettings:
    sender: str = "file"  # "file" or "smtp"
    directory: str = ".run/digests"
    mail_from: str = "tavola <tables@tavola.invalid>"
    smtp_host: str = ""
    smtp_port: int = 587
    smtp_user: str = ""
    smtp_password: str = ""
    smtp_starttls: bool = True
    check_seconds: float = 600.0
    every_seconds: float = 24 * 3600.0
    site_url: str = ""

    @classmethod
    def from_env(cls, env=None) -> "DigestSettings":
        sender = settings.text("TAVOLA_DIGEST_SENDER", env)
        if sender not in ("file", "smtp"):
            raise settings.ConfigError(f"TAVOLA_DIGEST_SENDER: {sender!r} is neither file nor smtp")
        return cls(
            sender=sender,
            directory=settings.text("TAVOLA_DIGEST_DIR", env),
            mail_from=settings.text("TAVOLA_DIGEST_FROM", env),
            smtp_host=settings.text("TAVOLA_SMTP_HOST", env),
            smtp_port=settings.port("TAVOLA_SMTP_PORT", 587, env) or 587,
            smtp_user=settings.text("TAVOLA_SMTP_USER", env),
            smtp_password=settings.text("TAVOLA_SMTP_PASSWORD", env),
            smtp_starttls=settings.flag("TAVOLA_SMTP_STARTTLS", env),
            check_seconds=settings.number("TAVOLA_DIGEST_CHECK_SECONDS", env),
            every_seconds=settings.number("TAVOLA_DIGEST_EVERY_SECONDS", env),
            site_url=settings.text("TAVOLA_SITE_URL", env).rstrip("/"),
        )


class EmailSender(Protocol):
    def send(self, message: EmailMessage) -> None: ...


class FileSender:
    """Development's post office: each mail a file in a directory."""

    def __init__(self, directory: str):
        self.directory = Path(directory)

    def send(self, message: EmailMessage) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        name = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}.eml"
        (self.directory / f"{name}.tmp").write_bytes(bytes(message))
        (self.directory / f"{name}.tmp").replace(self.directory / name)


class SmtpSender:
    def __init__(self, config: DigestSettings):
        self.config = config

    def send(self, message: EmailMessage) -> None:
        config = self.config
        with smtplib.SMTP(config.smtp_host, config.smtp_port, timeout=30) as smtp:
            if config.smtp_starttls:
                smtp.starttls(context=ssl.create_default_context())
            if config.smtp_user:
                smtp.login(config.smtp_user, config.smtp_password)
            smtp.send_message(message)


def sender_of(config: DigestSettings) -> EmailSender:
    return SmtpSender(config) if config.sender == "smtp" else FileSender(config.directory)


_PLAIN_ADDRESS = re.compile(r"^[^\s@<>()\[\],;:\"\\]+@[^\s@<>()\[\],;:\"\\]+\.[^\s@<>()\[\],;:\"\\]+$")


def check_email(email: str) -> str:
    """A plain address (no name, no header-breaking characters), or INVALID_ARGUMENT."""
    email = email.strip()
    if len(email) > MAX_EMAIL or not _PLAIN_ADDRESS.match(email) or not email.isprintable():
        raise invalid("BAD_EMAIL", f"an email address of at most {MAX_EMAIL} characters: name@example.org")
    try:
        Address(addr_spec=email)
    except (ValueError, IndexError):
        raise invalid("BAD_EMAIL", "an email address: name@example.org") from None
    return email


def compose(config: DigestSettings, to: str, player_name: str, waiting: list[pl.MyTable]) -> EmailMessage:
    """The digest: one line per table waiting for the player, by game and players' names."""
    message = EmailMessage()
    message["From"] = config.mail_from
    message["To"] = to
    count = len(waiting)
    message["Subject"] = f"tavola: {count} table{'s' if count != 1 else ''} waiting for you"
    lines = [f"Hello {player_name},", "", "It is your turn at:"]
    for mine in waiting:
        table = mine.table
        others = [seat.display_name for seat in table.seats if seat.seat != mine.seat]
        link = f"{config.site_url}/#/table/{table.table_id}"
        lines.append(f"- {mine.game_name or table.game_id} with {', '.join(others)}: {link}")
    lines += ["", "One mail a day at most. Turn it off on your player page (#/me)."]
    message.set_content("\n".join(lines) + "\n")
    return message


class DigestStore:
    """Who opted in: a Redis hash, player id -> address; and when each was last mailed."""

    def __init__(self, redis, key_prefix: str):
        self.redis = redis
        self.key = f"{key_prefix}:digest"
        self.key_prefix = key_prefix

    async def set(self, player_id: str, email: str) -> bool:
        if not email:
            await self.redis.hdel(self.key, player_id)
            return False
        await self.redis.hset(self.key, player_id, check_email(email))
        return True

    async def batch(self, cursor: int) -> tuple[int, dict[str, str]]:
        cursor, found = await self.redis.hscan(self.key, cursor, count=BATCH)
        return int(cursor), {_text(key): _text(value) for key, value in found.items()}

    def _sent_key(self, player_id: str) -> str:
        return f"{self.key_prefix}:digest-sent:{player_id}"

    async def sent_lately(self, player_id: str) -> bool:
        return bool(await self.redis.exists(self._sent_key(player_id)))

    async def claim_day(self, player_id: str, every_seconds: float) -> bool:
        """True once per ``every_seconds`` for a player, on whichever gateway asks first."""
        key = self._sent_key(player_id)
        return bool(await self.redis.set(key, int(time.time()), nx=True, ex=max(1, int(every_seconds))))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class Digest:
    def __init__(
        self,
        store: DigestStore,
        config: DigestSettings,
        waiting: Callable[[str], Awaitable[list[pl.MyTable]]],
        player_name: Callable[[str], Awaitable[str]],
        lock: Callable[[str, float], Awaitable[bool]],
        sender: EmailSender | None = None,
    ):
        self.store = store
        self.config = config
        self.waiting = waiting
        self.player_name = player_name
        self.lock = lock
        self.sender = sender or sender_of(config)
        self.task: asyncio.Task | None = None

    def start(self) -> None:
        if self.config.check_seconds > 0:
            self.task = asyncio.create_task(self._every(), name="digest")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    async def _every(self) -> None:
        while True:
            await asyncio.sleep(self.config.check_seconds)
            try:
                await self.round()
            except Exception:  # a fault in one round must not end the digests for good
                log.exception("digest_error")

    async def round(self) -> int:
        """Mails each opted-in player whose tables wait and who had no digest today;
        returns how many mails went."""
        if not await self.lock("digest", self.config.check_seconds):
            return 0
        sent = 0
        cursor = 0
        while True:
            cursor, opted = await self.store.batch(cursor)
            for player_id, email in opted.items():
                try:
                    sent += await self._one(player_id, email)
                except Exception:  # one player's failure (a mail server's refusal) is not the others'
                    log.warning("digest_not_sent", player_id=player_id, exc_info=True)
            if cursor == 0:
                break
        if sent:
            log.info("digests_sent", mails=sent)
        return sent

    async def _one(self, player_id: str, email: str) -> int:
        """Mails the player when tables wait for them and no digest went today: 1, else 0."""
        if await self.store.sent_lately(player_id):  # before reading their tables
            return 0
        waiting = await self.waiting(player_id)
        if not waiting or not await self.store.claim_day(player_id, self.config.every_seconds):
            return 0
        message = compose(self.config, email, await self.player_name(player_id), waiting)
        await asyncio.to_thread(self.sender.send, message)
        return 1

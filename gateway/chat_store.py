"""Chat in Redis.

Per table, under its hash tag (so on a cluster they share its slot) and beside its keys:
  <prefix>:{id}:chat:players      stream: the players' channel, one field "m" (a
  <prefix>:{id}:chat:spectators   ChatMessage without its id, which is the entry's id),
                                  and "s" on a shadow-muted sender's message
  <prefix>:{id}:chat-wake:<channel>   pub/sub: published on every message
Each stream keeps the newest ``history`` messages, and takes its table's TTL at every
message (the script reads it), so it goes with the table, at most that TTL later (every
read loads the table first: a gone table's chat is never read); a table that Redis keeps
without a TTL (finished, waiting for the archive) gives its chat ``fallback_ttl``.
The lobby: ``<prefix>:chat:lobby`` and ``<prefix>:chat-wake:lobby``, newest ``history``.

Beside them: ``<prefix>:player:<id>:muted`` (a set: the players whose messages that player
hides, as do those it blocked, ``<prefix>:social:<id>:blocks``), ``<prefix>:chat:shadow-muted``
(a set: players whose messages only they see) and ``<prefix>:chat:reports`` (a stream of
reports, gateway/reports.py).
"""

import json
import re
import time
from collections.abc import Iterable
from typing import Any, NamedTuple, cast

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from gateway.social import social_key
from tavola.gateway.v1 import chat_pb2

PAGE = 100
# The newest reports kept (each holds a replay): the operator reads them as they come.
KEPT_REPORTS = 10_000
MESSAGE_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")

# KEYS: the chat stream, its table's record (absent for the lobby); ARGV: the message,
# shadow flag, history, fallback TTL, the wake channel. Returns the entry's id, or "" when
# the table is gone.
_APPEND = """
local ttl = -1
if KEYS[2] then
  ttl = redis.call('PTTL', KEYS[2])
  if ttl == -2 then return '' end
end
local fields = {'m', ARGV[1]}
if ARGV[2] == '1' then fields[3] = 's'; fields[4] = '1' end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*', unpack(fields))
if KEYS[2] then
  if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) else redis.call('EXPIRE', KEYS[1], ARGV[4]) end
end
redis.call('PUBLISH', ARGV[5], id)
return id
"""


class ArchivedMessage(NamedTuple):
    """A row of the archive's ``archived_chat``: the sender's seat in the players'
    channel, None in the spectators' (the row's channel)."""

    seat: int | None
    player_id: str
    sent_at: float  # seconds since the epoch
    text: str


_CHANNEL_NAMES: dict[int, str] = {
    chat_pb2.CHAT_CHANNEL_PLAYERS: "players",
    chat_pb2.CHAT_CHANNEL_SPECTATORS: "spectators",
    chat_pb2.CHAT_CHANNEL_LOBBY: "lobby",
}
# XRANGE's reply, as this client (which does not decode) gives it.
_Entries = list[tuple[bytes, dict[bytes, bytes]]]


def channel_name(channel: int) -> str:
    return _CHANNEL_NAMES[channel]


def _message(entry_id: bytes, fields: dict[bytes, bytes]) -> tuple[chat_pb2.ChatMessage, bool]:
    message = chat_pb2.ChatMessage.FromString(fields[b"m"])
    message.message_id = entry_id.decode()
    return message, fields.get(b"s") == b"1"


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class ChatStore:
    def __init__(self, redis: "Redis | RedisCluster", key_prefix: str, history: int, fallback_ttl: int):
        self.redis = redis
        self.prefix = key_prefix
        self.history = history
        self.fallback_ttl = fallback_ttl
        self._append: Any = None  # the script, registered at its first use
        self.shadow_key = f"{key_prefix}:chat:shadow-muted"
        self.reports_key = f"{key_prefix}:chat:reports"

    def key(self, table_id: str, channel: int) -> str:
        if channel == chat_pb2.CHAT_CHANNEL_LOBBY:
            return f"{self.prefix}:chat:lobby"
        return f"{self.prefix}:{{{table_id}}}:chat:{channel_name(channel)}"

    def wake_channel(self, table_id: str, channel: int) -> str:
        if channel == chat_pb2.CHAT_CHANNEL_LOBBY:
            return f"{self.prefix}:chat-wake:lobby"
        return f"{self.prefix}:{{{table_id}}}:chat-wake:{channel_name(channel)}"

    def table_key(self, table_id: str) -> str:
        return f"{self.prefix}:{{{table_id}}}:table"  # TableStore's record (gateway/store.py)

    def muted_key(self, player_id: str) -> str:
        return f"{self.prefix}:player:{player_id}:muted"

    async def append(self, message: chat_pb2.ChatMessage, shadow: bool) -> str:
        """The new message's id, or "" when its table is gone."""
        table_id, channel = message.table_id, message.channel
        keys = [self.key(table_id, channel)]
        if channel != chat_pb2.CHAT_CHANNEL_LOBBY:
            keys.append(self.table_key(table_id))
        args = [
            message.SerializeToString(),
            "1" if shadow else "0",
            self.history,
            self.fallback_ttl,
            self.wake_channel(table_id, channel),
        ]
        if self._append is None:
            self._append = self.redis.register_script(_APPEND)
        return _text(await self._append(keys=keys, args=args))

    async def read(
        self, table_id: str, channel: int, after_id: str, count: int = PAGE
    ) -> list[tuple[chat_pb2.ChatMessage, bool]]:
        """The messages after ``after_id`` ("": from the oldest kept), each with its shadow
        flag, oldest first."""
        start = f"({after_id}" if after_id else "-"
        replies = cast(_Entries, await self.redis.xrange(self.key(table_id, channel), start, "+", count=count))
        return [_message(entry_id, fields) for entry_id, fields in replies]

    async def one(self, table_id: str, channel: int, message_id: str) -> tuple[chat_pb2.ChatMessage, bool] | None:
        key = self.key(table_id, channel)
        replies = cast(_Entries, await self.redis.xrange(key, message_id, message_id, count=1))
        return _message(*replies[0]) if replies else None

    async def to_archive(self, table_id: str) -> list[ArchivedMessage]:
        """A finished table's chat as the archive keeps it (gateway/archive.py): both
        channels in the order they were sent, a shadow-muted sender's messages left out."""
        found: list[ArchivedMessage] = []
        for channel in (chat_pb2.CHAT_CHANNEL_PLAYERS, chat_pb2.CHAT_CHANNEL_SPECTATORS):
            after = ""
            while page := await self.read(table_id, channel, after):
                after = page[-1][0].message_id
                found += [
                    ArchivedMessage(
                        message.seat if channel == chat_pb2.CHAT_CHANNEL_PLAYERS else None,
                        message.player_id,
                        message.send_time.ToNanoseconds() / 1e9,
                        message.text,
                    )
                    for message, shadow in page
                    if not shadow
                ]
        return sorted(found, key=lambda message: message.sent_at)

    async def table_exists(self, table_id: str) -> bool:
        return bool(await self.redis.exists(self.table_key(table_id)))

    # -- mutes (a player's own) and shadow mutes (the operator's) ------------------------

    async def muted_by(self, player_id: str | None) -> set[str]:
        """Whose messages the player does not see: those they muted, and those they blocked
        (gateway/social.py)."""
        if not player_id:
            return set()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.smembers(self.muted_key(player_id))
            pipe.smembers(social_key(self.prefix, player_id, "blocks"))
            muted, blocked = await pipe.execute()
        return {_text(each) for each in (*muted, *blocked)}

    async def set_muted(self, player_id: str, other: str, muted: bool) -> None:
        if muted:
            await self.redis.sadd(self.muted_key(player_id), other)
        else:
            await self.redis.srem(self.muted_key(player_id), other)

    async def mute_count(self, player_id: str) -> int:
        return int(await self.redis.scard(self.muted_key(player_id)))

    async def is_shadow_muted(self, player_id: str) -> bool:
        return bool(await self.redis.sismember(self.shadow_key, player_id))

    # -- reports -------------------------------------------------------------------------

    async def file_report(self, report: dict[str, object]) -> str:
        report = {**report, "time": time.time()}
        added = await self.redis.xadd(
            self.reports_key, {"r": json.dumps(report)}, maxlen=KEPT_REPORTS, approximate=True
        )
        return _text(added)


def visible(
    messages: Iterable[tuple[chat_pb2.ChatMessage, bool]], viewer: str | None, muted: set[str]
) -> list[chat_pb2.ChatMessage]:
    """What ``viewer`` reads of ``messages``: a shadow-muted sender's only if it is theirs,
    none of the players they muted."""
    return [
        message
        for message, shadow in messages
        if (not shadow or message.player_id == viewer) and message.player_id not in muted
    ]

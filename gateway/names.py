"""Who holds a name: registered players' name skeletons (common/name_rules.py) in Redis, so
that nobody signs up, renames or sits down under a name that looks like another player's.

Key, under the gateway's prefix: ``player-names`` (a hash: skeleton -> player id). A
player's skeletons are claimed before their name is written (CreatePlayer, RenamePlayer),
all or none, and the old ones released after; the player's hash keeps its own
(``skeletons``, one a line), so that a rename releases those it claimed even if the
skeletons' rules change between versions.
"""

from collections.abc import Iterable

import grpc
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from common.errors import ApiError
from common.name_rules import check_not_reserved, clean_name, skeletons

# Claims KEYS[1]'s fields ARGV[2..] for player ARGV[1], unless another player holds one.
_CLAIM = """
for i = 2, #ARGV do
  local owner = redis.call('HGET', KEYS[1], ARGV[i])
  if owner and owner ~= ARGV[1] then return owner end
end
for i = 2, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], ARGV[1]) end
return false
"""
# Releases KEYS[1]'s fields ARGV[2..] that player ARGV[1] still holds.
_RELEASE = """
for i = 2, #ARGV do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 0
"""


def name_taken() -> ApiError:
    return ApiError(
        grpc.StatusCode.ALREADY_EXISTS,
        "DISPLAY_NAME_TAKEN",
        "another player's name looks like this one (the same letters, or letters that look alike): choose another",
    )


class NameIndex:
    def __init__(self, redis: "Redis | RedisCluster", key_prefix: str, bot_names: Iterable[str] = ()):
        self.redis = redis
        self.key = f"{key_prefix}:player-names"
        self.bot_names = tuple(bot_names)
        for bot in self.bot_names:  # an operator's bot is named to people too: the same rules
            try:
                clean_name(bot, what="a bot's name")
            except ApiError as error:
                raise ValueError(f"bot {bot!r}: {error.message}") from None

    def check(self, raw: str, what: str = "a display name") -> tuple[str, frozenset[str]]:
        """The name kept for ``raw`` and its skeletons; INVALID_ARGUMENT for a name refused
        by the rules or reserved ("" is returned as it is: who calls says what it means)."""
        name = clean_name(raw, what=what)
        if name:
            check_not_reserved(name, self.bot_names, what=what)
        return name, skeletons(name)

    async def owners(self, keys: Iterable[str]) -> set[str]:
        """The players whose names have one of the skeletons ``keys``."""
        found = await self.redis.hmget(self.key, sorted(keys))
        return {owner.decode() if isinstance(owner, bytes) else str(owner) for owner in found if owner is not None}

    async def claim(self, keys: Iterable[str], player_id: str) -> None:
        """``keys`` are ``player_id``'s from now on; ALREADY_EXISTS (DISPLAY_NAME_TAKEN) if
        another player holds one."""
        if await self.redis.eval(_CLAIM, 1, self.key, player_id, *sorted(keys)):
            raise name_taken()

    async def release(self, keys: Iterable[str], player_id: str) -> None:
        if keys:
            await self.redis.eval(_RELEASE, 1, self.key, player_id, *sorted(keys))

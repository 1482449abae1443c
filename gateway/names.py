"""Who holds a name: registered players' name skeletons (common/name_rules.py) in Redis, so
that nobody signs up, renames or sits down under a name that looks like another player's.

Key, under the gateway's prefix: ``player-names`` (a hash: skeleton -> player id). A
player's skeleton is claimed before their name is written (CreatePlayer, RenamePlayer) and
the old one released after; the player's hash keeps its own (``skeleton``), so that a
rename releases the one it claimed even if the skeleton's rules change between versions.
"""

from collections.abc import Iterable

import grpc
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from common.errors import ApiError
from common.name_rules import check_not_reserved, clean_name, skeleton

# Claims KEYS[1]'s field ARGV[1] for player ARGV[2] unless another player holds it.
_CLAIM = """
local owner = redis.call('HGET', KEYS[1], ARGV[1])
if owner and owner ~= ARGV[2] then return owner end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return false
"""
# Releases KEYS[1]'s field ARGV[1] if player ARGV[2] still holds it.
_RELEASE = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
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

    def check(self, raw: str, what: str = "a display name") -> tuple[str, str]:
        """The name kept for ``raw`` and its skeleton; INVALID_ARGUMENT for a name refused by
        the rules or reserved ("" is returned as it is: who calls says what it means)."""
        name = clean_name(raw, what=what)
        if name:
            check_not_reserved(name, self.bot_names, what=what)
        return name, skeleton(name)

    async def owner(self, key: str) -> str | None:
        """The player whose name has the skeleton ``key``, if one has."""
        found = await self.redis.hget(self.key, key)
        return None if found is None else found.decode() if isinstance(found, bytes) else str(found)

    async def claim(self, key: str, player_id: str) -> None:
        """``key`` is ``player_id``'s from now on; ALREADY_EXISTS (DISPLAY_NAME_TAKEN) if
        another player holds it."""
        if await self.redis.eval(_CLAIM, 1, self.key, key, player_id):
            raise name_taken()

    async def release(self, key: str, player_id: str) -> None:
        await self.redis.eval(_RELEASE, 1, self.key, key, player_id)

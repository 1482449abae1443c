"""The gateway's Redis connections (common/redis_client.py): commands packed in C by hiredis
are the very bytes redis-py's own asyncio packer makes, and read back alike from a real Redis."""

import asyncio

import pytest
import redis.asyncio as redis_async
from redis.asyncio.connection import Connection
from redis.exceptions import DataError

from common.redis_client import _lean_connection, lean_blocking_pool

ARGUMENTS = [
    ("GET", "key"),
    ("CONFIG GET", "maxmemory"),  # a command name of two words: sent as two arguments
    (b"SCRIPT LOAD", "return 1"),
    ("SET", "città", "€ 1,50"),
    ("EVALSHA", "a" * 40, 2, "k1", "k2", 0, -7, 2**63 - 1, 1.5, 1e20, 0.1, 1720000000.123456),
    ("HSET", "h", b"\x00\xff binary", bytes(70_000), bytearray(b"array"), memoryview(b"view")),
]


@pytest.mark.parametrize("arguments", ARGUMENTS, ids=lambda arguments: str(arguments[0]))
def test_commands_are_packed_as_redis_pys_own_packer_packs_them(arguments):
    lean, plain = _lean_connection(Connection)(), Connection()
    assert b"".join(lean.pack_command(*arguments)) == b"".join(plain.pack_command(*arguments))


def test_an_argument_redis_py_refuses_is_refused_alike():
    lean = _lean_connection(Connection)()
    for refused in (True, None, object()):
        with pytest.raises(DataError):
            Connection().pack_command("SET", "key", refused)
        with pytest.raises(DataError):
            lean.pack_command("SET", "key", refused)


def test_a_lean_pool_writes_and_reads_back_every_kind_of_value(redis_url: str, key_prefix: str):
    async def scenario() -> None:
        client = redis_async.Redis(connection_pool=lean_blocking_pool(redis_url, max_connections=4, timeout=5))
        key = f"{key_prefix}:redis-client"
        try:
            values = {"text": "città €", "integer": -42, "real": 2.5, "binary": bytes(range(256)) * 300}
            await client.hset(key, mapping=values)
            async with client.pipeline(transaction=False) as pipe:
                pipe.hgetall(key)
                pipe.hlen(key)
                stored, length = await pipe.execute()
            assert length == 4
            assert stored == {
                b"text": "città €".encode(),
                b"integer": b"-42",
                b"real": b"2.5",
                b"binary": bytes(range(256)) * 300,
            }
            assert await client.eval("return ARGV[1] .. ARGV[2]", 0, "é", 7) == "é7".encode()
        finally:
            await client.delete(key)
            await client.aclose()

    asyncio.run(scenario())

"""pyproject.toml admits redis-py 7.0 to 8.x, and the gateway's lean pool reaches into
redis-py's own pool: it is run here on the lowest release admitted (installed into a
folder of its own from the package index) and on the installed one, against a real Redis."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOWEST = "7.0.0"

EXERCISE = textwrap.dedent(
    """
    import asyncio, sys
    import redis
    from common import redis_client

    async def main(url, prefix):
        pool = redis_client.lean_blocking_pool(
            url, max_connections=2, timeout=5, **redis_client.without_maintenance_handshake()
        )
        client = redis.asyncio.Redis(connection_pool=pool)
        try:
            # More tasks than connections: they wait for a free one and all get their answer.
            async def one(index):
                key = f"{prefix}:{index}"
                await client.set(key, "x" * index)
                assert await client.get(key) == b"x" * index
                assert await client.eval("return redis.call('STRLEN', KEYS[1])", 1, key) == index
                async with client.pipeline(transaction=True) as pipe:
                    pipe.incr(f"{prefix}:count").expire(f"{prefix}:count", 60)
                    await pipe.execute()
            await asyncio.gather(*(one(index) for index in range(1, 21)))
            assert await client.get(f"{prefix}:count") == b"20"
            assert len(pool._in_use_connections) == 0 and len(pool._available_connections) <= 2
            await client.delete(*[f"{prefix}:{index}" for index in range(1, 21)], f"{prefix}:count")
        finally:
            await client.aclose()
        print("ok", redis.__version__)

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """
)


def exercise(redis_url: str, key_prefix: str, path: Path | None = None) -> str:
    env = {"PYTHONPATH": f"{path}:{ROOT}" if path else str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", EXERCISE, redis_url, f"{key_prefix}:redis-versions"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_the_lean_pool_on_the_installed_redis_py(redis_url, key_prefix):
    import redis

    assert exercise(redis_url, key_prefix) == f"ok {redis.__version__}"


def test_the_lean_pool_on_the_lowest_redis_py_admitted(redis_url, key_prefix, tmp_path):
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'"redis[hiredis]>={LOWEST.rsplit(".", 1)[0]},<9"' in pyproject
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(tmp_path), f"redis=={LOWEST}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if installed.returncode != 0:
        pytest.skip(f"redis=={LOWEST} could not be installed from the package index: {installed.stderr[-300:]}")
    assert exercise(redis_url, key_prefix, tmp_path) == f"ok {LOWEST}"

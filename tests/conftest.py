"""Shared fixtures. Integration tests get a real Redis:

1. a testcontainers Redis where a Docker engine answers;
2. otherwise the Redis at REDIS_URL (default redis://127.0.0.1:6379/0) if it answers;
3. otherwise a private redis-server that the project starts (deploy.redis_local).

The suite writes only keys under its own prefix (tavola-test-<random>) and deletes only
those at the end, so it can share a Redis with anything else.

The archive's tests get a real PostgreSQL the same way (a testcontainers one where Docker
answers, else TAVOLA_DATABASE_URL, else the local default one if it answers, else a private
server: deploy.postgres_local), and a database of their own on it, dropped at the end.

The suite runs on two processes (pytest-xdist, addopts in pyproject.toml). One of them runs
every test under integration/, in order: one stack for them all, as on one process, while
the other runs the engine and bot tests beside it, then both share what is left.
"""

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from common import defaults
from deploy.postgres_local import ensure_postgres, scratch_database
from deploy.redis_local import RedisHandle, answers, start_private_redis

INTEGRATION = Path(__file__).resolve().parent / "integration"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--long",
        action="store_true",
        help="also run the tests marked slow (make test-long): strength matches, many more playouts",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("long"):
        from tests import scale

        scale.LONG = True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks the tests under integration/ (-m integration, -m "not integration"), and leaves
    out the ones marked slow unless --long is given or -m chooses by marker: make test stays
    shorter, and make test-long runs everything."""
    for item in items:
        if item.path.is_relative_to(INTEGRATION):
            item.add_marker(pytest.mark.integration)
    if config.getoption("long") or config.option.markexpr:
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """With ``-n``: each test outside integration/ is a unit of work of its own, and every
    integration test is in one unit, run in collection order by one worker (the largest
    unit, so it starts first)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class IntegrationTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith("tests/web/"):
                return "web"  # the browser tests share one stack and one browser
            return "integration" if nodeid.startswith("tests/integration/") else nodeid

    return IntegrationTogether(config, log)


def _docker_redis() -> Iterator[str] | None:
    try:
        import docker

        docker.from_env().ping()
    except Exception:
        return None
    from testcontainers.redis import RedisContainer

    def run() -> Iterator[str]:
        with RedisContainer("redis:7-alpine") as container:
            host = container.get_container_host_ip()
            port = container.get_exposed_port(6379)
            yield f"redis://{host}:{port}/0"

    return run()


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    from_docker = _docker_redis()
    if from_docker is not None:
        yield from from_docker
        return
    url = os.environ.get("REDIS_URL", defaults.REDIS_URL)
    if answers(url):
        yield url
        return
    handle: RedisHandle = start_private_redis()
    try:
        yield handle.url
    finally:
        handle.stop()


@pytest.fixture(scope="session")
def key_prefix(redis_url: str) -> Iterator[str]:
    prefix = f"tavola-test-{secrets.token_hex(4)}"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    try:
        # Stacks of their own add to the prefix ("<prefix>-tracing:..."): theirs go too.
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        for start in range(0, len(keys), 500):
            client.delete(*keys[start : start + 500])
    finally:
        client.close()


def _docker_postgres() -> Iterator[str] | None:
    try:
        import docker

        docker.from_env().ping()
    except Exception:
        return None
    from testcontainers.postgres import PostgresContainer

    def run() -> Iterator[str]:
        with PostgresContainer("postgres:16-alpine", driver=None) as container:
            yield container.get_connection_url()

    return run()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A PostgreSQL server's URL (its maintenance database)."""
    from_docker = _docker_postgres()
    if from_docker is not None:
        yield from from_docker
        return
    handle = ensure_postgres()
    try:
        yield handle.url
    finally:
        handle.stop()


@pytest.fixture(scope="session")
def database_url(postgres_server: str) -> Iterator[str]:
    """A database of the suite's own (tavola_test_<random>), dropped at the end."""
    with scratch_database(postgres_server) as url:
        yield url

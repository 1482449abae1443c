"""Finds a PostgreSQL to use for the archive, or starts one the project provides.

Order: the server at ``TAVOLA_DATABASE_URL`` (when given it must answer: nothing else is
tried), else one on the local default port (``postgresql://postgres@127.0.0.1:5432/postgres``)
if it answers, else a private server on a free loopback port in a temporary folder: from the
system's PostgreSQL binaries (Debian's ``postgresql`` package, ``/usr/lib/postgresql/*/bin``,
or ``initdb`` on PATH), else from the ``pgserver`` package in the project's environment,
which bundles PostgreSQL (no system-wide install needed).

``scratch_database`` makes a database of its own on a server and drops it afterwards, so a
test run or a demo can share a server with anything else.
"""

import glob
import os
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

from common import settings
from deploy.redis_local import free_port

LOCAL_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def answers(url: str, timeout: float = 2.0) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=max(1, int(timeout)), autocommit=True) as connection:
            connection.execute("SELECT 1")
        return True
    except (psycopg.Error, OSError):
        return False


def _binaries() -> Path | None:
    """The folder of a system PostgreSQL's initdb and pg_ctl, the newest first."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda path: int(Path(path).parent.parent.name))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


@dataclass
class PostgresHandle:
    url: str
    description: str
    data_dir: Path | None = None
    bin_dir: Path | None = None
    workdir: tempfile.TemporaryDirectory | None = None
    _pgserver: object | None = field(default=None, repr=False)

    def pg_ctl(self, *args: str) -> None:
        """Runs the private server's pg_ctl (start, stop ...): tests stop and start it."""
        if self.bin_dir is None or self.data_dir is None:
            raise RuntimeError("not a private server this module started")
        command = [str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-w", "-l", str(self.data_dir / "log")]
        subprocess.run([*_as_postgres_user(), *command, *args], check=True, capture_output=True)

    def stop(self) -> None:
        if self._pgserver is not None:
            self._pgserver.cleanup()  # type: ignore[attr-defined]
            self._pgserver = None
        elif self.data_dir is not None and (self.data_dir / "postmaster.pid").exists():
            self.pg_ctl("stop", "-m", "fast")
        if self.workdir is not None:
            self.workdir.cleanup()
            self.workdir = None


def _postgres_account() -> tuple[int, int, str] | None:
    """PostgreSQL refuses to run as root: as root, its processes run as the ``postgres``
    user when there is one (Debian's package makes it), else as ``nobody``."""
    if os.geteuid() != 0:
        return None
    import pwd

    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        return entry.pw_uid, entry.pw_gid, name
    return None


def _as_postgres_user() -> list[str]:
    """The words that run a command as that user (none when not root). Through setpriv,
    not subprocess's ``user=``: with it Python forks instead of vforking, and the fork
    handlers of a process that has gRPC loaded (a test's, a gateway's) crashed the child
    (SIGSEGV in gRPC's event engine thread) before it ran initdb or pg_ctl."""
    account = _postgres_account()
    if account is None:
        return []
    uid, gid, name = account
    if shutil.which("setpriv") is None:
        raise RuntimeError(f"running PostgreSQL as {name} from root needs setpriv (util-linux)")
    return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]


def start_private_postgres() -> PostgresHandle:
    """A private PostgreSQL on a free loopback port, trusting local connections."""
    bin_dir = _binaries()
    if bin_dir is None:
        return _start_pgserver()
    workdir = tempfile.TemporaryDirectory(prefix="tavola-postgres-")
    data_dir = Path(workdir.name) / "data"
    account = _postgres_account()
    if account is not None:
        os.chown(workdir.name, account[0], account[1])
    port = free_port()
    try:
        initdb = [str(bin_dir / "initdb"), "-D", str(data_dir), "-U", "postgres", "--auth=trust", "-E", "UTF8"]
        subprocess.run([*_as_postgres_user(), *initdb], check=True, capture_output=True)
        with open(data_dir / "postgresql.conf", "a") as conf:
            # Loopback only; its socket in its own folder; a test server need not fsync.
            conf.write(f"listen_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = '{data_dir}'\n")
            conf.write("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n")
        handle = PostgresHandle(
            f"postgresql://postgres@127.0.0.1:{port}/postgres", "", data_dir, bin_dir, workdir=workdir
        )
        handle.pg_ctl("start")
    except BaseException:
        workdir.cleanup()
        raise
    handle.description = f"started PostgreSQL from {bin_dir} at {handle.url}"
    return handle


def _start_pgserver() -> PostgresHandle:
    try:
        import pgserver
    except ImportError:
        raise RuntimeError(
            "no PostgreSQL answers and none is installed: set TAVOLA_DATABASE_URL, install Debian's "
            "postgresql package, or run 'make setup' (it installs the pgserver package)"
        ) from None
    workdir = tempfile.TemporaryDirectory(prefix="tavola-pgserver-")
    server = pgserver.get_server(workdir.name, cleanup_mode="stop")
    # pgserver listens on a socket only: its URI names the socket folder.
    url = server.get_uri()
    return PostgresHandle(
        url, f"started PostgreSQL from the pgserver package at {url}", workdir=workdir, _pgserver=server
    )


def ensure_postgres(url: str | None = None) -> PostgresHandle:
    """The server at ``url`` (TAVOLA_DATABASE_URL) when it answers, else the local one, else
    a private one, as for Redis (deploy/redis_local.py); the handle's description says which,
    and why when the given one was passed over."""
    given = url if url is not None else settings.text("TAVOLA_DATABASE_URL")
    if given:
        if answers(given):
            return PostgresHandle(given, f"using the PostgreSQL at {given}")
        private = start_private_postgres()
        private.description = f"nothing answers at {given}: {private.description}"
        return private
    if answers(LOCAL_URL):
        return PostgresHandle(LOCAL_URL, f"using the PostgreSQL at {LOCAL_URL}")
    return start_private_postgres()


def with_database(url: str, database: str) -> str:
    """``url`` naming another database on the same server."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


def ensure_database(server_url: str, database: str) -> str:
    """``server_url`` naming ``database``, created on the server if it has none of that name."""
    with psycopg.connect(server_url, autocommit=True) as connection:
        found = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone()
        if found is None:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    return with_database(server_url, database)


@contextmanager
def scratch_database(server_url: str, prefix: str = "tavola_test") -> Iterator[str]:
    """A new database ``<prefix>_<random>`` on the server, dropped (it alone) at the end."""
    name = f"{prefix}_{secrets.token_hex(4)}"
    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield with_database(server_url, name)
    finally:
        deadline = time.monotonic() + 10
        while True:
            try:
                with psycopg.connect(server_url, autocommit=True) as connection:
                    connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
                break
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

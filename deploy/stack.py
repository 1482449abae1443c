"""The whole platform as local processes: rules services, gateways and a Celery bot worker.

Used by ``make demo``, ``make run``, the benchmarks and the integration tests. Every
server listens on a free loopback port (port 0, reported through TAVOLA_PORT_FILE) and is
health-checked before use; ``stop`` ends exactly the processes this stack started, by pid.
Each stack makes a fresh random bot secret, shared by its gateways and its worker only.

``gateways`` and ``rules_replicas`` start several of each; clients then reach them through
one address that gRPC balances itself (``ipv4:127.0.0.1:p1,127.0.0.1:p2`` with the
round_robin policy). ``redis_url`` may name a Redis Cluster (``redis+cluster://``); Celery
then needs ``broker_url``, a plain Redis. Every process serves Prometheus metrics on a
port of its own (``metrics_addresses``).
"""

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from common import defaults, generated, settings
from common.redis_client import connect, is_cluster
from deploy.postgres_local import PostgresHandle, ensure_database, ensure_postgres
from deploy.processes import terminate
from deploy.redis_local import RedisHandle, ensure_redis
from deploy.workers import split_bots
from services.bot_specs import load_bots
from services.registry import game_ids

ROOT = Path(__file__).resolve().parent.parent


# For the platform's own load (the demo, the bench): it creates many tables from one address.
NO_QUOTAS = {
    "TAVOLA_QUOTA_CREATE_PER_MINUTE": "0",
    "TAVOLA_QUOTA_SEATS_PER_MINUTE": "0",
    "TAVOLA_QUOTA_STREAMS": "0",
    "TAVOLA_QUOTA_ACTION_STREAMS": "0",
    "TAVOLA_QUOTA_REPLAYS_PER_MINUTE": "0",
    "TAVOLA_QUOTA_PLAYERS_PER_MINUTE": "0",
}


class Terminated(KeyboardInterrupt):
    """SIGTERM to the owner of a running stack: raised like Ctrl-C's KeyboardInterrupt, so
    the owner's ``with Stack`` (or ``finally: stop()``) stops every child on the way out,
    rather than the process dying at once and leaving them running under init."""


_running: set[int] = set()  # ids of the stacks started and not yet stopped
WATCHED_SIGNALS = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}
_previous_handlers: dict[int, object] = {}


def _on_signal(signum: int, frame: object) -> None:
    if _running:
        raise Terminated(f"signal {signum}")


def _watch_signals(stack_id: int) -> None:
    """While a stack runs in the main thread: SIGTERM and SIGHUP end the owner as SIGINT does (Python
    raises KeyboardInterrupt for SIGINT already; the children, in sessions of their own,
    do not get a terminal's Ctrl-C). SIGINT is caught too where the owner started with it
    ignored, as a shell's background job does (Python then leaves it ignored). An owner's
    own handlers are left alone."""
    if threading.current_thread() is not threading.main_thread():
        return
    if not _running:
        watched = (
            (signal.SIGTERM, (signal.SIG_DFL, None)),
            (signal.SIGHUP, (signal.SIG_DFL, None)),  # the terminal closed (make play's window)
            (signal.SIGINT, (signal.SIG_IGN,)),
        )
        for signum, unhandled in watched:
            if signal.getsignal(signum) in unhandled:
                _previous_handlers[signum] = signal.signal(signum, _on_signal)
    _running.add(stack_id)


def _unwatch_signals(stack_id: int) -> None:
    _running.discard(stack_id)
    if not _running and threading.current_thread() is threading.main_thread():
        for signum, handler in _previous_handlers.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        _previous_handlers.clear()


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log_path: Path
    address: str = ""


@dataclass
class Stack:
    redis_url: str = field(default_factory=lambda: settings.text("REDIS_URL"))
    # Celery's broker (TAVOLA_BROKER_URL); empty: REDIS_URL, which must then be a single Redis.
    broker_url: str = field(default_factory=lambda: settings.text("TAVOLA_BROKER_URL"))
    gateways: int = 1
    rules_replicas: int = 1
    games: tuple[str, ...] = field(default_factory=game_ids)
    # Bots the gateway accepts (TAVOLA_BOTS; empty: every registered bot), and those the
    # worker plays (its queues bots.<name>): by default every bot of the tavola.bots registry.
    bots: tuple[str, ...] = ()
    worker_bots: tuple[str, ...] = field(default_factory=lambda: tuple(load_bots()))
    key_prefix: str = defaults.KEY_PREFIX
    table_ttl_seconds: int = 7 * 24 * 3600
    worker_concurrency: int = 8
    with_worker: bool = True
    log_dir: Path | None = None
    gateway_port: int = 0
    # The first gateway's web port (the browser protocol, gateway/web.py); 0: a free one.
    web_port: int = 0
    # Rules services that run elsewhere (game -> host:port), routed to beside the local ones.
    external_rules: dict[str, str] = field(default_factory=dict)
    # Further environment for the gateway (e.g. TAVOLA_SWEEP_SECONDS, or NO_QUOTAS).
    gateway_env: dict[str, str] = field(default_factory=dict)
    # The archive of finished tables (gateway/archive.py): with ``archive``, the gateways use
    # the PostgreSQL at ``database_url`` (TAVOLA_DATABASE_URL) as it is when it answers, else
    # the database "tavola" (made if missing) on the local server if one answers, else on a
    # private one (deploy/postgres_local.py).
    archive: bool = False
    database_url: str = field(default_factory=lambda: settings.text("TAVOLA_DATABASE_URL"))
    postgres: PostgresHandle | None = None
    # The platform's secret for this run only (bot keys and timer credentials derive from it).
    bot_secret: str = field(default_factory=lambda: secrets.token_hex(32))
    processes: list[Process] = field(default_factory=list)
    redis: RedisHandle | None = None
    # One address for every gateway (a gRPC target list when there are several).
    gateway_address: str = ""
    gateway_addresses: list[str] = field(default_factory=list)
    # Each gateway's web port (http://host:port: Connect and gRPC-Web, and the web client).
    web_addresses: list[str] = field(default_factory=list)
    # The gateways' internal port (TimerService), for the timer workers only.
    timer_address: str = ""
    # The first gateway's metrics; every process's in metrics_addresses (name -> host:port).
    metrics_address: str = ""
    metrics_addresses: dict[str, str] = field(default_factory=dict)
    rules_addresses: dict[str, str] = field(default_factory=dict)
    _tmp: tempfile.TemporaryDirectory | None = None

    def __enter__(self) -> "Stack":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        generated.check()  # before any process starts, each of which would refuse alike
        _watch_signals(id(self))
        self._tmp = tempfile.TemporaryDirectory(prefix="tavola-stack-")
        if self.log_dir is None:
            self.log_dir = Path(self._tmp.name)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        try:
            self.redis = ensure_redis(self.redis_url)
            self.redis_url = self.redis.url
            if not self.broker_url and is_cluster(self.redis_url):
                raise ValueError("a Redis Cluster needs a plain Redis as Celery's broker: set broker_url")
            archive_env = {}
            if self.archive:
                self.postgres = ensure_postgres(self.database_url)
                if self.postgres.url != self.database_url:  # none given, or it did not answer
                    self.database_url = ensure_database(self.postgres.url, "tavola")
                archive_env["TAVOLA_DATABASE_URL"] = self.database_url
            for game in self.games:
                replicas = [
                    self._spawn_server(name, ["-m", "services.rules_server", game], 0)
                    for name in self._names(f"rules-{game}", self.rules_replicas)
                ]
                self.rules_addresses[game] = balanced([process.address for process in replicas])
            routes = {**self.external_rules, **self.rules_addresses}
            rules = ",".join(f"{game}={address}" for game, address in routes.items())
            timers = []
            for index, name in enumerate(self._names("gateway", self.gateways)):
                timer_port_file = self.log_dir / f"{name}-timers.port"
                timer_port_file.unlink(missing_ok=True)
                web_port_file = self.log_dir / f"{name}-web.port"
                web_port_file.unlink(missing_ok=True)
                gateway = self._spawn_server(
                    name,
                    ["-m", "gateway"],
                    self.gateway_port if index == 0 else 0,
                    TAVOLA_RULES=rules,
                    TAVOLA_TIMER_PORT="0",
                    TAVOLA_TIMER_PORT_FILE=str(timer_port_file),
                    TAVOLA_WEB_PORT=str(self.web_port if index == 0 else 0),
                    TAVOLA_WEB_PORT_FILE=str(web_port_file),
                    **({"TAVOLA_BOTS": ",".join(self.bots)} if self.bots else {}),
                    **archive_env,
                    **self.gateway_env,
                )
                self.gateway_addresses.append(gateway.address)
                timers.append(f"127.0.0.1:{timer_port_file.read_text().strip()}")
                self.web_addresses.append(f"127.0.0.1:{web_port_file.read_text().strip()}")
            self.gateway_address = balanced(self.gateway_addresses)
            self.timer_address = balanced(timers)
            self.metrics_address = self.metrics_addresses[self._names("gateway", self.gateways)[0]]
            if self.with_worker:
                self._spawn_workers()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        # A second SIGTERM while stopping must not cut the stopping short.
        _running.discard(id(self))
        terminate(*(process.popen for process in reversed(self.processes)), timeout=15)
        self.processes.clear()
        if self.redis is not None:
            self.redis.stop()
            self.redis = None
        if self.postgres is not None:
            self.postgres.stop()
            self.postgres = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
        _unwatch_signals(id(self))

    def delete_keys(self) -> int:
        """Deletes every Redis key under this stack's prefix (tables, logs, bot queues)."""
        deleted = 0
        for url in dict.fromkeys([self.redis_url, self.broker_url or self.redis_url]):
            client = connect(url)
            try:
                keys = list(client.scan_iter(match=f"{self.key_prefix}:*", count=1000))
                for key in keys:  # one by one: on a cluster the keys live on different nodes
                    client.delete(key)
                deleted += len(keys)
            finally:
                client.close()
        return deleted

    def exited(self) -> list[Process]:
        """The stack's processes that have exited (their code in ``popen.returncode``)."""
        return [process for process in self.processes if process.popen.poll() is not None]

    def describe(self) -> list[str]:
        lines = [f"redis: {self.redis.description if self.redis else self.redis_url}"]
        if self.postgres is not None:
            lines.append(f"archive: {self.postgres.description}, database {self.database_url}")
        lines += [f"{p.name}: pid {p.popen.pid}{' at ' + p.address if p.address else ''}" for p in self.processes]
        if self.broker_url:
            lines.append(f"celery broker: {self.broker_url}")
        lines += [f"{name} metrics: http://{address}/metrics" for name, address in self.metrics_addresses.items()]
        return lines

    @staticmethod
    def _names(base: str, count: int) -> list[str]:
        return [base] if count == 1 else [f"{base}-{index}" for index in range(count)]

    # -- processes -------------------------------------------------------------------

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        # Only a prefork worker's own directory (_spawn_worker): one shared by other processes
        # would add their counts to its and turn their own metrics to files.
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        env.update(
            REDIS_URL=self.redis_url,
            TAVOLA_METRICS_PORT="0",
            TAVOLA_KEY_PREFIX=self.key_prefix,
            TAVOLA_TABLE_TTL_SECONDS=str(self.table_ttl_seconds),
            TAVOLA_HOST="127.0.0.1",
            TAVOLA_BOT_SECRET=self.bot_secret,
            PYTHONUNBUFFERED="1",
        )
        if self.broker_url:
            env["TAVOLA_BROKER_URL"] = self.broker_url
        env.update(extra)
        return env

    def _launch(self, name: str, argv: list[str], env: dict[str, str]) -> Process:
        assert self.log_dir is not None
        log_path = self.log_dir / f"{name}.log"
        metrics_file = self.log_dir / f"{name}.metrics-port"
        metrics_file.unlink(missing_ok=True)
        env = {"TAVOLA_METRICS_PORT_FILE": str(metrics_file), **env}
        with open(log_path, "ab") as log_file:
            popen = subprocess.Popen(
                [sys.executable, *argv],
                cwd=ROOT,
                env=env,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in the terminal reaches us, not them directly
            )
        process = Process(name, popen, log_path)
        self.processes.append(process)
        return process

    def _spawn_server(self, name: str, argv: list[str], port: int, **extra: str) -> Process:
        assert self.log_dir is not None
        port_file = self.log_dir / f"{name}.port"
        port_file.unlink(missing_ok=True)
        process = self._launch(name, argv, self.env(TAVOLA_PORT=str(port), TAVOLA_PORT_FILE=str(port_file), **extra))
        deadline = time.monotonic() + 30
        while not port_file.exists():
            self._check_alive(process)
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start; see {process.log_path}")
            time.sleep(0.05)
        process.address = f"127.0.0.1:{port_file.read_text().strip()}"
        wait_healthy(process.address)
        self._note_metrics(process)
        return process

    def _note_metrics(self, process: Process) -> None:
        """Records where ``process`` serves its metrics (written as it starts)."""
        assert self.log_dir is not None
        metrics_file = self.log_dir / f"{process.name}.metrics-port"
        deadline = time.monotonic() + 30
        while not metrics_file.exists():
            self._check_alive(process)
            if time.monotonic() > deadline:
                raise RuntimeError(f"{process.name} serves no metrics; see {process.log_path}")
            time.sleep(0.05)
        self.metrics_addresses[process.name] = f"127.0.0.1:{metrics_file.read_text().strip()}"

    def _spawn_workers(self) -> None:
        """A threads pool for the bots that wait on the gateway more than they compute (and
        the timers), a prefork pool of one process per core for the search bots (those with
        a thinking budget, deploy/workers.py), which are CPU-bound."""
        light, search = split_bots(self.worker_bots)
        if light or not search:
            self._spawn_worker("bot-worker", light, "threads", self.worker_concurrency, timers=True)
        if search:
            self._spawn_worker("bot-worker-search", search, "prefork", os.cpu_count() or 1, timers=not light)

    def _spawn_worker(
        self, name: str, bots: list[str], pool: str, concurrency: int, timers: bool, **extra: str
    ) -> Process:
        """A Celery worker of ``bots`` (all of them when empty, none for ``["none"]``) with the
        timers or not, ``extra`` added to its environment; returned once it consumes its queues."""
        argv = [
            "-m",
            "bots.worker",
            "--pool",
            pool,
            "--concurrency",
            str(concurrency),
            "--hostname",
            f"{name}-{os.getpid()}-{time.monotonic_ns()}@%h",
            "--loglevel",
            "WARNING",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        assert self.log_dir is not None and self._tmp is not None
        ready_file = self.log_dir / f"{name}.ready"
        ready_file.unlink(missing_ok=True)
        # A prefork pool's children count their tasks and decisions in files of this
        # worker's own directory, which its metrics endpoint sums (bots/worker/metrics.py).
        forked = {}
        if pool == "prefork":
            forked["PROMETHEUS_MULTIPROC_DIR"] = str(Path(self._tmp.name) / f"{name}.metrics")
        process = self._launch(
            name,
            argv,
            self.env(
                TAVOLA_GATEWAY=self.gateway_address,
                TAVOLA_TIMER_GATEWAY=self.timer_address,
                TAVOLA_READY_FILE=str(ready_file),
                TAVOLA_WORKER_BOTS=",".join(bots),
                TAVOLA_WORKER_TIMERS=str(timers).lower(),
                **forked,
                **extra,
            ),
        )
        deadline = time.monotonic() + 60
        while not ready_file.exists():
            self._check_alive(process)
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start; see {process.log_path}")
            time.sleep(0.05)
        self._note_metrics(process)
        return process

    @staticmethod
    def _check_alive(process: Process) -> None:
        if process.popen.poll() is not None:
            tail = process.log_path.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{process.name} exited with {process.popen.returncode}:\n{tail}")


def balanced(addresses: list[str]) -> str:
    """One gRPC target for several servers on this machine; channels opened with the
    round_robin policy spread calls over them, and any channel skips one that is down."""
    if len(addresses) == 1:
        return addresses[0]
    return "ipv4:" + ",".join(addresses)


@contextlib.contextmanager
def _signals_left_to_the_main_thread() -> Iterator[None]:
    """Threads gRPC starts meanwhile (its first channel in a process starts its own) start
    with the stack's signals blocked, so the kernel delivers those to the main thread, which
    runs the handler at once. A signal delivered to one of gRPC's threads only marks it for
    the main thread's next bytecode, which an owner asleep in time.sleep() puts off for as
    long as it sleeps: its stack was left running."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, WATCHED_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def wait_healthy(address: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    with _signals_left_to_the_main_thread(), grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                # The stubs declare HealthStub's methods nowhere; __init__ sets them at run time.
                reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=1)  # type: ignore[attr-defined]
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{address} is not healthy")
            time.sleep(0.05)

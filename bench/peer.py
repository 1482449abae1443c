"""A peer in the bench: tavola's SubmitAction beside boardgame.io's moves, slice by slice.

boardgame.io (pinned in bench/peers/boardgameio/package-lock.json, installed by ``make
bench`` with ``npm ci``) is an open-source server for turn-based games: its own Server
(Koa, its lobby API and its socket.io transport), storage in memory, playing a 3-player
liar's-dice game (bench/peers/boardgameio/game.js): each player's dice hidden by the
game's playerView, moves bid and call, as tavola's Borgia seats bid, call and reveal.

Its driver (driver.js) is a Node process of socket.io clients speaking boardgame.io's own
protocol, as its browser client does: the ordinary client of that server, and as light
as tavola's bench clients (grpc.aio on grpc's C core; a Python socket.io client would be
the slower side and would weigh the peer's figures down). Both sides run as many
clients, each acting as soon as its last move is answered, on tables (matches) made
before the clock; only the move is timed. tavola's client asks GetView before each
SubmitAction; boardgame.io sends every seat of the match its new view after each move,
unasked: each side's server does what it takes to give the next player their view.

The two play in turn, tavola first, PAIRS pairs of slices at each client count; the load
average is printed at each slice's start. Server CPU per move: tavola's gateway, Borgia
rules service and Redis; boardgame.io's one Node process (psutil, over the slice). The
clients' CPU per move is printed too. Bounded in time and count, 127.0.0.1 only; the
server and the drivers are ended by pid. Without node or the npm packages it says so and
the part is skipped.
"""

import asyncio
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.gateway import Figures, combined, submit_action
from bench.report import Report
from bench.tables import CpuMeter, stack_pids
from deploy.processes import terminate
from deploy.stack import Stack

PEER_DIR = Path(__file__).resolve().parent / "peers" / "boardgameio"
PAIRS = 3
CLIENTS = (16, 64)
LIMIT = 20_000  # moves a client in a slice, as tavola's SubmitAction part
TAVOLA_SERVERS = ("gateway", "rules-borgia", "redis")
# The driver's setup (matches made, seats synced) and its answer after the window.
DRIVER_TIMEOUT = 120.0


def missing() -> str | None:
    """Why the peer cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not installed: the peer (boardgame.io) is skipped"
    if not (PEER_DIR / "node_modules" / "boardgame.io").is_dir():
        return "the peer's npm packages are not installed (make bench runs npm ci in bench/peers/boardgameio): skipped"
    return None


def version() -> str:
    manifest = PEER_DIR / "node_modules" / "boardgame.io" / "package.json"
    return json.loads(manifest.read_text())["version"]


def _node_env() -> dict[str, str]:
    # Production mode: boardgame.io and Koa skip their development logging.
    return {**os.environ, "NODE_ENV": "production"}


class PeerServer:
    """boardgame.io's server (server.js) as a process of its own, in a session of its own
    as tavola's servers are (CPU is shared between sessions first: autogroup)."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.process: subprocess.Popen | None = None
        self.port = 0

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def __enter__(self) -> "PeerServer":
        self.workdir.mkdir(parents=True, exist_ok=True)
        port_file = self.workdir / "peer-boardgameio.port"
        port_file.unlink(missing_ok=True)
        log = (self.workdir / "peer-boardgameio.log").open("ab")
        self.process = subprocess.Popen(
            ["node", "server.js", str(port_file)],
            cwd=PEER_DIR,
            env=_node_env(),
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + 30
        while not port_file.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                terminate(self.process)
                raise RuntimeError(f"the peer server did not start (see {log.name})")
            time.sleep(0.05)
        self.port = int(port_file.read_text())
        return self

    def __exit__(self, *exc) -> None:
        if self.process is not None:
            terminate(self.process)


@dataclass
class PeerSlice:
    figures: Figures
    finished: int  # matches played to their end in the window
    error_count: int = 0
    errors: list[str] = field(default_factory=list)  # the first few


async def drive(server: PeerServer, clients: int, seconds: float, limit: int = LIMIT) -> PeerSlice:
    """One slice of the peer: ``clients`` clients for ``seconds``, the server's CPU ("server")
    and the driver's ("client") over the timed window."""
    process = await asyncio.create_subprocess_exec(
        "node",
        "driver.js",
        f"--port={server.port}",
        f"--clients={clients}",
        f"--seconds={seconds}",
        f"--limit={limit}",
        cwd=PEER_DIR,
        env=_node_env(),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=1 << 26,  # the figures' line holds every move's latency
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        ready = json.loads(await asyncio.wait_for(process.stdout.readline(), DRIVER_TIMEOUT) or b"null")
        if not ready:
            raise RuntimeError("the peer's driver ended before its clients were ready")
        meter = CpuMeter({"server": server.pid, "client": process.pid})
        process.stdin.write(b"go\n")
        await process.stdin.drain()
        answer = await asyncio.wait_for(process.stdout.readline(), seconds + DRIVER_TIMEOUT)
        cpu = meter.used()
        await asyncio.wait_for(process.wait(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    if not answer:
        raise RuntimeError(f"the peer's driver ended without figures (exit status {process.returncode})")
    result = json.loads(answer)
    latencies = [value / 1000 for value in result["latencies_ms"]]
    figures = Figures(clients, result["moves"], result["seconds"], result["p50_ms"], result["p99_ms"], latencies, cpu)
    return PeerSlice(figures, result["finished"], result["error_count"], result["errors"])


def _load_now() -> str:
    """The last minute's load average: what ran beside a slice as it began."""
    return f"{os.getloadavg()[0]:.1f}"


def peer(
    report: Report, slice_seconds: float, stack: Stack, workdir: Path, clients_counts: tuple[int, ...] = CLIENTS
) -> None:
    """The part: at each client count, PAIRS pairs of slices (tavola's, then the peer's),
    and each side's moves/s, latency, and server and client CPU per move beside the other's."""
    report.section(
        f"a peer: tavola's SubmitAction (borgia, 3 players, a GetView before each) beside boardgame.io's moves "
        f"(liar's dice, 3 players, its view sent to every seat), {PAIRS} pairs of {slice_seconds:.1f} s slices "
        f"in turn; ratio tavola/boardgame.io:"
    )
    reason = missing()
    if reason:
        report.note("peer.skipped", reason, reason=reason)
        return
    tavola_pids = {name: pid for name, pid in stack_pids(stack).items() if name in TAVOLA_SERVERS}
    with PeerServer(workdir) as server:
        for clients in clients_counts:
            tavola_slices, peer_slices, loads = [], [], []
            for _ in range(PAIRS):
                loads.append(f"tavola {_load_now()}")
                tavola_slices.append(
                    asyncio.run(
                        submit_action(stack.gateway_address, "borgia", 3, clients, slice_seconds, LIMIT, tavola_pids)
                    )
                )
                loads.append(f"boardgame.io {_load_now()}")
                peer_slices.append(asyncio.run(drive(server, clients, slice_seconds)))
            report_pairs(report, clients, tavola_slices, peer_slices, loads)
    report.note("peer.version", f"boardgame.io {version()}, node {_node_version()}", version=version())


def report_pairs(
    report: Report, clients: int, tavola_slices: list[Figures], peer_slices: list[PeerSlice], loads: list[str]
) -> None:
    tavola, other = combined(tavola_slices), combined([part.figures for part in peer_slices])
    key = f"peer.{clients}"
    report.row(f"{key}.per_second", f"{clients:3d} clients: moves/s", tavola.per_second, "/s", other.per_second, "bgio")
    report.row(f"{key}.p50_ms", f"{clients:3d} clients: move p50", tavola.p50_ms, "ms", other.p50_ms, "bgio")
    report.row(f"{key}.p99_ms", f"{clients:3d} clients: move p99", tavola.p99_ms, "ms", other.p99_ms, "bgio")
    tavola_server = sum(tavola.cpu.get(name, 0.0) for name in TAVOLA_SERVERS)
    report.row(
        f"{key}.server_cpu_ms",
        f"{clients:3d} clients: server CPU per move",
        tavola_server * 1000 / max(1, tavola.submits),
        "ms",
        other.cpu["server"] * 1000 / max(1, other.submits),
        "bgio server",
    )
    report.row(
        f"{key}.client_cpu_ms",
        f"{clients:3d} clients: clients' CPU per move",
        tavola.cpu.get("client", 0.0) * 1000 / max(1, tavola.submits),
        "ms",
        other.cpu["client"] * 1000 / max(1, other.submits),
        "bgio driver",
    )
    errors = [error for part in peer_slices for error in part.errors]
    error_count = sum(part.error_count for part in peer_slices)
    report.note(
        f"{key}.slices",
        f"    {clients:3d} clients: load average at each slice's start: {', '.join(loads)}; boardgame.io matches "
        f"finished {sum(part.finished for part in peer_slices)}, errors {error_count}"
        + (f" (first: {errors[0]})" if errors else ""),
        loads=loads,
        tavola_moves=tavola.submits,
        peer_moves=other.submits,
        peer_errors=error_count,
    )


def _node_version() -> str:
    return subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()

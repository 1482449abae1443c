"""Unread browser-protocol streams hold a bounded amount of the gateway's memory: 200
Connect server streams (SpectateTable from the start of a long table, on raw sockets that
never read a byte) while the table goes on, then closed, twice. The gateway's resident
memory is measured at the start, throughout and after they close: each within 50 MB of the
start (the same streams took 160 MB, and kept 135 MB after they closed, when a stream
behind the table's shared buffer read its backlog 500 entries at a time), and the second
200 take no more than the first left. And a stream whose client takes nothing ends, after
the write timeout, with DEADLINE_EXCEEDED (CLIENT_NOT_READING).

A stack of its own, so that no other test's traffic moves the gateway's memory."""

import asyncio
import random
import socket
import struct
import time
import urllib.request
from collections.abc import Iterator

import grpc
import psutil
import pytest

from common import auth
from common.errors import ApiError
from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc
from tavola.gateway.v1.gateway_connect import GatewayServiceClientSync

pytestmark = pytest.mark.integration

STREAMS = 200
BOUND_MB = 50
BACKLOG_MOVES = 400  # about 1,200 log entries: well past the shared buffer (512)
LIVE_MOVES = 100


@pytest.fixture(scope="module")
def stack(redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[Stack]:
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-webmemory",
        games=("pecunia",),
        bots=("random",),
        # Every stream held however slow the machine: the bound is measured with all 200 open.
        gateway_env={**NO_QUOTAS, "TAVOLA_WEB_WRITE_TIMEOUT_SECONDS": "600"},
        log_dir=tmp_path_factory.mktemp("web-memory"),
    ) as running:
        yield running
        running.delete_keys()


class LongTable:
    """A two-seat Pecunia table to 500 sesterces, both seats played by the test at random."""

    def __init__(self, gateway: gateway_pb2_grpc.GatewayServiceStub):
        self.gateway = gateway
        created = gateway.CreateTable(
            gw.CreateTableRequest(game_id="pecunia", player_count=2, options={"target": "500"})
        )
        self.table_id = created.table.table_id
        self.tokens = [
            gateway.TakeSeat(gw.TakeSeatRequest(table_id=self.table_id, seat=seat)).seat_token for seat in range(2)
        ]
        gateway.StartTable(gw.StartTableRequest(table_id=self.table_id), metadata=auth.metadata(created.host_token))
        self.rng = random.Random(5)
        self.moves = 0

    def play(self, moves: int, each=lambda: None) -> None:
        for _ in range(moves):
            table = self.gateway.GetTable(gw.GetTableRequest(table_id=self.table_id)).table
            assert table.status == gw.TABLE_STATUS_IN_PROGRESS, "the long table ended"
            seat = self.rng.choice(list(table.deciding_seats))
            view = self.gateway.GetView(
                gw.GetViewRequest(table_id=self.table_id), metadata=auth.metadata(self.tokens[seat])
            )
            choice = self.rng.choice(list(view.legal_actions))
            request = gw.SubmitActionRequest(
                table_id=self.table_id,
                action=choice.action,
                expected_version=view.table.version,
                request_id=f"m{self.moves}",
            )
            self.gateway.SubmitAction(request, metadata=auth.metadata(self.tokens[seat]))
            self.moves += 1
            each()


def spectate_request(address: str, table_id: str) -> bytes:
    """A Connect server-stream request (application/connect+proto: one enveloped message)."""
    body = gw.SpectateTableRequest(table_id=table_id).SerializeToString()
    head = (
        f"POST /tavola.gateway.v1.GatewayService/SpectateTable HTTP/1.1\r\nhost: {address}\r\n"
        "content-type: application/connect+proto\r\nconnect-protocol-version: 1\r\n"
        f"content-length: {5 + len(body)}\r\n\r\n"
    )
    return head.encode() + struct.pack(">BI", 0, len(body)) + body


def open_streams(stack: Stack) -> float:
    with urllib.request.urlopen(f"http://{stack.metrics_address}/metrics", timeout=10) as reply:
        for line in reply.read().decode().splitlines():
            if line.startswith("tavola_gateway_open_streams "):
                return float(line.split()[1])
    raise AssertionError("no open-streams gauge")


def wait_for(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def unread_streams(stack: Stack, table: LongTable, rss_mb) -> tuple[float, float]:
    """STREAMS unread streams from the table's start while it goes on, then closed: the
    gateway's largest resident memory while they were open, and its memory after."""
    host, port = stack.web_addresses[0].split(":")
    unread = []
    try:
        for _ in range(STREAMS):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)  # taken before connect
            sock.connect((host, int(port)))
            sock.sendall(spectate_request(stack.web_addresses[0], table.table_id))
            unread.append(sock)
        wait_for(lambda: open_streams(stack) == STREAMS, 60, "every stream to open")
        samples = [rss_mb()]
        table.play(LIVE_MOVES, each=lambda: samples.append(rss_mb()) if table.moves % 10 == 0 else None)
        samples.append(rss_mb())
        assert open_streams(stack) == STREAMS  # every one held throughout (the write timeout is long here)
    finally:
        for sock in unread:
            sock.close()
    wait_for(lambda: open_streams(stack) == 0, 60, "the closed streams to end")
    time.sleep(2)
    return max(samples), rss_mb()


@pytest.mark.slow
def test_unread_connect_streams_hold_a_bounded_memory_returned_when_they_close(stack: Stack):
    gateway_process = psutil.Process(next(p.popen.pid for p in stack.processes if p.name == "gateway"))

    def rss_mb() -> float:
        return gateway_process.memory_info().rss / 2**20

    with grpc.insecure_channel(stack.gateway_address) as channel:
        table = LongTable(gateway_pb2_grpc.GatewayServiceStub(channel))
        table.play(BACKLOG_MOVES)
        # One stream read whole first, so that the start is the gateway's as it serves them.
        with GatewayServiceClientSync(f"http://{stack.web_addresses[0]}", timeout_ms=60_000) as web:
            for read, _ in enumerate(web.spectate_table(gw.SpectateTableRequest(table_id=table.table_id)), 1):
                if read == 100:
                    break
        wait_for(lambda: open_streams(stack) == 0, 30, "the read stream to close")
        start = rss_mb()
        during, after = unread_streams(stack, table, rss_mb)
        # As many again: what the first ones held was given back for these to use.
        again_during, again_after = unread_streams(stack, table, rss_mb)

    print(
        f"gateway RSS: start {start:.1f} MB, during (max) {during:.1f} MB, after close {after:.1f} MB; "
        f"200 more: during (max) {again_during:.1f} MB, after close {again_after:.1f} MB"
    )
    for measured in (during, after, again_during, again_after):
        assert measured - start < BOUND_MB, (start, during, after, again_during, again_after)
    assert again_after - after < BOUND_MB / 5, (after, again_after)


class EndlessSpectator:
    """A GatewayService whose SpectateTable writes without end (every other method is
    unimplemented), keeping what its writes were refused with."""

    def __init__(self) -> None:
        self.refused: list[ApiError] = []
        self.ended = asyncio.Event()

    async def SpectateTable(self, request, context) -> None:
        try:
            while True:
                await context.write(
                    gw.SpectateTableResponse(event=gw.TableEvent(seq=1, text="x" * 4000)).SerializeToString()
                )
        except ApiError as error:
            self.refused.append(error)
            raise
        finally:
            self.ended.set()

    def __getattr__(self, name: str):
        async def unimplemented(request, context) -> None:
            raise ApiError(grpc.StatusCode.UNIMPLEMENTED, "UNIMPLEMENTED", name)

        return unimplemented


def test_a_stream_whose_client_takes_nothing_ends_with_client_not_reading():
    """On the web application and uvicorn as the gateway runs them, write timeout 0.5 s, a
    stream through the gRPC server's own stream handler (``stream_rpc``): once the socket
    buffers are full and the client has taken nothing for the timeout, the handler's write
    is refused with DEADLINE_EXCEEDED, reason CLIENT_NOT_READING, and the stream ends with
    that status (counted under it)."""
    from prometheus_client import REGISTRY

    from gateway.limits import RequestLimits
    from gateway.web import WebServer, WebSettings, build_app

    def counted() -> float:
        labels = {"method": "SpectateTable", "code": "DEADLINE_EXCEEDED", "protocol": "connect"}
        return REGISTRY.get_sample_value("tavola_gateway_requests_total", labels) or 0.0

    async def run() -> list[ApiError]:
        servicer = EndlessSpectator()
        app = build_app({"GatewayService": servicer}, RequestLimits(), write_timeout=0.5)
        server = WebServer(app, WebSettings("127.0.0.1", 0, None, (), None, None, write_timeout=0.5))
        port = await server.start()
        try:
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
            sock.send(spectate_request(f"127.0.0.1:{port}", "0" * 16))  # a table id by its shape
            await asyncio.wait_for(servicer.ended.wait(), 60)
            sock.close()
            return servicer.refused
        finally:
            await server.stop()

    before = counted()
    refused = asyncio.run(run())
    assert [(error.code, error.reason) for error in refused] == [
        (grpc.StatusCode.DEADLINE_EXCEEDED, "CLIENT_NOT_READING")
    ]
    assert counted() == before + 1

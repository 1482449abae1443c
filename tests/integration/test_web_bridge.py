"""The browser protocol on the gateway's web port (gateway/web.py): GatewayService over the
Connect protocol and gRPC-Web, through the gRPC server's own handlers: the same answers,
tokens, ErrorInfo reasons, limits; both streams live and resumable; and bad input (too
large, malformed, wrong content type, unknown method, another site's page, a client that
never reads) answered clearly, holding nothing, slowing nothing else."""

import asyncio
import base64
import http.client
import json
import socket
import struct
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import closing

import grpc
import psutil
import pytest
from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_json_codec
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.rpc import error_details_pb2

from common import auth
from common.errors import details_of
from gateway.limits import DEFAULT_BYTES
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import players_pb2_grpc
from tavola.gateway.v1.gateway_connect import GatewayServiceClientSync
from tavola.gateway.v1.players_connect import PlayerServiceClientSync
from tests.integration.conftest import HumanTable

SERVICE = "/tavola.gateway.v1.GatewayService"
PROTOCOLS = {"connect": ProtocolType.CONNECT, "grpc-web": ProtocolType.GRPC_WEB}
# Set for the suite's stack (conftest.py): the one other site allowed to call.
ALLOWED_ORIGIN = "https://tables.example"


def client(stack, protocol: str = "connect", codec: Codec | None = None) -> GatewayServiceClientSync:
    kwargs = {"codec": codec} if codec is not None else {}
    return GatewayServiceClientSync(
        f"http://{stack.web_addresses[0]}",
        protocol=PROTOCOLS[protocol],
        send_compression=None,
        accept_compression=(),
        timeout_ms=30_000,
        **kwargs,
    )


@pytest.fixture(scope="module", params=sorted(PROTOCOLS))
def web(stack, request) -> Iterator[GatewayServiceClientSync]:
    with client(stack, request.param) as opened:
        yield opened


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def connect_status(error: ConnectError) -> tuple[str, str]:
    """(code, ErrorInfo reason) of a browser-protocol call's error."""
    for detail in error.details:
        if detail.type_name == "google.rpc.ErrorInfo":
            return error.code.name, error_details_pb2.ErrorInfo.FromString(detail.message_bytes).reason
    return error.code.name, ""


def grpc_status(error: grpc.RpcError) -> tuple[str, str]:
    return error.code().name.replace("CANCELLED", "CANCELED"), details_of(error)[0].reason


def post(stack, path: str, body: bytes, headers: dict[str, str], method: str = "POST") -> tuple[int, dict, bytes]:
    host, port = stack.web_addresses[0].split(":")
    with closing(http.client.HTTPConnection(host, int(port), timeout=30)) as connection:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()


def open_streams(stack) -> float:
    with urllib.request.urlopen(f"http://{stack.metrics_address}/metrics", timeout=10) as reply:
        for line in reply.read().decode().splitlines():
            if line.startswith("tavola_gateway_open_streams "):
                return float(line.split()[1])
    raise AssertionError("no open-streams gauge")


def gateway_process(stack) -> psutil.Process:
    return psutil.Process(next(p.popen.pid for p in stack.processes if p.name == "gateway"))


# -- the same calls, the same answers ----------------------------------------------------


def test_each_protocol_counts_under_its_own_label(stack, gateway):
    """The metrics name how a call came: "grpc" on the gRPC port, "connect" or "grpc-web"
    on the web port, for the same method and code."""
    from tests.integration.test_metrics import scrape, total

    def counts() -> dict[tuple[str, str, str], float]:
        samples = scrape(stack.metrics_address)
        return {
            (method, code, protocol): total(
                samples, "tavola_gateway_requests_total", method=method, code=code, protocol=protocol
            )
            for method, code in (("ListGames", "OK"), ("GetTable", "NOT_FOUND"))
            for protocol in ("grpc", *PROTOCOLS)
        }

    before = counts()
    gateway.ListGames(gw.ListGamesRequest())
    for protocol in PROTOCOLS:
        with client(stack, protocol) as web:
            for _ in range(2):
                web.list_games(gw.ListGamesRequest())
            for _ in range(3):
                with pytest.raises(ConnectError):
                    web.get_table(gw.GetTableRequest(table_id="0123456789abcdef"))
    after = counts()
    moved = {key: after[key] - before[key] for key in after}
    assert moved[("ListGames", "OK", "grpc")] >= 1  # the suite's other tests may call too
    for protocol in PROTOCOLS:
        assert moved[("ListGames", "OK", protocol)] >= 2, moved
        assert moved[("GetTable", "NOT_FOUND", protocol)] >= 3, moved
    latency = scrape(stack.metrics_address)["tavola_gateway_request_seconds_count"]
    protocols = {dict(key).get("protocol") for key in latency if dict(key).get("method") == "ListGames"}
    assert {"grpc", "connect", "grpc-web"} <= protocols


def test_unary_calls_answer_as_over_grpc(web, gateway):
    assert web.list_games(gw.ListGamesRequest()) == gateway.ListGames(gw.ListGamesRequest())
    created = web.create_table(gw.CreateTableRequest(game_id="borgia", player_count=2, seed=5, replay_mode=True))
    table_id = created.table.table_id
    seat = web.take_seat(gw.TakeSeatRequest(table_id=table_id, display_name="<img src=x onerror=alert(1)>"))
    web.take_seat(gw.TakeSeatRequest(table_id=table_id, display_name="b"))
    web.start_table(gw.StartTableRequest(table_id=table_id), headers=bearer(created.host_token))
    view = web.get_view(gw.GetViewRequest(table_id=table_id), headers=bearer(seat.seat_token))
    assert view == gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(seat.seat_token))
    table = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
    assert table.seats[seat.seat].display_name == "<img src=x onerror=alert(1)>"  # kept as text, as sent


def test_player_service_too(stack, channel):
    """PlayerService is on the web port as on the gRPC port: a player made in the browser
    is the same player over gRPC, and its token works on both."""
    with PlayerServiceClientSync(f"http://{stack.web_addresses[0]}", send_compression=None) as players:
        created = players.create_player(pl.CreatePlayerRequest(display_name="webby"))
        mine = players.list_my_tables(pl.ListMyTablesRequest(), headers=bearer(created.player_token))
    native = players_pb2_grpc.PlayerServiceStub(channel)
    assert native.GetPlayer(pl.GetPlayerRequest(player_id=created.player.player_id)).player == created.player
    assert native.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(created.player_token)) == mine


def test_json_requests_and_replies(stack, gateway):
    """A page may speak JSON (protobuf's JSON mapping), the games' views in Any fields too."""
    table = HumanTable(gateway, 2)
    table.start()
    with client(stack, codec=google_protobuf_json_codec()) as json_client:
        view = json_client.get_view(gw.GetViewRequest(table_id=table.table_id), headers=bearer(table.tokens[0]))
        events: list[gw.WatchTableResponse] = []
        watch = json_client.watch_table(gw.WatchTableRequest(table_id=table.table_id), headers=bearer(table.tokens[0]))
        _collect(watch, events, 3)
    assert view == table.view(0)
    native = gateway.WatchTable(gw.WatchTableRequest(table_id=table.table_id), metadata=auth.metadata(table.tokens[0]))
    assert events == [next(native) for _ in range(3)]  # a seat's own secrets in Any, too
    native.cancel()
    status, headers, body = post(
        stack,
        f"{SERVICE}/GetTable",
        json.dumps({"tableId": table.table_id}).encode(),
        {"content-type": "application/json"},
    )
    assert status == 200 and headers["content-type"] == "application/json"
    assert json.loads(body)["table"]["tableId"] == table.table_id


@pytest.mark.parametrize(
    "call",
    [
        # no token, a token of no seat here, an unknown table, a bad page token
        lambda stub, t: stub("GetView", gw.GetViewRequest(table_id=t.table_id), None),
        lambda stub, t: stub("GetView", gw.GetViewRequest(table_id=t.table_id), "not-a-token"),
        lambda stub, t: stub("SubmitAction", gw.SubmitActionRequest(table_id=t.table_id), t.tokens[1]),
        lambda stub, t: stub("GetTable", gw.GetTableRequest(table_id="0123456789abcdef"), None),
        lambda stub, t: stub("ListTables", gw.ListTablesRequest(page_token="garbage"), None),
        lambda stub, t: stub("StartTable", gw.StartTableRequest(table_id=t.table_id), t.tokens[0]),
    ],
    ids=["no-token", "bad-token", "not-your-turn", "unknown-table", "bad-page-token", "not-the-host"],
)
def test_a_bad_call_fails_with_the_code_and_reason_it_has_over_grpc(stack, gateway, web, call):
    table = HumanTable(gateway, 2)
    table.start()
    if table.decider() == 1:  # seat 1 is the one not to decide
        table.tokens[0], table.tokens[1] = table.tokens[1], table.tokens[0]

    def over_grpc(method, request, token):
        metadata = auth.metadata(token) if token else None
        with pytest.raises(grpc.RpcError) as caught:
            getattr(gateway, method)(request, metadata=metadata)
        return grpc_status(caught.value)

    def over_web(method, request, token):
        with pytest.raises(ConnectError) as caught:
            getattr(web, _snake(method))(request, headers=bearer(token) if token else None)
        return connect_status(caught.value)

    expected = call(over_grpc, table)
    assert expected[1]  # every refusal has a reason
    assert call(over_web, table) == expected


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def test_retry_info_travels_as_a_detail(stack, web):
    """A quota's RetryInfo (RESOURCE_EXHAUSTED) comes back as an error detail; here a
    request over its limit, whose ErrorInfo names the limit."""
    with pytest.raises(ConnectError) as caught:
        web.take_seat(gw.TakeSeatRequest(table_id="t", display_name="x" * (DEFAULT_BYTES + 100)))
    assert connect_status(caught.value) == ("RESOURCE_EXHAUSTED", "REQUEST_TOO_LARGE")
    info = next(d for d in caught.value.details if d.type_name == "google.rpc.ErrorInfo")
    assert error_details_pb2.ErrorInfo.FromString(info.message_bytes).metadata["limit"] == str(DEFAULT_BYTES)


# -- streams ------------------------------------------------------------------------------


def _collect(iterator, into: list, stop_after: int | None = None) -> None:
    for response in iterator:
        into.append(response)
        if stop_after is not None and len(into) >= stop_after:
            return


def test_watch_delivers_live_and_resumes_after_seq(stack, gateway, web):
    table = HumanTable(gateway, 2)
    table.start()
    seen: list[gw.WatchTableResponse] = []
    watch = web.watch_table(gw.WatchTableRequest(table_id=table.table_id), headers=bearer(table.tokens[0]))
    reader = threading.Thread(target=_collect, args=(watch, seen, 5), daemon=True)
    reader.start()
    deadline = time.monotonic() + 20
    while len(seen) < 4 and time.monotonic() < deadline:  # the log so far: seats, start, deal...
        time.sleep(0.05)
    backlog = len(seen)
    decider = table.decider()
    view = table.view(decider)
    table.submit(decider, view.legal_actions[0].action)  # live, after the stream opened
    reader.join(20)
    assert len(seen) == 5, f"{len(seen)} events, {backlog} before the action"
    seqs = [response.event.seq for response in seen]
    assert seqs == list(range(1, 6))
    # Resumed from after_seq: the same events from there on, as gRPC sends them.
    resumed = web.watch_table(
        gw.WatchTableRequest(table_id=table.table_id, after_seq=2), headers=bearer(table.tokens[0])
    )
    again: list[gw.WatchTableResponse] = []
    _collect(resumed, again, 3)
    native = gateway.WatchTable(
        gw.WatchTableRequest(table_id=table.table_id, after_seq=2), metadata=auth.metadata(table.tokens[0])
    )
    assert again == [next(native) for _ in range(3)]
    native.cancel()


def test_spectate_delivers_a_bot_game_to_its_end(stack, web, gateway):
    created = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="borgia",
            player_count=2,
            bot_seats=[gw.BotSeat(seat=0, bot="random"), gw.BotSeat(seat=1, bot="random")],
            auto_start=True,
        )
    )
    events = list(web.spectate_table(gw.SpectateTableRequest(table_id=created.table.table_id)))
    native = list(gateway.SpectateTable(gw.SpectateTableRequest(table_id=created.table.table_id), timeout=60))
    assert events == native
    assert events[-1].event.HasField("game_finished")


def test_a_stream_error_carries_its_reason(web):
    with pytest.raises(ConnectError) as caught:
        list(web.watch_table(gw.WatchTableRequest(table_id="0123456789abcdef"), headers=bearer(auth.new_token())))
    assert connect_status(caught.value) == ("NOT_FOUND", "TABLE_NOT_FOUND")


# -- bad input ----------------------------------------------------------------------------


def test_malformed_bodies_are_invalid_argument_malformed_request(stack):
    for content_type, body in (
        ("application/proto", b"\xff\xff\xff\xff"),
        ("application/json", b'{"tableId": '),
        ("application/json", b"[" * 20000),
        ("application/json", b'{"tableId": 5}'),
    ):
        status, _, reply = post(stack, f"{SERVICE}/GetTable", body, {"content-type": content_type})
        error = json.loads(reply)
        assert (status, error["code"]) == (400, "invalid_argument"), (content_type, body[:20], reply)
        info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(error["details"][0]["value"] + "=="))
        assert info.reason == "MALFORMED_REQUEST"


def _grpc_web_frame(payload: bytes, declared: int | None = None) -> bytes:
    return struct.pack(">BI", 0, len(payload) if declared is None else declared) + payload


def test_malformed_grpc_web_frames(stack):
    headers = {"content-type": "application/grpc-web+proto", "x-grpc-web": "1"}
    for body in (
        b"\x00\x00",  # a cut frame header
        _grpc_web_frame(b"\x0a\x01x", declared=100),  # a frame shorter than it says
        _grpc_web_frame(b"\xff\xff"),  # a frame that is no message
        _grpc_web_frame(b"", declared=1 << 30),  # a gigabyte announced
    ):
        status, reply_headers, reply = post(stack, f"{SERVICE}/GetTable", body, headers)
        grpc_web_status = reply_headers.get("grpc-status") or _grpc_web_trailers(reply).get("grpc-status")
        assert status == 200 and grpc_web_status not in (None, "0"), (body[:8], reply_headers, reply)


def _grpc_web_trailers(body: bytes) -> dict[str, str]:
    """The trailers of a gRPC-Web response: its last frame, flagged 0x80."""
    trailers: dict[str, str] = {}
    while len(body) >= 5:
        flags, length = struct.unpack(">BI", body[:5])
        frame, body = body[5 : 5 + length], body[5 + length :]
        if flags & 0x80:
            for line in frame.decode().split("\r\n"):
                if ":" in line:
                    key, _, value = line.partition(":")
                    trailers[key.strip().lower()] = value.strip()
    return trailers


def test_oversized_bodies_are_refused_and_hold_nothing(stack, gateway):
    """Over the method's limit: REQUEST_TOO_LARGE, as over gRPC. Over twice the largest
    limit: refused while it is read. 200 refused 1 MB bodies leave the gateway's memory
    where it was, and a player's read still answers."""
    gateway_before = gateway_process(stack).memory_info().rss
    request = gw.TakeSeatRequest(table_id="t", display_name="x" * (DEFAULT_BYTES + 100)).SerializeToString()
    status, _, reply = post(stack, f"{SERVICE}/TakeSeat", request, {"content-type": "application/proto"})
    assert (status, json.loads(reply)["code"]) == (429, "resource_exhausted")
    megabyte = b"\x0a" + b"\xff" * (1 << 20)
    for _ in range(200):
        status, _, reply = post(stack, f"{SERVICE}/TakeSeat", megabyte, {"content-type": "application/proto"})
        assert status == 429
    started = time.perf_counter()
    gateway.ListGames(gw.ListGamesRequest())
    assert time.perf_counter() - started < 1.0
    assert gateway_process(stack).memory_info().rss - gateway_before < 30 << 20


def test_wrong_content_types_and_methods(stack):
    body = gw.GetTableRequest(table_id="t").SerializeToString()
    for content_type in ("text/plain", "application/xml", "application/grpc", "application/grpc+proto"):
        status, _, _ = post(stack, f"{SERVICE}/GetTable", body, {"content-type": content_type})
        assert status == 415, content_type
    for path in (f"{SERVICE}/NoSuchMethod", "/tavola.gateway.v1.TimerService/ExpireDecision", "/x"):
        status, _, _ = post(stack, path, body, {"content-type": "application/proto"})
        assert status == 404, path
    # A header that is not UTF-8 is read as ISO-8859-1 (as browsers send it): this token is
    # none the platform issues, refused in the protocol's own terms.
    headers = {"content-type": "application/proto", "authorization": "Bearer \xff\xfe"}
    status, _, reply = post(stack, f"{SERVICE}/GetTable", body, headers)
    assert (status, json.loads(reply)["code"]) == (401, "unauthenticated")
    # Calls are POSTs, as over gRPC (no Connect GET: nothing a link or an image could ask).
    for method in ("PUT", "GET", "DELETE"):
        status, _, _ = post(stack, f"{SERVICE}/GetTable", body, {"content-type": "application/proto"}, method=method)
        assert status == 405, method


def test_another_sites_page_is_refused(stack):
    body = json.dumps({}).encode()
    evil = {"content-type": "application/json", "origin": "https://evil.example"}
    status, headers, _ = post(stack, f"{SERVICE}/ListGames", body, evil)
    assert status == 403 and "access-control-allow-origin" not in headers
    preflight = {
        "origin": "https://evil.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,authorization",
    }
    status, headers, _ = post(stack, f"{SERVICE}/ListGames", b"", preflight, method="OPTIONS")
    assert status == 403 and "access-control-allow-origin" not in headers
    # The configured site may: its preflight allows the token's header, its call answers.
    status, headers, _ = post(
        stack, f"{SERVICE}/ListGames", b"", {**preflight, "origin": ALLOWED_ORIGIN}, method="OPTIONS"
    )
    assert status == 200 and headers["access-control-allow-origin"] == ALLOWED_ORIGIN
    assert "authorization" in headers["access-control-allow-headers"].lower()
    status, headers, _ = post(stack, f"{SERVICE}/ListGames", body, {**evil, "origin": ALLOWED_ORIGIN})
    assert status == 200 and headers["access-control-allow-origin"] == ALLOWED_ORIGIN
    # And the page served from the web port itself (its own origin).
    own = f"http://{stack.web_addresses[0]}"
    status, _, _ = post(stack, f"{SERVICE}/ListGames", body, {**evil, "origin": own})
    assert status == 200


def _stream_request(stack, table_id: str) -> bytes:
    body = gw.SpectateTableRequest(table_id=table_id).SerializeToString()
    head = (
        f"POST {SERVICE}/SpectateTable HTTP/1.1\r\nhost: {stack.web_addresses[0]}\r\n"
        f"content-type: application/grpc-web+proto\r\nx-grpc-web: 1\r\ncontent-length: {5 + len(body)}\r\n\r\n"
    )
    return head.encode() + _grpc_web_frame(body)


def test_streams_never_read_slow_nothing_and_are_let_go(stack, gateway, web):
    """30 spectators that never read a byte of a bot game; a reader of the same game gets
    every event, and once the game ends every stream is let go."""
    created = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="borgia",
            player_count=3,
            bot_seats=[gw.BotSeat(seat=seat, bot="random") for seat in range(3)],
            auto_start=True,
        )
    )
    table_id = created.table.table_id
    host, port = stack.web_addresses[0].split(":")
    idle = []
    for _ in range(30):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)  # taken before connect
        sock.connect((host, int(port)))
        sock.sendall(_stream_request(stack, table_id))
        idle.append(sock)
    try:
        started = time.monotonic()
        events = list(web.spectate_table(gw.SpectateTableRequest(table_id=table_id)))
        assert events[-1].event.HasField("game_finished")
        assert time.monotonic() - started < 60
        gateway.ListGames(gw.ListGamesRequest(), timeout=1)
    finally:
        for sock in idle:
            sock.close()
    deadline = time.monotonic() + 10
    while open_streams(stack) > 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert open_streams(stack) == 0


def test_a_client_that_takes_no_bytes_is_let_go_after_the_write_timeout():
    """The web port's write timeout (TAVOLA_WEB_WRITE_TIMEOUT_SECONDS), on the web
    application and uvicorn as the gateway runs them, around an endless response: a client
    that reads nothing is disconnected once the socket buffers are full and a write has
    waited that long, and the response's writer is let go; meanwhile another client's call
    answers at once."""
    from gateway.web import WebApp, WebServer, WebSettings

    async def run() -> tuple[float, int, float]:
        ended = asyncio.Event()
        sent = 0

        async def endless(scope, receive, send) -> None:
            nonlocal sent
            if scope["path"].endswith("/Quick"):
                await send({"type": "http.response.start", "status": 200, "headers": []})
                await send({"type": "http.response.body", "body": b"ok"})
                return
            try:
                await send({"type": "http.response.start", "status": 200, "headers": []})
                while True:
                    await send({"type": "http.response.body", "body": b"x" * 65536, "more_body": True})
                    sent += 65536
            finally:
                ended.set()

        settings = WebSettings("127.0.0.1", 0, None, (), None, None, write_timeout=0.5)
        server = WebServer(WebApp({"/test.Endless": endless}, write_timeout=0.5), settings)
        port = await server.start()
        try:
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
            sock.send(b"POST /test.Endless/Stream HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n")
            started = time.monotonic()
            await asyncio.sleep(0.2)
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            quick_began = time.monotonic()
            writer.write(b"POST /test.Endless/Quick HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n")
            assert b"200" in await asyncio.wait_for(reader.readline(), 5)
            quick = time.monotonic() - quick_began
            writer.close()
            await asyncio.wait_for(ended.wait(), 30)
            let_go = time.monotonic() - started
            sock.close()
            return let_go, sent, quick
        finally:
            await server.stop()

    let_go, sent, quick = asyncio.run(run())
    assert let_go < 15 and sent < 64 << 20, (let_go, sent)
    assert quick < 1.0


def test_the_web_port_serves_the_built_page_at_its_root(tmp_path):
    """With a static directory (the built web client), / is its index.html and its files
    are served beside the API; nothing is served above it."""
    from gateway.web import WebApp, WebServer, WebSettings

    (tmp_path / "index.html").write_text("<!doctype html><title>tavola</title>")
    (tmp_path / "app.js").write_text("console.log('tavola')")

    async def run() -> list[tuple[int, bytes]]:
        async def api(scope, receive, send) -> None:
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"api"})

        settings = WebSettings("127.0.0.1", 0, None, (), tmp_path, None, 30.0)
        server = WebServer(WebApp({"/test.Api": api}, static_dir=tmp_path), settings)
        port = await server.start()
        try:
            replies = []
            for method, path in (
                ("GET", "/"),
                ("GET", "/app.js"),
                ("GET", "/../etc/passwd"),
                ("POST", "/test.Api/Call"),
            ):
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(
                    f"{method} {path} HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".encode()
                )
                reply = await asyncio.wait_for(reader.read(), 5)
                writer.close()
                head, _, body = reply.partition(b"\r\n\r\n")
                replies.append((int(head.split()[1]), body))
            return replies
        finally:
            await server.stop()

    (index, index_body), (script, _), (escape, _), (call, call_body) = asyncio.run(run())
    assert (index, script, call) == (200, 200, 200)
    assert b"<title>tavola</title>" in index_body and b"api" in call_body
    assert escape == 404


def test_a_request_that_arrives_slowly_is_cut_off(stack):
    """A head not whole 10 s after the connection opened: the connection is closed. A body
    not whole 10 s after its head: deadline_exceeded. Meanwhile calls answer at once."""
    host, port = stack.web_addresses[0].split(":")
    head_only = socket.create_connection((host, int(port)))
    head_only.sendall(f"POST {SERVICE}/ListGames HTTP/1.1\r\nhost: x\r\n".encode())
    short_body = socket.create_connection((host, int(port)))
    short_body.sendall(
        f"POST {SERVICE}/ListGames HTTP/1.1\r\nhost: x\r\ncontent-type: application/proto\r\n"
        "content-length: 100\r\n\r\nabc".encode()
    )
    started = time.monotonic()
    with client(stack) as web:
        answered = web.list_games(gw.ListGamesRequest())
    assert answered.games and time.monotonic() - started < 2
    with closing(head_only), closing(short_body):
        head_only.settimeout(30)
        short_body.settimeout(30)
        assert head_only.recv(100) == b""  # closed, with no answer
        reply = b""
        while chunk := short_body.recv(4096):
            reply += chunk
            if b"deadline_exceeded" in reply:
                break
        assert b"deadline_exceeded" in reply
    assert time.monotonic() - started < 20

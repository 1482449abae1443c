"""A seat's session on the web port (gateway/web.py): SessionService.Follow over Connect and
gRPC-Web pushes the same updates as over gRPC (the events the seat may see and its new view,
no GetView a move), and Play, which streams both ways and so needs HTTP/2, is refused with
UNIMPLEMENTED naming the door that serves it."""

import struct
import threading
import time
from collections.abc import Iterator

import pytest
from connectrpc.errors import ConnectError

from common import auth
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import sessions_pb2 as ss
from tavola.gateway.v1 import sessions_pb2_grpc
from tavola.gateway.v1.sessions_connect import SessionServiceClientSync
from tests.integration.conftest import HumanTable
from tests.integration.test_web_bridge import PROTOCOLS, bearer, client, connect_status, open_streams, post


@pytest.fixture(scope="module", params=sorted(PROTOCOLS))
def web_sessions(stack, request) -> Iterator[SessionServiceClientSync]:
    with SessionServiceClientSync(
        f"http://{stack.web_addresses[0]}",
        protocol=PROTOCOLS[request.param],
        send_compression=None,
        accept_compression=(),
        timeout_ms=60_000,
    ) as opened:
        yield opened


class Updates:
    """A stream's first ``until`` updates, read on a thread as they come; the stream is then
    closed (the client leaves)."""

    def __init__(self, stream, until: int):
        self.got: list[ss.FollowResponse] = []
        self.stream = stream
        self.until = until
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for update in self.stream:
            self.got.append(update)
            if len(self.got) == self.until:
                break
        self.stream.close()

    def wait(self, count: int, seconds: float = 30) -> list[ss.FollowResponse]:
        deadline = time.monotonic() + seconds
        while len(self.got) < count:
            assert time.monotonic() < deadline, f"{len(self.got)} updates of {count}"
            time.sleep(0.02)
        return self.got[:count]


def test_follow_on_the_web_port_pushes_what_it_pushes_over_grpc(stack, gateway, channel, web_sessions):
    table = HumanTable(gateway, 2, seed=31)
    table.start()
    request = ss.FollowRequest(table_id=table.table_id)
    on_web = Updates(web_sessions.follow(request, headers=bearer(table.tokens[0])), until=5)
    native_stub = sessions_pb2_grpc.SessionServiceStub(channel)
    native = native_stub.Follow(request, metadata=auth.metadata(table.tokens[0]))
    first = on_web.wait(1)[0]
    assert first == next(native)  # the backlog and the view now
    assert first.events and first.view == table.view(0)
    for moves in range(1, 5):  # each seat's move, made over the web port's SubmitAction
        seat = table.decider()
        with client(stack) as web:
            web.submit_action(
                gw.SubmitActionRequest(table_id=table.table_id, action=table.view(seat).legal_actions[0].action),
                headers=bearer(table.tokens[seat]),
            )
        update = on_web.wait(1 + moves)[moves]
        assert update == next(native)
        assert update.view == table.view(0) and update.events  # no GetView needed
        assert update.events[0].seq > on_web.got[moves - 1].events[-1].seq
    native.cancel()
    # Both clients left: the gateway lets both streams go.
    deadline = time.monotonic() + 10
    while open_streams(stack) > 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert open_streams(stack) == 0


def test_follow_on_the_web_port_refuses_what_grpc_refuses(web_sessions, gateway):
    table = HumanTable(gateway, 2, seed=32)
    table.start()
    for token, expected in (
        (None, ("UNAUTHENTICATED", "TOKEN_MISSING")),
        (auth.new_token(), ("PERMISSION_DENIED", "NOT_SEATED")),
    ):
        headers = bearer(token) if token else {}
        with pytest.raises(ConnectError) as caught:
            list(web_sessions.follow(ss.FollowRequest(table_id=table.table_id), headers=headers))
        assert connect_status(caught.value)[0] == expected[0], connect_status(caught.value)


def test_play_is_refused_on_the_web_port_naming_the_grpc_port(stack, gateway):
    table = HumanTable(gateway, 2, seed=33)
    opening = ss.PlayRequest(open=ss.FollowRequest(table_id=table.table_id)).SerializeToString()
    status, _, body = post(
        stack,
        "/tavola.gateway.v1.SessionService/Play",
        struct.pack(">BI", 0, len(opening)) + opening,
        {"content-type": "application/connect+proto", **bearer(table.tokens[0])},
    )
    assert status == 200  # a Connect stream: its status is in the end-of-stream message
    flags, length = struct.unpack(">BI", body[:5])
    assert flags & 0x02, body  # end of stream, with the error
    end = body[5 : 5 + length].decode()
    assert '"unimplemented"' in end and "gRPC port" in end and "Follow" in end, end


@pytest.mark.parametrize(
    "table_id",
    ["tavola:*", "0123456789abcdef}", "0123456789ABCDEF", "tàvola-0123456789", "0123\x00456789abcdef", "\u202e" * 16],
)
def test_follow_refuses_a_table_id_of_the_wrong_shape_before_any_key_is_made(web_sessions, gateway, table_id):
    """Key characters, Unicode, control and bidi characters: BAD_TABLE_ID, as over gRPC, and
    a real seat's token does not change that."""
    table = HumanTable(gateway, 2, seed=34)
    with pytest.raises(ConnectError) as caught:
        list(web_sessions.follow(ss.FollowRequest(table_id=table_id), headers=bearer(table.tokens[0])))
    assert connect_status(caught.value) == ("INVALID_ARGUMENT", "BAD_TABLE_ID")

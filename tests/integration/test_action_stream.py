"""SubmitAction on a long-lived stream (ActionService.SubmitActions): each message is
answered as the unary call answers it, by its id, with the same checks, idempotency and
errors; a message over the limit, or one that does not decode, fails the stream; and the
bot worker's client falls back to unary calls where the gateway has no stream to give."""

import asyncio
import contextlib
import queue
import signal
import threading
import time
from collections.abc import Iterator

import grpc
import pytest
import structlog.testing
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from bots.worker import gateway_stream
from common import auth
from common.answered_stream import AnsweredStream
from common.errors import ApiError, reason_of
from deploy.stack import Stack
from tavola.gateway.v1 import actions_pb2, actions_pb2_grpc
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.conftest import HumanTable
from tests.integration.test_metrics import scrape, total


class Stream:
    """One SubmitActions stream held by the test: write a message, read the answers."""

    def __init__(self, address: str):
        self.channel = grpc.insecure_channel(address)
        self.outbox: queue.Queue = queue.Queue()
        self.answers = actions_pb2_grpc.ActionServiceStub(self.channel).SubmitActions(
            iter(self.outbox.get, None), timeout=30
        )

    def send(self, message) -> None:
        self.outbox.put(message)

    def ask(self, number: int, token: str, request: gw.SubmitActionRequest) -> actions_pb2.SubmitActionsResponse:
        self.send(actions_pb2.SubmitActionsRequest(id=number, seat_token=token, request=request))
        return next(self.answers)

    def close(self) -> None:
        self.outbox.put(None)
        self.channel.close()


@pytest.fixture
def stream(stack) -> Iterator[Stream]:
    opened = Stream(stack.gateway_address)
    yield opened
    opened.close()


def error_of(answer: actions_pb2.SubmitActionsResponse) -> tuple[int, str]:
    status = status_pb2.Status.FromString(answer.error)
    info = error_details_pb2.ErrorInfo()
    next(detail for detail in status.details if detail.Is(info.DESCRIPTOR)).Unpack(info)
    return status.code, info.reason


def test_a_message_is_answered_as_the_call_answers_it(gateway, stream):
    table = HumanTable(gateway, players=2, seed=11)
    table.start()
    seat = table.decider()
    view = table.view(seat)
    request = gw.SubmitActionRequest(
        table_id=table.table_id,
        action=view.legal_actions[0].action,
        expected_version=view.table.version,
        request_id="a",
    )
    answer = stream.ask(7, table.tokens[seat], request)
    assert answer.id == 7 and answer.WhichOneof("result") == "response"
    assert answer.response.table.version == view.table.version + 1
    assert not answer.response.replayed
    # The same request id again: the first answer, replayed; nothing changes twice.
    again = stream.ask(8, table.tokens[seat], request)
    assert again.id == 8 and again.response.replayed
    assert again.response.table.version == answer.response.table.version
    assert table.table().version == answer.response.table.version
    # The unary call with that id and token answers the same.
    assert table.submit(seat, request.action, request_id="a", expected_version=view.table.version).replayed


def test_a_refused_message_gets_the_call_s_error_and_the_stream_goes_on(gateway, stream):
    table = HumanTable(gateway, players=2, seed=12)
    table.start()
    seat = table.decider()
    other = 1 - seat
    view = table.view(seat)
    action = view.legal_actions[0].action
    request = gw.SubmitActionRequest(table_id=table.table_id, action=action, expected_version=view.table.version)
    missing = stream.ask(1, "", request)
    assert error_of(missing) == (grpc.StatusCode.UNAUTHENTICATED.value[0], "TOKEN_MISSING")
    wrong = stream.ask(2, auth.new_token(), request)  # of a token's shape, of no seat
    assert error_of(wrong) == (grpc.StatusCode.PERMISSION_DENIED.value[0], "TOKEN_NOT_FOR_TABLE")
    stale = gw.SubmitActionRequest(table_id=table.table_id, action=action, expected_version=view.table.version - 1)
    assert error_of(stream.ask(3, table.tokens[seat], stale))[1] == "VERSION_MISMATCH"
    assert error_of(stream.ask(4, table.tokens[other], request))[0] == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert table.table().version == view.table.version  # nothing changed
    assert stream.ask(5, table.tokens[seat], request).response.table.version == view.table.version + 1


def test_many_messages_at_once_are_each_answered_by_id(gateway, stream):
    tables = [HumanTable(gateway, players=2, seed=20 + index) for index in range(12)]
    wanted = {}
    for number, table in enumerate(tables, 1):
        table.start()
        seat = table.decider()
        view = table.view(seat)
        request = gw.SubmitActionRequest(
            table_id=table.table_id, action=view.legal_actions[0].action, expected_version=view.table.version
        )
        stream.send(actions_pb2.SubmitActionsRequest(id=number, seat_token=table.tokens[seat], request=request))
        wanted[number] = (table.table_id, view.table.version + 1)
    answers = {}
    for _ in wanted:
        answer = next(stream.answers)
        answers[answer.id] = (answer.response.table.table_id, answer.response.table.version)
    assert answers == wanted


@pytest.mark.parametrize(
    ("raw", "code", "reason"),
    [
        (b"\x0a" + b"\xff" * 10, grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
        (
            actions_pb2.SubmitActionsRequest(id=1, seat_token="x" * 10_000).SerializeToString(),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "REQUEST_TOO_LARGE",
        ),
    ],
    ids=["malformed", "too-large"],
)
def test_a_message_that_is_no_request_fails_the_stream(stack, raw, code, reason):
    with grpc.insecure_channel(stack.gateway_address) as channel:
        call = channel.stream_stream(
            "/tavola.gateway.v1.ActionService/SubmitActions", request_serializer=None, response_deserializer=None
        )
        with pytest.raises(grpc.RpcError) as caught:
            list(call(iter([raw]), timeout=10))
    assert caught.value.code() == code
    assert reason_of(caught.value) == reason


def test_the_worker_submits_on_the_stream_and_its_answers_are_the_gateway_s(gateway, stack):
    table = HumanTable(gateway, players=2, seed=13)
    table.start()
    seat = table.decider()
    view = table.view(seat)
    holder = gateway_stream.GatewayActions(stack.gateway_address)
    request = gw.SubmitActionRequest(
        table_id=table.table_id, action=view.legal_actions[0].action, expected_version=view.table.version
    )
    answered = holder.submit(table.tokens[seat], request, timeout=10)
    assert answered is not None and answered.table.version == view.table.version + 1
    assert isinstance(holder.streams[0], AnsweredStream) and holder.streams[0].answered
    # The pool's threads share the one stream; each gets its own answer, refusals raised.
    reasons: list[str] = []

    def refused() -> None:
        try:
            holder.submit(auth.new_token(), request, timeout=10)
        except ApiError as error:
            reasons.append(error.reason)

    threads = [threading.Thread(target=refused) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert reasons == ["TOKEN_NOT_FOR_TABLE"] * 4


def test_the_worker_makes_unary_calls_where_the_gateway_has_no_stream(stack, monkeypatch):
    # A rules service's port has no ActionService: UNIMPLEMENTED, so unary calls for a while.
    address = next(iter(stack.rules_addresses.values()))
    holder = gateway_stream.GatewayActions(address)
    request = gw.SubmitActionRequest(table_id="t")
    # Each submit goes by a unary call (None); the refusal may show first as a broken
    # stream (gRPC's INTERNAL when the write races it), then as UNIMPLEMENTED.
    for _ in range(20):
        assert holder.submit("token", request, timeout=5) is None
        if holder.unary_until:
            break
    assert holder.unary_until > 0
    opened = list(holder.streams)
    assert holder.submit("token", request, timeout=5) is None
    assert holder.streams == opened  # unary calls for a while, without asking again


def test_streams_are_off_when_asked_or_while_traces_are_on(monkeypatch):
    monkeypatch.setenv("TAVOLA_BOT_STREAM", "false")
    assert gateway_stream.gateway_actions("127.0.0.1:1") is None
    monkeypatch.setenv("TAVOLA_BOT_STREAM", "true")
    monkeypatch.setattr(gateway_stream.tracing, "enabled", lambda: True)
    assert gateway_stream.gateway_actions("127.0.0.1:1") is None


def test_a_client_that_reads_no_answers_is_read_no_further(stack):
    """The gateway reads a stream's next request only once an answer is sent: a client
    that writes and never reads fills gRPC's windows and waits, and the gateway holds a
    bounded number of its requests and answers (ActionServicer.in_flight)."""

    def answered() -> float:
        samples = scrape(stack.metrics_address)
        return total(samples, "tavola_gateway_requests_total", method="SubmitAction", protocol="stream")

    before = answered()
    attempts = 20_000

    async def flood() -> tuple[int, float, float]:
        # The client's receive window stays at gRPC's 64 KB (no bandwidth probing), so the
        # unread answers stop at a few hundred.
        options = [("grpc.http2.bdp_probe", 0)]
        async with grpc.aio.insecure_channel(stack.gateway_address, options=options) as channel:
            call = actions_pb2_grpc.ActionServiceStub(channel).SubmitActions()
            # No token: refused at once, with no store or rules call.
            message = actions_pb2.SubmitActionsRequest(id=1, request=gw.SubmitActionRequest(table_id="t"))
            written = 0
            with contextlib.suppress(TimeoutError):
                while written < attempts:
                    await asyncio.wait_for(call.write(message), 1.0)
                    written += 1
            stopped = answered() - before
            await asyncio.sleep(1.0)
            later = answered() - before
            call.cancel()
            return written, stopped, later

    written, stopped, later = asyncio.run(flood())
    assert written < attempts  # its writes stopped: the gateway read no further
    assert later == stopped < 2_000, (stopped, later)  # and answered no more meanwhile


def test_a_stream_is_replaced_after_its_life_and_closed_once_it_has_answered(gateway, stack, monkeypatch):
    """So that a worker's streams follow the gateways as they come and go."""
    monkeypatch.setenv("TAVOLA_BOT_STREAMS", "1")
    monkeypatch.setattr(gateway_stream, "STREAM_SECONDS", 0.0)
    holder = gateway_stream.GatewayActions(stack.gateway_address)
    table = HumanTable(gateway, players=2, seed=14)
    table.start()
    retired = []
    with structlog.testing.capture_logs() as logged:
        submit_twice(holder, table, retired)
        first, second = retired
        assert first is not second
        deadline = time.monotonic() + 5
        while not (first.call.done() and first.reader.done()):
            assert time.monotonic() < deadline, "the replaced stream was never closed"
            time.sleep(0.05)
    # A replacement on schedule is no failure: once, every worker warned of each one all day.
    assert [line for line in logged if line["log_level"] == "warning"] == []


def submit_twice(holder, table, retired) -> None:
    for _ in range(2):
        seat = table.decider()
        view = table.view(seat)
        request = gw.SubmitActionRequest(
            table_id=table.table_id, action=view.legal_actions[0].action, expected_version=view.table.version
        )
        answered = holder.submit(table.tokens[seat], request, timeout=10)
        assert answered is not None and answered.table.version == view.table.version + 1
        retired.append(holder.streams[0])


def test_a_stopping_gateway_ends_its_action_streams_after_what_is_under_way(redis_url, key_prefix, tmp_path):
    """SIGTERM: each stream reads no more, answers what it holds and ends with OK, so that a
    worker opens its next stream on a gateway that goes on, with no request failed."""
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-stopping",
        games=("borgia",),
        with_worker=False,
        log_dir=tmp_path,
    ) as stopping:
        opened = Stream(stopping.gateway_address)
        try:
            request = gw.SubmitActionRequest(table_id="t", action=any_pb2.Any(type_url="x"))
            assert opened.ask(1, "not-a-token", request).WhichOneof("result") == "error"
            (gateway_process,) = [process for process in stopping.processes if process.name == "gateway"]
            gateway_process.popen.send_signal(signal.SIGTERM)
            assert list(opened.answers) == []  # ended, with OK: no RpcError
        finally:
            opened.close()
            stopping.delete_keys()

"""gateway/rules.py over real gRPC: ApplyAction on the ApplyActions streams answers as the
unary call does (responses, errors with their code and reason, many requests at once on
two streams), a rules service without the stream is asked with unary calls, and a
service that stops fails the requests on its stream as UNAVAILABLE and is streamed to
again once it is back; a stream's log lines carry the gateway's context, not that of the
request that opened it."""

import asyncio
import random

import grpc
import pytest
import structlog

from common.errors import ApiError
from common.logging import bound
from gateway.rules import RulesDirectory
from services.registry import get_game
from services.rules_server import RulesServicer
from tavola.rules.v1 import rules_pb2, rules_pb2_grpc

GAME = "borgia"


def _unary_only(inner: RulesServicer) -> grpc.GenericRpcHandler:
    """A rules service of an older contract: ApplyAction, but no ApplyActions stream."""

    def method(name: str, request_type, response_type) -> grpc.RpcMethodHandler:
        return grpc.unary_unary_rpc_method_handler(
            getattr(inner, name), request_type.FromString, response_type.SerializeToString
        )

    return grpc.method_handlers_generic_handler(
        "tavola.rules.v1.RulesService",
        {
            "DescribeGame": method("DescribeGame", rules_pb2.DescribeGameRequest, rules_pb2.DescribeGameResponse),
            "NewGame": method("NewGame", rules_pb2.NewGameRequest, rules_pb2.NewGameResponse),
            "GetView": method("GetView", rules_pb2.GetViewRequest, rules_pb2.GetViewResponse),
            "ApplyAction": method("ApplyAction", rules_pb2.ApplyActionRequest, rules_pb2.ApplyActionResponse),
        },
    )


async def _serve(servicer, port: int = 0) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    if isinstance(servicer, grpc.GenericRpcHandler):
        server.add_generic_rpc_handlers((servicer,))
    else:
        rules_pb2_grpc.add_RulesServiceServicer_to_server(servicer, server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    return server, bound


async def _requests(rules: RulesDirectory, steps: int, seed: int) -> list[rules_pb2.ApplyActionRequest]:
    """The ApplyAction requests of one random 3-player game, from the unary calls."""
    chooser = random.Random(seed)
    dealt = await rules.call(GAME, "NewGame", rules_pb2.NewGameRequest(player_count=3, seed=seed))
    state, status = dealt.state, dealt.status
    requests = []
    for _ in range(steps):
        if status.finished:
            break
        seat = chooser.choice(list(status.deciding_seats))
        view = await rules.call(GAME, "GetView", rules_pb2.GetViewRequest(state=state, seat=seat))
        action = chooser.choice(list(view.legal_actions)).action
        request = rules_pb2.ApplyActionRequest(state=state, seat=seat, action=action, view_seats=range(3))
        requests.append(request)
        applied = await rules.stub(GAME).ApplyAction(request)
        state, status = applied.state, applied.status
    return requests


def test_streamed_actions_answer_as_unary_calls():
    async def run() -> None:
        server, port = await _serve(RulesServicer(get_game(GAME)))
        rules = RulesDirectory({GAME: f"127.0.0.1:{port}"}, timeout=10, streams=2)
        try:
            requests = await _requests(rules, steps=40, seed=5)
            assert len(requests) > 10
            unary = [await rules.stub(GAME).ApplyAction(request) for request in requests]
            # All at once: each answer is its own request's, whichever stream it took.
            streamed = await asyncio.gather(*(rules.call(GAME, "ApplyAction", request) for request in requests))
            assert list(streamed) == unary
            assert GAME in rules.streaming and all(stream is not None for stream in rules.streams[GAME])

            # An action the rules refuse: the same code and reason as the unary call's.
            illegal = rules_pb2.ApplyActionRequest()
            illegal.CopyFrom(requests[0])
            illegal.seat = next(seat for seat in range(3) if seat != requests[0].seat)
            with pytest.raises(grpc.aio.AioRpcError) as called:
                await rules.stub(GAME).ApplyAction(illegal)
            with pytest.raises(ApiError) as streamed_error:
                await rules.call(GAME, "ApplyAction", illegal)
            assert streamed_error.value.code == called.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert streamed_error.value.reason == "NOT_YOUR_DECISION"
            assert streamed_error.value.message == called.value.details()

            malformed = rules_pb2.ApplyActionRequest(seat=0)
            malformed.state.type_url = "type.googleapis.com/not.a.State"
            with pytest.raises(ApiError) as bad:
                await rules.call(GAME, "ApplyAction", malformed)
            assert (bad.value.code, bad.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_STATE")
            # The stream outlives a refused request.
            assert await rules.call(GAME, "ApplyAction", requests[1]) == unary[1]
        finally:
            await rules.close()
            await server.stop(None)

    asyncio.run(run())


def test_a_service_without_the_stream_is_asked_call_by_call():
    async def run() -> None:
        server, port = await _serve(_unary_only(RulesServicer(get_game(GAME))))
        rules = RulesDirectory({GAME: f"127.0.0.1:{port}"}, timeout=10, streams=2)
        try:
            requests = await _requests(rules, steps=10, seed=6)
            answers = await asyncio.gather(*(rules.call(GAME, "ApplyAction", request) for request in requests))
            assert list(answers) == [await rules.stub(GAME).ApplyAction(request) for request in requests]
            assert GAME not in rules.streaming
        finally:
            await rules.close()
            await server.stop(None)

    asyncio.run(run())


def test_a_stopped_service_fails_its_stream_as_unavailable_and_is_streamed_to_once_back():
    async def run() -> None:
        server, port = await _serve(RulesServicer(get_game(GAME)))
        rules = RulesDirectory({GAME: f"127.0.0.1:{port}"}, timeout=5, streams=1)
        try:
            requests = await _requests(rules, steps=5, seed=7)
            expected = await rules.stub(GAME).ApplyAction(requests[0])
            assert await rules.call(GAME, "ApplyAction", requests[0]) == expected
            await server.stop(None)
            with pytest.raises(ApiError) as down:
                await rules.call(GAME, "ApplyAction", requests[0])
            assert (down.value.code, down.value.reason) == (grpc.StatusCode.UNAVAILABLE, "DEPENDENCY_UNAVAILABLE")
            server, _ = await _serve(RulesServicer(get_game(GAME)), port)
            for _ in range(50):  # the channel reconnects in its own time
                try:
                    answer = await rules.call(GAME, "ApplyAction", requests[0])
                    break
                except ApiError as error:
                    assert error.code == grpc.StatusCode.UNAVAILABLE
                    await asyncio.sleep(0.2)
            assert answer == expected
            assert GAME in rules.streaming
        finally:
            await rules.close()
            await server.stop(None)

    asyncio.run(run())


def test_a_stopping_service_ends_its_streams_after_the_message_at_hand():
    async def run() -> None:
        servicer = RulesServicer(get_game(GAME))
        server, port = await _serve(servicer)
        rules = RulesDirectory({GAME: f"127.0.0.1:{port}"}, timeout=5, streams=1)
        try:
            requests = await _requests(rules, steps=5, seed=8)
            expected = [await rules.stub(GAME).ApplyAction(request) for request in requests[:3]]
            assert await rules.call(GAME, "ApplyAction", requests[0]) == expected[0]
            first = rules.streams[GAME][0]
            servicer.stopping = True  # as the server's stop begins
            assert await rules.call(GAME, "ApplyAction", requests[1]) == expected[1]
            await asyncio.wait_for(first.reader, 5)  # the stream ended, OK
            assert await first.call.code() == grpc.StatusCode.OK
            # The next request opens a stream anew (here on the same service, still up).
            assert await rules.call(GAME, "ApplyAction", requests[2]) == expected[2]
            assert rules.streams[GAME][0] is not first
        finally:
            await rules.close()
            await server.stop(None)

    asyncio.run(run())


def test_an_idle_stream_ends_as_its_service_begins_to_stop():
    # It ended only with its next message, or when the server's grace ran out.
    async def run() -> None:
        servicer = RulesServicer(get_game(GAME))
        server, port = await _serve(servicer)
        rules = RulesDirectory({GAME: f"127.0.0.1:{port}"}, timeout=5, streams=1)
        try:
            requests = await _requests(rules, steps=2, seed=12)
            expected = await rules.stub(GAME).ApplyAction(requests[0])
            assert await rules.call(GAME, "ApplyAction", requests[0]) == expected
            idle = rules.streams[GAME][0]
            servicer.begin_stopping()
            await asyncio.wait_for(idle.reader, 5)  # ended without another message
            assert await idle.call.code() == grpc.StatusCode.OK
        finally:
            await rules.close()
            await server.stop(None)

    asyncio.run(run())


def test_a_stream_logs_in_the_gateways_context_not_in_that_of_its_first_request():
    async def run() -> None:
        server, port = await _serve(RulesServicer(get_game(GAME)))
        with bound(service="gateway-test"):
            rules = RulesDirectory({GAME: f"127.0.0.1:{port}"}, timeout=5, streams=1)
        try:
            requests = await _requests(rules, steps=2, seed=9)
            with bound(table_id="table-of-the-first-request"):
                await rules.call(GAME, "ApplyAction", requests[0])
            stream = rules.streams[GAME][0]
            assert stream is not None
            seen = stream.log_context.run(structlog.contextvars.get_contextvars)
            assert seen.get("service") == "gateway-test" and "table_id" not in seen
        finally:
            await rules.close()
            await server.stop(None)

    asyncio.run(run())


class _SlowFirstStream(RulesServicer):
    """Its first ApplyActions stream answers only after ``delay``; the later ones at once."""

    def __init__(self, delay: float):
        super().__init__(get_game(GAME))
        self.delay = delay
        self.opened = 0

    async def ApplyActions(self, request_iterator, context):
        self.opened += 1
        slow = self.opened == 1
        async for reply in super().ApplyActions(request_iterator, context):
            if slow:
                await asyncio.sleep(self.delay)
                slow = False
            yield reply


def test_a_stream_whose_first_answer_is_late_fails_in_time_and_the_next_request_opens_another():
    # A request queued behind a stream's unanswered first one once waited for that answer
    # without a deadline: a slow first answer on a busy host hung such a command for good.
    async def run() -> None:
        servicer = _SlowFirstStream(delay=60.0)
        server, port = await _serve(servicer)
        rules = RulesDirectory({GAME: f"127.0.0.1:{port}"}, timeout=0.5, streams=1)
        try:
            requests = await _requests(rules, steps=3, seed=11)
            expected = await rules.stub(GAME).ApplyAction(requests[0])
            both = asyncio.gather(
                rules.call(GAME, "ApplyAction", requests[0]),
                rules.call(GAME, "ApplyAction", requests[0]),
                return_exceptions=True,
            )
            try:  # each fails after its 0.5 s timeout; 20 s only bounds the test
                first, queued = await asyncio.wait_for(both, 20)
            except TimeoutError:
                pytest.fail("a request waited on the unanswered first one past its own timeout")
            for failed in (first, queued):
                assert isinstance(failed, ApiError), failed
                assert failed.code == grpc.StatusCode.UNAVAILABLE
            assert await rules.call(GAME, "ApplyAction", requests[0]) == expected  # on a new stream
            assert servicer.opened == 2
        finally:
            await rules.close()
            await server.stop(None)

    asyncio.run(run())

"""Every input has a bounded, documented answer: streams of a finished table end, bad
sequence numbers, page tokens, over-long ids and undecodable bytes are INVALID_ARGUMENT
with a reason (never UNKNOWN, INTERNAL or UNAVAILABLE), errors say what they are about in
ErrorInfo.metadata, and the gateway writes one JSON object per log line."""

import json

import grpc
import pytest

from common import auth
from common.errors import details_of, reason_of
from deploy.redis_local import free_port
from deploy.stack import Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc
from tests.integration.conftest import HumanTable

SERVICE = "/tavola.gateway.v1.GatewayService"


def refused(call, reason: str, code=grpc.StatusCode.INVALID_ARGUMENT) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        result = call()
        if hasattr(result, "__iter__") and not isinstance(result, bytes):
            list(result)
    assert (caught.value.code(), reason_of(caught.value)) == (code, reason), caught.value.details()
    return caught.value


@pytest.fixture(scope="module")
def finished(gateway) -> gw.Table:
    """A finished two-bot table."""
    created = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="borgia",
            player_count=2,
            bot_seats=[gw.BotSeat(seat=0, bot="random"), gw.BotSeat(seat=1, bot="random")],
            auto_start=True,
        )
    )
    for _ in gateway.SpectateTable(gw.SpectateTableRequest(table_id=created.table.table_id), timeout=60):
        pass
    return gateway.GetTable(gw.GetTableRequest(table_id=created.table.table_id)).table


def test_streams_of_a_finished_table_end(gateway, stack, finished):
    token = auth.bot_token(auth.bot_key(stack.bot_secret, "random"), finished.table_id, 0)
    last = finished.last_seq
    for after, count in ((last - 1, 1), (last, 0), (last + 1000, 0)):
        spectated = gateway.SpectateTable(
            gw.SpectateTableRequest(table_id=finished.table_id, after_seq=after), timeout=5
        )
        assert len(list(spectated)) == count
        watched = gateway.WatchTable(
            gw.WatchTableRequest(table_id=finished.table_id, after_seq=after), metadata=auth.metadata(token), timeout=5
        )
        assert len(list(watched)) <= count  # a seat may see nothing of an entry


def test_bad_sequence_numbers_are_invalid(gateway):
    table = HumanTable(gateway, players=2)
    table.start()
    last = table.table().last_seq
    for after in (-1, last + 1, 2**62):
        error = refused(
            lambda after=after: gateway.SpectateTable(
                gw.SpectateTableRequest(table_id=table.table_id, after_seq=after), timeout=5
            ),
            "BAD_AFTER_SEQ",
        )
        assert details_of(error)[0].metadata["table_id"] == table.table_id


def test_bad_page_tokens_are_invalid(gateway):
    for token in ("9" * 19, "-1", "²", "abc", "1e3", "1" * 7):
        refused(lambda token=token: gateway.ListTables(gw.ListTablesRequest(page_token=token)), "BAD_PAGE")
    refused(lambda: gateway.ListTables(gw.ListTablesRequest(page_size=-1)), "BAD_PAGE")


def test_over_long_ids_names_and_options_are_invalid_and_not_echoed(gateway):
    long = "x" * 2_000  # over every id limit, under the request limits
    calls = [
        (lambda: gateway.GetTable(gw.GetTableRequest(table_id=long)), "BAD_TABLE_ID"),
        (lambda: gateway.TakeSeat(gw.TakeSeatRequest(table_id=long)), "BAD_TABLE_ID"),
        (lambda: gateway.SpectateTable(gw.SpectateTableRequest(table_id=long), timeout=5), "BAD_TABLE_ID"),
        (lambda: gateway.GetReplay(gw.GetReplayRequest(table_id=long)), "BAD_TABLE_ID"),
        (lambda: gateway.CreateTable(gw.CreateTableRequest(game_id=long, player_count=2)), "UNKNOWN_GAME"),
        (lambda: gateway.ListTables(gw.ListTablesRequest(game_id=long)), "UNKNOWN_GAME"),
        (
            lambda: gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2, options={long: "1"})),
            "BAD_OPTION",
        ),
        (
            lambda: gateway.CreateTable(
                gw.CreateTableRequest(game_id="borgia", player_count=2, options={"poisoned_dice": long})
            ),
            "BAD_OPTION",
        ),
        (
            lambda: gateway.CreateTable(
                gw.CreateTableRequest(game_id="borgia", player_count=2, bot_seats=[gw.BotSeat(seat=0, bot=long)])
            ),
            "UNKNOWN_BOT",
        ),
        (
            lambda: gateway.CreateTable(
                gw.CreateTableRequest(
                    game_id="borgia",
                    player_count=2,
                    decision_timer=gw.DecisionTimer(seconds=2**31 - 1, policy=gw.TIMEOUT_POLICY_RANDOM_ACTION),
                )
            ),
            "BAD_TIMER",
        ),
    ]
    for call, reason in calls:
        error = refused(call, reason)
        assert len(error.details()) < 200


def test_undecodable_requests_are_invalid_argument(channel, stack):
    bodies = {
        "GetTable": [b"\x0f\x01", b"\x0a\x02\xff\xfe", b"\x0a\xff"],  # garbage, a table id not UTF-8, truncated
        "ListTables": [b"\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"],
        "CreateTable": [b"\x1a\x05\x0a\x03\xc3\x28\x00"],
    }
    for method, raws in bodies.items():
        call = channel.unary_unary(f"{SERVICE}/{method}")
        for raw in raws:
            refused(lambda call=call, raw=raw: call(raw, timeout=5), "MALFORMED_REQUEST")
    stream = channel.unary_stream(f"{SERVICE}/SpectateTable")
    refused(lambda: stream(b"\x0f\x01", timeout=5), "MALFORMED_REQUEST")
    lines = [json.loads(line) for line in (stack.log_dir / "gateway.log").read_text().splitlines()]
    assert any(line["event"] == "malformed_request" for line in lines)
    # Every refused call is one INFO line saying what the client was told.
    assert any(
        line["event"] == "refused" and line["level"] == "info" and line["reason"] == "MALFORMED_REQUEST"
        for line in lines
    )


def test_a_game_end_is_one_info_line(gateway, stack, finished):
    lines = [json.loads(line) for line in (stack.log_dir / "gateway.log").read_text().splitlines()]
    ends = [line for line in lines if line["event"] == "game_finished" and line["table_id"] == finished.table_id]
    assert len(ends) == 1
    assert ends[0]["level"] == "info" and ends[0]["winners"] == list(finished.outcome.winners)


def test_every_line_of_every_process_is_json(stack):
    """The gateway, the rules services and the bot workers (Celery's own start-up and
    shutdown lines included) write one JSON object per line."""
    logs = sorted(stack.log_dir.glob("*.log"))
    assert {"gateway.log", "bot-worker.log"} <= {log.name for log in logs}
    for log in logs:
        for number, line in enumerate(log.read_text().splitlines(), 1):
            try:
                assert isinstance(json.loads(line), dict)
            except (ValueError, AssertionError):
                pytest.fail(f"{log.name}:{number} is not a JSON object: {line[:200]}")


def test_errors_name_what_they_are_about(gateway):
    table = HumanTable(gateway, players=3, seed=11)
    table.start()
    decider = table.decider()
    idle = next(seat for seat in table.tokens if seat != decider)
    action = table.view(decider).legal_actions[0].action
    version = table.table().version
    error = refused(
        lambda: table.submit(decider, action, expected_version=version - 1),
        "VERSION_MISMATCH",
        grpc.StatusCode.ABORTED,
    )
    metadata = details_of(error)[0].metadata
    assert metadata["table_id"] == table.table_id
    assert (metadata["expected_version"], metadata["current_version"]) == (str(version - 1), str(version))
    error = refused(lambda: table.submit(idle, action), "NOT_YOUR_DECISION", grpc.StatusCode.FAILED_PRECONDITION)
    assert details_of(error)[0].metadata["seat"] == str(idle)


def test_unavailable_carries_retry_info(redis_url, key_prefix, tmp_path):
    with (
        Stack(
            redis_url=redis_url,
            key_prefix=f"{key_prefix}-retry",
            games=(),
            external_rules={"borgia": f"127.0.0.1:{free_port()}"},  # nothing listens there
            with_worker=False,
            log_dir=tmp_path,
        ) as down,
        grpc.insecure_channel(down.gateway_address) as channel,
    ):
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        error = refused(
            lambda: stub.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)),
            "DEPENDENCY_UNAVAILABLE",
            grpc.StatusCode.UNAVAILABLE,
        )
        retry = details_of(error)[1]
        assert retry is not None and retry.retry_delay.ToNanoseconds() > 0

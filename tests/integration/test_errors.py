"""Bad input through the gateway: each gets its documented status code and reason
(../shared/DESIGN.md, gateway.proto) and leaves the table exactly as it was."""

from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from google.protobuf import any_pb2

from common import auth
from common.errors import reason_of
from tavola.borgia.v1 import borgia_pb2
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.conftest import HumanTable


def pack(message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def rejected(call, code: grpc.StatusCode, reason: str) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    assert reason_of(caught.value) == reason
    return caught.value


@pytest.fixture
def table(gateway) -> HumanTable:
    started = HumanTable(gateway, players=3, seed=11)
    started.start()
    return started


def snapshot(table: HumanTable) -> tuple:
    """Everything a rejected command must leave alone: version, log length, every view."""
    summary = table.table()
    views = tuple(table.view(seat).SerializeToString(deterministic=True) for seat in table.tokens)
    return summary.version, summary.last_seq, views


def test_unknown_table_is_not_found(gateway):
    rejected(
        lambda: gateway.GetTable(gw.GetTableRequest(table_id="0123456789abcdef")),
        grpc.StatusCode.NOT_FOUND,
        "TABLE_NOT_FOUND",
    )
    rejected(
        lambda: gateway.SubmitAction(
            gw.SubmitActionRequest(table_id="0123456789abcdef", action=pack(borgia_pb2.Action(call={}))),
            metadata=auth.metadata(auth.new_token()),
        ),
        grpc.StatusCode.NOT_FOUND,
        "TABLE_NOT_FOUND",
    )


def test_missing_token_is_unauthenticated(gateway, table):
    before = snapshot(table)
    request = gw.SubmitActionRequest(table_id=table.table_id, action=pack(borgia_pb2.Action(call={})))
    rejected(lambda: gateway.SubmitAction(request), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    rejected(
        lambda: gateway.GetView(gw.GetViewRequest(table_id=table.table_id)),
        grpc.StatusCode.UNAUTHENTICATED,
        "TOKEN_MISSING",
    )
    assert snapshot(table) == before


def test_wrong_token_is_permission_denied(gateway, table):
    before = snapshot(table)
    other = HumanTable(gateway, players=2, seed=3)  # a real token, but for another table
    decider = table.decider()
    legal = table.view(decider).legal_actions[0].action
    for token in (auth.new_token(), other.tokens[0]):  # a token of no seat, another table's
        rejected(
            lambda token=token: gateway.SubmitAction(
                gw.SubmitActionRequest(table_id=table.table_id, action=legal), metadata=auth.metadata(token)
            ),
            grpc.StatusCode.PERMISSION_DENIED,
            "TOKEN_NOT_FOR_TABLE",
        )
    assert snapshot(table) == before


def test_a_token_sees_and_acts_only_for_its_own_seat(table):
    for seat in table.tokens:
        assert table.view(seat).seat == seat


def test_acting_out_of_turn_is_failed_precondition(table):
    before = snapshot(table)
    decider = table.decider()
    idle = next(seat for seat in table.tokens if seat != decider)
    action = table.view(decider).legal_actions[0].action
    rejected(lambda: table.submit(idle, action), grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_DECISION")
    assert snapshot(table) == before


def test_malformed_action_is_invalid_argument(table):
    before = snapshot(table)
    decider = table.decider()
    wrong_type = pack(gw.Table(table_id="not an action"))
    garbage = any_pb2.Any(type_url="type.googleapis.com/tavola.borgia.v1.Action", value=b"\xff\xff\xff")
    empty_oneof = pack(borgia_pb2.Action())
    for action in (wrong_type, garbage, empty_oneof):
        rejected(
            lambda action=action: table.submit(decider, action), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_ACTION"
        )
    rejected(lambda: table.submit(decider, any_pb2.Any()), grpc.StatusCode.INVALID_ARGUMENT, "ACTION_REQUIRED")
    assert snapshot(table) == before


def test_illegal_action_is_failed_precondition(table):
    """The first decision of a round is a bid (B3, B4): calling now is not legal, nor is a
    bid of FATE or of more dice than are in play."""
    before = snapshot(table)
    decider = table.decider()
    illegal = [
        borgia_pb2.Action(call={}),
        borgia_pb2.Action(bid=borgia_pb2.Bid(count=99, action=borgia_pb2.ACTION_KIND_POISON)),
        borgia_pb2.Action(bribe=borgia_pb2.BribeAction(cardinal=1, direction=1)),
    ]
    for action in illegal:
        rejected(
            lambda action=action: table.submit(decider, pack(action)),
            grpc.StatusCode.FAILED_PRECONDITION,
            "ILLEGAL_ACTION",
        )
    assert snapshot(table) == before


def test_stale_expected_version_is_aborted(table):
    before = snapshot(table)
    decider = table.decider()
    action = table.view(decider).legal_actions[0].action
    version = table.table().version
    rejected(
        lambda: table.submit(decider, action, expected_version=version - 1),
        grpc.StatusCode.ABORTED,
        "VERSION_MISMATCH",
    )
    assert snapshot(table) == before
    accepted = table.submit(decider, action, expected_version=version)
    assert accepted.table.version == version + 1


def test_repeated_request_id_replays_and_changes_nothing(table):
    decider = table.decider()
    legal = table.view(decider).legal_actions
    first = table.submit(decider, legal[0].action, request_id="r-1")
    after_first = snapshot(table)
    again = table.submit(decider, legal[0].action, request_id="r-1")
    assert again.replayed and not first.replayed
    assert again.table.version == first.table.version
    assert again.table == first.table  # its update time too, read back from the log
    assert list(again.events) == list(first.events)
    assert snapshot(table) == after_first


def test_request_id_reused_for_another_action_is_already_exists(table):
    decider = table.decider()
    legal = table.view(decider).legal_actions
    table.submit(decider, legal[0].action, request_id="r-2")
    after = snapshot(table)
    rejected(
        lambda: table.submit(decider, legal[1].action, request_id="r-2"),
        grpc.StatusCode.ALREADY_EXISTS,
        "REQUEST_ID_REUSED",
    )
    assert snapshot(table) == after


def test_bad_table_settings_are_invalid_argument(gateway):
    cases = [
        (gw.CreateTableRequest(game_id="chess", player_count=2), "UNKNOWN_GAME"),
        (gw.CreateTableRequest(game_id="borgia", player_count=7), "BAD_PLAYER_COUNT"),
        (gw.CreateTableRequest(game_id="borgia", player_count=3, options={"colour": "red"}), "UNKNOWN_OPTION"),
        (gw.CreateTableRequest(game_id="borgia", player_count=3, options={"poisoned_dice": "maybe"}), "INVALID_CONFIG"),
        (
            gw.CreateTableRequest(game_id="borgia", player_count=3, bot_seats=[gw.BotSeat(seat=5, bot="random")]),
            "BAD_SEAT",
        ),
        (
            gw.CreateTableRequest(game_id="borgia", player_count=3, bot_seats=[gw.BotSeat(seat=0, bot="oracle")]),
            "UNKNOWN_BOT",
        ),
    ]
    for request, reason in cases:
        rejected(lambda request=request: gateway.CreateTable(request), grpc.StatusCode.INVALID_ARGUMENT, reason)


def test_acting_before_the_start_is_failed_precondition(gateway):
    waiting = HumanTable(gateway, players=2, seed=5)
    rejected(lambda: waiting.view(0), grpc.StatusCode.FAILED_PRECONDITION, "TABLE_NOT_STARTED")
    rejected(
        lambda: waiting.submit(0, pack(borgia_pb2.Action(call={}))),
        grpc.StatusCode.FAILED_PRECONDITION,
        "TABLE_NOT_STARTED",
    )
    assert waiting.table().version == 3  # created, then two seats taken


def test_seats_and_start_are_checked(gateway):
    partial = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2, seed=1))
    table_id, host = partial.table.table_id, partial.host_token
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=0))
    rejected(
        lambda: gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=0)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "SEAT_TAKEN",
    )
    rejected(
        lambda: gateway.StartTable(gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(host)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "SEATS_OPEN",
    )
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id))
    rejected(
        lambda: gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "TABLE_FULL",
    )
    gateway.StartTable(gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(host))
    rejected(
        lambda: gateway.StartTable(gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(host)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "TABLE_IN_PROGRESS",
    )


def test_concurrent_submissions_at_one_version_apply_once(table):
    """The compare-and-set on the version: of eight racing submissions made at the same
    version, exactly one is applied and the others are ABORTED with nothing written."""
    decider = table.decider()
    view = table.view(decider)
    version, last_seq = view.table.version, view.table.last_seq
    actions = [legal.action for legal in view.legal_actions[:8]]

    def attempt(action):
        try:
            return table.submit(decider, action, expected_version=version)
        except grpc.RpcError as error:
            return error

    with ThreadPoolExecutor(len(actions)) as pool:
        results = list(pool.map(attempt, actions))
    applied = [r for r in results if not isinstance(r, grpc.RpcError)]
    refused = [r for r in results if isinstance(r, grpc.RpcError)]
    assert len(applied) == 1
    assert all(r.code() == grpc.StatusCode.ABORTED and reason_of(r) == "VERSION_MISMATCH" for r in refused)
    after = table.table()
    assert after.version == version + 1
    # A bid's events are public (B3), so the bidder's response shows every new log entry.
    assert after.last_seq == last_seq + len(applied[0].events)


def test_oversized_names_and_request_ids_are_invalid_argument(gateway, table):
    before = snapshot(table)
    decider = table.decider()
    action = table.view(decider).legal_actions[0].action
    rejected(
        lambda: table.submit(decider, action, request_id="r" * 129), grpc.StatusCode.INVALID_ARGUMENT, "BAD_REQUEST_ID"
    )
    assert snapshot(table) == before
    waiting = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table
    rejected(
        lambda: gateway.TakeSeat(gw.TakeSeatRequest(table_id=waiting.table_id, display_name="n" * 65)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_DISPLAY_NAME",
    )
    assert gateway.GetTable(gw.GetTableRequest(table_id=waiting.table_id)).table.version == waiting.version


def test_racing_copies_of_one_request_all_get_the_first_response(table):
    """Idempotency as documented: 64 identical submissions at once (same request id, action
    and expected_version) apply once, and every copy gets the applied response, none a
    VERSION_MISMATCH, because a retry finds its stored response before any version check."""
    decider = table.decider()
    view = table.view(decider)
    version = view.table.version
    action = view.legal_actions[0].action

    def attempt(_):
        try:
            return table.submit(decider, action, expected_version=version, request_id="same-request")
        except grpc.RpcError as error:
            return error

    with ThreadPoolExecutor(64) as pool:
        results = list(pool.map(attempt, range(64)))
    failures = [r for r in results if isinstance(r, grpc.RpcError)]
    assert not failures, [(r.code(), reason_of(r)) for r in failures]
    assert sum(not r.replayed for r in results) == 1
    first = results[0]
    assert all(r.table.version == version + 1 and list(r.events) == list(first.events) for r in results)
    assert table.table().version == version + 1

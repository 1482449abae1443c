"""Oversized requests (issue: any anonymous client could make the gateway hold megabytes
per refused call): each public method has a byte limit, a request over it is refused
before it is decoded, and a refused request holds nothing once answered."""

import concurrent.futures
import time

import grpc
import psutil
import pytest

from common.errors import details_of, reason_of
from gateway.limits import DEFAULT_BYTES, METHOD_BYTES
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc

# A client that may send what the gateway must refuse.
BIG_SENDER = [("grpc.max_send_message_length", 8 << 20)]


@pytest.fixture(scope="module")
def big_stub(stack):
    with grpc.insecure_channel(stack.gateway_address, options=BIG_SENDER) as channel:
        yield gateway_pb2_grpc.GatewayServiceStub(channel)


@pytest.fixture(scope="module")
def open_table(gateway) -> str:
    return gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=3)).table.table_id


def test_a_request_over_its_method_limit_is_refused_with_a_reason(big_stub, open_table):
    name = "x" * (DEFAULT_BYTES + 100)  # over TakeSeat's limit, under the server's
    with pytest.raises(grpc.RpcError) as caught:
        big_stub.TakeSeat(gw.TakeSeatRequest(table_id=open_table, display_name=name))
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason_of(caught.value) == "REQUEST_TOO_LARGE"
    info, _ = details_of(caught.value)
    assert info.metadata["limit"] == str(DEFAULT_BYTES)


def test_a_create_table_may_be_larger_than_the_default(gateway):
    # Every option at its longest fits CreateTable's own limit.
    options = {f"o{index:02d}": "v" * 200 for index in range(20)}
    request = gw.CreateTableRequest(game_id="borgia", player_count=3, options=options)
    assert DEFAULT_BYTES < request.ByteSize() < METHOD_BYTES["CreateTable"]
    with pytest.raises(grpc.RpcError) as caught:
        gateway.CreateTable(request)
    assert reason_of(caught.value) == "UNKNOWN_OPTION"  # decoded and checked, not refused for size


def test_megabyte_requests_are_refused_before_python(big_stub, open_table):
    with pytest.raises(grpc.RpcError) as caught:
        big_stub.TakeSeat(gw.TakeSeatRequest(table_id=open_table, display_name="x" * 3_900_000))
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_300_oversized_requests_leave_the_gateways_memory_where_it_was(stack, gateway, big_stub, open_table):
    """300 refused 3.9 MB requests, 50 at once: the gateway's RSS stays within 50 MB of
    where it started, and a player's reads still answer (bounded: 300 calls, 60 s)."""
    process = psutil.Process(next(p.popen.pid for p in stack.processes if p.name.startswith("gateway")))
    before = process.memory_info().rss
    name = "x" * 3_900_000

    def oversized(_: int) -> grpc.StatusCode:
        try:
            big_stub.TakeSeat(gw.TakeSeatRequest(table_id=open_table, display_name=name), timeout=30)
        except grpc.RpcError as error:
            return error.code()
        return grpc.StatusCode.OK

    with concurrent.futures.ThreadPoolExecutor(50) as pool:
        started = time.monotonic()
        codes = set(pool.map(oversized, range(300)))
    assert codes == {grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert time.monotonic() - started < 60
    gateway.GetTable(gw.GetTableRequest(table_id=open_table), timeout=5)
    grown = process.memory_info().rss - before
    assert grown < 50 << 20, f"the gateway grew by {grown >> 20} MB"

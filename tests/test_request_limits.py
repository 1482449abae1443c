"""The gateway's per-method request limits and its handlers' hold on refused requests."""

import asyncio
import gc
import weakref

import grpc
import pytest

from common.errors import ApiError
from gateway.handlers import unary_rpc
from gateway.limits import DEFAULT_BYTES, RequestLimits, parse_limits
from tavola.gateway.v1 import gateway_pb2 as gw


def test_limits_parse_and_default():
    assert parse_limits("CreateTable=100, SubmitAction=200,") == {"CreateTable": 100, "SubmitAction": 200}
    for bad in ("CreateTable", "CreateTable=", "CreateTable=-1", "CreateTable=0", "CreateTable=1k"):
        with pytest.raises(ValueError, match="TAVOLA_REQUEST_LIMITS"):
            parse_limits(bad)
    limits = RequestLimits.from_env({"TAVOLA_REQUEST_LIMITS": "GetView=100"})
    assert limits.of("GetView") == 100
    assert limits.of("TakeSeat") == DEFAULT_BYTES
    assert limits.largest() == limits.of("CreateTable") > DEFAULT_BYTES


class Aborted(Exception):
    pass


class Context:
    """What the handler needs of a grpc.aio context: abort raises, as grpc.aio's does."""

    def __init__(self):
        self.status = None

    async def abort_with_status(self, status):
        self.status = status
        raise Aborted()

    def invocation_metadata(self):
        return ()


class Held:
    """Something a failing command holds in its frame while it fails."""


def test_a_refused_request_is_let_go_without_a_garbage_collection():
    held: list[weakref.ref] = []

    async def TakeSeat(request, context):
        big = Held()
        held.append(weakref.ref(big))
        raise ApiError(grpc.StatusCode.INVALID_ARGUMENT, "BAD_DISPLAY_NAME", "no")

    handler = unary_rpc(TakeSeat, gw.TakeSeatRequest, limit=DEFAULT_BYTES)
    context = Context()
    gc.disable()
    try:
        with pytest.raises(Aborted):
            asyncio.run(handler(gw.TakeSeatRequest(table_id="0123456789abcdef").SerializeToString(), context))
        assert held and held[0]() is None, "the failed command's frame outlived the call"
    finally:
        gc.enable()
    assert context.status.code == grpc.StatusCode.INVALID_ARGUMENT


def test_a_request_over_the_limit_is_not_decoded():
    calls = []

    async def TakeSeat(request, context):
        calls.append(request)

    handler = unary_rpc(TakeSeat, gw.TakeSeatRequest, limit=10)
    context = Context()
    with pytest.raises(Aborted):
        asyncio.run(handler(gw.TakeSeatRequest(display_name="x" * 20).SerializeToString(), context))
    assert not calls
    assert context.status.code == grpc.StatusCode.RESOURCE_EXHAUSTED

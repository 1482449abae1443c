"""Open streams are counted per client in the gateway's memory: event streams (WatchTable,
SpectateTable, FindGame) and action streams (a bot worker's SubmitActions) apart, so that
the workers on a host take no place of the people who share its address, nor they theirs."""

import grpc
import pytest

from common.errors import ApiError
from gateway.quotas import ACTION_STREAMS, STREAMS, Client, Limits, Quotas


def quotas(streams: int, action_streams: int) -> Quotas:
    # The stream counts live in memory: no Redis is asked.
    return Quotas(None, "test", Limits(streams=streams, action_streams=action_streams))  # type: ignore[arg-type]


def refused(quotas: Quotas, client: Client, quota: str) -> str:
    with pytest.raises(ApiError) as caught, quotas.stream(client, quota):
        pass
    assert caught.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    return caught.value.metadata["quota"]


def test_event_and_action_streams_are_counted_apart():
    limits = quotas(streams=1, action_streams=2)
    client = Client("p-host")
    with limits.stream(client), limits.stream(client, ACTION_STREAMS), limits.stream(client, ACTION_STREAMS):
        assert refused(limits, client, STREAMS) == "open_streams"
        assert refused(limits, client, ACTION_STREAMS) == "open_action_streams"
        with limits.stream(Client("p-other")):  # another address has its own places
            pass
    with limits.stream(client), limits.stream(client, ACTION_STREAMS):  # closed ones free their places
        pass
    assert not limits.open


def test_a_limit_of_zero_counts_nothing():
    limits = quotas(streams=0, action_streams=0)
    client = Client("p-host")
    with limits.stream(client), limits.stream(client, ACTION_STREAMS):
        assert not limits.open

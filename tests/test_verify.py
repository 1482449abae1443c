"""The verifier says in words why a log does not replay (never a Python error's repr)."""

import asyncio

import pytest
from google.protobuf import any_pb2

from services.verify import ReplayRefused, _hex, _replay
from tavola.gateway.v1 import gateway_pb2 as gw


def test_an_action_the_rules_refuse_is_named_in_words():
    table = gw.Table(game_id="borgia", player_count=2)
    with pytest.raises(ReplayRefused, match=r"logged action 1 of 1 \(seat 7\) is not legal in the game dealt"):
        asyncio.run(_replay(table, 42, [(7, any_pb2.Any())]))


def test_options_that_deal_no_game_are_named_in_words():
    table = gw.Table(game_id="borgia", player_count=2, options={"no_such_option": "1"})
    with pytest.raises(ReplayRefused, match="the table's options deal no game"):
        asyncio.run(_replay(table, 42, []))


def test_a_recorded_commitment_is_64_hex_digits():
    assert _hex("ab" * 32) == bytes.fromhex("ab" * 32)
    for bad in ("ab" * 31, "zz" * 32, ""):
        with pytest.raises(Exception, match="64 hex digits"):
            _hex(bad)

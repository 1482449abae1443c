"""The derived codec (services/engine/codec.py) for a game with one kind of action and one
kind of event, such as the example coin game (tests/example_game/proto/coin.proto): its
``Action`` and ``Event`` are a oneof of a single member, and the engine's action is one
dataclass, not a union. ``Schema.union`` took only unions, so every such action was refused
with a TypeError."""

from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.message_factory import GetMessageClass
from grpc_tools import protoc

from services.engine.codec import Schema

PROTO = Path(__file__).resolve().parent / "example_game" / "proto"


class Face(IntEnum):
    HEADS = 1
    TAILS = 2


@dataclass(frozen=True)
class Guess:
    face: Face


@dataclass(frozen=True)
class Guessed:
    seat: int
    face: Face


@pytest.fixture(scope="module")
def coin(tmp_path_factory):
    """coin.proto's messages by name, from a pool of their own (not the default pool)."""
    out = tmp_path_factory.mktemp("coin") / "coin.pb"
    assert protoc.main(["protoc", f"-I{PROTO}", f"--descriptor_set_out={out}", "coin.proto"]) == 0
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file:
        pool.Add(file)
    return lambda name: GetMessageClass(pool.FindMessageTypeByName(f"tavola.coin.v1.{name}"))


def test_an_action_of_a_game_with_one_kind_of_action_is_encoded_and_decoded(coin):
    action = coin("Action")
    union = Schema().union(Guess, action)
    data = union.to_bytes(Guess(Face.TAILS))
    assert data == action(guess=coin("Guess")(face=2)).SerializeToString()
    assert union.from_proto(action.FromString(data)) == Guess(Face.TAILS)


def test_an_event_of_a_game_with_one_kind_of_event_round_trips(coin):
    union = Schema().union(Guessed, coin("Event"))
    message = union.to_proto(Guessed(seat=1, face=Face.HEADS))
    assert message.guessed.seat == 1 and message.guessed.face == 1
    assert union.from_proto(message) == Guessed(seat=1, face=Face.HEADS)


def test_a_value_of_another_class_is_still_refused(coin):
    with pytest.raises(TypeError, match=r"not a tavola\.coin\.v1\.Action"):
        Schema().union(Guess, coin("Action")).to_bytes(Guessed(seat=0, face=Face.HEADS))

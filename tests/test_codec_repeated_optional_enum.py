"""The derived codec (services/engine/codec.py) on a repeated optional enum,
``tuple[Face | None, ...]`` <-> ``repeated Face``: None is written as the enum's UNSPECIFIED
(0) and read back as None. Building such a codec failed with a TypeError (``int(None)``
while checking whether the engine's numbers were the proto's)."""

from dataclasses import dataclass
from enum import IntEnum

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.message_factory import GetMessageClass

from services.engine.codec import Schema

FIELD = descriptor_pb2.FieldDescriptorProto


class Face(IntEnum):
    HEADS = 1
    TAILS = 2


@dataclass(frozen=True)
class Roll:
    faces: tuple[Face | None, ...]


@dataclass(frozen=True)
class Pair:
    faces: tuple[Face | None, Face | None]


@dataclass(frozen=True)
class Strict:
    faces: tuple[Face, ...]


def _messages(numbers: dict[str, int]):
    """Messages Roll, Pair and Strict (each ``repeated Face faces = 1``) from a pool of their
    own, the enum Face numbered as ``numbers`` says."""
    file = descriptor_pb2.FileDescriptorProto(name="dice_test.proto", package="dicetest", syntax="proto3")
    enum = file.enum_type.add(name="Face")
    for name, number in {"FACE_UNSPECIFIED": 0, **numbers}.items():
        enum.value.add(name=name, number=number)
    for message in ("Roll", "Pair", "Strict"):
        file.message_type.add(name=message).field.add(
            name="faces", number=1, type=FIELD.TYPE_ENUM, type_name=".dicetest.Face", label=FIELD.LABEL_REPEATED
        )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return lambda name: GetMessageClass(pool.FindMessageTypeByName(f"dicetest.{name}"))


NUMBERINGS = {
    "same numbers": {"FACE_HEADS": 1, "FACE_TAILS": 2},
    "other numbers": {"FACE_TAILS": 3, "FACE_HEADS": 4},
}


@pytest.mark.parametrize("numbering", sorted(NUMBERINGS))
def test_none_in_a_repeated_enum_is_unspecified_and_round_trips(numbering):
    messages = _messages(NUMBERINGS[numbering])
    roll = messages("Roll")
    mapper = Schema().mapper(Roll, roll)
    value = Roll((Face.HEADS, None, Face.TAILS, None))
    data = mapper.to_bytes(value)
    heads, tails = NUMBERINGS[numbering]["FACE_HEADS"], NUMBERINGS[numbering]["FACE_TAILS"]
    # written as protobuf's own serializer writes it
    assert data == roll(faces=[heads, 0, tails, 0]).SerializeToString()
    assert mapper.from_proto(roll.FromString(data)) == value
    assert mapper.from_proto(roll()) == Roll(())


def test_a_fixed_length_tuple_of_optional_enums_round_trips():
    pair = _messages(NUMBERINGS["same numbers"])("Pair")
    mapper = Schema().mapper(Pair, pair)
    for value in (Pair((None, Face.TAILS)), Pair((Face.HEADS, None)), Pair((None, None))):
        assert mapper.from_proto(pair.FromString(mapper.to_bytes(value))) == value
    with pytest.raises(ValueError, match="takes 2 entries"):
        mapper.from_proto(pair(faces=[1]))


def test_a_required_element_still_refuses_unspecified():
    strict = _messages(NUMBERINGS["same numbers"])("Strict")
    mapper = Schema().mapper(Strict, strict)
    assert mapper.from_proto(strict(faces=[2, 1])) == Strict((Face.TAILS, Face.HEADS))
    with pytest.raises(ValueError, match=r"bad Strict\.faces value 0"):
        mapper.from_proto(strict(faces=[1, 0]))

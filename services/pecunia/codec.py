"""Pecunia non olet values <-> ``tavola.pecunia.v1`` protos (the Codec protocol), derived by
field name (services.engine.codec); only the places where the shapes differ are spelled here.

Enums match by member name: the engine's 0-based ``SeatPos.LEFT`` is ``SEAT_POSITION_LEFT``
(1), and ``EndReason.NONE`` is ``END_REASON_UNSPECIFIED``.
"""

from __future__ import annotations

from typing import Any

from services.engine.codec import Columns, DerivedCodec, Schema, Shape
from services.engine.errors import MalformedAction
from services.pecunia import model as m
from tavola.pecunia.v1 import pecunia_pb2 as pb


def _latrine_out(player: m.PlayerView) -> list[pb.LatrineSeat]:
    return [
        pb.LatrineSeat(position=_SEAT[position], romans=[_SEATED.to_proto(r) for r in stack])
        for position, stack in zip(m.SeatPos, player.latrine, strict=True)
    ]


def _latrine_in(message: Any) -> tuple[tuple[m.SeatedView, ...], ...]:
    if [seat.position for seat in message.latrine] != [_SEAT[position] for position in m.SeatPos]:
        raise ValueError("a latrine has exactly three seats: LEFT, MIDDLE, RIGHT")
    return tuple(tuple(_SEATED.from_proto(r) for r in seat.romans) for seat in message.latrine)


_RENAME = {"villa": "villa_dixius", "reorder": "reorder_placed"}

SCHEMA = Schema(
    {
        m.PecuniaState: Shape(
            rename=_RENAME,
            columns={
                "players": Columns(
                    ("seats", "queues", "hands", "coins"),
                    shape=Shape(rename={"queues": "queue", "hands": "hand", "coins": "sesterces"}),
                )
            },
        ),
        m.PecuniaView: Shape(rename=_RENAME),
        m.PlayerView: Shape(
            flags={"hand": ("hand_visible", False)},
            encode={"latrine": _latrine_out},
            decode={"latrine": _latrine_in},
        ),
    },
    enum_aliases={m.EndReason.NONE: pb.END_REASON_UNSPECIFIED},
)
_SEAT, _ = SCHEMA.enum(m.SeatPos, pb.SeatPosition)
_SEATED = SCHEMA.mapper(m.SeatedView, pb.SeatedRoman)


def _not_negative(action: m.PecuniaAction, *numbers: int) -> None:
    if any(number < 0 for number in numbers):
        raise MalformedAction(f"{type(action).__name__}: negative number")


def _slot(action: m.PecuniaAction, slot: int) -> None:
    if slot not in (0, 1):
        raise MalformedAction(f"{type(action).__name__}: slot must be 0 or 1, not {slot}")


def check_action(action: m.PecuniaAction) -> None:
    """What a well-formed action needs beyond its types."""
    match action:
        case m.PlayCastorOil(slot=slot, amount=amount):
            if amount not in (1, 2):
                raise MalformedAction(f"castor oil removes 1 or 2 round markers, not {amount}")
            _slot(action, slot)
        case m.PlayFishPoisoning(target=target, slot=slot) | m.PlayEviction(target=target, slot=slot):
            _not_negative(action, target)
            _slot(action, slot)
        case m.PlayQueueJumper(index=number) | m.PickNext(index=number):
            _not_negative(action, number)
        case m.PlaySpecialTax(target=number) | m.PlayPoaching(target=number) | m.PlaySenateMeeting(target=number):
            _not_negative(action, number)
        case m.PlaySwap(index=index, target=target, target_index=target_index):
            _not_negative(action, index, target, target_index)


class PecuniaCodec(DerivedCodec):
    def __init__(self) -> None:
        super().__init__(
            SCHEMA,
            state=(m.PecuniaState, pb.GameState),
            view=(m.PecuniaView, pb.View),
            action=(m.PecuniaAction, pb.Action),
            event=(m.PecuniaEvent, pb.Event),
            check_action=check_action,
        )

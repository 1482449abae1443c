"""House of Borgia values <-> tavola.borgia.v1 protos, derived by field name
(services.engine.codec); only the places where the shapes differ are spelled here.

Proto enums match the engine's by member name (``Cardinal.MEDICI`` <-> ``CARDINAL_MEDICI``,
a bid's ``Face`` <-> ``ActionKind``); an UNSPECIFIED Cardinal in an optional slot (antipope,
pope, returned rumor) means "none".
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from services.borgia.model import (
    CARDINALS,
    ActionPerformed,
    BidMade,
    BorgiaAction,
    BorgiaEvent,
    BorgiaState,
    BorgiaView,
    Cardinal,
    DiceRevealed,
    FinalResult,
    GameStarted,
    JudgementSplit,
    PuppetsDealt,
    RollOff,
    RoundStarted,
    Rumor,
    SeatRoll,
    SeatView,
)
from services.engine.codec import Columns, DerivedCodec, Schema, Shape
from tavola.borgia.v1 import borgia_pb2 as pb

VARIANTS = ("shadow_puppets", "flame_of_thy_tongue", "poisoned_dice")
_CARD: dict[Any, Any]  # Cardinal -> proto number, and back (set from the schema below)
_card: Callable[[int], Cardinal]


def _influence_out(value: Any) -> tuple[bytes, ...]:
    return _influence_entries(value.influence)


@functools.lru_cache(maxsize=1024)
def _influence_entries(influence: tuple[int, ...]) -> tuple[bytes, ...]:
    """Each cardinal's entry, serialized once per distinct influence (few actions change it)."""
    entries = (pb.CardinalInfluence(cardinal=_CARD[c], influence=influence[c]) for c in CARDINALS)
    return tuple(entry.SerializeToString() for entry in entries)


def _influence_in(message: Any) -> tuple[int, ...]:
    values = {_card(entry.cardinal): entry.influence for entry in message.influence}
    return tuple(values[c] for c in CARDINALS)


def _view_influence_in(message: Any) -> tuple[int, ...]:
    # Lenient where a view leaves a cardinal out: no entry means no influence.
    values = {_card(entry.cardinal): entry.influence for entry in message.influence}
    return tuple(values.get(c, 0) for c in CARDINALS)


def _not_hidden(_: Any) -> bool:
    return False


SCHEMA = Schema(
    {
        BorgiaState: Shape(
            rename={"round_starter": "round_starter_seat", "active": "active_seat"},
            groups={"variants": VARIANTS},
            columns={"seats": Columns(("dice", "puppets", "rumors", "performed"))},
            encode={"influence": _influence_out},
            decode={"influence": _influence_in},
        ),
        BorgiaView: Shape(
            rename={
                "viewer": "viewer_seat",
                "responder": "responder_seat",
                "bidder": "bidder_seat",
                "round_starter": "round_starter_seat",
                "active": "active_seat",
            },
            groups={"variants": VARIANTS},
            encode={"influence": _influence_out},
            decode={"influence": _view_influence_in},
        ),
        SeatView: Shape(flags={"dice": ("dice_hidden", True), "puppets": ("puppets_hidden", True)}),
        FinalResult: Shape(
            rename={"eliminated": "eliminated_seats"},
            columns={"puppets": Columns(("puppets",), index="seat", shape=Shape(encode={"hidden": _not_hidden}))},
            encode={"influence": _influence_out},
            decode={"influence": _influence_in},
        ),
        JudgementSplit: Shape(
            encode={
                "source_a": lambda a: _CARD[a.sources[0]],
                "source_b": lambda a: _CARD[a.sources[1]],
                "target_a": lambda a: _CARD[a.targets[0]],
                "target_b": lambda a: _CARD[a.targets[1]],
            },
            decode={
                "sources": lambda m: (_card(m.source_a), _card(m.source_b)),
                "targets": lambda m: (_card(m.target_a), _card(m.target_b)),
            },
        ),
        Rumor: Shape(rename={"target": "target_seat"}),
        GameStarted: Shape(groups={"variants": VARIANTS}),
        PuppetsDealt: Shape(
            columns={"seats": Columns(("puppets",), index="seat", shape=Shape(flags={"puppets": ("hidden", True)}))}
        ),
        SeatRoll: Shape(encode={"count": lambda roll: len(roll.faces), "hidden": _not_hidden}),
        RollOff: Shape(rename={"starter": "starter_seat"}),
        RoundStarted: Shape(
            rename={"starter": "starter_seat"},
            columns={
                "dice": Columns(
                    ("dice_counts", "dice"),
                    index="seat",
                    shape=Shape(rename={"dice_counts": "count", "dice": "faces"}, flags={"dice": ("hidden", True)}),
                )
            },
        ),
        BidMade: Shape(groups={"bid": ("count", "action")}),
        DiceRevealed: Shape(
            rename={"bidder": "bidder_seat", "caller": "caller_seat"},
            columns={
                "dice": Columns(
                    ("dice",),
                    index="seat",
                    shape=Shape(
                        rename={"dice": "faces"}, encode={"count": lambda row: len(row.dice), "hidden": _not_hidden}
                    ),
                )
            },
        ),
        ActionPerformed: Shape(columns={"rumors": Columns(("rumors",), index="seat")}),
    }
)
_CARD, _card = SCHEMA.enum(Cardinal, pb.Cardinal)


class BorgiaCodec(DerivedCodec):
    def __init__(self) -> None:
        super().__init__(
            SCHEMA,
            state=(BorgiaState, pb.GameState),
            view=(BorgiaView, pb.View),
            action=(BorgiaAction, pb.Action),
            event=(BorgiaEvent, pb.Event),
        )

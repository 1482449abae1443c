"""Il Trono di Mortadella: engine values <-> tavola.mortadella.v1 proto messages, derived by
field name (services.engine.codec); only the places where the shapes differ are spelled here.

Python enums share their names and numbers with the proto enums; ``None`` is the proto's 0
(UNSPECIFIED) for enums and an unset ``optional`` for seats.
"""

from __future__ import annotations

from services.engine.codec import Columns, DerivedCodec, Schema, Shape
from services.engine.errors import MalformedAction
from services.mortadella import model as m
from tavola.mortadella.v1 import mortadella_pb2 as pb

# Fields named for what they hold in the proto, shorter in the engine.
_DICE = {
    "active": "active_seat",
    "passed": "passed_dice",
    "kept": "kept_passed",
    "chosen": "chosen_dice",
    "unchosen": "unchosen_dice",
    "remaining": "remaining_dice",
    "waiting": "waiting_seats",
}

SCHEMA = Schema(
    {
        m.State: Shape(
            rename={**_DICE, "undealt": "undealt_roles"},
            columns={
                "seats": Columns(
                    ("roles", "tokens", "in_game", "skip_turn", "removed_roles"), shape=Shape(rename={"roles": "role"})
                )
            },
        ),
        m.View: Shape(rename={**_DICE, "deciders": "deciding_seats"}),
        m.StartRoll: Shape(
            columns={"entries": Columns(("seats", "rolls"), shape=Shape(rename={"seats": "seat", "rolls": "dice"}))}
        ),
        m.TurnStarted: Shape(rename={"passed": "passed_dice"}),
        m.DiceRolled: Shape(rename={"kept": "kept_passed"}),
        m.GameEnded: Shape(
            columns={
                "revealed": Columns(("roles", "removed_roles"), index="seat", shape=Shape(rename={"roles": "role"}))
            }
        ),
    }
)


def _symbol(symbol: m.Symbol, allowed: tuple[m.Symbol, ...]) -> None:
    if symbol not in allowed:
        raise MalformedAction(f"symbol {symbol.name} makes no sense here")


def _seat(seat: int) -> None:
    if seat < 0:
        raise MalformedAction(f"no such seat: {seat}")


def check_action(action: m.Action) -> None:
    """What a well-formed action needs beyond its types."""
    match action:
        case m.ChooseStartToken(symbol=symbol):
            _symbol(symbol, m.TOKEN_SYMBOLS)
        case m.GuessRole(target=target) | m.ChooseTarget(target=target):
            _seat(target)
        case m.ChooseDice(symbols=symbols):
            if len(symbols) != 3:
                raise MalformedAction("choose exactly three dice")
        case m.ResolveEffect(dice=dice):
            if len(dice) not in (1, 2):
                raise MalformedAction("resolve one die or two")
        case m.ChooseRevolution(target=target, symbol=symbol):
            _seat(target)
            _symbol(symbol, (m.Symbol.TOWER, m.Symbol.BOOK))
        case m.PlagueDiscard(symbol=symbol):
            _symbol(symbol, (m.Symbol.PEOPLE, m.Symbol.TOWER))
        case m.StealFrom(victim=victim):
            _seat(victim)


class MortadellaCodec(DerivedCodec):
    """The Codec protocol for Il Trono di Mortadella (services.engine.api.Codec)."""

    def __init__(self) -> None:
        super().__init__(
            SCHEMA,
            state=(m.State, pb.GameState),
            view=(m.View, pb.View),
            action=(m.Action, pb.Action),
            event=(m.Event, pb.Event),
            check_action=check_action,
        )


CODEC = MortadellaCodec()

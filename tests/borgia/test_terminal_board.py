"""The terminal's Borgia board shows what each seat last performed (public, B5): what a
player needs to read the others' puppets, as the bots do."""

import io

from rich.console import Console

from clients.terminal.renderers.base import TableContext
from clients.terminal.renderers.borgia import RENDERER
from services.borgia import GAME
from services.borgia.model import Accuse, Bribe, Direction, Poison
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.borgia.test_rules import BORGIA, COLONNA, ORSINI, make_state


def board_text(state, seat: int) -> str:
    view = GAME.codec.view_to_proto(GAME.engine.view(state, seat))
    table = gw.Table(seats=[gw.Seat(seat=0, display_name="Ada"), gw.Seat(seat=1, display_name="Bea")])
    console = Console(record=True, width=220, file=io.StringIO())
    console.print(RENDERER.board(view, TableContext.of(table, seat)))
    return console.export_text()


def test_b5_the_board_shows_each_seat_s_last_two_performs():
    performed = ((), (Accuse(COLONNA), Poison(BORGIA, BORGIA), Bribe(ORSINI, Direction.TOP)))
    text = board_text(make_state(2, performed=performed), 0)
    assert "last performed" in text
    bea = next(line for line in text.splitlines() if "Bea" in line and "Bribe" in line)
    assert "Poison: 2 from Borgia; Bribe: Orsini to the top" in bea
    assert "Accusation" not in bea, "only the last two; the event log keeps the rest"


def test_b4_after_an_allow_the_header_names_the_bidder_not_the_allower():
    """The bid on the table is still Bea's while Ada, who allowed it, bids next (B4)."""
    from services.borgia.model import Allow, Bid, Face

    engine = GAME.engine
    state = next(s for seed in range(50) if (s := engine.new_game(2, {}, seed)[0]).active == 1)  # Bea bids first
    state, _ = engine.apply(state, 1, Bid(1, Face.BRIBE))
    state, _ = engine.apply(state, 0, Allow())
    state, _ = engine.apply(state, 1, engine.legal_actions(state, 1)[0])
    assert state.active == 0
    text = board_text(state, 0)
    assert "Bid on the table: 1 x Bribe by Bea." in text, text

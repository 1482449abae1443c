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


def test_b2_at_100_columns_each_seat_is_one_line_with_its_faces_whole_and_its_rating():
    """The board pane beside the side panel at 100 columns is about 56 wide: a seat's dice
    faces (B2) fit on its line, two letters a face with their legend, never cut; a seat's
    rating stands beside its name."""
    performed = ((), (Accuse(COLONNA), Poison(BORGIA, BORGIA), Bribe(ORSINI, Direction.TOP)), (), (), ())
    view = GAME.codec.view_to_proto(GAME.engine.view(make_state(5, performed=performed, called=True), 0))
    names = ["Ada", "Bea", "ismcts L8", "Ciro", "Dora"]
    table = gw.Table(seats=[gw.Seat(seat=i, display_name=name) for i, name in enumerate(names)])
    console = Console(record=True, width=56, file=io.StringIO())
    console.print(RENDERER.board(view, TableContext.of(table, 0, {0: "1523±210", 2: "1689±88"})))
    text = console.export_text()
    assert "…" not in text, text
    # Every seat's dice, revealed by the call, on the seat's own line.
    rows = [line for line in text.splitlines() if "Br Po Ju Ac" in line and "[" not in line]
    assert [row.lstrip("▶ ").split()[0] for row in rows] == ["Ada", "Bea", "ismcts", "Ciro", "Dora"], text
    assert "Ada (you) 1523±210" in text and "ismcts L8 1689±88" in text
    assert "Br Bribe  Po Poison  Ju Judgement  Ac Accusation" in text
    assert "Bea: Poison: 2 from Borgia; Bribe: Orsini to the top" in text

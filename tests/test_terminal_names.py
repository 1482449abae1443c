"""Names in the terminal client: a name of 64 letters without a space wraps within the
board (never cut, never wider than the pane), and a name or event text that holds a
terminal's escape sequence or a bidirectional override reaches the screen as a visible
mark, never as a command to the terminal."""

import importlib
import io

import pytest
from rich.console import Console

from clients.terminal.renderers.base import TableContext
from common.names import printable
from tavola.gateway.v1 import gateway_pb2 as gw

LONG = "W" * 64
WIDTH = 56  # the board pane beside the side panel at 100 columns


def board_text(game_id: str, names: list[str], width: int = WIDTH) -> str:
    game = importlib.import_module(f"services.{game_id}").GAME
    renderer = importlib.import_module(f"clients.terminal.renderers.{game_id}").RENDERER
    state = game.engine.new_game(len(names), {}, 3)[0]
    view = game.codec.view_to_proto(game.engine.view(state, 0))
    table = gw.Table(seats=[gw.Seat(seat=i, display_name=name, taken=True) for i, name in enumerate(names)])
    console = Console(record=True, width=width, file=io.StringIO())
    console.print(renderer.board(view, TableContext.of(table, 0)))
    return console.export_text()


@pytest.mark.parametrize("game_id", ["borgia", "mortadella", "pecunia"])
def test_a_name_of_64_letters_wraps_within_the_board_and_is_never_cut(game_id):
    text = board_text(game_id, [LONG, "Bea", "Cy"])
    lines = text.splitlines()
    assert all(len(line) <= WIDTH for line in lines), "\n".join(line for line in lines if len(line) > WIDTH)
    assert "W…" not in text, text
    # Folded onto lines of its own column: every letter of it is shown.
    assert text.count("W") >= len(LONG), text


@pytest.mark.parametrize("game_id", ["borgia", "mortadella", "pecunia"])
def test_a_name_never_sends_the_terminal_a_command(game_id):
    hostile = "Eve\x1b[2J\x1b]0;title\x07\u202egnp.exe"
    text = board_text(game_id, [hostile, "Bea", "Cy"], width=120)
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text, repr(text)
    assert "Eve\ufffd[2J" in text


def test_printable_marks_every_character_that_acts_on_a_terminal_and_keeps_the_rest():
    assert printable("Eve\x1b[2J\x07\u202e\u200b\n") == "Eve\ufffd[2J\ufffd\ufffd\ufffd\ufffd"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert printable(f"Zoë 李雷 {family} {{1|a|b}} <b>") == f"Zoë 李雷 {family} {{1|a|b}} <b>"

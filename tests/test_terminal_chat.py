"""The terminal's chat lines: whatever text arrives, nothing in it acts on the terminal."""

from clients.terminal.chat import chat_line
from tavola.gateway.v1 import chat_pb2 as chat


def test_ansi_escapes_bells_and_bidi_overrides_are_written_as_text():
    message = chat.ChatMessage(
        display_name="Eve\x1b]0;pwned\x07",
        text="\x1b[2J\x1b[31mred\x1b[0m \u202eexe.txt\u202c \x9b31m \x07 <b>bold</b> [bold]rich[/]",
        seat=1,
    )
    line = chat_line(message)
    assert not any(char in line for char in "\x1b\x07\x9b\u202e\u202c")
    assert "\ufffd[2J\ufffd[31mred\ufffd[0m" in line and "Eve\ufffd]0;pwned\ufffd (Seat 2)" in line
    # Markup of any kind stays as typed: the terminal prints text, never markup.
    assert "<b>bold</b> [bold]rich[/]" in line


def test_a_spectators_line_has_no_seat():
    line = chat_line(chat.ChatMessage(display_name="Kibitzer", text="nice bluff"))
    assert line.endswith(" Kibitzer: nice bluff")

"""The terminal client's modal screens: the outcome at the end, and a yes-or-no question
(leaving the table, sitting at a table in replay mode)."""

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from clients.terminal.words import N_, _, translate_bindings


class EndScreen(ModalScreen[None]):
    """The outcome, over the final board."""

    BINDINGS = [
        Binding("q", "app.quit", N_("Quit")),
        Binding("escape,b", "dismiss", N_("Back to the board")),
        Binding("v", "app.replay", N_("Replay")),
    ]

    def __init__(self, headline: str, details: str):
        super().__init__()
        translate_bindings(self)
        self.headline = headline
        self.details = details

    def compose(self) -> ComposeResult:
        with Vertical(id="end"):
            yield Static(Text(self.headline, style="bold"), id="end-headline")
            yield Static(self.details, id="end-details")
            yield Static(
                _("q quit · b or Escape: back to the board and the history · v: replay it step by step"),
                id="end-keys",
            )


class ConfirmQuit(ModalScreen[bool]):
    BINDINGS = [Binding("y", "answer(True)", N_("Leave")), Binding("n,escape", "answer(False)", N_("Stay"))]

    def __init__(self, warning: str, keys: str | None = None):
        super().__init__()
        translate_bindings(self)
        self.warning = warning
        self.keys = _("Leave the table? y: leave · n: stay") if keys is None else keys

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(self.warning)
            if self.keys:
                yield Static(self.keys, id="confirm-keys")

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)

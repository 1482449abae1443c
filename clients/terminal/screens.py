"""The terminal client's modal screens: the outcome at the end, and a yes-or-no question
(leaving the table, sitting at a table in replay mode)."""

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class EndScreen(ModalScreen[None]):
    """The outcome, over the final board."""

    BINDINGS = [
        Binding("q", "app.quit", "Quit"),
        Binding("escape,b", "dismiss", "Back to the board"),
        Binding("v", "app.replay", "Replay"),
    ]

    def __init__(self, headline: str, details: str):
        super().__init__()
        self.headline = headline
        self.details = details

    def compose(self) -> ComposeResult:
        with Vertical(id="end"):
            yield Static(Text(self.headline, style="bold"), id="end-headline")
            yield Static(self.details, id="end-details")
            yield Static(
                "q quit · b or Escape: back to the board and the history · v: replay it step by step",
                id="end-keys",
            )


class ConfirmQuit(ModalScreen[bool]):
    BINDINGS = [Binding("y", "answer(True)", "Leave"), Binding("n,escape", "answer(False)", "Stay")]

    def __init__(self, warning: str, keys: str = "Leave the table? y: leave · n: stay"):
        super().__init__()
        self.warning = warning
        self.keys = keys

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(self.warning)
            if self.keys:
                yield Static(self.keys, id="confirm-keys")

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)

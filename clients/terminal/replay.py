"""Stepping through a replay: what happened at each step and the board as the viewer saw
it then (GetReplay with views), drawn by the game's own renderer.

``ReplayBook`` is the replay as pages, one per step that told the viewer something (an
event in words, or an action the viewer may know); ``ReplayScreen`` shows one page at a
time: the board then on the left, on the right the step and the story so far.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from clients.terminal.renderers import Renderer, TableContext
from clients.terminal.session import Decoder
from clients.terminal.words import N_, _, translate_bindings
from tavola.gateway.v1 import gateway_pb2 as gw

STORY_LINES = 14  # events shown before the current one
JUMP = 10  # steps per PgUp / PgDn
GENERIC: Renderer[Any, Any, Any] = Renderer()  # actions in words, whatever the game


@dataclass
class Page:
    seq: int
    text: str  # what happened, in words
    board: RenderableType


class ReplayBook:
    """The pages of one viewer's replay and the one being read."""

    def __init__(
        self,
        replay: gw.GetReplayResponse,
        ctx: TableContext,
        renderer: Renderer[Any, Any, Any],
        decoder: Decoder,
        event_text: Callable[[gw.TableEvent, TableContext], str | None],
    ):
        self.replay = replay
        self.ctx = ctx
        self.pages: list[Page] = []
        for step in replay.steps:
            told = [event_text(step.event, ctx)] if step.HasField("event") else []
            if step.HasField("actor") and step.HasField("action") and not any(told):
                told.append(f"{ctx.who(step.actor)}: {action_text(decoder, step.action, ctx)}")
            text = "\n".join(line for line in told if line)
            if not text:
                continue  # nothing the viewer was told
            view = decoder.decode(step.view) if step.HasField("view") else None
            self.pages.append(Page(step.seq, text, renderer.board(view, ctx)))
        self.at = 0

    def __len__(self) -> int:
        return len(self.pages)

    @property
    def page(self) -> Page | None:
        return self.pages[self.at] if self.pages else None

    def go(self, delta: int) -> None:
        self.at = max(0, min(len(self.pages) - 1, self.at + delta))

    def go_to(self, at: int) -> None:
        self.at = max(0, min(len(self.pages) - 1, at if at >= 0 else len(self.pages) + at))

    def story(self) -> list[str]:
        """The events before the current page, the latest last."""
        return [page.text for page in self.pages[max(0, self.at - STORY_LINES) : self.at]]


def action_text(decoder: Decoder, action, ctx: TableContext) -> str:
    message = decoder.decode(action)
    if message is None:
        return _("an action")
    return GENERIC.event_text(message, ctx) or _("an action")


class ReplayScreen(Screen[None]):
    """One replay, a step at a time; Escape (or q) closes it."""

    BINDINGS = [
        Binding("right,n,space", "step(1)", N_("Next")),
        Binding("left,p", "step(-1)", N_("Previous")),
        Binding("pagedown", f"step({JUMP})", f"+{JUMP}", show=False),
        Binding("pageup", f"step(-{JUMP})", f"-{JUMP}", show=False),
        Binding("home", "first", N_("First"), show=False),
        Binding("end", "last", N_("Last"), show=False),
        Binding("escape,q", "close", N_("Close")),
    ]
    CSS = """
    #replay-title { height: 1; background: $accent; color: $text; padding: 0 1; }
    #replay-main { height: 1fr; }
    #replay-board-pane { width: 1fr; padding: 0 1; }
    #replay-side { width: 42%; min-width: 34; max-width: 60; border-left: solid $accent; }
    #replay-step { height: auto; padding: 0 1; }
    #replay-story { height: 1fr; border-top: solid $accent-darken-2; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, book: ReplayBook, heading: str):
        super().__init__()
        translate_bindings(self)
        self.book = book
        self.heading = heading

    def compose(self) -> ComposeResult:
        yield Static(id="replay-title")
        with Horizontal(id="replay-main"):
            with VerticalScroll(id="replay-board-pane"):
                yield Static(id="replay-board")
            with Vertical(id="replay-side"):
                yield Static(id="replay-step")
                yield Static(id="replay-story")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#replay-story", Static).border_title = _("Before")
        self.draw()

    def draw(self) -> None:
        book, page = self.book, self.book.page
        where = _("step {at} of {steps}", at=book.at + 1, steps=len(book)) if page else _("nothing to replay")
        # The step first: a long heading is cut at the screen's edge, the step never.
        self.query_one("#replay-title", Static).update(Text(_("Replay, {where}", where=where) + f" · {self.heading}"))
        board = self.query_one("#replay-board", Static)
        step = self.query_one("#replay-step", Static)
        story = self.query_one("#replay-story", Static)
        if page is None:
            board.update("")
            step.update(Text(_("This table has no events to replay yet.")))
            story.update("")
            return
        board.update(page.board)
        step.update(
            Text.assemble(
                (_("What happened") + "\n", "bold"),
                (page.text, "bold green"),
                ("\n\n" + _("→ next · ← previous · PgUp PgDn ±10 · Home End · Esc close"), "dim"),
            )
        )
        story.update(Text("\n".join(book.story())))

    def action_step(self, delta: int) -> None:
        self.book.go(delta)
        self.draw()

    def action_first(self) -> None:
        self.book.go_to(0)
        self.draw()

    def action_last(self) -> None:
        self.book.go_to(-1)
        self.draw()

    def action_close(self) -> None:
        self.dismiss(None)

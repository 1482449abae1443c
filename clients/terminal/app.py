"""The Textual application: one screen for any game, drawn by the game's renderer.

Layout: a title line, the board (the typed view) on the left; on the right what to decide
with the legal actions as short menus, and the history of events in words; a help panel
(?), a footer of keys, an end screen with the outcome. Keyboard only: arrows and Enter, or
the number keys, pick an action; Escape steps back out of a submenu.

Here: the layout and the table's life (creating, joining or finding the table, following its
events, reading it again). The plan and the state are in state.py, the drawing in drawing.py,
the keys' actions in keys.py, the modal screens in screens.py.
"""

import asyncio
import contextlib

import grpc
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, OptionList, RichLog, Static

from clients.terminal import help as game_help
from clients.terminal.drawing import seed_check
from clients.terminal.keys import TableKeys
from clients.terminal.renderers import for_game
from clients.terminal.screens import ConfirmQuit, EndScreen
from clients.terminal.session import SEAT_LOST, SavedSeat, Session, explain
from clients.terminal.state import Plan
from clients.terminal.words import N_, _
from common.errors import reason_of
from tavola.gateway.v1 import gateway_pb2 as gw

MIN_WIDTH, MIN_HEIGHT = 80, 24

# The plan, the screens and the seed's check, as the client's callers read them from here.
__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "ConfirmQuit", "EndScreen", "Plan", "TableApp", "seed_check"]


class TableApp(TableKeys):
    TITLE = "tavola"
    CSS = """
    #title { height: 1; background: $primary; color: $text; padding: 0 1; }
    #main { height: 1fr; }
    #board-pane { width: 1fr; padding: 0 1; }
    #side { width: 42%; min-width: 34; max-width: 60; border-left: solid $primary; }
    #prompt { height: auto; max-height: 8; padding: 0 1; }
    #choices { height: auto; max-height: 14; border: none; }
    #history { height: 1fr; border-top: solid $primary-darken-2; padding: 0 1; }
    #help { display: none; dock: right; width: 60; height: 100%; background: $panel;
            border-left: thick $accent; padding: 1 2; }
    #help.shown { display: block; }
    #too-small { display: none; content-align: center middle; height: 1fr; }
    Screen.too-small #too-small { display: block; }
    Screen.too-small #main, Screen.too-small #title, Screen.too-small #help { display: none; }
    EndScreen, ConfirmQuit { align: center middle; }
    #end { width: 76; height: auto; max-height: 90%; border: thick $accent; background: $panel;
           padding: 1 2; }
    #end-headline { text-align: center; padding-bottom: 1; }
    #end-keys, #confirm-keys { padding-top: 1; color: $text-muted; }
    #confirm { width: 64; height: auto; border: thick $warning; background: $panel; padding: 1 2; }
    """
    BINDINGS = [
        Binding("question_mark,f1", "toggle_help", N_("Help")),
        Binding("escape,backspace", "back", N_("Back")),
        Binding("q", "leave", N_("Quit")),
        Binding("h", "focus_history", N_("History"), show=False),
        Binding("r", "result", N_("Result"), show=False),
        Binding("v", "replay", N_("Replay")),
        Binding("c", "chat", N_("Chat")),
        *[Binding(str(n), f"pick({n})", show=False) for n in range(1, 10)],
    ]

    # -- layout --------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(_("connecting…"), id="title")
        with Horizontal(id="main"):
            with VerticalScroll(id="board-pane"):
                yield Static(id="board")
            with Vertical(id="side"):
                yield Static(id="prompt")
                yield OptionList(id="choices")
                yield RichLog(id="history", wrap=True, markup=False, auto_scroll=True, min_width=20)
        with VerticalScroll(id="help"):  # the game's help is longer than a screen: it scrolls
            yield Static(id="help-text")
        yield Static(id="too-small")
        yield Footer()

    def on_mount(self) -> None:
        self.session = Session(self.address)
        # Widgets by reference: a modal screen on top must not hide them from the updates.
        self.main_screen = self.screen
        self.board_widget = self.query_one("#board", Static)
        self.title_widget = self.query_one("#title", Static)
        self.prompt_widget = self.query_one("#prompt", Static)
        self.choices_widget = self.query_one("#choices", OptionList)
        self.history_widget = self.query_one("#history", RichLog)
        self.help_widget = self.query_one("#help-text", Static)
        self.small_widget = self.query_one("#too-small", Static)
        self.history_widget.border_title = _("History")
        self._fit(self.size.width, self.size.height)
        self.run_worker(self._run(), name="table")
        self.set_interval(1.0, self._tick)

    def on_resize(self, event) -> None:
        if hasattr(self, "main_screen"):  # a resize may come before the mount
            self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        self.main_screen.set_class(small, "too-small")
        self.small_widget.update(
            _("The terminal is too small: {width}x{height}.", width=width, height=height)
            + "\n"
            + _("Make it at least {width}x{height} to see the table (q quits).", width=MIN_WIDTH, height=MIN_HEIGHT)
        )

    # -- the table's life ------------------------------------------------------------

    async def _run(self) -> None:
        try:
            await self._setup()
        except grpc.RpcError as error:
            self.exit(return_code=1, message=self._failure(error))
            return
        except LookupError as error:
            self.exit(return_code=1, message=f"tavola: {error}")
            return
        self.renderer = for_game(self._game.game_id)
        self.help = await game_help.load(self._live, self._game.game_id)  # the game's own words
        await asyncio.to_thread(self._prepare_types)
        self._draw_help()
        if self.plan.mode == "replay":
            await self._open_replay(then_exit=True)
            return
        self.run_worker(self._follow(), name="events")
        self._wake.set()
        while not self.finished:
            await self._wake.wait()
            self._wake.clear()
            try:
                snap = await self._live.snapshot()
            except grpc.RpcError as error:
                reason = reason_of(error)
                if reason == "TOKEN_NOT_FOR_TABLE":
                    if self._live.seat is None:  # the event stream told meanwhile: look again
                        self._wake.set()
                        continue
                    # The seat went before the stream said why (a bot took it, or another
                    # device): the table tells which.
                    with contextlib.suppress(grpc.RpcError):
                        reason = await self._live.why_seat_lost()
                if reason in SEAT_LOST:
                    self._lose_seat(reason)
                    self._wake.set()
                    continue
                self.notice = _("Could not read the table: {why}. Retrying…", why=explain(error))
                self._draw_prompt()
                await asyncio.sleep(1)
                self._wake.set()
                continue
            who = (tuple((seat.player_id, seat.bot) for seat in snap.table.seats), snap.table.status)
            if who != self.ratings_for:
                self.ratings_for = who
                self.ratings = await self._live.ratings(snap.table)
            self._show(snap)

    def _failure(self, error: grpc.RpcError) -> str:
        if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) and not reason_of(error):
            return (
                f"tavola: no gateway answers at {self.address}.\n"
                "Start one with `make run` (or let `make play` start a private one), "
                "or point --gateway / TAVOLA_GATEWAY at a running gateway."
            )
        return f"tavola: the gateway refused: {explain(error)}"

    async def _setup(self) -> None:
        plan, session = self.plan, self._live
        if plan.mode == "create":
            timer = None
            if plan.timer_seconds:
                timer = gw.DecisionTimer(seconds=plan.timer_seconds, policy=plan.timer_policy)
            await session.create(plan.game, plan.players, plan.bots, plan.options, plan.name, timer, plan.seed)
        elif plan.mode == "join":
            table = await session.peek(plan.table_id)
            if table.replay_mode and not await self._confirm(
                _(
                    "Table {table} is in REPLAY MODE: its creator chose the seed and knows every "
                    "secret (every die, hand and role). Play only for a replay or a test.",
                    table=table.table_id,
                )
                + "\n"
                + _("Take a seat anyway? y: sit · n: leave"),
            ):
                raise LookupError(f"did not sit at table {table.table_id} (replay mode)")
            await session.join(plan.table_id, plan.name)
        elif plan.mode == "spectate":
            await session.spectate(plan.table_id)
        elif plan.mode == "rejoin":
            await session.rejoin(SavedSeat.load(plan.table_id))
        elif plan.mode == "replay":
            await session.replay_only(plan.table_id, plan.seat)
        else:
            raise LookupError(f"unknown mode {plan.mode!r}")

    async def _confirm(self, question: str) -> bool:
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.push_screen(ConfirmQuit(question, keys=""), lambda yes: answer.set_result(bool(yes)))
        return await answer

    def _prepare_types(self) -> None:
        """Resolves the game's message types once, off the event loop (reflection may call out)."""
        game = self._game
        for name in (game.view_type, game.action_type, game.event_type):
            self.decoder.message_class(name)

    async def _follow(self) -> None:
        """The event stream: each event into the history, and a wake-up to look again."""
        while not self.finished:
            try:
                async for event in self._live.events(self.last_seq):
                    self.last_seq = event.seq
                    self._record(event)
                    self._wake.set()
                return  # the stream ends after the game's last event
            except grpc.RpcError as error:
                if error.code() == grpc.StatusCode.CANCELLED:
                    return
                reason = reason_of(error)
                if reason in SEAT_LOST:
                    self._lose_seat(reason)
                    self._wake.set()
                await asyncio.sleep(1)  # resume from the last event seen

    def _lose_seat(self, reason: str) -> None:
        """Goes on as a spectator, saying why: the seat's token acts no more."""
        if self._live.seat is None:
            return  # told already
        self._live.seat = None
        self._live.token = ""
        self.notice = _(SEAT_LOST[reason]) + " " + _("Watching on.")
        self._draw_prompt()

    def _tick(self) -> None:
        self._wake.set()  # a safety net for a missed event; also refreshes the countdown
        if self.snap is not None:
            self._draw_prompt()

    async def on_unmount(self) -> None:
        if self.session is not None:
            await self.session.close()
        self.decoder.close()

    def screen_text(self) -> str:
        """The screen as plain text, as the player sees it (for tests and checks)."""
        return "\n".join(strip.text for strip in self.screen._compositor.render_strips())

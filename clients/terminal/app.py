"""The Textual application: one screen for any game, drawn by the game's renderer.

Layout: a title line, the board (the typed view) on the left; on the right what to decide
with the legal actions as short menus, and the history of events in words; a help panel
(?), a footer of keys, an end screen with the outcome. Keyboard only: arrows and Enter, or
the number keys, pick an action; Escape steps back out of a submenu.
"""

import asyncio
import contextlib
import hashlib
import time
from dataclasses import dataclass, field
from typing import Any

import grpc
from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from clients.terminal import choices
from clients.terminal import help as game_help
from clients.terminal.renderers import Renderer, TableContext, for_game
from clients.terminal.replay import ReplayBook, ReplayScreen
from clients.terminal.session import SEAT_LOST, Decoder, SavedSeat, Session, Snapshot, explain
from common.errors import reason_of
from common.names import printable, seat_label
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2

MIN_WIDTH, MIN_HEIGHT = 80, 24


@dataclass
class Plan:
    """What the client was asked to do: create a table, join one, spectate one or rejoin."""

    mode: str = "create"  # create | join | spectate | rejoin | replay
    game: str = "borgia"
    players: int = 2
    bots: list[str] = field(default_factory=lambda: ["ismcts"])
    options: dict[str, str] = field(default_factory=dict)
    name: str = "you"
    timer_seconds: int = 0
    timer_policy: gw.TimeoutPolicy = gw.TIMEOUT_POLICY_BOT_TAKES_SEAT
    seed: int | None = None
    table_id: str = ""
    seat: int | None = None  # whose replay to read (replay mode); None: one's saved seat, else a spectator's
    # A platform started for this terminal alone (make play with no gateway running): it
    # stops when the client does, and its tables with it.
    private_platform: bool = False


def seed_check(commitment: bytes, reveal: gw.SeedReveal) -> str:
    """Whether the seed revealed at the end is the one committed to at the deal (SHA-256
    of the salt and the seed as 8 big-endian bytes): then no deal, roll or draw was chosen
    after the game began."""
    if not commitment:
        return "Seed not checked: no commitment was shown at the deal."
    opened = hashlib.sha256(reveal.salt + reveal.seed.to_bytes(8, "big")).digest()
    if opened == commitment:
        return f"Seed verified: the revealed seed matches the commitment {commitment.hex()[:16]}… shown at the deal."
    return (
        f"Seed check FAILED: the revealed seed does not match the commitment {commitment.hex()[:16]}…"
        " shown at the deal."
    )


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


class TableApp(App[int]):
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
        Binding("question_mark,f1", "toggle_help", "Help"),
        Binding("escape,backspace", "back", "Back"),
        Binding("q", "leave", "Quit"),
        Binding("h", "focus_history", "History", show=False),
        Binding("r", "result", "Result", show=False),
        Binding("v", "replay", "Replay"),
        Binding("c", "chat", "Chat"),
        *[Binding(str(n), f"pick({n})", show=False) for n in range(1, 10)],
    ]

    def __init__(self, address: str, plan: Plan):
        super().__init__()
        self.address = address
        self.plan = plan
        self.session: Session | None = None  # made on mount
        self.decoder = Decoder(address)
        self.renderer: Renderer[Any, Any, Any] = Renderer()
        self.snap: Snapshot | None = None
        self.ctx: TableContext | None = None
        # Each seat's rating at the game (TableContext.ratings), read again when a seat changes
        # hands and once at the end, when the ratings move.
        self.ratings: dict[int, str] = {}
        self.ratings_for: tuple = ()
        self.menu: list[list[choices.Choice]] = []  # the menus stepped into, the current last
        self.menu_titles: list[str] = []
        self.actions: list = []  # the legal actions decoded, for what each choice does
        self.help: game_help.Entries = []
        self.menu_version = -1
        self.notice = ""  # a rejection, or what happened to the seat, until the next decision
        self.last_seq = 0
        self.finished = False
        self.commitment = b""  # the seed commitment shown at the deal
        self.seed_check = ""  # once the seed is revealed: whether it matches the commitment
        self.ending = ""  # the game's own last words: who won and why
        self.sending = False
        self._wake = asyncio.Event()

    @property
    def _live(self) -> Session:
        """The session, made on mount before any of the table's work starts."""
        assert self.session is not None
        return self.session

    @property
    def _game(self) -> rules_pb2.GameDescription:
        """The table's game, known once the session has created, joined or found the table."""
        game = self._live.game
        assert game is not None
        return game

    @property
    def _ctx(self) -> TableContext:
        """Who is who at the table, known from the first snapshot shown on."""
        assert self.ctx is not None
        return self.ctx

    # -- layout --------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("connecting…", id="title")
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
        self.history_widget.border_title = "History"
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
            f"The terminal is too small: {width}x{height}.\n"
            f"Make it at least {MIN_WIDTH}x{MIN_HEIGHT} to see the table (q quits)."
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
                self.notice = f"Could not read the table: {explain(error)}. Retrying…"
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
                f"Table {table.table_id} is in REPLAY MODE: its creator chose the seed and knows every "
                "secret (every die, hand and role). Play only for a replay or a test."
                "\nTake a seat anyway? y: sit · n: leave",
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
        self.notice = f"{SEAT_LOST[reason]} Watching on."
        self._draw_prompt()

    def _tick(self) -> None:
        self._wake.set()  # a safety net for a missed event; also refreshes the countdown
        if self.snap is not None:
            self._draw_prompt()

    async def on_unmount(self) -> None:
        if self.session is not None:
            await self.session.close()
        self.decoder.close()

    # -- drawing -----------------------------------------------------------------

    def _show(self, snap: Snapshot) -> None:
        self.snap = snap
        self.ctx = TableContext.of(snap.table, self._live.seat, self.ratings)
        view = self.decoder.decode(snap.view)
        self.board_widget.update(self.renderer.board(view, self._ctx))
        self.title_widget.update(self._title(snap))
        if snap.must_decide and not self.sending:
            if snap.table.version != self.menu_version:
                self._build_menu(snap)
        elif not self.sending:
            self.menu, self.menu_titles, self.menu_version = [], [], -1
            self._draw_menu()
        self._draw_prompt()
        if snap.table.status == gw.TABLE_STATUS_FINISHED and not self.finished:
            self.finished = True
            self._draw_menu()
            self.push_screen(EndScreen(*self._outcome(snap)))

    def _title(self, snap: Snapshot) -> str:
        game = self._game
        role = f"you are {self._ctx.names.get(self._live.seat, '')}" if self._live.seat is not None else "spectating"
        full = all(seat.taken for seat in snap.table.seats)
        status = {
            gw.TABLE_STATUS_OPEN: "waiting to begin" if full else "waiting for players",
            gw.TABLE_STATUS_IN_PROGRESS: "in progress",
            gw.TABLE_STATUS_FINISHED: "game over",
        }.get(snap.table.status, "")
        trust = " · REPLAY MODE: its creator knows every secret" if snap.table.replay_mode else ""
        return f"{game.display_name}{trust} · table {snap.table.table_id} · {role} · {status}"

    def _build_menu(self, snap: Snapshot) -> None:
        actions = self.actions = [self.decoder.decode(legal.action) for legal in snap.legal_actions]
        labels = [self._ctx.label_text(legal.label) for legal in snap.legal_actions]
        given = [self.renderer.action_path(a, label, self._ctx) for a, label in zip(actions, labels, strict=True)]
        paths = [path for path in given if path is not None]
        if len(paths) < len(given):
            paths = choices.word_paths(labels)
        self.menu, self.menu_titles = [choices.build(paths)], []
        self.menu_version = snap.table.version
        self._draw_menu()

    def _draw_menu(self) -> None:
        # A menu that grows takes rows from the history below it: the history's last lines,
        # in view before, are kept in view (a reader scrolled back stays where they are).
        history = self.history_widget
        if history.scroll_y >= history.max_scroll_y - 1:
            self.call_after_refresh(history.scroll_end, animate=False)
        options = self.choices_widget
        options.clear_options()
        if not self.menu or self.finished:
            options.display = False
            return
        options.display = True
        current = self.menu[-1]
        for number, choice in enumerate(current, start=1):
            key = f"{number}" if number < 10 else " "
            more = " ▸" if not choice.is_leaf else ""
            shown = choices.under(choice.label, self.menu_titles[-1] if self.menu_titles else None)
            options.add_option(Option(Text(f"{key} {shown}{more}")))  # labels are text: "[Book]" is no markup
        options.highlighted = 0
        options.focus()

    def _draw_prompt(self) -> None:
        snap, ctx = self.snap, self.ctx
        lines: list[Text] = []
        if self.notice:
            lines.append(Text(self.notice, style="bold red"))
        if snap is None or ctx is None:
            self.prompt_widget.update(Text("\n").join(lines))
            return
        table = snap.table
        if table.status == gw.TABLE_STATUS_FINISHED:
            lines.append(Text("The game is over. r: the result again · v: the replay · q: quit", style="bold"))
        elif self.sending:
            lines.append(Text("Sending your choice…"))
        elif snap.must_decide:
            titles = self.menu_titles
            step = " ▸ ".join(
                choices.under(title, titles[i - 1] if i else None).removesuffix(" …") for i, title in enumerate(titles)
            )
            head = "Your decision" + (f": {step}" if step else "")
            lines.append(Text(head, style="bold green"))
            hint = "↑↓ Enter or 1-9 to choose" + (" · Esc back" if self.menu_titles else "")
            lines.append(Text(hint, style="dim"))
            told = game_help.level(self.help, self.menu[-1] if self.menu else [], self.actions)
            lines += [Text(f"· {said}", style="italic") for said in told]  # what these choices do
        elif table.status == gw.TABLE_STATUS_OPEN:
            open_seats = [s.seat for s in table.seats if not s.taken]
            if not open_seats and all(s.kind == gw.SEAT_KIND_BOT for s in table.seats):
                lines.append(Text("Every seat is a bot's: the game begins as soon as a bot worker has room for it."))
            elif not open_seats:
                lines.append(Text("Every seat is taken: waiting for the host to start the game."))
            else:
                lines.append(Text(f"Waiting for {len(open_seats)} more player(s) to join table {table.table_id}."))
        else:
            waiting = ", ".join(ctx.name(seat) for seat in table.deciding_seats) or "the table"
            lines.append(Text(f"Waiting for {waiting}…", style="italic"))
        if table.HasField("decision_deadline") and table.status == gw.TABLE_STATUS_IN_PROGRESS:
            left = table.decision_deadline.ToMilliseconds() / 1000 - time.time()
            if left > 0:
                lines.append(Text(f"⏱ {left:.0f} s to decide", style="yellow"))
        self.prompt_widget.update(Text("\n").join(lines))

    def _draw_help(self) -> None:
        seat = self._live.saved_path
        rejoin = f"\nYour seat is saved: rejoin with --rejoin {self._live.table_id}\n" if seat else ""
        self.help_widget.update(game_help.panel(self._game.display_name, self._game.summary, self.help, rejoin))

    def _record(self, event: gw.TableEvent) -> None:
        body = event.WhichOneof("body")
        if body == "table_started" and event.table_started.seed_commitment:
            self.commitment = event.table_started.seed_commitment
        text = self._event_text(event)
        if body == "game_event" and text:
            self.ending = text  # the game's last event says who won and why
        if text:
            self.history_widget.write(Text(text))
        if body == "game_finished" and event.game_finished.HasField("seed_reveal"):
            self.seed_check = seed_check(self.commitment, event.game_finished.seed_reveal)
            ok = self.seed_check.startswith("Seed verified")
            self.history_widget.write(Text(self.seed_check, style="bold green" if ok else "bold red"))

    def _event_text(self, event: gw.TableEvent, ctx: TableContext | None = None) -> str | None:
        """The event in words (``_told``), with whatever would act on the terminal (an
        escape sequence in a name, a bidirectional override) shown as a mark."""
        text = self._told(event, ctx)
        return printable(text) if text else text

    def _told(self, event: gw.TableEvent, ctx: TableContext | None = None) -> str | None:
        """The event in words: its text as the gateway sent it (the game's own words, the
        same in every client), else made here (a game without words)."""
        if event.text:
            return event.text
        ctx = ctx or self.ctx or TableContext(gw.Table(), self._live.seat)
        body = event.WhichOneof("body")
        if body == "seat_taken":
            taken = event.seat_taken
            if taken.seat == ctx.me:
                return f"You sit down as {taken.display_name}."
            return f"{taken.display_name} sits down."
        if body == "table_started":
            return "The game begins."
        if body == "game_finished":
            return f"Game over: {ctx.seats_text(event.game_finished.outcome.summary)}"
        if body == "decision_expired":
            expired = event.decision_expired
            what = (
                "a bot takes the seat"
                if expired.policy == gw.TIMEOUT_POLICY_BOT_TAKES_SEAT
                else "a random action was played"
            )
            return f"{ctx.who(expired.seat)}: decision time ran out; {what}."
        if body == "game_event":
            message = self.decoder.decode(event.game_event)
            return self.renderer.event_text(message, ctx) if message is not None else None
        return None

    def _outcome(self, snap: Snapshot) -> tuple[str, str]:
        ctx, outcome = self._ctx, snap.table.outcome
        winners = list(outcome.winners)
        me = self._live.seat
        if me is not None and me in winners:
            headline = "You won!" if len(winners) == 1 else "You share the win!"
        elif not winners:
            headline = "Nobody wins."
        elif me is not None:
            headline = f"You lost. {' and '.join(ctx.name(w) for w in winners)} won."
        else:
            headline = f"{' and '.join(ctx.name(w) for w in winners)} won."
        details = [self.ending or ctx.seats_text(outcome.summary)]
        if self.seed_check:
            details += ["", self.seed_check]
        if outcome.scores:
            details += ["", f"  {'':<28} score"]
            details += [f"  {ctx.name(seat):<28} {score:>5}" for seat, score in enumerate(outcome.scores)]
        return headline, "\n".join(details)

    # -- keys ----------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#choices")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(event.option_index)

    def action_pick(self, number: int) -> None:
        if self.menu and number <= len(self.menu[-1]) and not self.finished:
            self._choose(number - 1)

    def _choose(self, position: int) -> None:
        if not self.menu or self.sending:
            return
        choice = self.menu[-1][position]
        if choice.index is not None:  # a leaf
            self.run_worker(self._submit(choice.index), name="submit")
        else:
            self.menu.append(choice.children)
            self.menu_titles.append(choice.label)
            self._draw_menu()
            self._draw_prompt()

    async def action_back(self) -> None:  # App's own action_back is a coroutine
        if len(self.menu) > 1:
            self.menu.pop()
            self.menu_titles.pop()
            self._draw_menu()
            self._draw_prompt()

    async def _submit(self, index: int) -> None:
        snap = self.snap
        assert snap is not None  # a menu to choose from comes from a snapshot shown
        legal = snap.legal_actions[index]
        self.sending, self.notice = True, ""
        self.menu = []
        self._draw_menu()
        self._draw_prompt()
        try:
            await self._live.submit(legal.action, snap.table.version)
        except grpc.RpcError as error:
            label = self._ctx.label_text(legal.label)
            self.notice = f"Not taken ({label}): {explain(error)}. Choose again."
        self.sending = False
        self.menu_version = -1  # rebuild the menu from a fresh view
        self._wake.set()

    def action_toggle_help(self) -> None:
        self.query_one("#help").toggle_class("shown")

    def action_focus_history(self) -> None:
        self.history_widget.focus()

    def action_result(self) -> None:
        if self.finished and self.snap is not None:
            self.push_screen(EndScreen(*self._outcome(self.snap)))

    def action_chat(self) -> None:
        # Imported here: the chat's module reaches the players' commands, which start this app.
        from clients.terminal.chat_screen import ChatScreen, saved_player_token

        if self.session is not None and self.snap is not None and not isinstance(self.screen, ChatScreen):
            seats = self.snap.table.seats
            self.push_screen(ChatScreen(self.session.channel, self.session.table_id, saved_player_token(), seats))

    def action_replay(self) -> None:
        if self.session is not None and self.session.game is not None and not isinstance(self.screen, ReplayScreen):
            self.run_worker(self._open_replay(), name="replay")

    async def _open_replay(self, then_exit: bool = False) -> None:
        """Fetches the replay (with a view per step) and shows it; ``then_exit``: the app
        was started to read it, and ends when it is closed."""
        session = self._live
        try:
            replay = await session.replay()
        except grpc.RpcError as error:
            if then_exit:
                self.exit(return_code=1, message=f"tavola: no replay: {explain(error)}")
                return
            self.notice = f"No replay: {explain(error)}"
            self._draw_prompt()
            return
        ctx = TableContext.of(replay.table, session.seat)
        book = await asyncio.to_thread(ReplayBook, replay, ctx, self.renderer, self.decoder, self._event_text)
        if session.seat is None:
            whose = "as the spectators saw it"
        elif session.token:
            whose = f"as you saw it ({ctx.names.get(session.seat, '')})"
        else:
            whose = f"as {ctx.names.get(session.seat, seat_label(session.seat))} saw it"
        heading = f"{self._game.display_name} · table {replay.table.table_id} · {whose}"

        def closed(_: None) -> None:
            if then_exit:
                self.exit(0)

        self.push_screen(ReplayScreen(book, heading), closed)

    def action_leave(self) -> None:
        snap = self.snap
        seated = self.session is not None and self.session.seat is not None and self.session.token
        if not seated or snap is None or snap.table.status == gw.TABLE_STATUS_FINISHED:
            self.exit(0)
            return
        timer = snap.table.decision_timer
        if timer.seconds and timer.policy == gw.TIMEOUT_POLICY_BOT_TAKES_SEAT:
            fate = (
                f"The game goes on: if you do not decide within {timer.seconds} s of your next turn, "
                "a bot takes your seat."
            )
        elif timer.seconds:
            fate = f"The game goes on: each decision of yours is played at random after {timer.seconds} s."
        else:
            fate = "This table has no decision timer: it waits for you until you come back."
        if self.plan.private_platform:
            # Nothing to come back to: the platform stops with this client.
            warning = (
                "This table runs on a private platform that stops when you leave: the game ends "
                "here. (To leave a game and come back, play on a running platform: make run in "
                "another terminal, then make play.)"
            )
        else:
            warning = f"{fate}\nCome back with: make play REJOIN={self._live.table_id}"

        def answered(leave: bool | None) -> None:
            if leave:
                self.exit(0)

        self.push_screen(ConfirmQuit(warning), answered)

    def screen_text(self) -> str:
        """The screen as plain text, as the player sees it (for tests and checks)."""
        return "\n".join(strip.text for strip in self.screen._compositor.render_strips())

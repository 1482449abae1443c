"""What the terminal client was asked to do (``Plan``), and the table app's state
(``TableState``): the session, the snapshot shown, the menus, the history's notes and the
widgets the app draws into. The drawing (drawing.py), the keys (keys.py) and the table's life
(app.py) each add their methods on top.
"""

import asyncio
from dataclasses import dataclass, field
from typing import Any

from textual.app import App
from textual.screen import Screen
from textual.widgets import OptionList, RichLog, Static

from clients.terminal import choices
from clients.terminal import help as game_help
from clients.terminal.renderers import Renderer, TableContext
from clients.terminal.session import Decoder, Session, Snapshot
from clients.terminal.words import translate_bindings
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2


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


class TableState(App[int]):
    """The table app's state; its widgets are found on mount (TableApp.on_mount)."""

    main_screen: Screen
    board_widget: Static
    title_widget: Static
    prompt_widget: Static
    choices_widget: OptionList
    history_widget: RichLog
    help_widget: Static
    small_widget: Static

    def __init__(self, address: str, plan: Plan):
        super().__init__()
        translate_bindings(self)  # the key bar in this run's language
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

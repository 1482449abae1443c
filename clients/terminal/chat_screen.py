"""The table's chat inside the terminal client (key c): the players' channel when the
saved player holds a seat at the table, else the spectators'. Messages are written as
``Text`` (never Rich markup) through ``chat_line``, which makes every character that would
act on the terminal printable; Escape goes back to the board.

The stream is read in a thread with the blocking stub, as the client's session reads
its table (clients/terminal/session.py), and each line handed to the screen's loop.
"""

import asyncio
import json
import threading

import grpc
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, RichLog, Static

from clients.terminal.chat import chat_line
from clients.terminal.player_file import token_path
from clients.terminal.session import explain
from clients.terminal.words import N_, _, translate_bindings
from common import auth
from tavola.gateway.v1 import chat_pb2 as chat
from tavola.gateway.v1 import chat_pb2_grpc


def saved_player_token() -> str | None:
    """The player saved by ``python -m clients.terminal.players create``, if any."""
    try:
        return json.loads(token_path().read_text())["player_token"]
    except (OSError, ValueError, KeyError):
        return None


def channel_for(table_seats, player_token: str) -> chat.ChatChannel:
    """The players' channel when the token's player holds one of ``table_seats``."""
    player_id = player_token.split(".")[1] if player_token.count(".") >= 2 else ""
    seated = any(seat.player_id == player_id for seat in table_seats)
    return chat.CHAT_CHANNEL_PLAYERS if seated else chat.CHAT_CHANNEL_SPECTATORS


class ChatScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", N_("Back to the board"))]

    def __init__(self, connection: grpc.Channel, table_id: str, player_token: str | None, table_seats=()):
        super().__init__()
        translate_bindings(self)
        self.stub = chat_pb2_grpc.ChatServiceStub(connection)
        self.table_id = table_id
        self.token = player_token
        self.channel = channel_for(table_seats, player_token) if player_token else chat.CHAT_CHANNEL_SPECTATORS
        self.stream = None
        self.lines: list[str] = []  # what the log shows, for tests

    def compose(self) -> ComposeResult:
        players = self.channel == chat.CHAT_CHANNEL_PLAYERS
        title = _("Table chat (players only)") if players else _("Spectators' chat")
        with Vertical(id="chat"):
            yield Static(Text(f"{title} · " + _("Enter sends · Escape: back to the board"), style="bold"))
            yield RichLog(id="chat-log", wrap=True, markup=False)
            yield Input(placeholder="message", id="chat-input", max_length=500, disabled=not self.token)
            yield Static("", id="chat-problem")

    def on_mount(self) -> None:
        if not self.token:
            self._problem(_("chat needs a player: python -m clients.terminal.players create NAME"))
            return
        self.query_one(Input).focus()
        loop = asyncio.get_running_loop()
        request = chat.WatchChatRequest(table_id=self.table_id, channel=self.channel)
        self.stream = self.stub.WatchChat(request, metadata=auth.metadata(self.token))
        threading.Thread(target=self._read, args=(self.stream, loop), daemon=True).start()

    def _read(self, stream, loop: asyncio.AbstractEventLoop) -> None:
        try:
            for response in stream:
                for message in response.messages:
                    loop.call_soon_threadsafe(self._show, chat_line(message))
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                loop.call_soon_threadsafe(self._problem, _("chat ended: {why}", why=explain(error)))

    def _show(self, line: str) -> None:
        self.lines.append(line)
        self.query_one(RichLog).write(Text(line))

    def _problem(self, words: str) -> None:
        self.query_one("#chat-problem", Static).update(Text(words))

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value
        if not text.strip() or not self.token:
            return
        request = chat.SendChatRequest(table_id=self.table_id, channel=self.channel, text=text)
        try:
            await asyncio.to_thread(self.stub.SendChat, request, metadata=auth.metadata(self.token))
        except grpc.RpcError as error:
            self._problem(_("not sent: {why}", why=explain(error)))
            return
        event.input.value = ""
        self._problem("")

    def on_unmount(self) -> None:
        if self.stream is not None:
            self.stream.cancel()

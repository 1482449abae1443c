"""The table app's keys: picking an action from the menus (arrows and Enter, or the number
keys), stepping back, the help, the history, the result, the chat, the replay and leaving."""

import asyncio

import grpc
from textual import on
from textual.widgets import OptionList

from clients.terminal.chat_screen import ChatScreen, saved_player_token
from clients.terminal.drawing import TableDrawing
from clients.terminal.renderers import TableContext
from clients.terminal.replay import ReplayBook, ReplayScreen
from clients.terminal.screens import ConfirmQuit, EndScreen
from clients.terminal.session import explain
from clients.terminal.words import _
from common.names import seat_label
from tavola.gateway.v1 import gateway_pb2 as gw


class TableKeys(TableDrawing):
    """The table app's actions, bound to keys in TableApp.BINDINGS."""

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
            self.notice = _("Not taken ({label}): {why}. Choose again.", label=label, why=explain(error))
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
            self.notice = _("No replay: {why}", why=explain(error))
            self._draw_prompt()
            return
        ctx = TableContext.of(replay.table, session.seat)
        book = await asyncio.to_thread(ReplayBook, replay, ctx, self.renderer, self.decoder, self._event_text)
        if session.seat is None:
            whose = _("as the spectators saw it")
        elif session.token:
            whose = _("as you saw it ({name})", name=ctx.names.get(session.seat, ""))
        else:
            whose = _("as {name} saw it", name=ctx.names.get(session.seat, seat_label(session.seat)))
        heading = f"{self._game.display_name} · {_('table {table}', table=replay.table.table_id)} · {whose}"

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
            fate = _(
                "The game goes on: if you do not decide within {seconds} s of your next turn, a bot takes your seat.",
                seconds=timer.seconds,
            )
        elif timer.seconds:
            fate = _(
                "The game goes on: each decision of yours is played at random after {seconds} s.", seconds=timer.seconds
            )
        else:
            fate = _("This table has no decision timer: it waits for you until you come back.")
        if self.plan.private_platform:
            # Nothing to come back to: the platform stops with this client.
            warning = _(
                "This table runs on a private platform that stops when you leave: the game ends "
                "here. (To leave a game and come back, play on a running platform: make run in "
                "another terminal, then make play.)"
            )
        else:
            warning = fate + "\n" + _("Come back with: make play REJOIN={table}", table=self._live.table_id)

        def answered(leave: bool | None) -> None:
            if leave:
                self.exit(0)

        self.push_screen(ConfirmQuit(warning), answered)

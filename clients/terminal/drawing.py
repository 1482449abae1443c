"""The table app's drawing: the board, the title, the menu of choices, the prompt, the help
panel, the history of events in words, and the outcome (with the seed's check) at the end."""

import hashlib
import time

from rich.text import Text
from textual.widgets.option_list import Option

from clients.terminal import choices
from clients.terminal import help as game_help
from clients.terminal.renderers import TableContext
from clients.terminal.screens import EndScreen
from clients.terminal.session import Snapshot
from clients.terminal.state import TableState
from clients.terminal.words import _
from common.names import printable
from tavola.gateway.v1 import gateway_pb2 as gw


def seed_check(commitment: bytes, reveal: gw.SeedReveal) -> str:
    """Whether the seed revealed at the end is the one committed to at the deal (SHA-256
    of the salt and the seed as 8 big-endian bytes): then no deal, roll or draw was chosen
    after the game began."""
    if not commitment:
        return _("Seed not checked: no commitment was shown at the deal.")
    if seed_verified(commitment, reveal):
        return _(
            "Seed verified: the revealed seed matches the commitment {commitment}… shown at the deal.",
            commitment=commitment.hex()[:16],
        )
    return _(
        "Seed check FAILED: the revealed seed does not match the commitment {commitment}… shown at the deal.",
        commitment=commitment.hex()[:16],
    )


def seed_verified(commitment: bytes, reveal: gw.SeedReveal) -> bool:
    return bool(commitment) and hashlib.sha256(reveal.salt + reveal.seed.to_bytes(8, "big")).digest() == commitment


class TableDrawing(TableState):
    """What the table app shows, drawn from its state."""

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
        seat = self._live.seat
        role = _("you are {name}", name=self._ctx.names.get(seat, "")) if seat is not None else _("spectating")
        full = all(seat.taken for seat in snap.table.seats)
        status = {
            gw.TABLE_STATUS_OPEN: _("waiting to begin") if full else _("waiting for players"),
            gw.TABLE_STATUS_IN_PROGRESS: _("in progress"),
            gw.TABLE_STATUS_FINISHED: _("game over"),
        }.get(snap.table.status, "")
        trust = " · " + _("REPLAY MODE: its creator knows every secret") if snap.table.replay_mode else ""
        return f"{game.display_name}{trust} · {_('table {table}', table=snap.table.table_id)} · {role} · {status}"

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
            lines.append(Text(_("The game is over. r: the result again · v: the replay · q: quit"), style="bold"))
        elif self.sending:
            lines.append(Text(_("Sending your choice…")))
        elif snap.must_decide:
            titles = self.menu_titles
            step = " ▸ ".join(
                choices.under(title, titles[i - 1] if i else None).removesuffix(" …") for i, title in enumerate(titles)
            )
            head = _("Your decision: {step}", step=step) if step else _("Your decision")
            lines.append(Text(head, style="bold green"))
            hint = _("↑↓ Enter or 1-9 to choose") + (_(" · Esc back") if self.menu_titles else "")
            lines.append(Text(hint, style="dim"))
            told = game_help.level(self.help, self.menu[-1] if self.menu else [], self.actions)
            lines += [Text(f"· {said}", style="italic") for said in told]  # what these choices do
        elif table.status == gw.TABLE_STATUS_OPEN:
            open_seats = [s.seat for s in table.seats if not s.taken]
            if not open_seats and all(s.kind == gw.SEAT_KIND_BOT for s in table.seats):
                lines.append(Text(_("Every seat is a bot's: the game begins as soon as a bot worker has room for it.")))
            elif not open_seats:
                lines.append(Text(_("Every seat is taken: waiting for the host to start the game.")))
            else:
                lines.append(
                    Text(
                        _(
                            "Waiting for {count} more player(s) to join table {table}.",
                            count=len(open_seats),
                            table=table.table_id,
                        )
                    )
                )
        else:
            waiting = ", ".join(ctx.name(seat) for seat in table.deciding_seats) or _("the table")
            lines.append(Text(_("Waiting for {who}…", who=waiting), style="italic"))
        if table.HasField("decision_deadline") and table.status == gw.TABLE_STATUS_IN_PROGRESS:
            left = table.decision_deadline.ToMilliseconds() / 1000 - time.time()
            if left > 0:
                lines.append(Text(_("⏱ {seconds} s to decide", seconds=f"{left:.0f}"), style="yellow"))
        self.prompt_widget.update(Text("\n").join(lines))

    def _draw_help(self) -> None:
        seat = self._live.saved_path
        rejoin = (
            "\n" + _("Your seat is saved: rejoin with --rejoin {table}", table=self._live.table_id) + "\n"
            if seat
            else ""
        )
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
            ok = seed_verified(self.commitment, event.game_finished.seed_reveal)
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
                return _("You sit down as {name}.", name=taken.display_name)
            return _("{name} sits down.", name=taken.display_name)
        if body == "table_started":
            return _("The game begins.")
        if body == "game_finished":
            return _("Game over: {summary}", summary=ctx.seats_text(event.game_finished.outcome.summary))
        if body == "decision_expired":
            expired = event.decision_expired
            what = (
                _("a bot takes the seat")
                if expired.policy == gw.TIMEOUT_POLICY_BOT_TAKES_SEAT
                else _("a random action was played")
            )
            return _("{who}: decision time ran out; {what}.", who=ctx.who(expired.seat), what=what)
        if body == "game_event":
            message = self.decoder.decode(event.game_event)
            return self.renderer.event_text(message, ctx) if message is not None else None
        return None

    def _outcome(self, snap: Snapshot) -> tuple[str, str]:
        ctx, outcome = self._ctx, snap.table.outcome
        winners = list(outcome.winners)
        me = self._live.seat
        if me is not None and me in winners:
            headline = _("You won!") if len(winners) == 1 else _("You share the win!")
        elif not winners:
            headline = _("Nobody wins.")
        elif me is not None:
            headline = _("You lost. {winners} won.", winners=_(" and ").join(ctx.name(w) for w in winners))
        else:
            headline = _("{winners} won.", winners=_(" and ").join(ctx.name(w) for w in winners))
        details = [self.ending or ctx.seats_text(outcome.summary)]
        if self.seed_check:
            details += ["", self.seed_check]
        if outcome.scores:
            details += ["", f"  {'':<28} {_('score')}"]
            details += [f"  {ctx.name(seat):<28} {score:>5}" for seat, score in enumerate(outcome.scores)]
        return headline, "\n".join(details)

"""House of Borgia: the cardinal ladder, dice, puppets, the bid, rumors, what each seat performed."""

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from clients.terminal.renderers.base import Renderer, TableContext, words
from clients.terminal.words import N_, _
from tavola.borgia.v1 import borgia_pb2 as pb

LAST_PERFORMED = 2  # performs shown per seat, the latest last (the event log keeps them all)
BAR = 15  # the longest influence bar: the ladder fits the board pane at 100 columns


def cardinal(value: int) -> str:
    return words(pb.Cardinal.Name(value), "CARDINAL_")


# The faces' words, as the game's catalog names them (borgia.face.*).
FACES: dict[int, str] = {
    pb.FACE_BRIBE: N_("Bribe"),
    pb.FACE_POISON: N_("Poison"),
    pb.FACE_JUDGEMENT: N_("Judgement"),
    pb.FACE_ACCUSATION: N_("Accusation"),
    pb.FACE_RUMOR: N_("Rumor"),
    pb.FACE_FATE: N_("Fate"),
}
KINDS: dict[int, int] = {
    pb.ACTION_KIND_BRIBE: pb.FACE_BRIBE,
    pb.ACTION_KIND_POISON: pb.FACE_POISON,
    pb.ACTION_KIND_JUDGEMENT: pb.FACE_JUDGEMENT,
    pb.ACTION_KIND_ACCUSATION: pb.FACE_ACCUSATION,
    pb.ACTION_KIND_RUMOR: pb.FACE_RUMOR,
}


def face(value: int) -> str:
    return _(FACES[value]) if value in FACES else words(pb.Face.Name(value), "FACE_")


def kind(value: int) -> str:
    return face(KINDS[value]) if value in KINDS else words(pb.ActionKind.Name(value), "ACTION_KIND_")


def bid_text(bid: pb.Bid) -> str:
    return f"{bid.count} x {kind(bid.action)}"


def dice_text(faces) -> str:
    return " ".join(f"[{face(f)}]" for f in faces) or "—"


# Two letters a face (in the reader's language, its word's first two), for the seats table,
# which must fit beside the side panel at 100 columns; the legend under it and "Your dice"
# give the whole words.
FACE_SHORT: dict[int, str] = {
    pb.FACE_BRIBE: N_("Br"),
    pb.FACE_POISON: N_("Po"),
    pb.FACE_JUDGEMENT: N_("Ju"),
    pb.FACE_ACCUSATION: N_("Ac"),
    pb.FACE_RUMOR: N_("Ru"),
    pb.FACE_FATE: N_("Fa"),
}


def short_dice(faces) -> str:
    return " ".join(_(FACE_SHORT[f]) if f in FACE_SHORT else "?" for f in faces) or "—"


def face_legend(shown) -> Columns:
    """The short faces shown in the seats table, in words, in the faces' order; a narrow
    pane wraps between entries, never inside one."""
    entries = [
        Text(f"{_(FACE_SHORT[f]) if f in FACE_SHORT else '?'} {face(f)}", style="dim") for f in sorted(set(shown))
    ]
    return Columns(entries, padding=(0, 2))


class BorgiaRenderer(Renderer[pb.View, pb.Event, pb.Action]):
    def board(self, view: pb.View | None, ctx: TableContext) -> RenderableType:
        if view is None:
            return super().board(view, ctx)
        parts: list[RenderableType] = []
        me = next((s for s in view.seats if view.HasField("viewer_seat") and s.seat == view.viewer_seat), None)
        mine = set(me.puppets) if me else set()
        parts.append(self._status(view, ctx))
        parts.append(self._ladder(view, mine))
        parts.append(self._seats(view, ctx))
        parts.append(self._performed(view, ctx))
        if view.centre_rumors:
            parts.append(
                Text(_("Rumors in the centre: {cards}", cards=", ".join(cardinal(c) for c in view.centre_rumors)))
            )
        if me is not None:
            puppets = ", ".join(cardinal(c) for c in me.puppets) or "—"
            parts.append(Text.assemble((_("Your puppet: "), "bold"), (puppets, "bold magenta")))
            parts.append(Text.assemble((_("Your dice: "), "bold"), (dice_text(me.dice), "bold cyan")))
        if view.HasField("result"):
            parts.append(self._result(view.result, ctx))
        return Group(*parts)

    def _status(self, view: pb.View, ctx: TableContext) -> Text:
        if view.phase == pb.PHASE_OVER:
            return Text(_("The game is over."), style="bold")
        total = sum(seat.dice_count for seat in view.seats)
        text = Text(_("Round {round}, {dice} dice on the table. ", round=view.round_number, dice=total), style="bold")
        if view.HasField("bid"):
            if view.HasField("bidder_seat"):
                said = _("Bid on the table: {bid} by {who}.", bid=bid_text(view.bid), who=ctx.name(view.bidder_seat))
            else:
                said = _("Bid on the table: {bid}.", bid=bid_text(view.bid))
            text.append(said, style="yellow")
        else:
            text.append(_("No bid yet this round."))
        if view.phase == pb.PHASE_RESPOND and view.HasField("responder_seat"):
            text.append("\n" + _("{who} must call or allow.", who=ctx.name(view.responder_seat)))
        elif view.phase == pb.PHASE_PERFORM:
            text.append("\n" + _("{who} performs the bid action.", who=ctx.name(view.active_seat)))
        elif view.phase == pb.PHASE_BID:
            text.append("\n" + _("{who} bids.", who=ctx.name(view.active_seat)))
        if view.called:
            text.append("  " + _("The bid was called: every die is revealed."), style="bold red")
        return text

    def _ladder(self, view: pb.View, mine: set[pb.Cardinal]) -> Table:
        final = view.result if view.HasField("result") else None
        entries, ladder = (final.influence, final.ladder) if final else (view.influence, view.ladder)
        influence = {entry.cardinal: entry.influence for entry in entries}
        grid = Table(title=_("The cardinals, top of the ladder first"), title_justify="left", box=None, pad_edge=False)
        grid.add_column("#", justify="right")
        grid.add_column(_("cardinal"), no_wrap=True)
        grid.add_column(_("influence"), no_wrap=True)
        grid.add_column("")
        for rank, card in enumerate(ladder, start=1):
            points = influence.get(card, 0)
            bar = Text("█" * min(points, BAR) + f" {points}", style="green")
            notes = []
            if card in mine:
                notes.append((_("your puppet"), "bold magenta"))
            if card == view.antipope:
                notes.append((_("Antipope"), "red"))
            if final and card == final.pope:
                notes.append((_("pope"), "bold yellow"))
            grid.add_row(
                str(rank),
                Text(cardinal(card), style="bold magenta" if card in mine else ""),
                bar,
                Text(" · ").join(Text(note, style=style) for note, style in notes),
            )
        return grid

    def _seats(self, view: pb.View, ctx: TableContext) -> RenderableType:
        """One line a seat: name (and rating), dice, the faces in two letters (■ a hidden
        die), rumors; a legend of the faces shown below it."""
        grid = Table(title=_("Seats"), title_justify="left", box=None, pad_edge=False)
        grid.add_column("")
        grid.add_column(_("player"), overflow="fold", max_width=24)  # a long name on lines of its own
        grid.add_column(_("dice"), justify="right")
        grid.add_column(_("faces"), no_wrap=True)
        grid.add_column(_("rumors"))
        shown: list[int] = []
        for seat in view.seats:
            marker = ""
            if view.phase in (pb.PHASE_BID, pb.PHASE_PERFORM) and seat.seat == view.active_seat:
                marker = "▶"
            elif view.HasField("responder_seat") and seat.seat == view.responder_seat:
                marker = "?"
            if seat.dice_hidden:
                faces = Text(" ".join("■" * seat.dice_count) or "—", style="dim")
            else:
                faces = Text(short_dice(seat.dice))
                shown.extend(seat.dice)
            you = view.HasField("viewer_seat") and seat.seat == view.viewer_seat
            name = ctx.label(seat.seat)
            if you:
                name.stylize("bold", 0, len(ctx.name(seat.seat)))
            grid.add_row(
                marker,
                name,
                str(seat.dice_count),
                faces,
                ", ".join(cardinal(c) for c in seat.rumors) or "—",
            )
        if shown:
            return Group(grid, face_legend(shown))
        return grid

    def _performed(self, view: pb.View, ctx: TableContext) -> RenderableType:
        """Every perform is public, and what a player did to the cardinals hints at its
        puppet: each seat's last ones, a line each under the seats (they are long)."""
        lines = Text(_("What each seat last performed:"), style="bold")
        for seat in view.seats:
            if seat.performed:
                done = "; ".join(describe(action, ctx) for action in seat.performed[-LAST_PERFORMED:])
                lines.append(f"\n  {ctx.name(seat.seat)}: ", style="")
                lines.append(done, style="")
        if lines.plain.endswith(":"):
            lines.append(" " + _("nothing yet this game."), style="dim")
        return lines

    def _result(self, result: pb.FinalResult, ctx: TableContext) -> Text:
        text = Text("\n" + _("Final result") + "\n", style="bold")
        text.append(_("Pope: {cardinal}", cardinal=cardinal(result.pope) if result.pope else _("nobody")) + "\n")
        for seat in result.puppets:
            score = result.scores[seat.seat] if seat.seat < len(result.scores) else 0
            cards = ", ".join(cardinal(c) for c in seat.puppets)
            text.append(
                "  "
                + _("{who}: puppet {cards}, score {score}", who=ctx.name(seat.seat), cards=cards, score=score)
                + "\n"
            )
        winners = ", ".join(ctx.name(w) for w in result.winners) or _("nobody")
        text.append(_("Winner: {who}", who=winners), style="bold green")
        return text

    # -- choices -------------------------------------------------------------------

    def action_path(self, action: pb.Action | None, label: str, ctx: TableContext) -> tuple[str, ...] | None:
        if action is None:
            return None
        which = action.WhichOneof("kind")
        if which == "bid":
            bid = action.bid
            # "Bid 2 x …" opens the faces, each shown as the words it adds ("Poison").
            return (_("Bid {count} x …", count=bid.count), _("Bid {bid}", bid=bid_text(bid)))
        if which == "call":
            return (_("Call: the bid is a bluff"),)
        if which == "allow":
            return (_("Allow the bid"),)
        # Each step begins with the words of the one before, which a submenu leaves out
        # (choices.under): "Bribe: Medici …" opens "to the top" and "to the bottom".
        if which == "bribe":
            return (_("Bribe: {cardinal} …", cardinal=cardinal(action.bribe.cardinal)), describe(action, ctx))
        if which == "poison":
            poison = action.poison
            if poison.first == poison.second:
                return (describe(action, ctx),)
            return (_("Poison: 1 from {cardinal} and …", cardinal=cardinal(poison.first)), describe(action, ctx))
        if which == "judgement_pair":
            source = cardinal(action.judgement_pair.source)
            return (
                _("Judgement: 2 from …"),
                _("Judgement: 2 from {cardinal} …", cardinal=source),
                describe(action, ctx),
            )
        if which == "judgement_split":
            split = action.judgement_split
            sources = _("{a} and {b}", a=cardinal(split.source_a), b=cardinal(split.source_b))
            return (
                _("Judgement: 1 each from …"),
                _("Judgement: 1 each from {sources} …", sources=sources),
                describe(action, ctx),
            )
        if which == "rumor":
            return (_("Rumor: {cardinal} …", cardinal=cardinal(action.rumor.card)), describe(action, ctx))
        return (describe(action, ctx),)


def describe(action: pb.Action, ctx: TableContext) -> str:
    which = action.WhichOneof("kind")
    if which == "bid":
        bid = action.bid
        return _("bid {bid}", bid=bid_text(bid))
    if which == "bribe":
        bribe = action.bribe
        if bribe.direction == pb.DIRECTION_TOP:
            return _("Bribe: {cardinal} to the top", cardinal=cardinal(bribe.cardinal))
        return _("Bribe: {cardinal} to the bottom", cardinal=cardinal(bribe.cardinal))
    if which == "poison":
        poison = action.poison
        if poison.first == poison.second:
            return _("Poison: 2 from {cardinal}", cardinal=cardinal(poison.first))
        return _("Poison: 1 from {a} and 1 from {b}", a=cardinal(poison.first), b=cardinal(poison.second))
    if which == "judgement_pair":
        judgement_pair = action.judgement_pair
        return _("Judgement: 2 from {a} to {b}", a=cardinal(judgement_pair.source), b=cardinal(judgement_pair.target))
    if which == "judgement_split":
        judgement_split = action.judgement_split
        return _(
            "Judgement: 1 each from {a} and {b} to {c} and {d}",
            a=cardinal(judgement_split.source_a),
            b=cardinal(judgement_split.source_b),
            c=cardinal(judgement_split.target_a),
            d=cardinal(judgement_split.target_b),
        )
    if which == "accuse":
        accuse = action.accuse
        return _("Accusation: {cardinal} is the Antipope", cardinal=cardinal(accuse.cardinal))
    if which == "rumor":
        rumor = action.rumor
        if rumor.returned:
            return _(
                "Rumor: {cardinal} in front of {who}, {back} back to the centre",
                cardinal=cardinal(rumor.card),
                who=ctx.name(rumor.target_seat),
                back=cardinal(rumor.returned),
            )
        return _("Rumor: {cardinal} in front of {who}", cardinal=cardinal(rumor.card), who=ctx.name(rumor.target_seat))
    if which == "perform_nothing":
        return _("Perform nothing (no legal target)")
    return which or "?"


RENDERER = BorgiaRenderer()

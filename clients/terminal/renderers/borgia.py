"""House of Borgia: the cardinal ladder, dice, puppets, the bid, rumors, what each seat performed."""

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from clients.terminal.renderers.base import Renderer, TableContext, words
from tavola.borgia.v1 import borgia_pb2 as pb

LAST_PERFORMED = 2  # performs shown per seat, the latest last (the event log keeps them all)
BAR = 15  # the longest influence bar: the ladder fits the board pane at 100 columns


def cardinal(value: int) -> str:
    return words(pb.Cardinal.Name(value), "CARDINAL_")


def face(value: int) -> str:
    return words(pb.Face.Name(value), "FACE_")


def kind(value: int) -> str:
    return words(pb.ActionKind.Name(value), "ACTION_KIND_")


def bid_text(bid: pb.Bid) -> str:
    return f"{bid.count} x {kind(bid.action)}"


def dice_text(faces) -> str:
    return " ".join(f"[{face(f)}]" for f in faces) or "—"


# Two letters a face, for the seats table, which must fit beside the side panel at 100
# columns; the legend under it and "Your dice" give the whole words.
FACE_SHORT = {
    pb.FACE_BRIBE: "Br",
    pb.FACE_POISON: "Po",
    pb.FACE_JUDGEMENT: "Ju",
    pb.FACE_ACCUSATION: "Ac",
    pb.FACE_RUMOR: "Ru",
    pb.FACE_FATE: "Fa",
}


def short_dice(faces) -> str:
    return " ".join(FACE_SHORT.get(f, "?") for f in faces) or "—"


def face_legend(shown) -> Columns:
    """The short faces shown in the seats table, in words, in the faces' order; a narrow
    pane wraps between entries, never inside one."""
    entries = [Text(f"{FACE_SHORT.get(f, '?')} {face(f)}", style="dim") for f in sorted(set(shown))]
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
            parts.append(Text(f"Rumors in the centre: {', '.join(cardinal(c) for c in view.centre_rumors)}"))
        if me is not None:
            puppets = ", ".join(cardinal(c) for c in me.puppets) or "—"
            parts.append(Text.assemble(("Your puppet: ", "bold"), (puppets, "bold magenta")))
            parts.append(Text.assemble(("Your dice: ", "bold"), (dice_text(me.dice), "bold cyan")))
        if view.HasField("result"):
            parts.append(self._result(view.result, ctx))
        return Group(*parts)

    def _status(self, view: pb.View, ctx: TableContext) -> Text:
        if view.phase == pb.PHASE_OVER:
            return Text("The game is over.", style="bold")
        total = sum(seat.dice_count for seat in view.seats)
        text = Text(f"Round {view.round_number}, {total} dice on the table. ", style="bold")
        if view.HasField("bid"):
            bidder = f" by {ctx.name(view.bidder_seat)}" if view.HasField("bidder_seat") else ""
            text.append(f"Bid on the table: {bid_text(view.bid)}{bidder}.", style="yellow")
        else:
            text.append("No bid yet this round.")
        if view.phase == pb.PHASE_RESPOND and view.HasField("responder_seat"):
            text.append(f"\n{ctx.name(view.responder_seat)} must call or allow.")
        elif view.phase == pb.PHASE_PERFORM:
            text.append(f"\n{ctx.name(view.active_seat)} performs the bid action.")
        elif view.phase == pb.PHASE_BID:
            text.append(f"\n{ctx.name(view.active_seat)} bids.")
        if view.called:
            text.append("  The bid was called: every die is revealed.", style="bold red")
        return text

    def _ladder(self, view: pb.View, mine: set[pb.Cardinal]) -> Table:
        final = view.result if view.HasField("result") else None
        entries, ladder = (final.influence, final.ladder) if final else (view.influence, view.ladder)
        influence = {entry.cardinal: entry.influence for entry in entries}
        grid = Table(title="The cardinals, top of the ladder first", title_justify="left", box=None, pad_edge=False)
        grid.add_column("#", justify="right")
        grid.add_column("cardinal", no_wrap=True)
        grid.add_column("influence", no_wrap=True)
        grid.add_column("")
        for rank, card in enumerate(ladder, start=1):
            points = influence.get(card, 0)
            bar = Text("█" * min(points, BAR) + f" {points}", style="green")
            notes = []
            if card in mine:
                notes.append(("your puppet", "bold magenta"))
            if card == view.antipope:
                notes.append(("Antipope", "red"))
            if final and card == final.pope:
                notes.append(("pope", "bold yellow"))
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
        grid = Table(title="Seats", title_justify="left", box=None, pad_edge=False)
        grid.add_column("")
        grid.add_column("player", overflow="fold", max_width=24)  # a long name on lines of its own
        grid.add_column("dice", justify="right")
        grid.add_column("faces", no_wrap=True)
        grid.add_column("rumors")
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
        lines = Text("What each seat last performed:", style="bold")
        for seat in view.seats:
            if seat.performed:
                done = "; ".join(describe(action, ctx) for action in seat.performed[-LAST_PERFORMED:])
                lines.append(f"\n  {ctx.name(seat.seat)}: ", style="")
                lines.append(done, style="")
        if lines.plain.endswith(":"):
            lines.append(" nothing yet this game.", style="dim")
        return lines

    def _result(self, result: pb.FinalResult, ctx: TableContext) -> Text:
        text = Text("\nFinal result\n", style="bold")
        text.append(f"Pope: {cardinal(result.pope) if result.pope else 'nobody'}\n")
        for seat in result.puppets:
            score = result.scores[seat.seat] if seat.seat < len(result.scores) else 0
            cards = ", ".join(cardinal(c) for c in seat.puppets)
            text.append(f"  {ctx.name(seat.seat)}: puppet {cards}, score {score}\n")
        winners = ", ".join(ctx.name(w) for w in result.winners) or "nobody"
        text.append(f"Winner: {winners}", style="bold green")
        return text

    # -- choices -------------------------------------------------------------------

    def action_path(self, action: pb.Action | None, label: str, ctx: TableContext) -> tuple[str, ...] | None:
        if action is None:
            return None
        which = action.WhichOneof("kind")
        if which == "bid":
            bid = action.bid
            # "Bid 2 x …" opens the faces, each shown as the words it adds ("Poison").
            return (f"Bid {bid.count} x …", f"Bid {bid_text(bid)}")
        if which == "call":
            return ("Call: the bid is a bluff",)
        if which == "allow":
            return ("Allow the bid",)
        # Each step begins with the words of the one before, which a submenu leaves out
        # (choices.under): "Bribe: Medici …" opens "to the top" and "to the bottom".
        if which == "bribe":
            return (f"Bribe: {cardinal(action.bribe.cardinal)} …", describe(action, ctx))
        if which == "poison":
            poison = action.poison
            if poison.first == poison.second:
                return (describe(action, ctx),)
            return (f"Poison: 1 from {cardinal(poison.first)} and …", describe(action, ctx))
        if which == "judgement_pair":
            source = cardinal(action.judgement_pair.source)
            return ("Judgement: 2 from …", f"Judgement: 2 from {source} …", describe(action, ctx))
        if which == "judgement_split":
            split = action.judgement_split
            sources = f"{cardinal(split.source_a)} and {cardinal(split.source_b)}"
            return ("Judgement: 1 each from …", f"Judgement: 1 each from {sources} …", describe(action, ctx))
        if which == "rumor":
            return (f"Rumor: {cardinal(action.rumor.card)} …", describe(action, ctx))
        return (describe(action, ctx),)


def describe(action: pb.Action, ctx: TableContext) -> str:
    which = action.WhichOneof("kind")
    if which == "bid":
        bid = action.bid
        return f"bid {bid_text(bid)}"
    if which == "bribe":
        bribe = action.bribe
        where = "top" if bribe.direction == pb.DIRECTION_TOP else "bottom"
        return f"Bribe: {cardinal(bribe.cardinal)} to the {where}"
    if which == "poison":
        poison = action.poison
        if poison.first == poison.second:
            return f"Poison: 2 from {cardinal(poison.first)}"
        return f"Poison: 1 from {cardinal(poison.first)} and 1 from {cardinal(poison.second)}"
    if which == "judgement_pair":
        judgement_pair = action.judgement_pair
        return f"Judgement: 2 from {cardinal(judgement_pair.source)} to {cardinal(judgement_pair.target)}"
    if which == "judgement_split":
        judgement_split = action.judgement_split
        return (
            f"Judgement: 1 each from {cardinal(judgement_split.source_a)} and {cardinal(judgement_split.source_b)}"
            f" to {cardinal(judgement_split.target_a)} and {cardinal(judgement_split.target_b)}"
        )
    if which == "accuse":
        accuse = action.accuse
        return f"Accusation: {cardinal(accuse.cardinal)} is the Antipope"
    if which == "rumor":
        rumor = action.rumor
        text = f"Rumor: {cardinal(rumor.card)} in front of {ctx.name(rumor.target_seat)}"
        return text + (f", {cardinal(rumor.returned)} back to the centre" if rumor.returned else "")
    if which == "perform_nothing":
        return "Perform nothing (no legal target)"
    return which or "?"


RENDERER = BorgiaRenderer()

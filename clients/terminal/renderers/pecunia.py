"""Pecunia non olet: every player's latrine seats and queue, your hand, sesterces."""

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from clients.terminal.renderers.base import Renderer, TableContext
from clients.terminal.terms import tell
from clients.terminal.words import N_, _
from common.phrases import Term, phrase
from services.pecunia.words import WORDS
from tavola.pecunia.v1 import pecunia_pb2 as pb

PHASES: dict[int, str] = {
    pb.PHASE_MARKERS: N_("remove round markers and collect sesterces"),
    pb.PHASE_REFILL: N_("refill the latrine from the queue"),
    pb.PHASE_DRAW: N_("play action cards or draw one"),
    pb.PHASE_OVER: N_("the game is over"),
}


def _key(name: str, prefix: str) -> str:
    """ACTION_CARD_KIND_QUEUE_JUMPER -> queue-jumper: the key of the game's catalog."""
    return name.removeprefix(prefix).lower().replace("_", "-")


def card_kind(value: int) -> str:
    """An action card as the game's catalog names it ("Queue-jumper", "Saltafila")."""
    return tell(WORDS, Term(f"pecunia.card.{_key(pb.ActionCardKind.Name(value), 'ACTION_CARD_KIND_')}"))


def roman(card: pb.RomanCard) -> str:
    """A Roman card: kind, rounds to sit and sesterces it pays ("Senator 3r/5s")."""
    kind = Term(f"pecunia.roman.{_key(pb.RomanKind.Name(card.kind), 'ROMAN_KIND_')}")
    return tell(WORDS, phrase("pecunia.roman", kind, card.rounds, card.sesterces))


def sesterces(amount: int) -> str:
    """ "1 sesterce", "7 sesterces"."""
    return _("{amount} sesterce", amount=amount) if amount == 1 else _("{amount} sesterces", amount=amount)


def position(value: int) -> str:
    return tell(WORDS, Term(f"pecunia.position.{_key(pb.SeatPosition.Name(value), 'SEAT_POSITION_')}"))


def latrine_seat(seat: pb.LatrineSeat) -> str:
    if not seat.romans:
        return _("empty")
    return " + ".join(f"{roman(r.card)} •{r.markers}" for r in seat.romans)


class PecuniaRenderer(Renderer[pb.View, pb.Event, pb.Action]):
    def board(self, view: pb.View | None, ctx: TableContext) -> RenderableType:
        if view is None:
            return super().board(view, ctx)
        over = view.phase == pb.PHASE_OVER
        turn = "" if over else _("Turn {turn}. ", turn=view.turn)
        status = Text(turn + _("Target: {target} sesterces. ", target=view.target), style="bold")
        if over:
            status.append(_("The game is over."))
        else:
            phase = _(PHASES[view.phase]) if view.phase in PHASES else ""
            status.append(f"{ctx.name(view.active)}: {phase}.")
        if view.villa_dixius:
            status.append("  " + _("Villa Dixius in force."), style="yellow")
        parts: list[RenderableType] = [status]
        for player in view.players:
            parts.append(self._player(view, player, ctx))
        parts.append(
            Text(
                _(
                    "Draw piles: {romans} Romans, {actions} action cards.",
                    romans=view.roman_pile_count,
                    actions=view.action_pile_count,
                )
            )
        )
        if view.phase == pb.PHASE_OVER:
            winners = ", ".join(ctx.name(w) for w in view.winners) or _("nobody")
            parts.append(Text(_("Winner: {who}", who=winners) + ".", style="bold green"))
        return Group(*parts)

    def _player(self, view: pb.View, player: pb.PlayerView, ctx: TableContext) -> Table:
        you = view.HasField("viewer") and player.seat == view.viewer
        marker = "▶ " if player.seat == view.active and view.phase != pb.PHASE_OVER else ""
        title = Text(f"{marker}{ctx.name(player.seat)}", style="bold" if you else "")
        if player.seat in ctx.ratings:
            title.append(f" {ctx.ratings[player.seat]}", style="dim")
        title.append(f": {sesterces(player.sesterces)}", style="bold" if you else "")
        grid = Table(title=title, title_justify="left", box=None, pad_edge=False, show_header=False)
        grid.add_column(style="dim")
        grid.add_column()
        seats = "  |  ".join(f"{position(seat.position)}: {latrine_seat(seat)}" for seat in player.latrine)
        grid.add_row(_("latrine"), seats)
        grid.add_row(_("queue"), ", ".join(roman(card) for card in player.queue) or "—")
        if player.hand_visible:
            hand = ", ".join(card_kind(card.kind) for card in player.hand) or _("no cards")
            grid.add_row(_("your hand"), Text(hand, style="cyan"))
        else:
            count = player.hand_count
            grid.add_row(_("hand"), _("{count} card", count=count) if count == 1 else _("{count} cards", count=count))
        return grid


RENDERER = PecuniaRenderer()

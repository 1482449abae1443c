"""Il Trono di Mortadella: your role and its victory row, every seat's tokens, the dice,
the Lombard token."""

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from clients.terminal.renderers.base import Renderer, TableContext, words
from services.mortadella.model import ROLE_INFO
from services.mortadella.model import Effect as EngineEffect
from services.mortadella.model import Role as EngineRole
from services.mortadella.words import effect, victory
from tavola.mortadella.v1 import mortadella_pb2 as pb

TOKENS = ("people", "tower", "book", "mortadella")
PHASES = {
    pb.PHASE_SETUP_TOKEN: "choose a starting token",
    pb.PHASE_PRE_ROLL: "roll",
    pb.PHASE_LOMBARD: "the Lombard token's holder may re-roll",
    pb.PHASE_CHOOSE_DICE: "choose three dice",
    pb.PHASE_RESOLVE: "resolve the chosen dice",
    pb.PHASE_TARGET: "choose a target",
    pb.PHASE_REVOLUTION_TARGET: "choose the Revolution's target",
    pb.PHASE_CANCEL: "pay Mortadella to cancel, or not",
    pb.PHASE_PLAGUE: "discard for the Plague",
    pb.PHASE_STEAL: "choose whom to steal from",
    pb.PHASE_MASTER_GUESS: "the Master guesses a role",
    pb.PHASE_OVER: "the game is over",
}


def symbol(value: int) -> str:
    return words(pb.Symbol.Name(value), "SYMBOL_")


def dice(values) -> str:
    return " ".join(f"[{symbol(v)}]" for v in values) or "—"


def role_name(value: int) -> str:
    if value == pb.ROLE_UNSPECIFIED:
        return "?"
    return ROLE_INFO[EngineRole(value)].name


def victory_row(value: int) -> str:
    """A role's rows in the game's words, as its history says them ("at least 5 People and 4
    Mortadella, with no Book")."""
    return victory(EngineRole(value))


class MortadellaRenderer(Renderer[pb.View, pb.Event, pb.Action]):
    def board(self, view: pb.View | None, ctx: TableContext) -> RenderableType:
        if view is None:
            return super().board(view, ctx)
        parts: list[RenderableType] = []
        over = view.phase == pb.PHASE_OVER
        status = Text("" if over else f"Turn {view.turn} of at most {view.max_turns}. ", style="bold")
        if over:
            status.append("The game is over.")
        else:
            status.append(f"{ctx.whose(view.active_seat)} turn: {PHASES.get(view.phase, '')}.")
        parts.append(status)
        me = next((s for s in view.seats if view.HasField("viewer") and s.seat == view.viewer), None)
        if me is not None and me.role:
            parts.append(Text.assemble(("Your role: ", "bold"), (role_name(me.role), "bold magenta")))
            parts.append(Text(f"Your victory row: {victory_row(me.role)}", style="magenta"))
        parts.append(self._seats(view, ctx))
        table_dice = Text()
        if view.dice:
            table_dice.append(f"Dice rolled: {dice(view.dice)}\n", style="cyan")
        if view.passed_dice:
            table_dice.append(f"Dice passed on: {dice(view.passed_dice)}\n")
        if view.chosen_dice:
            table_dice.append(f"Dice chosen: {dice(view.chosen_dice)}; still to resolve: {dice(view.remaining_dice)}\n")
        if view.carnival:
            table_dice.append("Carnival this turn!\n", style="yellow")
        if view.effect:
            table_dice.append(f"Effect being resolved: {effect(EngineEffect(view.effect))}\n")
        if view.HasField("lombard_holder"):
            table_dice.append(f"Lombard Company token: {ctx.name(view.lombard_holder)}")
            table_dice.append(" (used this turn)" if view.lombard_used else "")
        if not over:  # once over, the dice and the token are the last turn's
            parts.append(table_dice)
        for guess in view.wrong_guesses:
            parts.append(
                Text(f"Known: {ctx.name(guess.target)} was not {role_name(guess.role)} (a wrong guess)", style="dim")
            )
        if view.phase == pb.PHASE_OVER:
            winners = ", ".join(ctx.name(w) for w in view.winners) or "nobody"
            reason = words(pb.EndReason.Name(view.end_reason), "END_REASON_").lower()
            parts.append(Text(f"Winner: {winners} ({reason}).", style="bold green"))
        return Group(*parts)

    def _seats(self, view: pb.View, ctx: TableContext) -> Table:
        # Tokens under their initials (a legend below), so the notes fit beside them at 100
        # columns: "People" and the rest as headers cut the notes to "dec…".
        grid = Table(
            title="Seats",
            title_justify="left",
            box=None,
            pad_edge=False,
            caption="P People · T Tower · B Book · M Mortadella",
            caption_justify="left",
        )
        grid.add_column("")
        grid.add_column("player", overflow="fold", max_width=24)  # a long name on lines of its own
        grid.add_column("role", min_width=11, max_width=14)  # "Master of the Innkeepers" on two lines
        for name in TOKENS:
            grid.add_column(name[0].upper(), justify="right")
        grid.add_column("", no_wrap=True, min_width=12)
        for seat in view.seats:
            notes = []
            if not seat.in_game:
                notes.append("out")
            if seat.skip_turn:
                notes.append("skips a turn")
            if seat.seat in view.deciding_seats and view.phase != pb.PHASE_OVER:
                notes.append("deciding")
            marker = "▶" if seat.seat == view.active_seat and view.phase != pb.PHASE_OVER else ""
            you = view.HasField("viewer") and seat.seat == view.viewer
            label = ctx.label(seat.seat)
            if you:
                label.stylize("bold", 0, len(ctx.name(seat.seat)))
            grid.add_row(
                marker,
                label,
                role_name(seat.role),
                *(str(getattr(seat.tokens, name)) for name in TOKENS),
                ", ".join(notes),
            )
        return grid


RENDERER = MortadellaRenderer()

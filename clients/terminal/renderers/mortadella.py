"""Il Trono di Mortadella: your role and its victory row, every seat's tokens, the dice,
the Lombard token."""

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from clients.terminal.renderers.base import Renderer, TableContext, words
from clients.terminal.terms import tell
from clients.terminal.words import N_, _
from common.phrases import phrase
from services.mortadella import words as game
from services.mortadella.model import Effect as EngineEffect
from services.mortadella.model import Role as EngineRole
from services.mortadella.model import Symbol as EngineSymbol
from tavola.mortadella.v1 import mortadella_pb2 as pb

TOKENS = ("people", "tower", "book", "mortadella")
# Each token's initial, as the reader's language names it (the game's catalog: Popolo, Volk).
INITIALS = {"people": N_("P"), "tower": N_("T"), "book": N_("B"), "mortadella": N_("M")}
PHASES: dict[int, str] = {
    pb.PHASE_SETUP_TOKEN: N_("choose a starting token"),
    pb.PHASE_PRE_ROLL: N_("roll"),
    pb.PHASE_LOMBARD: N_("the Lombard token's holder may re-roll"),
    pb.PHASE_CHOOSE_DICE: N_("choose three dice"),
    pb.PHASE_RESOLVE: N_("resolve the chosen dice"),
    pb.PHASE_TARGET: N_("choose a target"),
    pb.PHASE_REVOLUTION_TARGET: N_("choose the Revolution's target"),
    pb.PHASE_CANCEL: N_("pay Mortadella to cancel, or not"),
    pb.PHASE_PLAGUE: N_("discard for the Plague"),
    pb.PHASE_STEAL: N_("choose whom to steal from"),
    pb.PHASE_MASTER_GUESS: N_("the Master guesses a role"),
    pb.PHASE_OVER: N_("the game is over"),
}


def symbol(value: int) -> str:
    """A die's symbol as the game's catalog names it ("Tower", "Torre")."""
    return tell(game.WORDS, game.symbol(EngineSymbol(value)))


def dice(values) -> str:
    return " ".join(f"[{symbol(v)}]" for v in values) or "—"


def role_name(value: int) -> str:
    if value == pb.ROLE_UNSPECIFIED:
        return "?"
    return tell(game.WORDS, game.role(EngineRole(value)))


def effect(value: int) -> str:
    """An effect as the rulebook's dice table says it (M4), in the game's catalog."""
    return tell(game.WORDS, phrase("mortadella.term", game.effect_term(EngineEffect(value))))


def victory_row(value: int) -> str:
    """A role's rows in the game's words, as its history says them ("at least 5 People and 4
    Mortadella, with no Book")."""
    return tell(game.WORDS, phrase("mortadella.term", game.victory_phrase(EngineRole(value))))


class MortadellaRenderer(Renderer[pb.View, pb.Event, pb.Action]):
    def board(self, view: pb.View | None, ctx: TableContext) -> RenderableType:
        if view is None:
            return super().board(view, ctx)
        parts: list[RenderableType] = []
        over = view.phase == pb.PHASE_OVER
        turn = "" if over else _("Turn {turn} of at most {most}. ", turn=view.turn, most=view.max_turns)
        status = Text(turn, style="bold")
        if over:
            status.append(_("The game is over."))
        else:
            phase = _(PHASES[view.phase]) if view.phase in PHASES else ""
            if view.active_seat == ctx.me:
                status.append(_("Your turn: {phase}.", phase=phase))
            else:
                status.append(_("{who}'s turn: {phase}.", who=ctx.who(view.active_seat), phase=phase))
        parts.append(status)
        me = next((s for s in view.seats if view.HasField("viewer") and s.seat == view.viewer), None)
        if me is not None and me.role:
            parts.append(Text.assemble((_("Your role: "), "bold"), (role_name(me.role), "bold magenta")))
            parts.append(Text(_("Your victory row: {row}", row=victory_row(me.role)), style="magenta"))
        parts.append(self._seats(view, ctx))
        table_dice = Text()
        if view.dice:
            table_dice.append(_("Dice rolled: {dice}", dice=dice(view.dice)) + "\n", style="cyan")
        if view.passed_dice:
            table_dice.append(_("Dice passed on: {dice}", dice=dice(view.passed_dice)) + "\n")
        if view.chosen_dice:
            table_dice.append(
                _(
                    "Dice chosen: {chosen}; still to resolve: {left}",
                    chosen=dice(view.chosen_dice),
                    left=dice(view.remaining_dice),
                )
                + "\n"
            )
        if view.carnival:
            table_dice.append(_("Carnival this turn!") + "\n", style="yellow")
        if view.effect:
            table_dice.append(_("Effect being resolved: {effect}", effect=effect(view.effect)) + "\n")
        if view.HasField("lombard_holder"):
            table_dice.append(_("Lombard Company token: {who}", who=ctx.name(view.lombard_holder)))
            table_dice.append(" " + _("(used this turn)") if view.lombard_used else "")
        if not over:  # once over, the dice and the token are the last turn's
            parts.append(table_dice)
        for guess in view.wrong_guesses:
            parts.append(
                Text(
                    _(
                        "Known: {who} was not {role} (a wrong guess)",
                        who=ctx.name(guess.target),
                        role=role_name(guess.role),
                    ),
                    style="dim",
                )
            )
        if view.phase == pb.PHASE_OVER:
            winners = ", ".join(ctx.name(w) for w in view.winners) or _("nobody")
            reason = words(pb.EndReason.Name(view.end_reason), "END_REASON_").lower()
            parts.append(Text(_("Winner: {who}", who=winners) + f" ({reason}).", style="bold green"))
        return Group(*parts)

    def _seats(self, view: pb.View, ctx: TableContext) -> Table:
        # Tokens under their initials (a legend below), so the notes fit beside them at 100
        # columns: "People" and the rest as headers cut the notes to "dec…".
        grid = Table(
            title=_("Seats"),
            title_justify="left",
            box=None,
            pad_edge=False,
            caption=_("P People · T Tower · B Book · M Mortadella"),
            caption_justify="left",
        )
        grid.add_column("")
        grid.add_column(_("player"), overflow="fold", max_width=24)  # a long name on lines of its own
        grid.add_column(_("role"), min_width=11, max_width=14)  # "Master of the Innkeepers" on two lines
        for name in TOKENS:
            grid.add_column(_(INITIALS[name]), justify="right")
        grid.add_column("", no_wrap=True, min_width=12)
        for seat in view.seats:
            notes = []
            if not seat.in_game:
                notes.append(_("out"))
            if seat.skip_turn:
                notes.append(_("skips a turn"))
            if seat.seat in view.deciding_seats and view.phase != pb.PHASE_OVER:
                notes.append(_("deciding"))
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

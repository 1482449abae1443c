"""The renderer interface, and the generic renderer every game's renderer builds on."""

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from google.protobuf import json_format, text_format
from google.protobuf.message import Message
from rich.console import RenderableType
from rich.text import Text

from clients.terminal.words import _
from common.names import SEAT_IN_TEXT, printable, seat_label, seat_names
from tavola.gateway.v1 import gateway_pb2 as gw


@dataclass
class TableContext:
    """Who is who at the table, for every sentence a renderer writes."""

    table: gw.Table
    me: int | None  # None: a spectator
    names: dict[int, str] = field(default_factory=dict)
    # Each seat's rating at the table's game, "1523±210", for the seats whose player (or bot)
    # has one (PlayerService.GetPlayer); none for a guest or a first rated game.
    ratings: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, table: gw.Table, me: int | None, ratings: dict[int, str] | None = None) -> "TableContext":
        # Short names (a bot by its name and level), as the gateway writes them into event text;
        # what would act on the terminal shown as a mark (a name is the gateway's, unchecked here).
        names = {seat: printable(name) for seat, name in seat_names(table.seats).items()}
        return cls(table, me, names, dict(ratings or {}))

    def name(self, seat: int) -> str:
        """The seat's display name, with "(you)" for the viewer's own seat."""
        name = self.names.get(seat, seat_label(seat))
        return _("{name} (you)", name=name) if seat == self.me else name

    def label(self, seat: int) -> Text:
        """The seat's name as a board shows it: with its rating, dimmed, when known."""
        text = Text(self.name(seat))
        if seat in self.ratings:
            text.append(f" {self.ratings[seat]}", style="dim")
        return text

    def who(self, seat: int) -> str:
        """The seat as the subject of a sentence: "You" for the viewer."""
        return "You" if seat == self.me else self.names.get(seat, seat_label(seat))

    def whose(self, seat: int) -> str:
        """ "Your" / "Ada's"."""
        return "Your" if seat == self.me else f"{self.who(seat)}'s"

    def verb(self, seat: int, verb: str) -> str:
        """ "You bid" / "Ada bids"."""
        if seat == self.me:
            return f"You {verb}"
        ending = "es" if verb.endswith(("s", "sh", "ch", "x")) else "s"
        return f"{self.who(seat)} {verb}{ending}"

    def seats_text(self, text: str) -> str:
        """A text with "seat 2" replaced by the seat's name."""
        return SEAT_IN_TEXT.sub(lambda m: self.name(int(m.group(1))), text)

    def label_text(self, label: str) -> str:
        """An action's label as its seat reads it: "seat 2" as the seat's name, the reader's
        own as "you" ("target you", as the web client writes it)."""
        return SEAT_IN_TEXT.sub(
            lambda m: "you" if int(m.group(1)) == self.me else self.names.get(int(m.group(1)), m.group(0)), label
        )


def words(enum_name: str, prefix: str) -> str:
    """CARDINAL_DELLA_ROVERE -> Della Rovere."""
    return enum_name.removeprefix(prefix).replace("_", " ").title()


ViewT = TypeVar("ViewT", bound=Message)
EventT = TypeVar("EventT", bound=Message)
ActionT = TypeVar("ActionT", bound=Message)


class Renderer(Generic[ViewT, EventT, ActionT]):
    """The generic renderer: any game, from its messages alone. A game's renderer names its
    View, Event and Action messages, which the client decodes with the game's own types."""

    def board(self, view: ViewT | None, ctx: TableContext) -> RenderableType:
        if view is None:
            return Text(_("The game has not started yet: waiting for the other seats."))
        fields = json_format.MessageToDict(
            view, always_print_fields_with_no_presence=True, preserving_proto_field_name=True
        )
        return Text("\n".join(_lines(fields, 0)))

    def event_text(self, event: EventT, ctx: TableContext) -> str | None:
        """The event in words where it came without text (a game without words): its
        fields as they are. Games with words need nothing here: ``TableEvent.text`` is the
        history."""
        kind = _oneof(event)
        body = getattr(event, kind) if kind else event
        text = text_format.MessageToString(body, as_one_line=True)
        return ctx.seats_text(f"{(kind or event.DESCRIPTOR.name).replace('_', ' ')}: {text}".rstrip(": "))

    def action_path(self, action: ActionT | None, label: str, ctx: TableContext) -> tuple[str, ...] | None:
        """The action's menu path (see choices.py); None for the generic grouping by words."""
        return None


def _oneof(message: Message) -> str | None:
    for oneof in message.DESCRIPTOR.oneofs:
        kind = message.WhichOneof(oneof.name)
        if kind:
            return kind
    return None


def _lines(value, depth: int) -> list[str]:
    pad = "  " * depth
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                lines.append(f"{pad}{key}:")
                lines += _lines(item, depth + 1)
            else:
                lines.append(f"{pad}{key}: {item if item != [] and item != {} else '—'}")
        return lines
    if isinstance(value, list):
        if all(not isinstance(item, dict | list) for item in value):
            return [f"{pad}{', '.join(str(item) for item in value)}"]
        lines = []
        for item in value:
            sub = _lines(item, depth + 1)
            lines.append(f"{pad}- {sub[0].strip()}")
            lines += sub[1:]
        return lines
    return [f"{pad}{value}"]

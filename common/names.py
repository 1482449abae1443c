"""How seats are named to people: one place for the gateway (event text) and the clients.

A bot seat is named by its bot and level ("ismcts L8", "random"), never its whole option
string (kept in ``Seat.bot``); two seats of one name are told apart by their number.
People count seats from 1 (``seat_label``: "Seat 1" is seat 0); the API and game text count
from 0. Game text names seats "seat N" (``services.engine.words``); ``with_names`` writes the
names in when the event is logged. Words that depend on who reads them are a choice,
"{2|You bid|Ada bids}": ``for_viewer`` picks each viewer's as the event is sent.
"""

import re
from collections.abc import Iterable, Mapping

from tavola.gateway.v1 import gateway_pb2 as gw

SEAT_IN_TEXT = re.compile(r"\bseat (\d+)\b")
CHOICE = re.compile(r"\{(\d+)\|([^|{}]*)\|([^|{}]*)\}")


def bot_display_name(spec: str) -> str:
    """ "ismcts:level=8,budget_ms=50" -> "ismcts L8"; "random" -> "random"."""
    name, _, options = spec.partition(":")
    level = next(
        (value for key, _, value in (item.partition("=") for item in options.split(",")) if key.strip() == "level"),
        "",
    )
    return f"{name.strip()} L{level.strip()}" if level.strip() else name.strip()


def seat_label(seat: int) -> str:
    """A seat as people read its number: counted from 1, "Seat 1" for seat 0. Capitalized,
    so that it is never read again as game text's 0-based "seat N"."""
    return f"Seat {seat + 1}"


def seat_names(seats: Iterable[gw.Seat]) -> dict[int, str]:
    """Every seat's name: a bot's short name, a person's display name, else its
    ``seat_label``; the same name twice gets the seat's number, counted from 1."""
    raw = {}
    for seat in seats:
        if seat.kind == gw.SEAT_KIND_BOT and seat.bot:
            raw[seat.seat] = bot_display_name(seat.bot)
        else:
            raw[seat.seat] = seat.display_name or seat_label(seat.seat)
    counts: dict[str, int] = {}
    for name in raw.values():
        counts[name] = counts.get(name, 0) + 1
    return {number: name if counts[name] == 1 else f"{name} {number + 1}" for number, name in raw.items()}


def with_names(text: str, names: Mapping[int, str]) -> str:
    """``text`` with every "seat N" of a seat in ``names`` replaced by its name."""
    if "seat " not in text:
        return text
    return SEAT_IN_TEXT.sub(lambda match: _plain(names.get(int(match.group(1)), match.group(0))), text)


def with_names_marked(text: str, names: Mapping[int, str]) -> str:
    """``text`` with every "seat N" of a seat in ``names`` written as a choice: its name
    marked "(you)" for that seat's reader, its name for everyone else ("Ada (you) reached 8
    sesterces" to Ada, "Ada reached 8 sesterces" to the others). For text that is not the
    game's own words, whose verbs cannot follow a "you"."""
    if "seat " not in text:
        return text

    def marked(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        if seat not in names:
            return match.group(0)
        name = _plain(names[seat])
        return f"{{{seat}|{name} (you)|{name}}}"

    return SEAT_IN_TEXT.sub(marked, text)


def _plain(name: str) -> str:
    """A name as text holds it: never a character of a choice's markup."""
    return name.translate(_MARKUP)


_MARKUP = str.maketrans({"{": "(", "}": ")", "|": "/"})


def for_viewer(text: str, viewer: int | None) -> str:
    """``text`` as ``viewer`` (None: a spectator) reads it: in each choice "{N|yours|theirs}",
    seat N reads ``yours`` and everyone else ``theirs``."""
    if "{" not in text:
        return text
    return CHOICE.sub(lambda m: m.group(2) if viewer is not None and int(m.group(1)) == viewer else m.group(3), text)


def has_choices(text: str) -> bool:
    """Whether viewers read ``text`` differently."""
    return CHOICE.search(text) is not None

"""How seats are named to people: one place for the gateway (event text) and the clients.

A bot seat is named by its bot and level ("ismcts L8", "random"), never its whole option
string (kept in ``Seat.bot``); two seats of one name are told apart by their number.
People count seats from 1 (``seat_label``: "Seat 1" is seat 0); the API and labels count
from 0, labels naming seats "seat N". A game's events name seats as phrase arguments
(``common.phrases``), so their names are never text to escape. The platform's events are
text: words that depend on who reads them are a choice, "{2|Ada (you)|Ada}" (an outcome's
seats, ``with_names_marked``): ``for_viewer`` picks each viewer's as the event is sent.

Names are data, never markup (``in_text``): written into text, a name's "{" is doubled,
and inside a choice's words each "{", "}" and "|" of it is written in braces ("{|}"), and
``for_viewer`` reads each back as the one character. So whatever a name holds
("{1|YOU WON|Eve}", "A|b}"), it reads as itself to every viewer and makes no choice; and
text holding a name's markup always holds a "{", which is how the gateway knows to send it
through ``for_viewer``.
"""

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping

from tavola.gateway.v1 import gateway_pb2 as gw

SEAT_IN_TEXT = re.compile(r"\bseat (\d+)\b")
# A choice's words: text without markup, and a name's markup characters each in braces.
_BRANCH = r"((?:[^|{}]|\{[{}|]\})*)"
_IN_BRANCH = re.compile(r"\{([{}|])\}")
# Read left to right: a name's doubled "{" outside a choice, or a choice.
_MARKUP_OR_CHOICE = re.compile(r"\{\{|\{(\d+)\|" + _BRANCH + r"\|" + _BRANCH + r"\}")


def bot_display_name(spec: str) -> str:
    """ "ismcts:level=8,budget_ms=50" -> "ismcts L8"; "random" -> "random"."""
    name, _, options = spec.partition(":")
    level = next(
        (value for key, _, value in (item.partition("=") for item in options.split(",")) if key.strip() == "level"),
        "",
    )
    return f"{name.strip()} L{level.strip()}" if level.strip() else name.strip()


# What acts on a terminal or reorders text rather than showing: controls (ESC, BEL...),
# format characters (bidi overrides, zero-width ones), private-use, unassigned and surrogate
# code points, line and paragraph separators.
_NOT_SHOWN = frozenset(("Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"))


def printable(text: str) -> str:
    """``text`` as a client writes it to a screen: each character that acts on the terminal
    or reorders the text instead of showing (``_NOT_SHOWN``) written as U+FFFD, except a
    zero-width joiner (of an emoji sequence, harmless). For what a client receives (names,
    event text), whatever the gateway let through when it was made."""
    if text.isprintable():
        return text
    return "".join("\ufffd" if char != "\u200d" and unicodedata.category(char) in _NOT_SHOWN else char for char in text)


def seat_label(seat: int) -> str:
    """A seat as people read its number: counted from 1, "Seat 1" for seat 0. Capitalized,
    so that it is never read again as game text's 0-based "seat N"."""
    return f"Seat {seat + 1}"


def shown_names(seats: Iterable[gw.Seat], but: int | None = None) -> list[str]:
    """The names the taken seats show (a bot's short name, a person's display name), but
    seat ``but``'s: what a new seat's name must not look like."""
    return [
        bot_display_name(seat.bot) if seat.kind == gw.SEAT_KIND_BOT and seat.bot else seat.display_name
        for seat in seats
        if seat.seat != but and seat.taken and (seat.display_name or seat.bot)
    ]


def taken_over(seat: gw.Seat) -> str | None:
    """A person's seat that a bot plays now (the decision timer gave it away), named for
    both: "Ada (random)"; None for any other seat. Its display name stays the person's."""
    if seat.kind != gw.SEAT_KIND_BOT or not seat.bot or not seat.display_name:
        return None
    bot = bot_display_name(seat.bot)
    return None if seat.display_name == bot else f"{seat.display_name} ({bot})"


def seat_names(seats: Iterable[gw.Seat]) -> dict[int, str]:
    """Every seat's name: a bot's short name, a person's display name, else its
    ``seat_label`` (a person's seat that a bot took over: both, ``taken_over``); the same
    name twice gets the seat's number, counted from 1."""
    raw = {}
    for seat in seats:
        if seat.kind == gw.SEAT_KIND_BOT and seat.bot:
            raw[seat.seat] = taken_over(seat) or bot_display_name(seat.bot)
        else:
            raw[seat.seat] = seat.display_name or seat_label(seat.seat)
    counts: dict[str, int] = {}
    for name in raw.values():
        counts[name] = counts.get(name, 0) + 1
    return {number: name if counts[name] == 1 else f"{name} {number + 1}" for number, name in raw.items()}


def in_text(name: str, in_choice: bool = False) -> str:
    """A name as text holds it, so that ``for_viewer`` reads it back as it is and it never
    makes a choice: its "{" doubled, or inside a choice's words each "{", "}" and "|" in
    braces ("{|}")."""
    if in_choice:
        return re.sub(r"[{}|]", lambda char: f"{{{char.group(0)}}}", name)
    return name.replace("{", "{{")


def with_names(text: str, names: Mapping[int, str]) -> str:
    """``text`` with every "seat N" of a seat in ``names`` replaced by its name, as
    ``in_text`` writes it where it goes: in a choice's words or outside."""
    if "seat " not in text:
        return text

    def named(part: str, in_choice: bool) -> str:
        return SEAT_IN_TEXT.sub(
            lambda match: (
                in_text(names[int(match.group(1))], in_choice) if int(match.group(1)) in names else match.group(0)
            ),
            part,
        )

    return _by_choice(text, named)


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
        name = in_text(names[seat], in_choice=True)
        return f"{{{seat}|{name} (you)|{name}}}"

    return SEAT_IN_TEXT.sub(marked, text)


def _by_choice(text: str, write: Callable[[str, bool], str]) -> str:
    """``text`` with ``write`` applied to each part: outside choices (False) and each
    choice's words (True), the markup kept as it is."""
    parts: list[str] = []
    done = 0
    for match in _MARKUP_OR_CHOICE.finditer(text):
        parts.append(write(text[done : match.start()], False))
        if match.group(1) is None:  # a doubled brace
            parts.append(match.group(0))
        else:
            parts.append(f"{{{match.group(1)}|{write(match.group(2), True)}|{write(match.group(3), True)}}}")
        done = match.end()
    parts.append(write(text[done:], False))
    return "".join(parts)


def for_viewer(text: str, viewer: int | None) -> str:
    """``text`` as ``viewer`` (None: a spectator) reads it: in each choice "{N|yours|theirs}",
    seat N reads ``yours`` and everyone else ``theirs``; a name's markup (``in_text``) is
    read as the characters it stands for."""
    if "{" not in text:
        return text

    def read(match: re.Match[str]) -> str:
        if match.group(1) is None:
            return "{"
        words = match.group(2) if viewer is not None and int(match.group(1)) == viewer else match.group(3)
        return _IN_BRANCH.sub(lambda char: char.group(1), words)

    return _MARKUP_OR_CHOICE.sub(read, text)


def has_choices(text: str) -> bool:
    """Whether viewers read ``text`` differently."""
    return any(match.group(1) is not None for match in _MARKUP_OR_CHOICE.finditer(text))

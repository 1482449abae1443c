"""What every game's words module builds on: sentences about seats as one viewer reads them.

A game's ``words`` (``services/<game>/words.py``) turns each event, as one viewer's
projection of it, into one or more sentences. Seats are written "seat N": the gateway
writes each seat's name in (``common.names``), as clients do in action labels. The viewer's
own seat is "you", with the verb to match, which is why a seat's text is made per viewer.
Words are pure, like engines: the standard library and ``services.engine`` only.
"""

from collections.abc import Iterable


def seat(number: int) -> str:
    """How a seat is named in text; the gateway replaces it with the seat's name."""
    return f"seat {number}"


def join(items: Iterable[str], last: str = "and") -> str:
    """ "a", "a and b", "a, b and c"."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def plural(count: int, one: str, many: str | None = None) -> str:
    """ "1 die", "3 dice"."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


class Voice:
    """One viewer's way of naming seats (None: a spectator, who is none of them)."""

    __slots__ = ("viewer",)

    def __init__(self, viewer: int | None):
        self.viewer = viewer

    def who(self, number: int, start: bool = True) -> str:
        """The seat as a sentence's subject: "You" (or "you" mid-sentence) for the viewer."""
        if number == self.viewer:
            return "You" if start else "you"
        return seat(number)

    def whom(self, number: int) -> str:
        """The seat as an object: "you" for the viewer."""
        return "you" if number == self.viewer else seat(number)

    def whose(self, number: int, start: bool = True) -> str:
        """ "Your" / "seat 2's"."""
        if number == self.viewer:
            return "Your" if start else "your"
        return f"{seat(number)}'s"

    def their(self, number: int) -> str:
        """The seat's own, after it was named: "your" for the viewer, else "their"."""
        return "your" if number == self.viewer else "their"

    def verb(self, number: int, verb: str, third: str | None = None) -> str:
        """The verb agreeing with the seat: "bid" for the viewer, else "bids" (``third``
        for an irregular third person: "has")."""
        if number == self.viewer:
            return verb
        return third or verb + ("es" if verb.endswith(("s", "sh", "ch", "x", "o")) else "s")

    def does(self, number: int, verb: str, third: str | None = None, start: bool = True) -> str:
        """ "You bid" / "seat 2 bids"."""
        return f"{self.who(number, start)} {self.verb(number, verb, third)}"

    def is_(self, number: int, start: bool = True) -> str:
        """ "You are" / "seat 2 is"."""
        return self.does(number, "are", "is", start)

    def has(self, number: int, start: bool = True) -> str:
        """ "You have" / "seat 2 has"."""
        return self.does(number, "have", "has", start)

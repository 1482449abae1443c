"""What every game's words module builds on: sentences about seats as one viewer reads them.

A game's ``words`` (``services/<game>/words.py``) turns each event, as one viewer's
projection of it, into one or more sentences. Seats are written "seat N": the gateway
writes each seat's name in (``common.names``), as clients do in action labels. Where the
words depend on who reads them ("You bid" / "seat 2 bids") the text holds a ``choice``,
which the gateway resolves for each viewer. Words are pure, like engines: the standard
library and ``services.engine`` only.
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


def choice(number: int, yours: str, theirs: str) -> str:
    """Words that depend on who reads them: seat ``number`` reads ``yours``, every other
    viewer ``theirs`` ("{2|You bid|seat 2 bids}"). The gateway keeps one text for all and
    picks each viewer's words as it sends the event (``common.names.for_viewer``), so a
    viewer's "you" costs no copy of the event per seat."""
    return f"{{{number}|{yours}|{theirs}}}"


class Voice:
    """Naming seats in a text that every viewer reads: the viewer's own seat as "you",
    with the verb to match, through ``choice``. ``viewer`` (None: a spectator) is whose
    projection is being told: the content differs by it (one's own dice), not the grammar."""

    __slots__ = ("viewer",)

    def __init__(self, viewer: int | None):
        self.viewer = viewer

    def who(self, number: int, start: bool = True) -> str:
        """The seat as a sentence's subject: "You" (or "you" mid-sentence) for its own seat."""
        return choice(number, "You" if start else "you", seat(number))

    def whom(self, number: int) -> str:
        """The seat as an object: "you" for its own seat."""
        return choice(number, "you", seat(number))

    def whose(self, number: int, start: bool = True) -> str:
        """ "Your" / "seat 2's"."""
        return choice(number, "Your" if start else "your", f"{seat(number)}'s")

    def their(self, number: int) -> str:
        """The seat's own, after it was named: "your" for its own seat, else "their"."""
        return choice(number, "your", "their")

    def verb(self, number: int, verb: str, third: str | None = None) -> str:
        """The verb agreeing with the seat: "bid" for its own seat, else "bids" (``third``
        for an irregular third person: "has")."""
        third = third or verb + ("es" if verb.endswith(("s", "sh", "ch", "x", "o")) else "s")
        return choice(number, verb, third)

    def does(self, number: int, verb: str, third: str | None = None, start: bool = True) -> str:
        """ "You bid" / "seat 2 bids", as one choice."""
        third = third or verb + ("es" if verb.endswith(("s", "sh", "ch", "x", "o")) else "s")
        return choice(number, f"{'You' if start else 'you'} {verb}", f"{seat(number)} {third}")

    def is_(self, number: int, start: bool = True) -> str:
        """ "You are" / "seat 2 is"."""
        return self.does(number, "are", "is", start)

    def has(self, number: int, start: bool = True) -> str:
        """ "You have" / "seat 2 has"."""
        return self.does(number, "have", "has", start)

"""The one policy for every name a viewer reads: a guest's seat (TakeSeat), a player's
(CreatePlayer, RenamePlayer), and the names a table shows beside them.

``clean_name`` turns what a client sent into the name that is kept, or refuses it saying
which character and why:

- NFKC: full-width, ligature and styled letters (U+FF2E, U+2115) become the plain ones;
- the ends are stripped and each run of spaces becomes one space;
- refused: control characters (Cc: NUL, BEL, ESC of an ANSI sequence, newlines), format
  characters (Cf: bidirectional overrides and isolates, zero-width spaces and joiners; a
  zero-width joiner only between two symbols, as in an emoji sequence), unassigned (Cn),
  private-use (Co) and surrogate (Cs) code points, line and paragraph separators (Zl, Zp),
  invisible letters (Hangul fillers, the braille blank), a combining mark that begins the
  name, and more than ``MAX_MARKS`` marks on one letter;
- at most ``MAX_CHARACTERS`` characters and ``MAX_WIDTH`` terminal cells (a wide
  character, as in Chinese, takes two).

``skeletons`` are the name's confusable skeletons (Unicode TS #39, by the ``disarm``
library, with case folded and the digits 1 and 0 read as l and O; of the name and of its
lowercase): two names that share one look alike ("Nora" with a Cyrillic o, "N0RA",
"nora"), and the gateway lets only one player hold each (gateway/names.py).
``check_not_reserved`` refuses the names the platform gives seats itself, which a person
could hide behind: "Seat 2", "Player 3", a bot's ("random", "ismcts L8", "random 2") and
"You" (the word each viewer reads for their own seat), and any name holding "seat 3" (how
game text names a seat before the names are written in).
"""

import re
import unicodedata
from collections.abc import Iterable

from disarm import skeleton_key
from wcwidth import wcswidth

from common.errors import invalid

MAX_CHARACTERS = 64
MAX_WIDTH = 64  # terminal cells
MAX_MARKS = 3  # combining marks on one letter: more stack into the lines around the name

_REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "a format character",
    "Cn": "an unassigned code point",
    "Co": "a private-use character",
    "Cs": "a surrogate",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}
# Letters and symbols that draw nothing (default-ignorable or blank): a name of them looks
# empty, or like another name with them left out.
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
_ZWJ = "\u200d"
_SPACES = re.compile(" +")
# Python names no control character; these are the ones a terminal acts on.
_CONTROL_NAMES = {
    "\0": "NULL",
    "\a": "BELL",
    "\b": "BACKSPACE",
    "\t": "CHARACTER TABULATION",
    "\n": "LINE FEED",
    "\r": "CARRIAGE RETURN",
    "\x1b": "ESCAPE",
    "\x7f": "DELETE",
    "\x9b": "CONTROL SEQUENCE INTRODUCER",
}

# What the platform names seats itself ("Seat 2", "Player 3": seat_label and a guest
# without a name), as skeletons: digits read as TS #39 reads them (1 as l, 0 as O).
_NUMBER = r"(?: l?[0-9lo]+)?"
_PLATFORM_WORDS = ("seat", "player")
# How game text names a seat before names are written in (services/engine/words.py).
_PLACEHOLDER = re.compile(r"\bseat \d+")
_YOU = "you"


def character_name(char: str) -> str:
    """ "U+202E RIGHT-TO-LEFT OVERRIDE": a character as a message names it."""
    return f"U+{ord(char):04X} {_CONTROL_NAMES.get(char) or unicodedata.name(char, '')}".rstrip()


def clean_name(raw: str, *, what: str = "a name") -> str:
    """The name kept for ``raw`` ("" when it holds only spaces); INVALID_ARGUMENT
    (BAD_DISPLAY_NAME) naming the first character refused and why, or the bound passed."""
    normal = unicodedata.normalize("NFKC", raw)
    # Every other space (NFKC leaves a few) is a plain one; tabs and newlines are refused below.
    spaced = "".join(" " if unicodedata.category(char) == "Zs" else char for char in normal)
    name = _SPACES.sub(" ", spaced).strip(" ")
    check_characters(name, what=what, reason="BAD_DISPLAY_NAME")
    if len(name) > MAX_CHARACTERS:
        raise invalid("BAD_DISPLAY_NAME", f"{what} has at most {MAX_CHARACTERS} characters (this one {len(name)})")
    width = max(wcswidth(name), len(name))  # -1 for a character it does not know
    if width > MAX_WIDTH:
        raise invalid(
            "BAD_DISPLAY_NAME", f"{what} is at most {MAX_WIDTH} columns wide (this one {width}: wide letters count 2)"
        )
    return name


def check_characters(text: str, *, what: str, reason: str) -> None:
    """The one check of the characters a viewer reads (names, chat): INVALID_ARGUMENT
    (``reason``) naming the first character refused and why. ``text`` is already NFKC."""
    marks = 0
    for index, char in enumerate(text):
        category = unicodedata.category(char)
        if char == _ZWJ and 0 < index < len(text) - 1 and _is_symbol(text[index - 1]) and _is_symbol(text[index + 1]):
            continue  # joins an emoji sequence
        why = _REFUSED_CATEGORIES.get(category) or ("an invisible character" if char in _INVISIBLE else None)
        if why:
            raise _refused(f"{what} may not hold {character_name(char)} ({why})", char, reason)
        if category.startswith("M") and index == 0:
            raise _refused(f"{what} may not begin with {character_name(char)} (a combining mark)", char, reason)
        if category in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS:
                raise _refused(f"{what} may have at most {MAX_MARKS} combining marks on one letter", char, reason)
        else:
            marks = 0


def _is_symbol(char: str) -> bool:
    return unicodedata.category(char) == "So" or "\U0001f3fb" <= char <= "\U0001f3ff"  # skin tones are Sk


def _refused(message: str, char: str, reason: str) -> Exception:
    return invalid(reason, message, character=f"U+{ord(char):04X}")


def skeleton(name: str) -> str:
    """The name's confusable skeleton: equal for names that look alike (TS #39, case folded,
    1 and 0 read as l and O). A key for comparing, never shown."""
    return skeleton_key(name, digit_policy="tr39")


def skeletons(name: str) -> frozenset[str]:
    """The keys two names share when they look alike: the name's skeleton, and its
    lowercase's. The skeleton reads a capital I as l before it folds case (as TS #39 does),
    so "ISMCTS" and "ismcts" share only the second, "Ian" and "lan" only the first."""
    return frozenset((skeleton(name), skeleton(name.lower())))


def check_not_reserved(name: str, bot_names: Iterable[str] = (), *, what: str = "a name") -> None:
    """INVALID_ARGUMENT (RESERVED_DISPLAY_NAME) for a name that looks like one the platform
    gives a seat itself: "Seat 2", "Player 3", "You", a bot's ("random", "ismcts L8",
    "random 2": two bots of one name are told apart by their seat's number), or that holds
    "seat 3"."""
    if placeholder := _PLACEHOLDER.search(name):
        raise invalid(
            "RESERVED_DISPLAY_NAME",
            f"{what} may not hold {placeholder.group(0)!r}: game text names seats so, and a client"
            " writing names in would take it for one",
        )
    if reserved_as(name, bot_names):
        raise invalid(
            "RESERVED_DISPLAY_NAME",
            f"{what} may not look like a seat's or a bot's name, as {name!r} does: people would take it for one",
        )


def reserved_as(name: str, bot_names: Iterable[str] = ()) -> bool:
    keys = skeletons(name)
    if keys & skeletons(_YOU):
        return True
    words = {key for word in (*_PLATFORM_WORDS, *bot_names) if word for key in skeletons(word)}
    pattern = "|".join(re.escape(word) for word in sorted(words))
    return any(re.fullmatch(f"(?:{pattern}){_NUMBER}", key) for key in keys)

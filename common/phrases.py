"""Telling phrases (``tavola.rules.v1.Phrase``): words as data, a message id and typed
arguments, told in a reader's language from message catalogs.

A catalog is a gettext PO file (``MessageCatalog``), read with Babel: one per language of
each game (the rules service serves them with DescribeGame) and the platform's own
(``common/catalog/<locale>.po``: its events, and the words every game's phrases share,
such as "you"). English is the fallback of every language. Plural forms follow the PO
header's Plural-Forms (Babel fills in the language's rule where it is missing), numbers
and lists are written as the language writes them (``babel.numbers``, ``babel.lists``).

A seat is only ever an argument: its name is written in as it is, after the message was
read for placeholders, so that no name ("{0}", "seat 2", "A|b}") is ever read as markup.
Its own viewer reads it as "you", and a phrase whose first argument is the viewer's seat is
told from the message's variant of context "you" where there is one ("You bid" / "Ada
bids"). ``marked``: each seat reads as its name, the viewer's own followed by "(you)" (an
outcome's summary, whose verbs cannot follow a "you").
"""

import gettext
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from io import StringIO
from pathlib import Path
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.lists import format_list
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

FALLBACK = "en"
YOU = "you"  # the context of a message's variant told to the seat it is about
PLATFORM_CATALOGS = Path(__file__).with_name("catalog")
_PLACEHOLDER = re.compile(r"\{(\d+)(?::([a-z]+))?\}")
_BABEL_LIST_STYLES: dict[str, Any] = {"and": "standard", "or": "or", "unit": "unit", "narrow": "unit-narrow"}


@dataclass(frozen=True)
class Seat:
    """A seat, counted from 0: its name to everyone, "you" to its own viewer."""

    number: int


@dataclass(frozen=True)
class Term:
    """The id of a catalog message without arguments (a die face, a card, a role)."""

    id: str


@dataclass(frozen=True)
class Items:
    """Arguments told as one list: "and" ("a, b and c"), "or", "unit" ("a, b, c"),
    "narrow" ("a b c"), or the catalog's "list.<style>" pattern ("{0}; {1}")."""

    values: tuple["Arg", ...]
    style: str = "and"


@dataclass(frozen=True)
class Phrase:
    """A message id and its arguments: an int is a number, a str text written as it is."""

    id: str
    args: tuple["Arg", ...] = ()


Arg = int | str | Seat | Term | Items | Phrase


def phrase(message_id: str, *args: Arg) -> Phrase:
    return Phrase(message_id, args)


def items(values, style: str = "and") -> Items:
    return Items(tuple(values), style)


@dataclass(frozen=True)
class Catalog:
    """One language's messages of one catalog: (context, id) -> the message, or its plural
    forms; and which form a count takes."""

    locale: str
    messages: Mapping[tuple[str | None, str], str | tuple[str, ...]]
    plural: Callable[[int], int]

    @classmethod
    def from_po(cls, text: str) -> "Catalog":
        catalog = read_po(StringIO(text))
        messages: dict[tuple[str | None, str], str | tuple[str, ...]] = {}
        for message in catalog:
            if not message.id or not message.string:
                continue  # the header, or a message not yet translated
            key = str(message.id[0] if isinstance(message.id, (tuple, list)) else message.id)
            messages[(message.context, key)] = (
                tuple(message.string) if isinstance(message.string, (tuple, list)) else message.string
            )
        return cls(str(catalog.locale or FALLBACK), messages, gettext.c2py(catalog.plural_expr))


def language_of(locale: str) -> str:
    return re.split(r"[-_]", locale, maxsplit=1)[0].lower()


@dataclass
class Catalogs:
    """A catalog in each language it has, by locale, English the fallback."""

    by_locale: dict[str, Catalog] = field(default_factory=dict)

    @classmethod
    def from_po_texts(cls, catalogs: Iterable[tuple[str, str]]) -> "Catalogs":
        """(locale, PO text) pairs: a rules service's MessageCatalogs."""
        return cls({locale: Catalog.from_po(text) for locale, text in catalogs})

    @classmethod
    def from_folder(cls, folder: Path) -> "Catalogs":
        """Every ``<locale>.po`` of a folder."""
        return cls({path.stem: Catalog.from_po(path.read_text("utf-8")) for path in sorted(folder.glob("*.po"))})

    def chain(self, locale: str) -> list[Catalog]:
        """The catalogs to read ``locale``'s words from, in order: its own, its language's,
        English."""
        wanted = [locale, language_of(locale), FALLBACK]
        found = [self.by_locale[name] for name in dict.fromkeys(wanted) if name in self.by_locale]
        language = language_of(locale)
        found += [c for name, c in sorted(self.by_locale.items()) if language_of(name) == language and c not in found]
        found += [c for name, c in sorted(self.by_locale.items()) if language_of(name) == FALLBACK and c not in found]
        return found

    def messages(self) -> list[tuple[str | None, str]]:
        """Every (context, id) of the English catalog."""
        english = self.chain(FALLBACK)
        return list(english[0].messages) if english else []


@cache
def platform_catalogs() -> Catalogs:
    return Catalogs.from_folder(PLATFORM_CATALOGS)


def po_texts(folder: Path) -> list[tuple[str, str]]:
    """A folder's ``<locale>.po`` files as (locale, text), as DescribeGame serves them."""
    return [(path.stem, path.read_text("utf-8")) for path in sorted(folder.glob("*.po"))]


class MissingMessage(LookupError):
    pass


@dataclass
class Teller:
    """Tells phrases in one language: the game's catalogs, then the platform's."""

    locale: str
    game: Catalogs = field(default_factory=Catalogs)
    strict: bool = False  # raise MissingMessage (tests), else tell a missing message by its id
    # Numbers as written, by (number, signed): Babel's formatting was a large share of telling.
    _numbers: dict[tuple[int, bool], str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._chain = self.game.chain(self.locale) + platform_catalogs().chain(self.locale)
        # How numbers and lists are written: as the first catalog of the reader's language says
        # (its PO header's Language: "en_GB" for the English words), else as its locale.
        same = [c.locale for c in self._chain if language_of(c.locale) == language_of(self.locale)]
        try:
            self._cldr = str(Locale.parse(same[0] if same else self.locale))
        except (UnknownLocaleError, ValueError):
            self._cldr = FALLBACK

    def message(self, message_id: str, count: int | None = None, context: str | None = None) -> str | None:
        for catalog in self._chain:
            found = catalog.messages.get((context, message_id))
            if found is None:
                continue
            if isinstance(found, tuple):
                index = catalog.plural(count if count is not None else 1)
                return found[min(index, len(found) - 1)]
            return found
        return None

    def tell(self, said: Phrase, names: Mapping[int, str], viewer: int | None = None, marked: bool = False) -> str:
        """``said`` in words as ``viewer`` (None: a spectator) reads it, each seat by its
        name in ``names`` (else "Seat N")."""
        args = said.args
        count = _count(args)
        template = None
        if not marked and viewer is not None and args and args[0] == Seat(viewer):
            template = self.message(said.id, count, YOU)
        if template is None:
            template = self.message(said.id, count)
        if template is None:
            if self.strict:
                raise MissingMessage(said.id)
            template = said.id

        def placeholder(match: re.Match[str]) -> str:
            index = int(match.group(1))
            if index >= len(args):
                if self.strict:
                    raise MissingMessage(f"{said.id}: no argument {index}")
                return match.group(0)
            text = self._arg(args[index], names, viewer, marked, match.group(2))
            return text[:1].upper() + text[1:] if match.group(2) == "capital" else text

        return _PLACEHOLDER.sub(placeholder, template)

    def _arg(self, arg: Arg, names: Mapping[int, str], viewer: int | None, marked: bool, style: str | None) -> str:
        if isinstance(arg, Seat):
            name = names.get(arg.number, f"Seat {arg.number + 1}")
            if arg.number != viewer:
                return name
            if marked:
                return (self.message("platform.you.marked") or "{0}").replace("{0}", name, 1)
            return self.message("platform.you") or name
        if isinstance(arg, bool):
            raise TypeError("a truth value is no phrase argument")
        if isinstance(arg, int):
            return self._number(arg, style == "signed")
        if isinstance(arg, Term):
            found = self.message(arg.id)
            if found is None and self.strict:
                raise MissingMessage(arg.id)
            return arg.id if found is None else found
        if isinstance(arg, str):
            return arg
        if isinstance(arg, Phrase):
            return self.tell(arg, names, viewer, marked)
        if isinstance(arg, Items):
            return self._join([self._arg(item, names, viewer, marked, None) for item in arg.values], arg.style)
        raise TypeError(f"no phrase argument {arg!r}")

    def _number(self, value: int, signed: bool) -> str:
        key = (value, signed)
        told = self._numbers.get(key)
        if told is None:
            if len(self._numbers) >= 4096:
                self._numbers.clear()
            pattern = "+#,##0;-#,##0" if signed else None
            told = self._numbers[key] = format_decimal(value, format=pattern, locale=self._cldr)
        return told

    def _join(self, told: list[str], style: str) -> str:
        if not told:
            return ""
        pattern = self.message(f"list.{style}")
        if pattern is not None:  # the catalog's own: each item joined to the ones before it
            joined = told[0]
            for item in told[1:]:
                pair = (joined, item)
                joined = _PLACEHOLDER.sub(lambda match, pair=pair: pair[int(match.group(1)) % 2], pattern)  # type: ignore[misc]
            return joined
        try:
            return format_list(told, style=_BABEL_LIST_STYLES.get(style, "standard"), locale=self._cldr)
        except KeyError:  # a locale without that style
            return format_list(told, style="standard", locale=self._cldr)


def _count(args: tuple[Arg, ...]) -> int | None:
    """A plural message's count: its first number argument, else its first list's length."""
    for arg in args:
        if isinstance(arg, int) and not isinstance(arg, bool):
            return arg
    for arg in args:
        if isinstance(arg, Items):
            return len(arg.values)
    return None


def as_seats(count: int = 16) -> dict[int, str]:
    """Names that read as the rules service's English text writes seats: "seat N"."""
    return {seat: f"seat {seat}" for seat in range(count)}


@cache
def english(folder: Path) -> Teller:
    """The English teller of the catalogs of ``folder`` (a game's): the labels it gives."""
    return Teller(FALLBACK, Catalogs.from_folder(folder))

"""The terminal client's own words in the run's language (--lang, language.py): a gettext PO
catalog per language (``catalog/<language>.po``, read with Babel), each message's id its
English text, so English is the text in the code and the fallback of every language.

``_("Waiting for {who}…", who=...)`` tells a message, its ``{name}`` placeholders filled in
after it was translated (a name is never read as a placeholder); ``N_`` only marks a text
told later (a key's name in the key bar, ``translate_bindings``). tests/test_terminal_words.py
checks that every marked text has a translation in every catalog, with the same placeholders.
"""

import argparse
from dataclasses import replace
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

from clients.terminal import language
from tavola.gateway.v1 import gateway_pb2 as gw

CATALOGS = Path(__file__).with_name("catalog")


@cache
def messages(tag: str) -> dict[str, str]:
    """A language's catalog: English id -> its text; empty for a language without one."""
    path = CATALOGS / f"{tag}.po"
    if not path.is_file():
        return {}
    with path.open("rb") as file:
        catalog = read_po(file)
    return {str(m.id): str(m.string) for m in catalog if m.id and m.string}


def tag_of(locale: str | None = None) -> str:
    """The language of ``locale`` ("de_DE" reads "de"; this run's when None)."""
    return (locale or language.LANGUAGE).lower().replace("-", "_").split("_")[0]


def _(text: str, locale: str | None = None, **values: object) -> str:
    """``text`` in ``locale``'s language (this run's when None), else English, its
    placeholders filled in with ``values``."""
    told = messages(tag_of(locale)).get(text, text) if tag_of(locale) != "en" else text
    return told.format(**values) if values else told


def N_(text: str) -> str:
    """Marks ``text`` as a message told later (it is returned as it is)."""
    return text


def translate_bindings(node) -> None:
    """The key bar's names of a screen's keys (its BINDINGS, marked with N_) in this run's language."""
    bindings = node._bindings.key_to_bindings
    for key, found in bindings.items():
        bindings[key] = [replace(b, description=_(b.description)) if b.description else b for b in found]


# A table's status, as the command-line tools list tables.
STATUS = {
    gw.TABLE_STATUS_OPEN: N_("waiting for players"),
    gw.TABLE_STATUS_IN_PROGRESS: N_("being played"),
    gw.TABLE_STATUS_FINISHED: N_("finished"),
}


def seat_name(seat: int) -> str:
    """A seat as people count it, from 1 ("Seat 1" for seat 0)."""
    return _("Seat {number}", number=seat + 1)


# argparse's own words (its usage, its headings, its errors to a person), told in the run's
# language by the command-line tools (in_language); its errors in a tool's own use stay English.
ARGPARSE = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("unrecognized arguments: %s"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"),
    N_("expected at least one argument"),
    N_("expected at most one argument"),
    N_("ignored explicit argument %r"),
    N_("not allowed with argument %s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
)


def argparse_in_language(argv: list[str] | None) -> None:
    """Sets this run's language from ``--lang`` in ``argv`` (else the terminal's locale) before
    a tool builds its parser, whose help is told in it; and has argparse tell its own words
    in it (argparse reads them through its module's ``_``, gettext's, which has no catalog)."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--lang", default=language.from_environment())
    language.LANGUAGE = early.parse_known_args(argv)[0].lang
    argparse._ = _  # type: ignore[attr-defined]


def lang_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--lang`` option every tool takes (argparse_in_language reads it first)."""
    parser.add_argument(
        "--lang",
        default=language.LANGUAGE,
        help=_("the language to read in: it, de or en (default: LC_ALL, LC_MESSAGES or LANG, else English)"),
    )

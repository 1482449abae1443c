"""The terminal client's own words in the run's language (--lang, language.py): a gettext PO
catalog per language (``catalog/<language>.po``, read with Babel), each message's id its
English text, so English is the text in the code and the fallback of every language.

``_("Waiting for {who}…", who=...)`` tells a message, its ``{name}`` placeholders filled in
after it was translated (a name is never read as a placeholder); ``N_`` only marks a text
told later (a key's name in the key bar, ``translate_bindings``). tests/test_terminal_words.py
checks that every marked text has a translation in every catalog, with the same placeholders.
"""

from dataclasses import replace
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

from clients.terminal import language

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

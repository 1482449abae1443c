"""A game's terms on the board (a card, a Roman, a role, a die's symbol) in the run's
language (--lang, language.py), told from the game's own catalogs (``catalog/<locale>.po``
beside its words, the catalogs its rules service serves with DescribeGame), English where a
language has none: the board names a card as the game's events and help name it."""

from functools import cache
from pathlib import Path

from clients.terminal import language
from common.phrases import Catalogs, Phrase, Teller, Term
from services.engine.words import GameWords


@cache
def _teller(folder: Path, locale: str) -> Teller:
    return Teller(locale, Catalogs.from_folder(folder))


def tell(words: GameWords, said: Term | Phrase, locale: str | None = None) -> str:
    """``said`` in ``locale``'s words (this run's language when None); a term missing from
    every catalog reads as its id."""
    teller = _teller(words.folder, locale or language.LANGUAGE)
    if isinstance(said, Term):
        return teller.message(said.id) or said.id
    return teller.tell(said, {}, None)

"""What every game's words module builds on: its catalogs and English labels.

A game's ``words`` (``services/<game>/words.py``) turns each event, as one viewer's
projection of it, into a phrase (``common.phrases``): a message id of the game's catalog
(``services/<game>/catalog/<locale>.po``, English ``en.po`` at least) and typed arguments,
seats among them. The rules service sends the phrases and serves the catalogs; the gateway
tells them in each reader's language with the seats' names. Words are pure, like engines:
the standard library, ``services.engine`` and ``common.phrases`` only.
"""

from pathlib import Path

from common.phrases import Phrase, Teller, as_seats, english


class GameWords:
    """A game's catalogs (the ``catalog`` folder beside ``module_file``)."""

    def __init__(self, module_file: str):
        self.folder = Path(module_file).with_name("catalog")

    @property
    def teller(self) -> Teller:
        return english(self.folder)

    def english(self, said: Phrase, viewer: int | None = None) -> str:
        """``said`` in English as ``viewer`` reads it, seats written "seat N": an action's
        label (``Engine.describe_action``), and what tests read."""
        return self.teller.tell(said, as_seats(), viewer)

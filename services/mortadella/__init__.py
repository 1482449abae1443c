"""Il Trono di Mortadella: pure engine, codec and the GAME the rules service serves.

Rulebook ``shared/rules/mortadella.txt``, rulings M1-M21; docs/rules.md says
how this engine reads them, with every project decision.
"""

from services.engine.api import Game
from services.mortadella.codec import CODEC
from services.mortadella.engine import ENGINE, INFO
from services.mortadella.words import MortadellaWords

GAME = Game(engine=ENGINE, codec=CODEC, rules_port=50062, words=MortadellaWords())

__all__ = ["CODEC", "ENGINE", "GAME", "INFO"]

"""House of Borgia (2-6 players): bluffing with hidden dice to make a secret puppet pope."""

from services.borgia.codec import BorgiaCodec
from services.borgia.engine import INFO, BorgiaEngine
from services.borgia.words import BorgiaWords
from services.engine.api import Game

ENGINE = BorgiaEngine()
CODEC = BorgiaCodec()
GAME = Game(engine=ENGINE, codec=CODEC, rules_port=50061, words=BorgiaWords())

__all__ = ["CODEC", "ENGINE", "GAME", "INFO"]

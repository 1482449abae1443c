"""Pecunia non olet: the pure engine, its deck data and its proto codec.

``GAME`` is what the rules server hosts; ``info`` describes the game and its table options.
"""

from services.engine.api import Game
from services.pecunia.codec import PecuniaCodec
from services.pecunia.engine import PecuniaEngine

ENGINE = PecuniaEngine()
info = ENGINE.info
GAME = Game(engine=ENGINE, codec=PecuniaCodec())

__all__ = ["ENGINE", "GAME", "PecuniaCodec", "PecuniaEngine", "info"]

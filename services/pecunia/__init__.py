"""Pecunia non olet: the pure engine, its deck data and its proto codec.

Like every game package it exports ``GAME`` (what the rules server hosts), ``INFO`` (the
game and its table options), ``ENGINE`` and ``CODEC``.
"""

from services.engine.api import Game
from services.pecunia.codec import PecuniaCodec
from services.pecunia.engine import PecuniaEngine
from services.pecunia.words import PecuniaWords

ENGINE = PecuniaEngine()
CODEC = PecuniaCodec()
INFO = ENGINE.info
GAME = Game(engine=ENGINE, codec=CODEC, rules_port=50063, words=PecuniaWords())

__all__ = ["CODEC", "ENGINE", "GAME", "INFO", "PecuniaEngine"]

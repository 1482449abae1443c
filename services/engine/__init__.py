"""The kit every game engine is built from: typed errors, a seedable RNG and the engine protocol.

Nothing here (or in any engine) imports grpc, redis, celery, a clock or the global random
module: an engine is a pure function of (config, seed, actions).
"""

from services.engine.api import Codec, Engine, Game, GameInfo, OptionSpec, Outcome, parse_options
from services.engine.errors import (
    EngineError,
    IllegalAction,
    InvalidConfig,
    MalformedAction,
    NotYourDecision,
)
from services.engine.rng import Rng

__all__ = [
    "Codec",
    "Engine",
    "EngineError",
    "Game",
    "GameInfo",
    "IllegalAction",
    "InvalidConfig",
    "MalformedAction",
    "NotYourDecision",
    "OptionSpec",
    "Outcome",
    "Rng",
    "parse_options",
]

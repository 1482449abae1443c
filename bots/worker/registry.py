"""The bots of the ``tavola.bots`` registry (``services/bot_specs.py``, which lists them
and checks bot strings without loading any bot's code), made to play on a worker:

- ``make_strategy(text, game_id)``: the worker strategy, built once per process, with
  the bot's code imported then;
- ``queue(text)``: the Celery queue of a bot string.
"""

import importlib
from functools import cache

from bots.search.policy import Strategy
from bots.worker.app import queue_for
from services.bot_specs import parse_bot, resolve


def queue(text: str) -> str:
    """The Celery queue of a bot string: ``bots.<name>`` (options do not change it)."""
    return queue_for(parse_bot(text)[0])


@cache
def make_strategy(text: str, game_id: str) -> Strategy:
    """The strategy of a bot string for a game, built once per process. Raises BotError."""
    spec, options = resolve(text, game_id)
    make = spec.make
    if isinstance(make, str):
        module, _, attribute = make.partition(":")
        make = getattr(importlib.import_module(module), attribute)
    return make(game_id, options)

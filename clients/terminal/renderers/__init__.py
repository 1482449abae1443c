"""Renderers: what the client knows of each game. ``for_game`` finds ``<game_id>.py`` here
and falls back on the generic renderer, which plays any game from its messages alone."""

import importlib
from typing import Any

from clients.terminal.renderers.base import Renderer, TableContext


def for_game(game_id: str) -> Renderer[Any, Any, Any]:
    try:
        module = importlib.import_module(f"{__name__}.{game_id}")
    except ModuleNotFoundError as error:
        if error.name != f"{__name__}.{game_id}":
            raise
        return Renderer()
    return module.RENDERER


__all__ = ["Renderer", "TableContext", "for_game"]

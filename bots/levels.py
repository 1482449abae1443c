"""The search bot's levels: ``ismcts:level=N``, N from 1 (weakest) to 8 (the default, the
strongest settings known). Each level is a preset of the bot's own options, defined with
its spec (``bots/specs.py``) and listed here by ``level_presets()`` without importing any
bot or running a search (for the ladder, the gateway and quick play); an option given
with the level overrides the preset's.

Lower levels are weaker in two ways: less thinking time, and simpler play. Levels 1-3
search with no heuristic at all (plain SO-ISMCTS, random playouts, every seat's choices in
the tree); 4-5 let the game's heuristic model the other players and rank the bot's own
candidates (level 5 is what ``ismcts`` played by default before levels); 6-8 compare the
heuristic's first eight choices on paired playouts, with the sharper heuristic for the
bot's own seat and the belief that reads the others' hidden roles from their play, where
the game has them (the strongest settings measured in every game).

The order within a level's neighbours is meant, not yet measured: the levels are to be
calibrated on the rating ladder (docs/bots.md, "Bot strength and levels").
"""

from typing import TypedDict

from bots.specs import DEFAULT_LEVEL, LEVELS

__all__ = ["DEFAULT_LEVEL", "LEVELS", "LevelPreset", "level_presets", "preset"]


class LevelPreset(TypedDict):
    level: int
    options: dict[str, str]
    bot: str  # the bot string that plays it
    note: str


def level_presets() -> list[LevelPreset]:
    """Every level, weakest first: its options, the bot string and what it is."""
    return [
        {"level": level, "options": dict(options), "bot": f"ismcts:level={level}", "note": note}
        for level, (options, note) in sorted(LEVELS.items())
    ]


def preset(level: int) -> dict[str, str]:
    """The ismcts options level ``level`` stands for (KeyError for no such level)."""
    return dict(LEVELS[level][0])

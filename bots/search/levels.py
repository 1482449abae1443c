"""The search bot's levels: ``ismcts:level=N``, N from 1 (weakest) to 8 (the default, the
strongest settings known). Each level is a preset of the bot's own options, defined with
its spec (``LEVELS`` in ``bots/search/specs.py``; each game's schedule in its playbook) and
listed here by ``level_presets()`` without importing any bot or running a search (for the
ladder, the gateway and quick play); an option given with the level overrides the preset's.

The levels lie on one axis. Every level plays level 8's settings (paired playouts of the
heuristic's first eight choices, the sharper heuristic for its own seat, the belief that
reads the others' hidden roles), but for what level 8 alone adds in a game (in Borgia it
hides its puppet, ``self_read=on``; the levels below play openly); below 8 a share of its
decisions, ``slips``, is played as a uniformly random legal action without searching (1 at
level 1; at level 7, 0.14 in Mortadella and Borgia, 0.03 in Pecunia: each game has its own
schedule), and the decisions it does search get a fixed count of paired rounds (16) rather
than a time budget, so a busy host does not weaken them. A slip is never taken where the
bot's own view settles the answer. How far apart the levels are, as measured: docs/bots.md,
"Bot strength and levels".
"""

from typing import TypedDict

from bots.search.specs import DEFAULT_LEVEL, LEVELS, game_levels

__all__ = ["DEFAULT_LEVEL", "LEVELS", "LevelPreset", "level_presets", "levels_of", "preset"]


class LevelPreset(TypedDict):
    level: int
    options: dict[str, str]
    bot: str  # the bot string that plays it
    note: str


def levels_of(game_id: str | None = None) -> dict[int, tuple[dict[str, str], str]]:
    """The levels ``game_id`` plays (its playbook's schedule; the even one for a game without)."""
    return game_levels().get(game_id or "", LEVELS)


def level_presets(game_id: str | None = None) -> list[LevelPreset]:
    """Every level in ``game_id``, weakest first: its options, the bot string and what it is.
    The bot strings are the same in every game."""
    return [
        {"level": level, "options": dict(options), "bot": f"ismcts:level={level}", "note": note}
        for level, (options, note) in sorted(levels_of(game_id).items())
    ]


def preset(level: int, game_id: str | None = None) -> dict[str, str]:
    """The ismcts options level ``level`` stands for in ``game_id`` (KeyError for no such level)."""
    return dict(levels_of(game_id)[level][0])

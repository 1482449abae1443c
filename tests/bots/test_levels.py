"""The search bot's levels (bots/levels.py): presets of its options, listed without
running a search, each a bot that plays."""

import pytest

from bots.levels import DEFAULT_LEVEL, level_presets, preset
from bots.offline import play
from bots.registry import make_strategy
from bots.strategies import random_legal
from services import bot_specs
from services.registry import get_game


def test_the_levels_are_listed_weakest_first_each_a_bot_string():
    presets = level_presets()
    assert [p["level"] for p in presets] == list(range(1, 9))
    for entry in presets:
        _, options = bot_specs.resolve(entry["bot"])
        assert options["level"] == entry["level"]
        for name, value in entry["options"].items():
            assert options[name] == bot_specs.load_bots()["ismcts"].options_by_name[name].parse(value)


def test_the_default_is_the_strongest_level():
    assert DEFAULT_LEVEL == 8
    assert bot_specs.resolve("ismcts") == bot_specs.resolve("ismcts:level=8")


def test_lower_levels_think_no_longer_within_each_kind_of_play():
    """Weaker by budget within the same options, and by simpler options below."""
    budgets = {level: int(preset(level)["budget_ms"]) for level in range(1, 9)}
    assert budgets[1] < budgets[2] < budgets[3]
    assert budgets[4] < budgets[5]
    assert budgets[6] < budgets[7] < budgets[8]
    assert {preset(level)["guide"] for level in (1, 2, 3)} == {"none"}
    assert {preset(level)["paired"] for level in (4, 5)} == {"0"}


@pytest.mark.parametrize("level", [1, 4, 6])
def test_a_level_plays_whole_games(level):
    bot = make_strategy(f"ismcts:level={level},budget_ms=0,iterations=4", "borgia")
    assert play(get_game("borgia"), [bot, random_legal], {}, seed=level) is not None

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


def test_the_levels_lie_on_one_axis_below_level_8():
    """Every level plays level 8's settings; below it a fixed count of paired rounds, and a
    larger share of random decisions the lower the level: that share alone tells them apart."""
    slips = [float(preset(level)["slips"]) for level in range(1, 9)]
    assert slips == sorted(slips, reverse=True) and len(set(slips)) == 8
    assert slips[-1] == 0 and 0 < slips[0] <= 1
    strongest = {name: value for name, value in preset(DEFAULT_LEVEL).items() if name != "slips"}
    below = [{name: value for name, value in preset(level).items() if name != "slips"} for level in range(1, 8)]
    assert all(options == below[0] for options in below)
    assert int(below[0].pop("iterations")) > 0 and below[0] == strongest


def test_level_8_is_the_strongest_settings_unchanged():
    _, options = bot_specs.resolve("ismcts:level=8")
    assert {name: options[name] for name in ("budget_ms", "guide", "rollout", "overrule", "paired", "belief")} == {
        "budget_ms": 200,
        "guide": "heuristic",
        "rollout": "sharp",
        "overrule": 2.0,
        "paired": 8,
        "belief": "inferred",
    }
    assert options["slips"] == 0


@pytest.mark.parametrize("level", [1, 4, 6])
def test_a_level_plays_whole_games(level):
    bot = make_strategy(f"ismcts:level={level},budget_ms=0,iterations=4", "borgia")
    assert play(get_game("borgia"), [bot, random_legal], {}, seed=level) is not None

"""The bot registry (services/bot_specs.py, bots/worker/registry.py): tavola's bots are entry points like any other,
bot strings parse to a name and options, and every refusal carries a reason."""

import pytest

from bots.worker import registry
from services import bot_specs
from services.bot_specs import BAD_BOT_OPTION, BOT_NOT_FOR_GAME, UNKNOWN_BOT, BotError


def test_tavolas_own_bots_are_registered():
    bots = bot_specs.load_bots()
    assert {"random", "borgia-odds", "mortadella-heuristic", "pecunia-heuristic", "ismcts"} <= set(bots)
    assert bots["borgia-odds"].games == ("borgia",)
    assert bots["ismcts"].games == () and bots["ismcts"].plays("pecunia")
    for spec in bots.values():
        assert 0 <= spec.strength <= 100 and spec.description and spec.strength_note


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("random", ("random", {})),
        (" ismcts ", ("ismcts", {})),
        ("ismcts:", ("ismcts", {})),
        ("ismcts:budget_ms=50", ("ismcts", {"budget_ms": "50"})),
        ("ismcts: budget_ms = 50 , c=1.5", ("ismcts", {"budget_ms": "50", "c": "1.5"})),
    ],
)
def test_parse_bot(text, parsed):
    assert bot_specs.parse_bot(text) == parsed


@pytest.mark.parametrize(
    ("text", "game", "reason"),
    [
        ("", None, UNKNOWN_BOT),
        ("nobody", None, UNKNOWN_BOT),
        ("ismcts:budget_ms", None, BAD_BOT_OPTION),
        ("ismcts:=3", None, BAD_BOT_OPTION),
        ("ismcts:c=1,c=2", None, BAD_BOT_OPTION),
        ("ismcts:depth=3", None, BAD_BOT_OPTION),
        ("ismcts:budget_ms=fast", None, BAD_BOT_OPTION),
        ("ismcts:budget_ms=-1", None, BAD_BOT_OPTION),
        ("ismcts:c=nan", None, BAD_BOT_OPTION),
        ("ismcts:rollout=clever", None, BAD_BOT_OPTION),
        ("ismcts:budget_ms=0", None, BAD_BOT_OPTION),  # with no iteration limit it would never stop
        ("random:pick=1", None, BAD_BOT_OPTION),
        ("borgia-odds", "pecunia", BOT_NOT_FOR_GAME),
        ("pecunia-heuristic", "mortadella", BOT_NOT_FOR_GAME),
    ],
)
def test_refusals_carry_a_reason_and_a_message(text, game, reason):
    with pytest.raises(BotError) as caught:
        bot_specs.resolve(text, game)
    assert caught.value.reason == reason
    assert caught.value.message == str(caught.value) and caught.value.message


def test_resolve_fills_defaults_and_types_values():
    spec, options = bot_specs.resolve("ismcts:iterations=500,rollout=heuristic", "borgia")
    assert spec.name == "ismcts"
    assert options == {  # level 8's preset (Borgia's hides its puppet), and what was given
        "level": 8,
        "budget_ms": 200,
        "guide": "heuristic",
        "iterations": 500,
        "c": 0.7,
        "rollout": "heuristic",
        "overrule": 2.0,
        "paired": 8,
        "belief": "inferred",
        "self_read": "on",
        "slips": 0.0,
    }


def test_a_level_stands_for_its_preset_and_options_given_override_it():
    _, level_one = bot_specs.resolve("ismcts:level=1")
    assert level_one["slips"] > 0 and level_one["paired"] == 8 and level_one["level"] == 1
    _, overridden = bot_specs.resolve("ismcts:level=1,budget_ms=300")
    assert overridden == {**level_one, "budget_ms": 300}
    with pytest.raises(BotError) as caught:
        bot_specs.resolve("ismcts:level=9")
    assert caught.value.reason == BAD_BOT_OPTION


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("random", "random"),
        ("ismcts", "ismcts"),
        ("ismcts:budget_ms=200", "ismcts"),  # the default is left out
        ("ismcts: rollout=heuristic, budget_ms=050", "ismcts:budget_ms=50,rollout=heuristic"),
        ("ismcts:c=1,iterations=0,budget_ms=100", "ismcts:budget_ms=100,c=1.0"),
        ("ismcts:level=8,paired=8", "ismcts"),  # level 8 is the default, and its preset pairs 8
        ("ismcts:level=5", "ismcts:level=5"),
        ("ismcts:paired=8,level=5", "ismcts:level=5"),  # level 5's preset pairs 8 too
        ("ismcts:level=8,slips=0.5", "ismcts:slips=0.5"),
        ("ismcts:level=5,budget_ms=300", "ismcts:budget_ms=300,level=5"),
    ],
)
def test_canonical_form(text, canonical):
    assert bot_specs.canonical(text) == canonical
    assert bot_specs.canonical(canonical) == canonical
    assert bot_specs.resolve(canonical) == bot_specs.resolve(text)


def test_the_queue_is_the_bots_name():
    assert registry.queue("ismcts:budget_ms=50") == "bots.ismcts"
    assert registry.queue("random") == "bots.random"


def test_a_list_of_bots_keeps_each_bots_options_together():
    assert bot_specs.split_bots("ismcts:budget_ms=50,c=0.5,random, borgia-odds") == [
        "ismcts:budget_ms=50,c=0.5",
        "random",
        "borgia-odds",
    ]


@pytest.mark.parametrize("game_id", ["borgia", "mortadella", "pecunia"])
def test_every_bot_that_plays_a_game_builds_a_strategy_for_it(game_id):
    for name, spec in bot_specs.load_bots().items():
        if spec.plays(game_id):
            assert callable(registry.make_strategy(name, game_id))

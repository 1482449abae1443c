"""Each game's summary and options in its catalog (game.summary, option.<name>,
option.<name>.about): the English catalog says what the engine's description says, word for
word, so that the two cannot drift; every language has a label for every option."""

import pytest

from common.phrases import Catalogs, Teller
from services.registry import get_game
from services.rules_server import RulesServicer

GAMES = ("borgia", "mortadella", "pecunia")


@pytest.mark.parametrize("game_id", GAMES)
def test_the_english_catalog_says_what_the_description_says(game_id):
    servicer = RulesServicer(get_game(game_id))
    catalogs = Catalogs.from_po_texts((c.locale, c.po) for c in servicer.catalogs)
    description = servicer.description
    for locale in ("en", "it", "de"):
        say = Teller(locale, catalogs)
        summary = say.message("game.summary")
        assert summary, (locale, game_id)
        for option in description.options:
            assert say.message(f"option.{option.name}"), (locale, option.name)
            about = say.message(f"option.{option.name}.about")
            if locale == "en":
                assert about == option.description, option.name
        if locale == "en":
            assert summary == description.summary

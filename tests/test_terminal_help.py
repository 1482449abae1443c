"""The terminal's help panel states the rules from the game's own catalog (common/help.py),
so it can no longer state one wrongly: it once said Borgia's pope was the highest cardinal
on the ladder (B9: the most influence), never said a rumor eliminates (B9), and said
Mortadella's Rats hurt others (M7: every player, the roller too). The explanations beside a
menu are the catalog's words for the actions it offers. In Italian or German (--lang) the
panel's headings are the language's, as the help is."""

import pytest

from clients.terminal import choices
from clients.terminal import help as game_help
from clients.terminal.renderers import Renderer
from common.help import help_entries
from common.phrases import Catalogs
from services.registry import get_game

SUMMARY = "a summary"


def entries(game_id: str, locale: str = "en"):
    return help_entries(Catalogs.from_folder(get_game(game_id).words.catalog), locale)


def words(text: str) -> str:
    return " ".join(text.split())


def panel(game_id: str, locale: str = "en") -> str:
    return words(game_help.panel(game_id.title(), SUMMARY, entries(game_id, locale), locale=locale))


def test_no_renderer_states_rules_of_its_own():
    assert not hasattr(Renderer, "help_text")


@pytest.mark.parametrize("game_id", ["borgia", "mortadella", "pecunia"])
def test_the_panel_says_every_help_message_of_the_catalog(game_id):
    text = panel(game_id)
    for key, said in entries(game_id):
        assert words(said) in text, key
    assert "? F1 this help" in text


def test_borgia_panel_states_the_scoring_of_b9():
    text = panel("borgia")
    assert "highest cardinal on the ladder is pope" not in text
    assert "The cardinal with the most influence is elected pope (a tie: the one higher on the ladder)" in text
    assert "Each die a player still has gives their puppet 2 influence" in text
    assert "whose rumor card names their own puppet is eliminated" in text
    assert "no longer eliminates" in text  # B10, B13: Flame of Thy Tongue, Poisoned Dice


def test_mortadella_panel_says_rats_hurt_everyone_m7_and_lists_each_role_with_its_goal_m14():
    text = panel("mortadella")
    assert "hurt others" not in text
    black_death = "every player still in the game, you included, discards 1 People (or 1 Tower instead)"
    assert black_death in text
    assert "Roles and their goals" in text
    lord = "Lord of Silk: no special power; Towers, and not a single Mortadella."
    assert f"{lord} Goal: at least 4 People and 6 Tower, with no Mortadella" in text


def test_the_panel_in_german_and_italian_is_headed_in_the_language():
    text = panel("mortadella", "de_DE")
    assert "Die Rollen und ihre Ziele" in text and "Roles and their goals" not in text
    lord = "Herr der Seide: keine Sonderfähigkeit; Türme, und keine einzige Mortadella."
    assert f"{lord} Ziel: mindestens 4 Volk und 6 Turm, ohne Mortadella" in text  # M14
    assert "Würfelseiten • Volk:" in text and "Sonderwürfe • Porchetta:" in text
    assert (
        "Tasten ↑ ↓ Enter eine Aktion wählen" in text and "diese Hilfe" in text and "this help" not in text
    )  # the keys too
    text = panel("pecunia", "it")
    assert "Carte azione • Villa Dixius: per il resto di questo turno" in text
    assert "Romani • Senatore: non può mai sedere accanto a uno schiavo" in text  # P2
    assert "Action cards" not in text and "Romans" not in text
    assert game_help.headings("fr_FR") == game_help.headings("en")  # a language it lacks: English


def test_the_choices_shown_are_explained_by_what_they_do():
    """A Borgia bid reads its face's effect; a Pecunia card is played with its effect known;
    Mortadella's cancel says what it costs (M6)."""
    from services.borgia.model import Bid, Call, Face

    codec = get_game("borgia").codec
    actions = [codec.action_to_proto(Bid(3, Face.POISON)), codec.action_to_proto(Call())]
    menu = [choices.Choice("bid", children=[choices.Choice("3", index=0)]), choices.Choice("call", index=1)]
    told = game_help.level(entries("borgia"), menu, actions)
    assert told[0].startswith("Bid: claim that at least this many")
    assert "Poison: a bid on it removes 2 influence from the cardinals." in told
    assert any(line.startswith("Call: say the bid is a bluff") for line in told)

    from services.pecunia.model import PlayCastorOil, SeatPos

    pecunia = get_game("pecunia").codec.action_to_proto(PlayCastorOil(SeatPos.LEFT, 0, 2))
    told = game_help.level(entries("pecunia"), [choices.Choice("Castor oil", index=0)], [pecunia])
    assert told == ["Castor oil: remove up to 2 round markers from one Roman on your own latrine."]

    from services.mortadella.model import PayCancel

    mortadella = get_game("mortadella").codec.action_to_proto(PayCancel(True))
    told = game_help.level(entries("mortadella"), [choices.Choice("pay", index=0)], [mortadella])
    assert "1 for Drunkenness, 2 for Inebriation" in told[0]

"""Each game's help is words of its own catalog (common/help.py): every kind of action, card,
die face, effect, special roll and role the engine has is explained, enumerated from the
engine and its data so that a new kind without words fails here; and what the help states is
what the rules and RULINGS.md say (each test cites its ruling)."""

import re
import typing

import pytest

from common.help import help_entries, help_ids, help_messages
from common.phrases import FALLBACK, Catalogs, Teller, phrase
from services.borgia import model as borgia
from services.mortadella import model as mortadella
from services.mortadella.words import victory
from services.pecunia import model as pecunia
from services.pecunia.deck import available_decks, load_deck
from services.registry import get_game, player_counts
from tests.engine_harness import random_playout

ACTIONS = {"borgia": borgia.BorgiaAction, "mortadella": mortadella.Action, "pecunia": pecunia.PecuniaAction}


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def catalog(game_id: str) -> dict[str, str]:
    return dict(help_entries(Catalogs.from_folder(get_game(game_id).words.catalog)))


def said(game_id: str, key: str) -> str:
    return " ".join(catalog(game_id)[key].split())


@pytest.mark.parametrize("game_id", sorted(ACTIONS))
def test_every_kind_of_action_of_the_engine_has_its_explanation(game_id):
    help = catalog(game_id)
    assert help["help.rules"] and help["help.goal"]
    kinds = {snake(kind.__name__) for kind in typing.get_args(ACTIONS[game_id])}
    assert len(kinds) >= 10
    for kind in kinds:
        card = kind.removeprefix("play_")
        assert f"help.action.{kind}" in help or f"help.card.{card}" in help, kind
    # The wire's Action oneof names the same kinds, which is what a client reads an action by.
    action_type = get_game(game_id).codec.action_type()
    assert {f.name for f in action_type.DESCRIPTOR.oneofs[0].fields} == kinds


@pytest.mark.parametrize("game_id", sorted(ACTIONS))
def test_every_legal_action_of_a_playout_is_explained_as_clients_read_it(game_id):
    """The ids a client reads an action by (the wire's Action message) name messages the
    catalog has, for every legal action met over a random playout of each player count."""
    game = get_game(game_id)
    help = catalog(game_id)
    seen = set()

    def check(before, after, seat, action, events):
        for legal in game.engine.legal_actions(before, seat):
            ids = help_ids(game.codec.action_to_proto(legal))
            assert [key for key in ids if key in help], (legal, ids)
            assert all(key in help for key in ids if not key.startswith("help.action.play_")), (legal, ids)
            seen.add(ids[0])

    for players in player_counts(game_id):
        random_playout(game, players, {}, 5, max_steps=400, on_step=check)
    assert len(seen) >= 4


def test_borgia_explains_every_face_and_variant():
    help = catalog("borgia")
    for face in borgia.Face:
        assert f"help.face.{face.name.lower()}" in help
    for variant in ("shadow_puppets", "flame_of_thy_tongue", "poisoned_dice"):
        assert f"help.variant.{variant}" in help
    assert "help.role.puppet" in help


def test_mortadella_explains_every_face_effect_special_and_role():
    help = catalog("mortadella")
    for enum, section in ((mortadella.Symbol, "face"), (mortadella.Effect, "effect"), (mortadella.Special, "special")):
        for value in enum:
            assert f"help.{section}.{value.name.lower()}" in help, value
    for role in mortadella.Role:
        assert f"help.role.{role.name.lower()}" in help
        assert f"help.role.{role.name.lower()}.goal" in help


def test_mortadella_goals_say_what_the_role_data_says_m14():
    """M14: the victory table, which roles.json holds; each goal of the help reads as the
    game's words tell that data, so the two can never part."""
    help = catalog("mortadella")
    for role in mortadella.Role:
        assert help[f"help.role.{role.name.lower()}.goal"] == victory(role), role


def test_pecunia_explains_every_card_of_every_deck_and_every_roman():
    help = catalog("pecunia")
    for name in available_decks():
        deck = load_deck(name)
        for card in deck.actions:
            assert f"help.card.{card.kind.name.lower()}" in help
        for roman in deck.romans:
            assert f"help.roman.{roman.kind.name.lower()}" in help
    assert {f"help.card.{kind.name.lower()}" for kind in pecunia.ActionKind} <= set(help)


def test_help_ids_are_all_read_and_told():
    """Each help message is told (no placeholder left), in English and in any locale."""
    for game_id in ACTIONS:
        catalogs = Catalogs.from_folder(get_game(game_id).words.catalog)
        keys = help_messages(catalogs)
        assert keys
        teller = Teller(FALLBACK, catalogs, strict=True)
        for key in keys:
            text = teller.tell(phrase(key), {}, None)
            assert text.strip() and "{" not in text, key
        assert dict(help_entries(catalogs, "it")).keys() == set(keys)


def test_borgia_help_says_the_pope_is_the_most_influence_b9():
    """B9: the cardinal with the most influence wins, ties to the one higher on the ladder;
    the remaining dice add 2 each to the puppet; its puppeteer wins, or nobody."""
    goal = said("borgia", "help.goal")
    assert "The cardinal with the most influence is elected pope (a tie: the one higher on the ladder)" in goal
    assert "Each die a player still has gives their puppet 2 influence" in goal
    assert "nobody wins" in goal
    assert "highest cardinal on the ladder is pope" not in goal


def test_borgia_help_says_a_rumor_eliminates_b9_b10_b13():
    """B9: a rumor naming its holder's own puppet eliminates them; B10/B13: the two variants
    replace that with their penalty."""
    assert "whose rumor card names their own puppet is eliminated" in said("borgia", "help.goal")
    assert "eliminates that player" in said("borgia", "help.action.rumor")
    assert "no longer eliminates" in said("borgia", "help.variant.flame_of_thy_tongue")
    assert "as much influence as there are players" in said("borgia", "help.variant.flame_of_thy_tongue")
    assert "-2 influence" in said("borgia", "help.variant.poisoned_dice")


def test_borgia_help_states_calls_and_bids_b3_b4_b6():
    rules = said("borgia", "help.rules")
    assert "Fate counts as any face and cannot be bid" in rules  # B3
    assert "the caller loses a die, otherwise the bidder loses a die" in rules  # B4
    assert "A call ends the round's bidding" in rules  # B4
    assert "can still be bribed" in said("borgia", "help.action.accuse")  # B6


def test_mortadella_help_says_rats_hurt_everyone_the_roller_too_m7():
    """M7: Plague and Black Death hit every player still in the game, the active player
    included (a player's own Black Death costs them tokens too)."""
    assert "every player still in the game, you included" in said("mortadella", "help.effect.black_death")
    assert "every player still in the game, you included" in said("mortadella", "help.effect.plague")
    assert "you too" in said("mortadella", "help.face.rat")
    assert "hurt others" not in " ".join(catalog("mortadella").values())


def test_mortadella_help_states_the_cancel_costs_and_targets_m6():
    """M6: a targeted effect may name the active player; the target cancels Drunkenness with
    1 Mortadella, Inebriation with 2, by their own decision."""
    assert "1 for Drunkenness, 2 for Inebriation" in said("mortadella", "help.action.pay_cancel")
    assert "discarding 1 Mortadella" in said("mortadella", "help.effect.drunkenness")
    assert "discarding 2 Mortadella" in said("mortadella", "help.effect.inebriation")
    assert "you may name yourself" in said("mortadella", "help.action.choose_target")


def test_mortadella_help_states_the_deadly_sins_m8_and_the_master_m16():
    assert "Holding 8 tokens of one kind is a deadly sin" in said("mortadella", "help.rules")  # M8
    assert "Right: he wins. Wrong: he is out." in said("mortadella", "help.role.master")  # M16


def test_pecunia_help_states_the_seating_rules_p2_p3_and_the_end_p7():
    rules = said("pecunia", "help.rules")
    assert "only from the start of your queue" in rules  # P3
    assert "those seats stay empty" in rules  # P3
    assert "never sit next to a slave, unless a Villa Dixius is in force" in said("pecunia", "help.roman.senator")  # P2
    goal = said("pecunia", "help.goal")
    assert "30 with 2 players, 25 with 3, 20 with 4 to 6" in goal  # P7
    assert "At the table's turn limit the most sesterces win" in goal  # P8


def test_a_seat_left_empty_says_why_p3():
    """P3: refilling stops when the start of the queue fits no free seat; the history says so
    (it once read "empty: middle")."""
    from services.pecunia.words import WORDS, event_phrase

    told = WORDS.english(event_phrase(pecunia.RefillEnded(1, (pecunia.SeatPos.MIDDLE,)), None))
    assert told.endswith("fits no free seat, so the middle seat stays empty.")
    both = (pecunia.SeatPos.LEFT, pecunia.SeatPos.MIDDLE)
    told = WORDS.english(event_phrase(pecunia.RefillEnded(1, both), 1), 1)
    assert told == (
        "You stop refilling: the Roman at the start of your queue fits no free seat, "
        "so the left and middle seats stay empty."
    )


def test_the_players_page_says_each_game_in_short_as_its_catalog_does():
    """docs/players.md's games in short are generated from the catalogs (``python -m
    services.help_docs --markdown``): the docs say what the page and the terminal say."""
    from pathlib import Path

    from services.help_docs import markdown

    page = (Path(__file__).resolve().parents[1] / "docs" / "players.md").read_text()
    assert markdown() in page

"""The gateway tells a logged game event in the game's words as it is read
(gateway/text.py), from the event's bytes as the log keeps them: for every event of random
playouts of every game, as every viewer sees it, the same text the game's words make of
the engine's own projection (which the rules service sends with each command)."""

import pytest

from gateway.text import game_words, teller
from services.registry import get_game, player_counts
from tests.engine_harness import random_playout

GAMES = ("borgia", "mortadella", "pecunia")
TYPE_URL = "type.googleapis.com/"


@pytest.mark.parametrize("game_id", GAMES)
def test_a_logged_event_reads_as_the_words_of_its_projection(game_id):
    game = get_game(game_id)
    assert game.words is not None
    codec, engine = game.codec, game.engine
    type_url = TYPE_URL + codec.event_type().DESCRIPTOR.full_name
    assert teller(type_url) is not None
    told = 0
    for players in player_counts(game_id):
        _, first = engine.new_game(players, {}, 1)
        events = list(first) + random_playout(game, players, {}, 1, max_steps=3000).events
        for event in events:
            for viewer in (None, *range(players)):
                seen = engine.project_event(event, viewer)
                if seen is None:
                    continue
                assert game_words(type_url, codec.event_to_bytes(seen), viewer) == game.words.event_text(seen, viewer)
                told += 1
    assert told > 100


def test_an_event_the_gateway_has_no_words_for_is_not_told():
    assert teller(TYPE_URL + "tavola.coin.v1.Event") is None
    assert game_words(TYPE_URL + "tavola.coin.v1.Event", b"\x0a\x00", None) == ""


def test_a_damaged_event_goes_without_text():
    type_url = TYPE_URL + get_game("borgia").codec.event_type().DESCRIPTOR.full_name
    assert game_words(type_url, b"\xff\xff\xff", 0) == ""

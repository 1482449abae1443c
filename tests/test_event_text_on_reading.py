"""The gateway tells a logged game event from the phrase the log keeps and the catalogs the
game's rules service served (gateway/text.py), with no game code: for every event of random
playouts, as every viewer sees it, the same words the game's own catalogs give its phrase."""

import pytest

from common.phrase_wire import from_proto, to_proto
from common.phrases import as_seats
from gateway import text
from services.registry import get_game, player_counts
from services.rules_server import RulesServicer
from tests.engine_harness import random_playout, told

GAMES = ("borgia", "mortadella", "pecunia")  # every game is told in phrases
TYPE_URL = "type.googleapis.com/"


@pytest.mark.parametrize("game_id", GAMES)
def test_a_logged_event_reads_as_the_words_of_its_projection(game_id):
    game = get_game(game_id)
    servicer = RulesServicer(game)
    text.learn(servicer.description, servicer.catalogs)
    type_url = TYPE_URL + servicer.description.event_type
    assert text.teller(type_url) is not None
    count = 0
    for players in player_counts(game_id):
        _, first = game.engine.new_game(players, {}, 1)
        events = list(first) + random_playout(game, players, {}, 1, max_steps=3000).events
        for event in events:
            for viewer in (None, *range(players)):
                seen = game.engine.project_event(event, viewer)
                if seen is None:
                    continue
                logged = to_proto(game.words.event_phrase(seen, viewer)).SerializeToString()
                said = text.read_phrase(logged)
                assert said is not None
                assert text.tell(type_url, said, as_seats(), viewer) == told(game, seen, viewer)
                count += 1
    assert count > 100


def test_an_event_the_gateway_has_no_catalog_for_is_not_told():
    assert text.teller(TYPE_URL + "tavola.coin.v1.Event") is None
    said = from_proto(to_proto(text.phrase("coin.flipped")))
    assert text.tell(TYPE_URL + "tavola.coin.v1.Event", said, {}, None) == ""


def test_a_damaged_phrase_goes_without_text():
    assert text.read_phrase(b"\xff\xff\xff") is None

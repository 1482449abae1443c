"""Each game told in phrases has every word in its English catalog: over random playouts of
every player count, every event kind as every viewer sees it and every legal action is told
with no missing message, term or argument (a strict teller raises on any), and the
arguments the engine gives each message are the ones its words name."""

import re

import pytest

from common.phrases import FALLBACK, Catalogs, Items, Phrase, Teller, as_seats, platform_catalogs
from services.registry import get_game, player_counts
from tests.engine_harness import random_playout

GAMES = ("borgia", "mortadella", "pecunia")  # every game is told in phrases
PLACEHOLDER = re.compile(r"\{(\d+)(?::[a-z]+)?\}")


def _phrases(said: Phrase):
    yield said
    stack = list(said.args)
    while stack:
        arg = stack.pop()
        if isinstance(arg, Phrase):
            yield from _phrases(arg)
        elif isinstance(arg, Items):
            stack.extend(arg.values)


@pytest.mark.parametrize("game_id", GAMES)
def test_every_event_and_action_is_told_from_the_catalog(game_id):
    game = get_game(game_id)
    catalogs = Catalogs.from_folder(game.words.catalog)
    strict = Teller(FALLBACK, catalogs, strict=True)
    english = catalogs.chain(FALLBACK)[0].messages
    platform = platform_catalogs().chain(FALLBACK)[0].messages
    event_kinds, action_kinds, used = set(), set(), set()
    for players in player_counts(game_id):
        state, first = game.engine.new_game(players, {}, 3)
        playout = random_playout(game, players, {}, 3, max_steps=3000)
        for event in list(first) + playout.events:
            for viewer in (None, *range(players)):
                seen = game.engine.project_event(event, viewer)
                if seen is None:
                    continue
                said = game.words.event_phrase(seen, viewer)
                assert strict.tell(said, as_seats(), viewer).strip()
                event_kinds.add(type(event).__name__)
                for part in _phrases(said):
                    used.add(part.id)
                    # Every placeholder of each form of the message names an argument it has.
                    for context in (None, "you"):
                        found = english.get((context, part.id)) or platform.get((context, part.id))
                        forms = found if isinstance(found, tuple) else (found,) if found else ()
                        for form in forms:
                            wanted = {int(index) for index in PLACEHOLDER.findall(form)}
                            assert wanted <= set(range(len(part.args))), (part.id, form, part.args)
        for seat in range(players):
            for action in game.engine.legal_actions(state, seat):
                action_kinds.add(type(action).__name__)
                assert strict.tell(game.words.action_phrase(action), as_seats(), seat).strip()
    assert len(event_kinds) >= 10 and action_kinds


def test_a_name_is_only_an_argument():
    """Whatever a name holds, it reads as itself: names are written in after the message
    was read for placeholders, never as part of it (common/names.py's guarantee)."""
    from services.borgia import model as borgia

    words = get_game("borgia").words
    teller = Teller(FALLBACK, Catalogs.from_folder(words.catalog), strict=True)
    said = words.event_phrase(borgia.BidMade(1, 3, borgia.Face.BRIBE), None)
    for name in ("{0}", "seat 2", "A|b}", "{1|YOU WON|Eve}", "{{0}}"):
        assert teller.tell(said, {0: "Ada", 1: name}, 0) == f"{name} bids 3 x Bribe."
    assert teller.tell(said, {1: "{0}"}, 1) == "You bid 3 x Bribe."

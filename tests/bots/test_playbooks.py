"""Each game's playbook (``tavola.playbooks``, bots/search/playbooks.py) names code that
loads, and the search bot's makers take a game's heuristic, beliefs and settled answers
from it alone."""

import dataclasses

from bots.borgia import puppets, stealth
from bots.mortadella import roles as mortadella_roles
from bots.mortadella import settled as mortadella_settled
from bots.search import makers
from bots.search.playbooks import Playbook, SelfRead, code, load_playbooks, playbook
from services.registry import game_ids


def test_tavola_s_own_games_register_a_playbook_each_for_a_registered_game():
    assert {"borgia", "mortadella", "pecunia"} <= set(load_playbooks()) <= set(game_ids())


def test_every_named_part_of_every_playbook_loads_as_something_callable():
    for game_id, book in load_playbooks().items():
        parts = [getattr(book, field.name) for field in dataclasses.fields(book)]
        parts += [
            getattr(part, field.name)
            for part in parts
            if isinstance(part, SelfRead)
            for field in dataclasses.fields(part)
        ]
        named = [part for part in parts if isinstance(part, str) and part != game_id]
        assert named, game_id
        for target in named:
            assert callable(code(target)), (game_id, target)


def test_the_search_takes_each_game_s_knowledge_from_its_playbook():
    assert makers.sharp_policy("borgia") is puppets.borgia_sharp_policy
    assert makers.search_belief("mortadella") is mortadella_roles.role_belief
    assert makers.settled_answers("mortadella") is mortadella_settled.settled_answer
    assert code(playbook("borgia").self_read.hider) is stealth.borgia_stealth_policy  # type: ignore[union-attr]
    # Pecunia has no sharper heuristic and no belief: its heuristic plays its own seat, the
    # search redraws uniformly.
    assert makers.sharp_policy("pecunia") is makers.heuristic_policy("pecunia") is not None
    assert makers.search_belief("pecunia") is None


def test_a_game_without_a_playbook_gets_an_empty_one():
    assert playbook("no-such-game") == Playbook("no-such-game")
    assert makers.heuristic_policy("no-such-game") is None and makers.settled_answers("no-such-game") is None

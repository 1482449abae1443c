"""Hiding one's role from a reader in two-player Mortadella (M19, ``bots.mortadella.hiding``):
how exposed given tokens leave a role to the opponent's next guess, the guess held back
while the reader's miss would come first, and level 8 alone playing so."""

import random

import pytest

from bots.mortadella.heuristic import (
    _Me,
    mortadella_hiding_policy,
    mortadella_sharp_policy,
    open_candidates,
)
from bots.mortadella.hiding import exposure, holds_back, reader_choices
from bots.search.levels import level_presets
from services import bot_specs
from services.mortadella import ENGINE, GAME
from services.mortadella.model import GuessRole, Phase, Role, RollDice
from tests.mortadella.builders import make_state

# Rector's row (M14) is 4 People, 2 Tower, 5 Book: these tokens are nearer it than any other
# role's row; those point to the Captain (5 People, exactly 0 Book, 4 Mortadella).
NEAR_RECTOR = (4, 2, 4, 0)
NEAR_CAPTAIN = (3, 0, 0, 3)


def _after_seat_0_missed():
    """M19: seat 0 (Prince) guesses seat 1 (Rector) is the Lord, wrongly: its card leaves
    the game, it draws an undealt one, and seat 1 is to play with the Lord ruled out."""
    state, _ = ENGINE.apply(make_state(2), 0, GuessRole(1, Role.LORD))
    assert state.active == 1 and state.phase is Phase.PRE_ROLL and len(state.undealt) == 2
    return state


def test_m19_the_reader_can_only_name_one_of_two_roles_after_its_miss():
    """Seat 0 rules out its own card, the card it lost and the Lord it named wrongly."""
    assert reader_choices(ENGINE.view(_after_seat_0_missed(), 1), 1) == 2
    assert reader_choices(ENGINE.view(make_state(2), 0), 0) == 4


def test_m19_tokens_near_one_s_own_row_expose_the_role_and_tokens_elsewhere_hide_it():
    view = ENGINE.view(_after_seat_0_missed(), 1)
    exposed = exposure(view, 1)
    assert exposed is not None
    assert exposed(NEAR_RECTOR) == pytest.approx(1.0)
    assert exposed(NEAR_CAPTAIN) == pytest.approx(0.0)
    # What the hiding policy makes of tokens: an exposed role costs more than a lost game's worth of distance.
    assert _Me(view, 1, hide=True).value(NEAR_RECTOR) < _Me(view, 1).value(NEAR_RECTOR) - 20
    assert _Me(view, 1, hide=True).value(NEAR_CAPTAIN) == _Me(view, 1).value(NEAR_CAPTAIN)


def test_m19_no_exposure_once_no_guess_can_come():
    """A guess is allowed only while an undealt role remains (M19); with more players only
    the Master guesses (M16), which this reading does not model."""
    assert exposure(ENGINE.view(make_state(2, undealt=()), 0), 0) is None
    assert exposure(ENGINE.view(make_state(3), 0), 0) is None


def test_m19_the_hiding_policy_lets_the_reader_s_guess_miss_first():
    """After seat 0's miss, seat 1 names the Lord at one in three (M19: the guesser drew the
    named role one time in three); hidden among two roles, it rolls instead, since seat 0's
    miss would leave an undealt role for its own guess. The open sharp policy guesses."""
    state = _after_seat_0_missed()
    view, legal = ENGINE.view(state, 1), ENGINE.legal_actions(state, 1)
    assert holds_back(view, 1, 1 / 3) and not holds_back(view, 1, 0.5)
    assert mortadella_sharp_policy(GAME, view, 1, legal, random.Random(1)) == GuessRole(0, Role.LORD)
    assert isinstance(mortadella_hiding_policy(GAME, view, 1, legal, random.Random(1)), RollDice)
    assert open_candidates(GAME, view, 1, legal, random.Random(1)) == [GuessRole(0, Role.LORD)]


def test_m19_the_first_guess_is_not_held_back():
    """At the first turn the reader has four roles to choose from: no hiding is in reach."""
    state = make_state(2)
    view, legal = ENGINE.view(state, 0), ENGINE.legal_actions(state, 0)
    assert isinstance(mortadella_hiding_policy(GAME, view, 0, legal, random.Random(1)), GuessRole)


def test_the_hiding_policy_plays_legal_actions_to_the_end():
    for seed in range(3):
        state, _ = ENGINE.new_game(2, {}, seed)
        rng = random.Random(seed)
        while deciders := ENGINE.deciders(state):
            seat = deciders[0]
            legal = ENGINE.legal_actions(state, seat)
            action = mortadella_hiding_policy(GAME, ENGINE.view(state, seat), seat, legal, rng)
            assert action in legal
            state, _ = ENGINE.apply(state, seat, action)
        assert ENGINE.outcome(state) is not None


def test_mortadella_level_8_hides_its_role_and_the_levels_below_do_not():
    """Levels 1-7 keep the settings they were calibrated with."""
    assert bot_specs.resolve("ismcts", "mortadella")[1]["self_read"] == "on"
    assert all(
        bot_specs.resolve(f"ismcts:level={level}", "mortadella")[1]["self_read"] == "off" for level in range(1, 8)
    )
    assert "hiding its role" in level_presets("mortadella")[-1]["note"]
    assert "not hiding its role" in level_presets("mortadella")[0]["note"]

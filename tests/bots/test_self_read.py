"""A search that is read as it reads (``ismcts:self_read=on``, bots/search/ismcts.py ``extra``,
bots/borgia/puppets.py ``hiding_candidates``): the others in its playouts read its puppet
from its own performs (B5, public) with the model it reads theirs by, and spread the
matching rumor (B9), so a perform that gives its puppet away costs what it costs there;
it also compares performs that hide. Budgets are iteration counts, so every run is
deterministic."""

import random

import pytest

from bots.borgia.heuristic import borgia_heuristic_policy
from bots.borgia.odds import settled_answer
from bots.borgia.puppets import borgia_sharp_policy, hiding_candidates, puppet_belief, reveals
from bots.lab.offline import play
from bots.search.ismcts import search
from bots.search.strategies import random_legal
from bots.worker.registry import make_strategy
from services.borgia import GAME
from services.borgia.model import Bid, Bribe, Direction, Face, Phase, Poison, Rumor
from tests.borgia.test_rules import BORGIA, COLONNA, DELLA_ROVERE, LADDER, MEDICI, ORSINI, SFORZA, make_state

ENGINE = GAME.engine
TOP, BOTTOM = Direction.TOP, Direction.BOTTOM


def telling_position():
    """Two players, two dice each, so the game is near its end (B8). Seat 0 (puppet MEDICI,
    4 influence, third on the ladder) performs a BRIBE; its rival ORSINI leads with 5. The
    obvious perform, MEDICI to the top, tells a reader its puppet, and the reader bids
    next: its rumor of MEDICI would eliminate seat 0 at the end (B9)."""
    return make_state(
        2,
        phase=Phase.PERFORM,
        bid=Bid(1, Face.BRIBE),
        dice=((Face.BRIBE, Face.POISON), (Face.RUMOR, Face.JUDGEMENT)),
        ladder=LADDER,
        influence=(3, 2, 4, 5, 2, 2),
    )


def searched(state, self_read: bool, seed: int):
    legal, view = ENGINE.legal_actions(state, 0), ENGINE.view(state, 0)
    return search(
        GAME,
        view,
        0,
        legal,
        random.Random(seed),
        iterations=300,
        budget_ms=0,
        rollout=borgia_sharp_policy,
        opponent=borgia_sharp_policy if self_read else borgia_heuristic_policy,
        prior=borgia_sharp_policy,
        overrule=2.0,
        paired=8,
        belief=puppet_belief,
        certain=settled_answer,
        extra=hiding_candidates if self_read else None,
    ).action


def test_b5_b9_the_reader_in_the_playouts_reads_the_search_bots_own_performs():
    """The opponent model of self_read=on spreads the rumor of the puppet the search bot's
    own performs point to; the plain heuristic (self_read=off) does not read them."""
    state = make_state(
        2,
        phase=Phase.PERFORM,
        active=1,
        bid=Bid(2, Face.RUMOR),
        performed=((Bribe(MEDICI, TOP), Bribe(MEDICI, TOP)), ()),
    )
    legal, view = ENGINE.legal_actions(state, 1), ENGINE.view(state, 1)
    assert {borgia_sharp_policy(GAME, view, 1, legal, random.Random(s)) for s in range(10)} == {Rumor(MEDICI, 0, None)}
    plain = {borgia_heuristic_policy(GAME, view, 1, legal, random.Random(s)) for s in range(20)}
    assert len(plain) > 1


def test_b5_what_gives_a_puppet_away():
    assert reveals(Bribe(MEDICI, TOP), (MEDICI,))
    assert not reveals(Bribe(ORSINI, TOP), (MEDICI,))
    assert not reveals(Bribe(ORSINI, BOTTOM), (MEDICI,)), "every other cardinal alike: it points at none"
    assert not reveals(Poison(ORSINI, SFORZA), (MEDICI,))
    assert not reveals(Rumor(MEDICI, 1, None), (MEDICI,))


def test_the_hiding_candidates_are_a_quiet_perform_and_decoys_and_nothing_outside_a_perform():
    state = telling_position()
    legal, view = ENGINE.legal_actions(state, 0), ENGINE.view(state, 0)
    found = hiding_candidates(GAME, view, 0, legal, random.Random(0))
    assert found and all(action in legal for action in found)
    assert not reveals(found[0], (MEDICI,)), "the best perform that does not point at its puppet comes first"
    assert any(type(a) is Bribe and a.direction == TOP and a.cardinal != MEDICI for a in found), "a decoy"
    bidding = make_state(2)
    assert hiding_candidates(GAME, ENGINE.view(bidding, 0), 0, ENGINE.legal_actions(bidding, 0), random.Random(0)) == []


@pytest.mark.parametrize("seed", [0, 1])
def test_b5_b9_read_as_it_reads_the_search_prefers_a_perform_that_does_not_give_its_puppet_away(seed):
    """The telling position: without the option the search plays the obvious bribe of its
    own puppet; with it, a perform that does not point at its puppet, one of those the
    plain search weighs as nearly as good (it did not clearly prefer the bribe over it)."""
    state = telling_position()
    obvious = Bribe(MEDICI, TOP)
    legal = ENGINE.legal_actions(state, 0)
    assert borgia_sharp_policy(GAME, ENGINE.view(state, 0), 0, legal, random.Random(0)) == obvious
    assert searched(state, self_read=False, seed=seed) == obvious
    hidden = searched(state, self_read=True, seed=seed)
    assert hidden != obvious and not reveals(hidden, (MEDICI,)), hidden
    assert hidden in (Bribe(DELLA_ROVERE, TOP), Bribe(BORGIA, BOTTOM), Bribe(COLONNA, TOP), Bribe(ORSINI, BOTTOM))


def test_self_read_is_an_option_of_ismcts_and_plays_whole_games_in_every_game():
    from services.registry import game_ids, get_game

    for game_id in game_ids():
        bot = make_strategy("ismcts:self_read=on,iterations=4,budget_ms=0", game_id)
        assert play(get_game(game_id), [bot, random_legal], {}, seed=3) is not None

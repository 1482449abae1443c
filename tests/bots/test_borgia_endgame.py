"""House of Borgia: the search bot does not end a game it cannot win (bots/borgia/endgame.py).
The game ends when a player has no dice (B8); then, after the round's rally (B7) and the end
bonus of each player's dice (B9), the cardinal with the most influence is elected, and a
cardinal that is no one's puppet elects nobody."""

import random

from bots.borgia.endgame import end_is_lost, keep_going, settled_answer
from bots.borgia.odds import own_matching
from bots.borgia.stealth import borgia_stealth_policy
from bots.lab.offline import view_response
from bots.worker.registry import make_strategy
from services.borgia import GAME
from services.borgia.model import Allow, Bid, Call, Face, Phase
from tests.borgia.test_rules import BORGIA, MEDICI, make_state

ENGINE = GAME.engine
# Seat 0 (puppet MEDICI, third on the ladder) holds six dice without POISON or FATE; seat 1
# (puppet ORSINI) is on its last die.
NO_POISON = (Face.BRIBE, Face.BRIBE, Face.JUDGEMENT, Face.JUDGEMENT, Face.ACCUSATION, Face.RUMOR)
LAST_DIE = (Face.RUMOR,)


def influence(borgia: int) -> tuple[int, ...]:
    """BORGIA, no one's puppet and top of the ladder, at ``borgia``; every other at 2."""
    return (borgia, 2, 2, 2, 2, 2)


def answering(borgia: int, **overrides):
    """Seat 1, on its last die, bids 5 POISON: seat 0's own dice and the one die it cannot
    see could not make it true (B4), so a call takes seat 1's last die and ends the game."""
    fields = dict(
        phase=Phase.RESPOND,
        active=1,
        bid=Bid(5, Face.POISON),
        dice=(NO_POISON, LAST_DIE),
        influence=influence(borgia),
    )
    fields.update(overrides)
    return make_state(2, **fields)


def bidding(borgia: int):
    return make_state(2, phase=Phase.BID, active=0, dice=(NO_POISON, LAST_DIE), influence=influence(borgia))


def decide(policy, state, seat=0):
    legal, view = ENGINE.legal_actions(state, seat), ENGINE.view(state, seat)
    return policy(GAME, view, seat, legal, random.Random(3))


def test_b7_b9_an_end_now_is_lost_when_a_cardinal_no_rumor_can_remove_finishes_ahead():
    # MEDICI: 2 + 1 (third place's rally) + 12 (six dice) = 15; BORGIA 20 + 3 = 23.
    assert end_is_lost(ENGINE.view(answering(borgia=20), 0), 0)
    # BORGIA 12 + 3 = 15 ties MEDICI's 15, and is higher on the ladder: the tie is BORGIA's.
    assert end_is_lost(ENGINE.view(answering(borgia=12), 0), 0)
    assert not end_is_lost(ENGINE.view(answering(borgia=11), 0), 0)


def test_b9_a_rumor_naming_its_own_puppet_loses_the_end_and_one_that_may_remove_a_rival_does_not():
    assert end_is_lost(ENGINE.view(answering(borgia=2, rumors=((MEDICI,), ())), 0), 0)
    # A rumor naming BORGIA lies before seat 1: if BORGIA were seat 1's puppet it would leave
    # the ladder (B9). Seat 0 cannot see that puppet, so the end is not a certain loss.
    assert not end_is_lost(ENGINE.view(answering(borgia=20, rumors=((), (BORGIA,))), 0), 0)


def test_b4_b8_it_allows_rather_than_call_the_last_die_away_in_a_game_it_has_lost():
    lost, won = answering(borgia=20), answering(borgia=2)
    view = ENGINE.view(lost, 0)
    assert settled_answer(GAME, view, 0, ENGINE.legal_actions(lost, 0)) == Allow()
    assert settled_answer(GAME, ENGINE.view(won, 0), 0, ENGINE.legal_actions(won, 0)) == Call()
    assert decide(borgia_stealth_policy, lost) == Allow()
    # The default search bot plays it as the settled answer, unsearched.
    strategy = make_strategy("ismcts", "borgia")
    assert strategy(view_response(GAME, lost, 0), random.Random(1)).label == "allow"
    assert strategy(view_response(GAME, won, 0), random.Random(1)).label == "call"


def test_b12_at_the_highest_count_the_call_stays_forced():
    state = answering(borgia=20, bid=Bid(7, Face.POISON))
    legal = ENGINE.legal_actions(state, 0)
    assert legal == [Call()]
    assert keep_going(ENGINE.view(state, 0), 0, legal) is None


def test_b4_b8_bidding_to_a_last_die_in_a_lost_game_it_bids_what_no_die_could_make_true():
    """A call of a true bid would take the responder's last die and end the game; a call of a
    false one costs seat 0 a die, and the game goes on."""
    state = bidding(borgia=20)
    bid = decide(borgia_stealth_policy, state)
    assert type(bid) is Bid
    assert own_matching(NO_POISON)[bid.action] + len(LAST_DIE) < bid.count
    # With the end won, it bids as before: nothing to keep going.
    won = bidding(borgia=2)
    assert keep_going(ENGINE.view(won, 0), 0, ENGINE.legal_actions(won, 0)) is None


def test_b8_with_dice_left_on_both_sides_no_answer_ends_the_game():
    state = answering(borgia=20, dice=(NO_POISON, (Face.RUMOR, Face.BRIBE)))
    assert keep_going(ENGINE.view(state, 0), 0, ENGINE.legal_actions(state, 0)) is None
    assert settled_answer(GAME, ENGINE.view(state, 0), 0, ENGINE.legal_actions(state, 0)) == Call()

"""The engine-level odds policy (bots/borgia/odds.py) on House of Borgia values: it picks only
legal actions, from the seat's view alone, and reads its own dice as B2-B4 and B12 allow."""

import random

from bots.borgia.odds import borgia_odds_policy
from services.borgia import GAME
from services.borgia.model import Allow, Bid, Bribe, Call, Direction, Phase
from tests.borgia.test_playouts import CONFIGS, reachable_states
from tests.borgia.test_rules import ACCUSATION, BRIBE, FATE, MEDICI, POISON, make_state

ENGINE = GAME.engine


def choose(state, seat, seed=0):
    legal = ENGINE.legal_actions(state, seat)
    return borgia_odds_policy(GAME, ENGINE.view(state, seat), seat, legal, random.Random(seed))


def test_it_chooses_a_legal_action_at_every_decision():
    for players, options in CONFIGS:
        for state in reachable_states(players, options, 21):
            for seat in ENGINE.deciders(state):
                assert choose(state, seat) in ENGINE.legal_actions(state, seat)


def test_b4_it_calls_a_bid_it_cannot_believe_and_allows_one_its_dice_make_true():
    """Seat 1 answers seat 0; it holds POISON, POISON and 3 others; 10 dice are hidden from it."""
    assert choose(make_state(phase=Phase.RESPOND, bid=Bid(9, POISON)), 1) == Call()
    assert choose(make_state(phase=Phase.RESPOND, bid=Bid(3, POISON)), 1) == Allow()


def test_b12_at_the_highest_count_it_must_call():
    assert choose(make_state(phase=Phase.RESPOND, bid=Bid(15, ACCUSATION)), 1) == Call()


def test_b3_it_bids_the_lowest_legal_count_on_the_action_it_holds_most():
    """Seat 0 holds BRIBE, BRIBE, POISON, JUDGEMENT, FATE: BRIBE matches three (FATE is wild)."""
    assert choose(make_state(), 0) == Bid(1, BRIBE)
    assert choose(make_state(bid=Bid(4, FATE)), 0) == Bid(5, BRIBE)


def test_b5_it_bribes_its_own_puppet_up_or_a_rival_down():
    state = make_state(phase=Phase.PERFORM, bid=Bid(2, BRIBE))  # seat 0's puppet is MEDICI
    chosen = {choose(state, 0, seed) for seed in range(200)}
    assert Bribe(MEDICI, Direction.TOP) in chosen
    assert all((bribe.cardinal == MEDICI) == (bribe.direction == Direction.TOP) for bribe in chosen)

"""The Borgia heuristic (bots/borgia/heuristic.py): legal everywhere, from the seat's view
alone; it bids the action worth most to its puppet (B3, B5, B7), performs what leaves its
puppet best placed (B5, B6), never spreads its own puppet's rumor, and answers bids by the
odds (B4, B12)."""

import random

import pytest

from bots.borgia.heuristic import after, borgia_heuristic_policy
from bots.borgia.odds import borgia_odds_policy
from bots.lab.offline import play
from bots.search.policy import policy_strategy, random_policy
from services.borgia import GAME
from services.borgia.model import Accuse, Bid, Bribe, Call, Direction, JudgementPair, Phase, Poison, Rumor
from tests.borgia.test_playouts import CONFIGS, reachable_states
from tests.borgia.test_rules import (
    ACCUSATION,
    BORGIA,
    BRIBE,
    DELLA_ROVERE,
    JUDGEMENT,
    MEDICI,
    POISON,
    RUMOR,
    make_state,
    perform_state,
)

ENGINE = GAME.engine


def choose(state, seat, seed=0):
    legal = ENGINE.legal_actions(state, seat)
    return borgia_heuristic_policy(GAME, ENGINE.view(state, seat), seat, legal, random.Random(seed))


def test_it_chooses_a_legal_action_at_every_decision_of_every_player_count_and_variant():
    for players, options in CONFIGS:
        for state in reachable_states(players, options, 31):
            for seat in ENGINE.deciders(state):
                assert choose(state, seat) in ENGINE.legal_actions(state, seat)


def test_b3_b7_it_bids_the_action_worth_most_to_its_puppet_not_the_one_it_holds_most():
    """Seat 0's puppet MEDICI is third on the ladder; it holds three POISON and no BRIBE.
    A BRIBE to the top is worth three more rally a round (B7) and one of ten hidden dice
    will almost surely show it: it bids one BRIBE, where the odds bot bids POISON."""
    dice = ((POISON, POISON, POISON, JUDGEMENT, RUMOR), *make_state().dice[1:])
    state = make_state(dice=dice)
    assert choose(state, 0) == Bid(1, BRIBE)
    odds = borgia_odds_policy(GAME, ENGINE.view(state, 0), 0, ENGINE.legal_actions(state, 0), random.Random(0))
    assert odds == Bid(1, POISON)


def test_b3_it_bids_the_lowest_legal_count():
    assert all(choose(make_state(bid=Bid(4, BRIBE)), 0, seed).count == 5 for seed in range(20))


def test_b5_judgement_takes_from_the_strongest_rival_for_its_puppet():
    state = perform_state(JUDGEMENT, influence=(6, 2, 2, 2, 2, 2))  # BORGIA leads and tops the ladder
    assert {choose(state, 0, seed) for seed in range(20)} == {JudgementPair(BORGIA, MEDICI)}


def test_b5_b7_a_bribe_lifts_its_puppet_to_the_top():
    assert {choose(perform_state(BRIBE), 0, seed) for seed in range(20)} == {Bribe(MEDICI, Direction.TOP)}


def test_b5_b6_accusation_freezes_the_rival_that_would_gain_most():
    state = perform_state(ACCUSATION, influence=(9, 2, 2, 2, 2, 2))
    assert {choose(state, 0, seed) for seed in range(20)} == {Accuse(BORGIA)}


def test_b5_poison_hits_the_leader_and_spares_its_puppet():
    state = perform_state(POISON, influence=(2, 7, 2, 2, 2, 2))
    assert {choose(state, 0, seed) for seed in range(20)} == {Poison(DELLA_ROVERE, DELLA_ROVERE)}


def test_b5_b9_it_never_spreads_a_rumor_of_its_own_puppet():
    chosen = {choose(perform_state(RUMOR), 0, seed) for seed in range(100)}
    assert chosen and all(type(a) is Rumor and a.card != MEDICI for a in chosen)


def test_b4_b12_it_answers_bids_by_the_odds():
    assert choose(make_state(phase=Phase.RESPOND, bid=Bid(9, POISON)), 1) == Call()
    assert choose(make_state(phase=Phase.RESPOND, bid=Bid(15, ACCUSATION)), 1) == Call()


def test_b5_b6_its_reckoning_of_an_effect_matches_the_engine():
    """``after`` (the policy's reckoning) agrees with the engine on every BRIBE, POISON,
    JUDGEMENT and ACCUSATION that can be performed after an allowed bid in random playouts."""
    checked = 0
    for players, options in CONFIGS:
        for state in reachable_states(players, options, 41):
            if state.phase != Phase.PERFORM or state.called:
                continue  # after a call the round also ends: the rally follows the effect
            for action in ENGINE.legal_actions(state, state.active):
                if type(action).__name__ in ("Rumor", "PerformNothing"):
                    continue
                done, _ = ENGINE.apply(state, state.active, action)
                reckoned = after((state.influence, state.ladder, state.antipope), action)
                assert (tuple(reckoned[0]), reckoned[1], reckoned[2]) == (done.influence, done.ladder, done.antipope)
                checked += 1
    assert checked > 100


@pytest.mark.slow
def test_it_wins_more_often_than_the_odds_bot_in_the_same_seat_against_random_bots():
    """Four players, the same 60 deals: the heuristic in seat 0 against three random bots
    wins more games than the odds bot in its place."""
    heuristic, odds, rand = (
        policy_strategy(GAME, p) for p in (borgia_heuristic_policy, borgia_odds_policy, random_policy)
    )
    wins = {name: 0 for name in ("heuristic", "odds")}
    for seed in range(60):
        wins["heuristic"] += 0 in play(GAME, [heuristic, rand, rand, rand], {}, seed).winners
        wins["odds"] += 0 in play(GAME, [odds, rand, rand, rand], {}, seed).winners
    assert wins["heuristic"] > wins["odds"] + 6, wins

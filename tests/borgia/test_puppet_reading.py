"""Reading the others' puppets from their performs (bots/borgia/puppets.py): the odds follow
what each seat did to the cardinals (B5, public), the search bot's belief draws puppets by
them, and the sharper policy aims its rumors with them (B5, B9, B10, B13)."""

import random
from collections import Counter

import pytest

from bots.borgia.heuristic import borgia_heuristic_policy
from bots.borgia.puppets import borgia_sharp_policy, puppet_belief, puppet_odds
from bots.lab.offline import play
from bots.search.determinizations import sampler
from bots.search.policy import policy_strategy
from services.borgia import GAME
from services.borgia.model import Accuse, Bid, Bribe, Direction, Phase, Poison, Rumor
from tests.borgia.test_playouts import CONFIGS, reachable_states
from tests.borgia.test_rules import (
    BORGIA,
    COLONNA,
    DELLA_ROVERE,
    FATE,
    JUDGEMENT,
    MEDICI,
    ORSINI,
    POISON,
    RUMOR,
    SFORZA,
    make_state,
)

ENGINE = GAME.engine
TOP, BOTTOM = Direction.TOP, Direction.BOTTOM


def two_player(seat1_performed=(), **overrides):
    """Seat 0 puppets MEDICI, seat 1 ORSINI; seat 1 performed ``seat1_performed``."""
    return make_state(2, performed=((), tuple(seat1_performed)), **overrides)


def sharp(state, seat, seed=0):
    legal = ENGINE.legal_actions(state, seat)
    return borgia_sharp_policy(GAME, ENGINE.view(state, seat), seat, legal, random.Random(seed))


def test_b5_a_cardinal_raised_by_a_seat_is_its_likeliest_puppet_and_one_it_hurt_the_least():
    state = two_player([Bribe(ORSINI, TOP), Poison(BORGIA, BORGIA), Accuse(COLONNA)])
    odds = puppet_odds(ENGINE.view(state, 0), 0, 1)
    assert odds[MEDICI] == 0.0, "seat 0 knows its own puppet is not seat 1's"
    assert max(odds, key=odds.get) == ORSINI and odds[ORSINI] > 0.9
    assert odds[BORGIA] < odds[SFORZA] and odds[COLONNA] < odds[SFORZA]
    assert abs(sum(odds.values()) - 1.0) < 1e-9


def test_b5_without_performs_the_odds_are_the_deal_s():
    odds = puppet_odds(ENGINE.view(two_player(), 0), 0, 1)
    assert {c: round(p, 9) for c, p in odds.items() if p} == {c: 0.2 for c in odds if c != MEDICI}


def test_b10_in_shadow_puppets_the_odds_share_two_puppets_and_skip_what_the_rules_exclude():
    # Seat 1 holds a rumor of SFORZA, so (two players) seat 0 placed it: SFORZA is not seat 0's;
    # seat 0's view of seat 1: candidates are every cardinal but seat 0's MEDICI and ORSINI.
    state = make_state(2, shadow_puppets=True, puppets=((MEDICI, ORSINI), (COLONNA, SFORZA)))
    odds = puppet_odds(ENGINE.view(state, 0), 0, 1)
    assert odds[MEDICI] == odds[ORSINI] == 0.0
    assert abs(sum(odds.values()) - 2.0) < 1e-9


def test_the_belief_draws_the_puppets_the_play_points_to():
    view = ENGINE.view(two_player([Bribe(SFORZA, TOP), Bribe(SFORZA, TOP)]), 0)
    uniform = sampler(GAME, view, 0, random.Random(1), None)
    believed = sampler(GAME, view, 0, random.Random(1), puppet_belief)
    share = {
        name: Counter(draw().puppets[1][0] for _ in range(2000))[SFORZA] / 2000
        for name, draw in (("uniform", uniform), ("believed", believed))
    }
    assert 0.15 < share["uniform"] < 0.25 and share["believed"] > 0.9, share
    assert all(believed().puppets[0] == (MEDICI,) for _ in range(50)), "its own puppet is never redrawn"


def test_against_heuristic_players_the_reading_finds_the_puppet():
    """Two-player games of heuristic players: at the last decision, seat 0's likeliest
    reading of seat 1's puppet is the true one in at least 9 games of 10."""
    found = 0
    for seed in range(40):
        rng = random.Random(seed)
        state, _ = ENGINE.new_game(2, {}, seed)
        while ENGINE.outcome(state) is None:
            last = state
            (seat,) = ENGINE.deciders(state)
            action = borgia_heuristic_policy(
                GAME, ENGINE.view(state, seat), seat, ENGINE.legal_actions(state, seat), rng
            )
            state, _ = ENGINE.apply(state, seat, action)
        odds = puppet_odds(ENGINE.view(last, 0), 0, 1)
        found += max(odds, key=odds.get) == last.puppets[1][0]
    assert found >= 36, found


def test_b5_b9_the_sharp_policy_spreads_the_rumor_likeliest_to_match():
    state = two_player([Bribe(ORSINI, TOP)], phase=Phase.PERFORM, bid=Bid(2, RUMOR))
    assert {sharp(state, 0, seed) for seed in range(20)} == {Rumor(ORSINI, 1, None)}
    # The plain heuristic spreads any rumor but its own puppet's.
    plain = {
        borgia_heuristic_policy(GAME, ENGINE.view(state, 0), 0, ENGINE.legal_actions(state, 0), random.Random(s))
        for s in range(40)
    }
    assert len(plain) > 1


def test_b3_b9_it_bids_rumor_when_a_matching_rumor_is_in_reach_and_not_once_it_is_placed():
    # Seat 0's puppet MEDICI already tops the ladder, and seat 1 twice bribed ORSINI up.
    dice = ((POISON, JUDGEMENT, RUMOR, RUMOR, RUMOR, FATE), make_state(2).dice[1])
    ladder = (MEDICI, BORGIA, DELLA_ROVERE, ORSINI, COLONNA, SFORZA)
    history = [Bribe(ORSINI, TOP), Bribe(ORSINI, TOP)]
    assert sharp(two_player(history, dice=dice, ladder=ladder), 0) == Bid(1, RUMOR)
    placed = two_player(history, dice=dice, ladder=ladder, rumors=((), (ORSINI,)))
    for seed in range(10):
        assert sharp(placed, 0, seed) == borgia_heuristic_policy(
            GAME, ENGINE.view(placed, 0), 0, ENGINE.legal_actions(placed, 0), random.Random(seed)
        )


def test_b13_with_flame_of_thy_tongue_a_matching_rumor_is_worth_the_players_count_only():
    state = two_player([Bribe(ORSINI, TOP)], phase=Phase.PERFORM, bid=Bid(2, RUMOR), flame_of_thy_tongue=True)
    assert sharp(state, 0) == Rumor(ORSINI, 1, None)


def test_the_sharp_policy_is_legal_at_every_decision_of_every_player_count_and_variant():
    for players, options in CONFIGS:
        for state in reachable_states(players, options, 37):
            for seat in ENGINE.deciders(state):
                legal = ENGINE.legal_actions(state, seat)
                action = borgia_sharp_policy(GAME, ENGINE.view(state, seat), seat, legal, random.Random(0))
                assert action in legal
                assert not (type(action) is Rumor and action.card in state.puppets[seat])


@pytest.mark.slow
def test_it_beats_the_plain_heuristic_head_to_head():
    """Two players, 60 deals, seats alternating: the sharp policy wins most games."""
    sharp_bot, plain = (policy_strategy(GAME, p) for p in (borgia_sharp_policy, borgia_heuristic_policy))
    wins = Counter()
    for seed in range(60):
        seats = [sharp_bot, plain] if seed % 2 == 0 else [plain, sharp_bot]
        for winner in play(GAME, seats, {}, seed).winners:
            wins["sharp" if seats[winner] is sharp_bot else "plain"] += 1
    assert wins["sharp"] > 2 * wins["plain"], wins

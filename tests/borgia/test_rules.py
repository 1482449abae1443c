"""One or more tests per House of Borgia rule and ruling (B1-B13), each from a literal state.

Rule ids refer to RULINGS.md; "lead decision N" refers to the project decisions noted in
services/borgia/engine.py.
"""

import itertools
from dataclasses import replace

import pytest

from services.borgia import GAME
from services.borgia.engine import DICE_PER_PLAYER
from services.borgia.model import (
    CARDINALS,
    Accuse,
    ActionPerformed,
    Allow,
    Bid,
    BorgiaState,
    Bribe,
    Call,
    DiceRevealed,
    DieLost,
    Direction,
    Face,
    GameEnded,
    JudgementPair,
    JudgementSplit,
    PerformNothing,
    Phase,
    Poison,
    PuppetsDealt,
    Rallied,
    RollOff,
    RoundStarted,
    Rumor,
)
from services.engine.errors import IllegalAction, InvalidConfig, MalformedAction, NotYourDecision
from tests.engine_harness import told

ENGINE = GAME.engine

BORGIA, DELLA_ROVERE, MEDICI, ORSINI, COLONNA, SFORZA = CARDINALS
BRIBE, POISON, JUDGEMENT, ACCUSATION, RUMOR, FATE = tuple(Face)
TOP, BOTTOM = Direction.TOP, Direction.BOTTOM

LADDER = (BORGIA, DELLA_ROVERE, MEDICI, ORSINI, COLONNA, SFORZA)  # top first
PUPPET_ORDER = (MEDICI, ORSINI, SFORZA, COLONNA, BORGIA, DELLA_ROVERE)

# Three players, 5 dice each (B2). BRIBE+FATE: 3 + 0 + 2 = 5; ACCUSATION alone: 2; +FATE: 4.
DICE_3P = (
    (BRIBE, BRIBE, POISON, JUDGEMENT, FATE),
    (POISON, POISON, ACCUSATION, RUMOR, RUMOR),
    (BRIBE, JUDGEMENT, JUDGEMENT, ACCUSATION, FATE),
)


def make_state(player_count: int = 3, **overrides) -> BorgiaState:
    """A literal mid-game position: seats 0, 1, 2 ... puppet MEDICI, ORSINI, SFORZA, COLONNA ..."""
    n = player_count
    dice = DICE_3P if n == 3 else tuple(tuple(Face(i % 5) for i in range(DICE_PER_PLAYER[n])) for _ in range(n))
    fields = dict(
        player_count=n,
        shadow_puppets=False,
        flame_of_thy_tongue=False,
        poisoned_dice=False,
        rng=0x1234_5678_9ABC_DEF0,
        ladder=LADDER,
        influence=(2, 2, 2, 2, 2, 2),
        antipope=None,
        puppets=tuple((c,) for c in PUPPET_ORDER[:n]),
        dice=dice,
        rumors=tuple(() for _ in range(n)),
        phase=Phase.BID,
        round_number=1,
        round_starter=0,
        active=0,
        bid=None,
        called=False,
        performed=tuple(() for _ in range(n)),
    )
    fields.update(overrides)
    return BorgiaState(**fields)


def perform_state(action: Face, **overrides) -> BorgiaState:
    """Seat 0 performs ``action`` after seat 1 allowed a bid of 2."""
    return make_state(phase=Phase.PERFORM, bid=Bid(2, action), **overrides)


def shadow_state(**overrides) -> BorgiaState:
    """Two players, Shadow Puppets: seat 0 puppets MEDICI and ORSINI, seat 1 COLONNA and SFORZA."""
    fields = dict(shadow_puppets=True, puppets=((MEDICI, ORSINI), (COLONNA, SFORZA)))
    fields.update(overrides)
    return make_state(2, **fields)


def over_state(player_count: int = 3, **overrides) -> BorgiaState:
    fields = dict(phase=Phase.OVER, called=True, bid=Bid(3, BRIBE))
    fields.update(overrides)
    return make_state(player_count, **fields)


def of_type(events, kind):
    return [e for e in events if isinstance(e, kind)]


# --------------------------------------------------------------------------- B1, B2: setup


def test_b1_six_cardinals_with_two_influence_and_a_shuffled_ladder():
    state, _ = ENGINE.new_game(4, {}, seed=7)
    assert state.influence == (2,) * 6
    assert sorted(state.ladder) == list(CARDINALS)
    ladders = {ENGINE.new_game(4, {}, seed=s)[0].ladder for s in range(20)}
    assert len(ladders) > 1, "setup step 2: the ladder order is shuffled"
    assert state.antipope is None and all(not r for r in state.rumors)


@pytest.mark.parametrize(("players", "dice"), [(2, 6), (3, 5), (4, 5), (5, 4), (6, 4)])
def test_b2_dice_per_player(players, dice):
    state, events = ENGINE.new_game(players, {}, seed=3)
    assert [len(d) for d in state.dice] == [dice] * players
    assert of_type(events, RoundStarted)[0].dice_counts == (dice,) * players


def test_setup_deals_one_distinct_secret_puppet_each():
    state, events = ENGINE.new_game(6, {}, seed=11)
    assert sorted(p for seat in state.puppets for p in seat) == list(CARDINALS)
    dealt = of_type(events, PuppetsDealt)[0]
    assert ENGINE.project_event(dealt, 2).puppets == tuple(state.puppets[2] if s == 2 else None for s in range(6))
    assert ENGINE.project_event(dealt, None).puppets == (None,) * 6


def test_b2_a_seat_sees_only_its_own_dice_until_a_call_reveals_every_die():
    # ACCUSATION 2 + FATE 2 = 4 >= 3: a true bid, so the bidder now performs with the dice revealed.
    state = make_state(phase=Phase.RESPOND, bid=Bid(3, ACCUSATION))
    for viewer in (None, 0, 1, 2):
        seen = tuple(s.dice for s in ENGINE.view(state, viewer).seats)
        assert seen == tuple(DICE_3P[s] if s == viewer else None for s in range(3))
    after, _ = ENGINE.apply(state, 1, Call())
    assert after.phase == Phase.PERFORM and after.called
    for viewer in (None, 0, 1, 2):
        assert tuple(s.dice for s in ENGINE.view(after, viewer).seats) == DICE_3P


def test_b4_b5_every_seat_sees_the_actions_each_seat_performed_in_order():
    # Performs are announced to the table, so a seat's view keeps them: what a player remembers.
    state = perform_state(POISON)
    action = ENGINE.legal_actions(state, 0)[0]
    after, _ = ENGINE.apply(state, 0, action)
    for viewer in (None, 0, 1, 2):
        assert [s.performed for s in ENGINE.view(after, viewer).seats] == [(action,), (), ()]
    # A caught bluff performs nothing, so it adds nothing (B4).
    bluff = make_state(phase=Phase.RESPOND, bid=Bid(12, BRIBE), performed=after.performed)
    called, _ = ENGINE.apply(bluff, 1, Call())
    assert called.performed == after.performed


# --------------------------------------------------------------------------- B11: start player


def test_b11_most_fate_faces_starts():
    for seed in range(30):
        state, events = ENGINE.new_game(4, {}, seed=seed)
        roll_off = of_type(events, RollOff)[0]
        last = roll_off.rounds[-1].rolls
        fates = {r.seat: r.faces.count(FATE) for r in last}
        assert fates[roll_off.starter] > max(v for s, v in fates.items() if s != roll_off.starter)
        assert state.active == state.round_starter == roll_off.starter
        assert state.phase == Phase.BID and state.round_number == 1


def test_b11_ties_reroll_among_the_tied_only():
    found = 0
    for seed in range(200):
        _, events = ENGINE.new_game(5, {}, seed=seed)
        rounds = of_type(events, RollOff)[0].rounds
        for before, after in itertools.pairwise(rounds):
            fates = {r.seat: r.faces.count(FATE) for r in before.rolls}
            best = max(fates.values())
            assert {r.seat for r in after.rolls} == {s for s, v in fates.items() if v == best}
            found += 1
    assert found, "some seed must produce a tie"


def test_lead_decision_3_round_one_is_a_fresh_roll():
    state, events = ENGINE.new_game(3, {}, seed=5)
    roll_off = of_type(events, RollOff)[0]
    started = of_type(events, RoundStarted)[0]
    assert started.dice == state.dice
    assert started.starter == roll_off.starter
    assert [type(e) for e in events] == [type(e) for e in events[:2]] + [RollOff, RoundStarted]


# --------------------------------------------------------------------------- B3: bids


def test_b3_first_bid_any_count_from_one_to_dice_in_play_and_never_fate():
    legal = ENGINE.legal_actions(make_state(), 0)
    assert {a.count for a in legal} == set(range(1, 16))
    assert {a.action for a in legal} == {BRIBE, POISON, JUDGEMENT, ACCUSATION, RUMOR}
    assert len(legal) == 15 * 5


def test_b3_fate_cannot_be_bid():
    with pytest.raises(IllegalAction):
        ENGINE.apply(make_state(), 0, Bid(3, FATE))


def test_b3_b12_bid_above_the_dice_in_play_is_illegal():
    """B12: a bid's count is capped at the number of dice in play (15 here)."""
    with pytest.raises(IllegalAction):
        ENGINE.apply(make_state(), 0, Bid(16, BRIBE))


def test_b3_later_bid_must_have_a_strictly_higher_count():
    state = make_state(active=1, bid=Bid(4, BRIBE))
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 1, Bid(4, POISON))
    assert min(a.count for a in ENGINE.legal_actions(state, 1)) == 5


def test_b3_later_bid_may_jump_and_change_action():
    state, events = ENGINE.apply(make_state(active=1, bid=Bid(2, BRIBE)), 1, Bid(8, POISON))
    assert state.bid == Bid(8, POISON) and state.phase == Phase.RESPOND
    assert ENGINE.deciders(state) == (2,)
    assert len(events) == 1


# --------------------------------------------------------------------------- B4: call or allow


def test_b4_only_the_next_seat_may_call_or_allow():
    state = make_state(phase=Phase.RESPOND, bid=Bid(3, BRIBE))
    assert ENGINE.deciders(state) == (1,)
    for seat in (0, 2):
        assert ENGINE.legal_actions(state, seat) == []
        with pytest.raises(NotYourDecision):
            ENGINE.apply(state, seat, Call())


def test_b4_responder_wraps_around_the_table():
    state = make_state(phase=Phase.RESPOND, active=2, bid=Bid(3, BRIBE))
    assert ENGINE.deciders(state) == (0,)


def test_b12_lead_decision_2_at_the_highest_count_the_responder_can_only_call():
    """B12: a bid naming every die in play cannot be raised, so the responder must call."""
    state = make_state(phase=Phase.RESPOND, bid=Bid(15, BRIBE))
    assert ENGINE.legal_actions(state, 1) == [Call()]
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 1, Allow())


def test_b4_allow_lets_the_bidder_perform_without_a_reveal():
    state, events = ENGINE.apply(make_state(phase=Phase.RESPOND, bid=Bid(9, BRIBE)), 1, Allow())
    assert state.phase == Phase.PERFORM and ENGINE.deciders(state) == (0,)
    assert not state.called and state.dice == DICE_3P
    assert not of_type(events, DiceRevealed)


def test_b4_after_an_allowed_action_the_allower_bids_next_and_higher():
    state, events = ENGINE.apply(perform_state(BRIBE), 0, Bribe(SFORZA, TOP))
    assert state.phase == Phase.BID and ENGINE.deciders(state) == (1,)
    assert state.bid == Bid(2, BRIBE)
    assert min(a.count for a in ENGINE.legal_actions(state, 1)) == 3
    assert [len(d) for d in state.dice] == [5, 5, 5]
    assert not of_type(events, DieLost)


def test_b4_call_reveals_every_die_publicly():
    state = make_state(phase=Phase.RESPOND, bid=Bid(5, BRIBE))
    _, events = ENGINE.apply(state, 1, Call())
    revealed = of_type(events, DiceRevealed)[0]
    assert revealed.dice == DICE_3P and revealed.matching == 5 and revealed.truthful
    for viewer in (None, 0, 1, 2):
        assert ENGINE.project_event(revealed, viewer) == revealed


def test_b4_fate_counts_as_any_action_when_called():
    # ACCUSATION faces: 2; with FATE faces: 4 >= 3.
    state, events = ENGINE.apply(make_state(phase=Phase.RESPOND, bid=Bid(3, ACCUSATION)), 1, Call())
    assert of_type(events, DiceRevealed)[0].matching == 4
    assert state.phase == Phase.PERFORM and state.called and ENGINE.deciders(state) == (0,)


def test_b4_true_bid_the_caller_loses_a_die_after_the_bidder_performs():
    state = make_state(phase=Phase.PERFORM, bid=Bid(5, BRIBE), called=True)
    after, events = ENGINE.apply(state, 0, Bribe(SFORZA, TOP))
    assert [type(e) for e in events[:3]] == [ActionPerformed, DieLost, Rallied]
    assert of_type(events, DieLost)[0].seat == 1
    assert [len(d) for d in after.dice] == [5, 4, 5]
    assert after.ladder[0] == SFORZA


def test_b4_false_bid_the_bidder_loses_a_die_and_does_nothing():
    state = make_state(phase=Phase.RESPOND, bid=Bid(6, BRIBE))
    after, events = ENGINE.apply(state, 1, Call())
    assert of_type(events, DiceRevealed)[0].truthful is False
    assert not of_type(events, ActionPerformed)
    assert of_type(events, DieLost) == [DieLost(0, 4)]
    assert [len(d) for d in after.dice] == [4, 5, 5]


def test_b4_a_call_ends_the_bidding_of_the_round():
    after, _ = ENGINE.apply(make_state(phase=Phase.RESPOND, bid=Bid(6, BRIBE)), 1, Call())
    assert after.round_number == 2 and after.bid is None and after.phase == Phase.BID


# --------------------------------------------------------------------------- B8: next round, end


def test_b8_the_player_who_lost_a_die_starts_and_everyone_rerolls():
    state = make_state(phase=Phase.PERFORM, bid=Bid(5, BRIBE), called=True)
    after, events = ENGINE.apply(state, 0, Bribe(SFORZA, TOP))
    started = of_type(events, RoundStarted)[0]
    assert after.active == after.round_starter == started.starter == 1  # the caller lost the die
    assert after.rng != state.rng and after.dice == started.dice
    assert started.dice_counts == (5, 4, 5) and not after.called


def test_b8_the_game_ends_when_a_player_has_no_dice():
    dice = ((BRIBE,), *DICE_3P[1:])
    state = make_state(phase=Phase.RESPOND, bid=Bid(11, RUMOR), dice=dice)
    after, events = ENGINE.apply(state, 1, Call())
    assert after.phase == Phase.OVER and ENGINE.deciders(after) == ()
    assert ENGINE.legal_actions(after, 0) == []
    assert [type(e) for e in events[-3:]] == [DieLost, Rallied, GameEnded]
    assert ENGINE.outcome(after) is not None
    with pytest.raises(NotYourDecision):
        ENGINE.apply(after, 0, Bid(1, BRIBE))


# --------------------------------------------------------------------------- B5: BRIBE


def test_b5_bribe_must_actually_move():
    state = perform_state(BRIBE)
    legal = ENGINE.legal_actions(state, 0)
    assert len(legal) == 10
    assert Bribe(BORGIA, TOP) not in legal and Bribe(SFORZA, BOTTOM) not in legal
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, Bribe(BORGIA, TOP))


def test_b5_bribe_to_the_very_top():
    after, _ = ENGINE.apply(perform_state(BRIBE), 0, Bribe(ORSINI, TOP))
    assert after.ladder == (ORSINI, BORGIA, DELLA_ROVERE, MEDICI, COLONNA, SFORZA)


def test_b5_bribe_to_the_very_bottom():
    after, _ = ENGINE.apply(perform_state(BRIBE), 0, Bribe(DELLA_ROVERE, BOTTOM))
    assert after.ladder == (BORGIA, MEDICI, ORSINI, COLONNA, SFORZA, DELLA_ROVERE)


def test_b6_the_antipope_can_still_be_bribed():
    after, _ = ENGINE.apply(perform_state(BRIBE, antipope=COLONNA), 0, Bribe(COLONNA, TOP))
    assert after.ladder[0] == COLONNA


# --------------------------------------------------------------------------- B5: POISON


def test_b5_poison_two_from_one_cardinal():
    after, events = ENGINE.apply(perform_state(POISON), 0, Poison(MEDICI, MEDICI))
    assert after.influence[MEDICI] == 0
    assert of_type(events, ActionPerformed)[0].influence_changes[0].delta == -2


def test_b5_poison_one_from_each_of_two_cardinals_in_any_order():
    after, _ = ENGINE.apply(perform_state(POISON), 0, Poison(ORSINI, MEDICI))
    assert after.influence == (2, 2, 1, 1, 2, 2)


def test_b5_poison_takes_what_there_is_and_never_goes_below_zero():
    state = perform_state(POISON, influence=(2, 2, 1, 2, 2, 2))
    after, _ = ENGINE.apply(state, 0, Poison(MEDICI, MEDICI))
    assert after.influence[MEDICI] == 0


def test_b5_poison_only_targets_cardinals_with_influence():
    state = perform_state(POISON, influence=(0, 0, 0, 0, 0, 3))
    assert ENGINE.legal_actions(state, 0) == [Poison(SFORZA, SFORZA)]


def test_lead_decision_4_poison_with_nothing_to_take_does_nothing():
    state = perform_state(POISON, influence=(0, 0, 0, 0, 0, 0))
    assert ENGINE.legal_actions(state, 0) == [PerformNothing()]
    after, events = ENGINE.apply(state, 0, PerformNothing())
    assert after.influence == state.influence and after.phase == Phase.BID
    assert of_type(events, ActionPerformed)[0].influence_changes == ()


def test_lead_decision_4_perform_nothing_is_illegal_when_something_can_be_done():
    with pytest.raises(IllegalAction):
        ENGINE.apply(perform_state(POISON), 0, PerformNothing())


def test_b6_the_antipope_cannot_be_poisoned():
    state = perform_state(POISON, antipope=MEDICI)
    legal = ENGINE.legal_actions(state, 0)
    assert all(MEDICI not in (a.first, a.second) for a in legal)
    assert len(legal) == 5 + 10
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, Poison(MEDICI, MEDICI))


# --------------------------------------------------------------------------- B5: JUDGEMENT


def test_b5_judgement_two_from_one_to_another():
    after, _ = ENGINE.apply(perform_state(JUDGEMENT), 0, JudgementPair(MEDICI, ORSINI))
    assert after.influence == (2, 2, 0, 4, 2, 2)


def test_b5_judgement_one_each_from_two_to_two_others():
    after, _ = ENGINE.apply(perform_state(JUDGEMENT), 0, JudgementSplit((ORSINI, MEDICI), (SFORZA, BORGIA)))
    assert after.influence == (3, 2, 1, 1, 2, 3)


def test_b5_judgement_options_are_listed_once_each():
    legal = ENGINE.legal_actions(perform_state(JUDGEMENT), 0)
    assert len(legal) == len(set(legal)) == 6 * 5 + 15 * 6


def test_b5_judgement_a_cardinal_that_loses_cannot_gain():
    for action in ENGINE.legal_actions(perform_state(JUDGEMENT), 0):
        if isinstance(action, JudgementPair):
            assert action.source != action.target
        else:
            assert not set(action.sources) & set(action.targets)
    with pytest.raises(IllegalAction):
        ENGINE.apply(perform_state(JUDGEMENT), 0, JudgementSplit((MEDICI, ORSINI), (MEDICI, SFORZA)))


def test_b5_judgement_two_from_one_needs_two_influence():
    state = perform_state(JUDGEMENT, influence=(2, 2, 1, 2, 2, 2))
    assert not [a for a in ENGINE.legal_actions(state, 0) if isinstance(a, JudgementPair) and a.source == MEDICI]
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, JudgementPair(MEDICI, ORSINI))


def test_lead_decision_4_judgement_always_moves_exactly_two():
    state = perform_state(JUDGEMENT, influence=(0, 0, 1, 0, 0, 0))
    assert ENGINE.legal_actions(state, 0) == [PerformNothing()]


def test_b6_the_antipope_neither_gives_nor_receives_in_a_judgement():
    state = perform_state(JUDGEMENT, antipope=ORSINI)
    for action in ENGINE.legal_actions(state, 0):
        cardinals = (
            (action.source, action.target) if isinstance(action, JudgementPair) else action.sources + action.targets
        )
        assert ORSINI not in cardinals
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, JudgementPair(MEDICI, ORSINI))


# --------------------------------------------------------------------------- B5: ACCUSATION


def test_b5_accusation_places_the_antipope_marker():
    state = perform_state(ACCUSATION)
    assert len(ENGINE.legal_actions(state, 0)) == 6
    after, _ = ENGINE.apply(state, 0, Accuse(MEDICI))
    assert after.antipope == MEDICI


def test_b5_accusation_moves_the_marker_from_another_cardinal():
    state = perform_state(ACCUSATION, antipope=MEDICI)
    legal = ENGINE.legal_actions(state, 0)
    assert Accuse(MEDICI) not in legal and len(legal) == 5
    after, _ = ENGINE.apply(state, 0, Accuse(SFORZA))
    assert after.antipope == SFORZA


# --------------------------------------------------------------------------- B5: RUMOR


def test_b5_rumor_from_the_centre_to_another_player():
    after, _ = ENGINE.apply(perform_state(RUMOR), 0, Rumor(MEDICI, 1))
    assert after.rumors == ((), (MEDICI,), ())


def test_b5_rumor_never_on_oneself_nor_taken_from_in_front_of_oneself():
    state = perform_state(RUMOR, rumors=((ORSINI,), (), ()))
    legal = ENGINE.legal_actions(state, 0)
    assert all(a.target != 0 and a.card != ORSINI for a in legal)
    assert len(legal) == 5 * 2
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, Rumor(MEDICI, 0))


def test_b5_rumor_one_per_player_the_old_one_returns_to_the_centre():
    after, events = ENGINE.apply(perform_state(RUMOR, rumors=((), (SFORZA,), ())), 0, Rumor(MEDICI, 1))
    assert after.rumors == ((), (MEDICI,), ())
    assert of_type(events, ActionPerformed)[0].rumors == after.rumors


def test_b5_rumor_moved_from_in_front_of_another_player():
    after, _ = ENGINE.apply(perform_state(RUMOR, rumors=((), (), (BORGIA,))), 0, Rumor(BORGIA, 1))
    assert after.rumors == ((), (BORGIA,), ())


def test_b5_rumor_target_must_not_already_hold_that_card():
    state = perform_state(RUMOR, rumors=((), (), (BORGIA,)))
    assert Rumor(BORGIA, 2) not in ENGINE.legal_actions(state, 0)


def test_b5_rumor_names_no_returned_card_in_the_normal_game():
    with pytest.raises(IllegalAction):
        ENGINE.apply(perform_state(RUMOR, rumors=((), (SFORZA,), ())), 0, Rumor(MEDICI, 1, SFORZA))


def test_b10_shadow_puppets_up_to_two_rumors_per_player():
    state = shadow_state(phase=Phase.PERFORM, bid=Bid(2, RUMOR), rumors=((), (BORGIA,)))
    after, _ = ENGINE.apply(state, 0, Rumor(COLONNA, 1))
    assert after.rumors == ((), (BORGIA, COLONNA))


def test_b10_shadow_puppets_the_player_names_which_rumor_returns():
    state = shadow_state(phase=Phase.PERFORM, bid=Bid(2, RUMOR), rumors=((), (BORGIA, COLONNA)))
    legal = ENGINE.legal_actions(state, 0)
    assert set(legal) == {Rumor(card, 1, old) for card in (DELLA_ROVERE, SFORZA) for old in (BORGIA, COLONNA)}
    after, _ = ENGINE.apply(state, 0, Rumor(SFORZA, 1, BORGIA))
    assert after.rumors == ((), (COLONNA, SFORZA))


def test_b10_shadow_puppets_no_rumor_naming_ones_own_puppet_on_the_opponent():
    state = shadow_state(phase=Phase.PERFORM, bid=Bid(2, RUMOR))
    legal = ENGINE.legal_actions(state, 0)
    assert {a.card for a in legal} == {BORGIA, DELLA_ROVERE, COLONNA, SFORZA}
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, Rumor(MEDICI, 1))


def test_lead_decision_4_rumor_with_no_legal_placement_does_nothing():
    # Only seat 0's own puppets are left in the centre.
    rumors = ((BORGIA, DELLA_ROVERE), (COLONNA, SFORZA))
    state = shadow_state(phase=Phase.PERFORM, bid=Bid(2, RUMOR), rumors=rumors)
    assert ENGINE.legal_actions(state, 0) == [PerformNothing()]


# --------------------------------------------------------------------------- B6, B7: rally


def test_b7_rally_two_to_four_players_top_three_gain_3_2_1():
    after, events = ENGINE.apply(make_state(phase=Phase.RESPOND, bid=Bid(6, BRIBE)), 1, Call())
    assert after.influence == (5, 4, 3, 2, 2, 2)
    assert [(g.cardinal, g.delta) for g in of_type(events, Rallied)[0].gains] == [
        (BORGIA, 3),
        (DELLA_ROVERE, 2),
        (MEDICI, 1),
    ]


def test_b7_rally_five_or_six_players_top_four_gain_3_2_2_1():
    dice = tuple((POISON,) * 4 for _ in range(5))
    state = make_state(5, phase=Phase.RESPOND, bid=Bid(1, BRIBE), dice=dice)
    after, _ = ENGINE.apply(state, 1, Call())
    assert after.influence == (5, 4, 4, 3, 2, 2)


def test_b6_b7_the_antipope_gains_nothing_and_nobody_takes_its_share():
    state = make_state(phase=Phase.RESPOND, bid=Bid(6, BRIBE), antipope=BORGIA)
    after, _ = ENGINE.apply(state, 1, Call())
    assert after.influence == (2, 4, 3, 2, 2, 2)


def test_b7_rally_follows_the_ladder_after_a_bribe():
    state = make_state(phase=Phase.PERFORM, bid=Bid(5, BRIBE), called=True)
    after, _ = ENGINE.apply(state, 0, Bribe(SFORZA, TOP))
    assert after.influence == (4, 3, 2, 2, 2, 5)


# --------------------------------------------------------------------------- B9: scoring


def test_b9_remaining_dice_add_two_each_to_the_puppet():
    state = over_state(dice=((), (BRIBE, BRIBE), (BRIBE, BRIBE, BRIBE)))
    outcome = ENGINE.outcome(state)
    assert outcome.winners == (2,)
    assert outcome.scores == (2, 6, 8)
    assert outcome.summary == "Sforza elected pope; seat 2 wins"


def test_b9_ties_go_to_the_cardinal_higher_on_the_ladder():
    # ORSINI (seat 1) and SFORZA (seat 2) both end on 6; ORSINI is higher on the ladder.
    state = over_state(dice=((), (BRIBE, BRIBE), (BRIBE,)), influence=(2, 2, 2, 2, 2, 4))
    assert ENGINE.outcome(state).winners == (1,)


def test_b9_nobody_wins_when_the_pope_is_nobodys_puppet():
    state = over_state(dice=((), (BRIBE,), (BRIBE,)), influence=(20, 2, 2, 2, 2, 2))
    outcome = ENGINE.outcome(state)
    assert outcome.winners == ()
    assert outcome.summary == "Borgia elected pope; nobody wins"


def test_b9_a_rumor_naming_ones_own_puppet_eliminates_and_removes_the_cardinal():
    state = over_state(dice=((), (BRIBE,), (BRIBE, BRIBE, BRIBE)), rumors=((), (), (SFORZA,)))
    outcome = ENGINE.outcome(state)
    view = ENGINE.view(state, None)
    assert view.result.eliminated == (2,) and view.result.removed == (SFORZA,)
    assert SFORZA not in view.result.ladder and len(view.result.ladder) == 5
    assert outcome.winners == (1,)  # ORSINI 4 beats everyone else still on the ladder
    assert outcome.scores == (2, 4, 0)


def test_b9_a_rumor_naming_another_players_puppet_is_harmless():
    state = over_state(dice=((), (BRIBE,), (BRIBE, BRIBE, BRIBE)), rumors=((SFORZA,), (), ()))
    assert ENGINE.outcome(state).winners == (2,)


def test_b6_the_antipope_puppet_gets_no_remaining_dice_bonus():
    state = over_state(dice=((), (BRIBE,), (BRIBE, BRIBE, BRIBE)), antipope=SFORZA)
    outcome = ENGINE.outcome(state)
    assert outcome.scores == (2, 4, 2) and outcome.winners == (1,)


def test_b9_game_end_by_a_call_scores_and_reveals_puppets():
    dice = ((BRIBE,), *DICE_3P[1:])
    state = make_state(phase=Phase.RESPOND, bid=Bid(11, RUMOR), dice=dice)
    after, events = ENGINE.apply(state, 1, Call())
    # Rally first (B7): BORGIA 5, DELLA_ROVERE 4, MEDICI 3; then dice: ORSINI 2+10, SFORZA 2+10.
    ended = of_type(events, GameEnded)[0]
    assert ended.result.influence == (5, 4, 3, 12, 2, 12)
    assert ended.result.puppets == state.puppets
    assert ENGINE.outcome(after).winners == (1,)  # ORSINI ties SFORZA and is higher
    assert ENGINE.project_event(ended, 0) == ended


def test_lead_decision_6_influence_never_below_zero_at_scoring():
    state = over_state(
        poisoned_dice=True, dice=((), (BRIBE,) * 4, ()), rumors=((), (ORSINI,), ()), influence=(2, 2, 2, 3, 2, 2)
    )
    assert ENGINE.view(state, None).result.influence[ORSINI] == 0


# --------------------------------------------------------------------------- B10: variants


def test_b10_shadow_puppets_is_two_players_only():
    with pytest.raises(InvalidConfig):
        ENGINE.new_game(3, {"shadow_puppets": "true"}, seed=1)
    state, _ = ENGINE.new_game(2, {"shadow_puppets": "true"}, seed=1)
    assert [len(p) for p in state.puppets] == [2, 2]
    assert len({c for p in state.puppets for c in p}) == 4


def test_b10_unknown_options_are_rejected():
    with pytest.raises(InvalidConfig):
        ENGINE.new_game(3, {"no_such_option": "true"}, seed=1)
    with pytest.raises(InvalidConfig):
        ENGINE.new_game(7, {}, seed=1)


def test_b10_shadow_puppets_both_puppets_get_the_dice_bonus():
    state = shadow_state(phase=Phase.OVER, dice=((BRIBE, BRIBE), ()))
    result = ENGINE.view(state, None).result
    assert result.influence == (2, 2, 6, 6, 2, 2)
    assert ENGINE.outcome(state).scores == (12, 4)


def test_b10_shadow_puppets_one_matching_rumor_removes_that_cardinal_only():
    state = shadow_state(phase=Phase.OVER, dice=((BRIBE, BRIBE), ()), rumors=((MEDICI,), ()))
    result = ENGINE.view(state, None).result
    assert result.removed == (MEDICI,) and result.eliminated == ()
    assert result.pope == ORSINI and result.winners == (0,)
    assert result.scores == (6, 4)


def test_b10_shadow_puppets_both_matching_rumors_eliminate_the_player():
    state = shadow_state(phase=Phase.OVER, dice=((BRIBE, BRIBE), ()), rumors=((MEDICI, ORSINI), ()))
    result = ENGINE.view(state, None).result
    assert result.removed == (MEDICI, ORSINI) and result.eliminated == (0,)
    assert result.pope == BORGIA and result.winners == ()


def test_b10_b13_flame_of_thy_tongue_costs_influence_equal_to_the_player_count():
    """B13: the penalty replaces elimination; the cardinal stays on the ladder."""
    state = over_state(flame_of_thy_tongue=True, dice=((), (BRIBE,), (BRIBE, BRIBE, BRIBE)), rumors=((), (), (SFORZA,)))
    result = ENGINE.view(state, None).result
    assert result.eliminated == () and result.removed == ()
    assert result.influence[SFORZA] == 2 + 6 - 3
    assert [(p.cardinal, p.delta) for p in result.penalties] == [(SFORZA, -3)]
    assert result.winners == (2,)


def test_b10_b13_poisoned_dice_make_each_remaining_die_worth_minus_two():
    """B13: the penalty replaces elimination; the cardinal stays on the ladder."""
    state = over_state(
        poisoned_dice=True,
        dice=((), (BRIBE,), (BRIBE, BRIBE)),
        rumors=((), (ORSINI,), ()),
        influence=(2, 2, 2, 5, 2, 2),
    )
    result = ENGINE.view(state, None).result
    assert result.influence[ORSINI] == 3 and result.influence[SFORZA] == 6
    assert result.eliminated == () and result.removed == () and result.winners == (2,)


def test_b10_b13_flame_and_poisoned_dice_both_apply_and_nobody_is_eliminated():
    state = over_state(
        flame_of_thy_tongue=True,
        poisoned_dice=True,
        dice=((), (BRIBE,), (BRIBE,)),
        rumors=((), (ORSINI,), ()),
        influence=(2, 2, 2, 9, 2, 2),
    )
    result = ENGINE.view(state, None).result
    assert result.influence[ORSINI] == 9 - 2 - 3
    assert result.eliminated == () and result.removed == ()


def test_b10_b13_shadow_poisoned_dice_only_for_the_matching_puppet():
    """B13 in Shadow Puppets: the matching cardinal pays the penalty and stays on the ladder."""
    state = shadow_state(
        phase=Phase.OVER, poisoned_dice=True, dice=((BRIBE, BRIBE), ()), rumors=((MEDICI,), ()),
        influence=(2, 2, 5, 2, 2, 2),
    )  # fmt: skip
    result = ENGINE.view(state, None).result
    assert result.influence[MEDICI] == 1 and result.influence[ORSINI] == 6
    assert result.removed == () and result.scores == (7, 4)


@pytest.mark.parametrize(
    ("variant", "influence", "penalties", "pope", "winners", "scores"),
    [
        ("flame_of_thy_tongue", (2, 2, 4, 4, 2, 2), [(MEDICI, -2), (ORSINI, -2)], MEDICI, (0,), (8, 4)),
        ("poisoned_dice", (2, 2, 0, 0, 2, 2), [], BORGIA, (), (0, 4)),
    ],
)
def test_b13_shadow_both_matching_rumors_each_cost_the_penalty_once_and_nobody_is_eliminated(
    variant, influence, penalties, pope, winners, scores
):
    """B13: in Shadow Puppets with both rumors matching, each matching puppet pays the variant's
    penalty once (Flame: 2 players, -2 each; Poisoned Dice: 2 dice at -2 each) and neither the
    player nor the cardinals leave the game."""
    state = shadow_state(phase=Phase.OVER, dice=((BRIBE, BRIBE), ()), rumors=((MEDICI, ORSINI), ()), **{variant: True})
    result = ENGINE.view(state, None).result
    assert result.eliminated == () and result.removed == ()
    assert MEDICI in result.ladder and ORSINI in result.ladder
    assert result.influence == influence
    assert [(p.cardinal, p.delta) for p in result.penalties] == penalties
    assert result.pope == pope and result.winners == winners and result.scores == scores


def test_b6_the_antipope_puppet_pays_no_flame_penalty():
    state = over_state(
        flame_of_thy_tongue=True, antipope=SFORZA, dice=((), (BRIBE,), (BRIBE,)), rumors=((), (), (SFORZA,))
    )
    assert ENGINE.view(state, None).result.influence[SFORZA] == 2


# --------------------------------------------------------------------------- engine contract


def test_malformed_and_out_of_turn_actions():
    state = make_state()
    with pytest.raises(MalformedAction):
        ENGINE.apply(state, 0, "bid 3 BRIBE")
    with pytest.raises(MalformedAction):
        ENGINE.apply(state, 0, Bid("3", BRIBE))
    with pytest.raises(NotYourDecision):
        ENGINE.apply(state, 1, Bid(3, BRIBE))
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, Call())


def test_perform_is_checked_whether_or_not_legal_actions_came_first():
    """apply reuses the perform options of the last legal_actions call only for that very state."""
    accusing = perform_state(ACCUSATION, antipope=MEDICI)
    legal = ENGINE.legal_actions(accusing, 0)
    legal.clear()  # the caller's copy: the engine's own list is untouched
    assert ENGINE.apply(accusing, 0, Accuse(SFORZA))[0].antipope == SFORZA
    with pytest.raises(IllegalAction):
        ENGINE.apply(accusing, 0, Accuse(MEDICI))  # already the Antipope
    other = perform_state(ACCUSATION, antipope=SFORZA)
    ENGINE.legal_actions(accusing, 0)
    with pytest.raises(IllegalAction):
        ENGINE.apply(other, 0, Accuse(SFORZA))
    assert ENGINE.apply(other, 0, Accuse(MEDICI))[0].antipope == MEDICI


def test_apply_returns_a_new_state_and_leaves_the_input_alone():
    state = make_state()
    copy = replace(state)
    after, _ = ENGINE.apply(state, 0, Bid(3, BRIBE))
    assert state == copy and after is not state and after != state


def test_describe_action_labels():
    # The labels are the game's words (services/borgia/words.py): a bid's action reads as
    # the event that tells it was performed; seats as "seat N", which clients name.
    describe = ENGINE.describe_action
    assert describe(Bid(3, POISON)) == "bid 3 x Poison"
    assert describe(Call()) == "call" and describe(Allow()) == "allow"
    assert describe(Bribe(MEDICI, TOP)) == "Bribe: Medici to the top"
    assert describe(Poison(ORSINI, ORSINI)) == "Poison: 2 from Orsini"
    assert describe(JudgementPair(DELLA_ROVERE, SFORZA)) == "Judgement: 2 from Della Rovere to Sforza"
    assert describe(Rumor(SFORZA, 1, BORGIA)) == "Rumor: Sforza in front of seat 1, Borgia back to the centre"
    assert describe(PerformNothing()) == "nothing (no legal target)"
    with pytest.raises(MalformedAction):
        describe(3)  # type: ignore[arg-type]


def test_a_performed_action_reads_as_its_label():
    # B5-B11's actions: the event of a performed bid tells it in its label's words.
    for action in (Bribe(MEDICI, TOP), Poison(ORSINI, SFORZA), JudgementPair(DELLA_ROVERE, SFORZA), Rumor(SFORZA, 1)):
        said = told(GAME, ActionPerformed(0, action, (), ladder=(), antipope=None, rumors=()), None)
        assert f"performed {ENGINE.describe_action(action)}" in said, said

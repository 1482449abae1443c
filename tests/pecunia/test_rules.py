"""One or more tests per rule of pecunia.txt as read by rulings P1-P8, and one per action card
of the default deck (pecunia-deck.md). Each starts from a literal state (tests/pecunia/builders).

Most states give the active player a Villa Dixius in hand: a player holding an action card is
always asked, so ``apply`` stops right after the action under test (a decision with a single
legal action is taken automatically only for a player with an empty hand, a project decision
of the engine; P7).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from services.engine.errors import IllegalAction, InvalidConfig, MalformedAction, NotYourDecision
from services.pecunia import ENGINE, PecuniaEngine
from services.pecunia.deck import DECKS_DIR
from services.pecunia.model import (
    ActionCardPlayed,
    ActionCardsDrawn,
    ActionKind,
    DrawActionCard,
    EndReason,
    EndRefill,
    GameEnded,
    MarkersRemoved,
    Phase,
    PickNext,
    Pile,
    PileReshuffled,
    PlayCastorOil,
    PlayEviction,
    PlayFishPoisoning,
    PlayPoaching,
    PlayQueueJumper,
    PlayReordering,
    PlaySenateMeeting,
    PlaySpecialTax,
    PlaySwap,
    PlayVillaDixius,
    QueueDealt,
    RemoveMarkers,
    RomanKind,
    RomanPaid,
    RomanRemoved,
    RomanSeated,
    Seated,
    SeatRoman,
    SesterceTaxed,
    TurnStarted,
)
from tests.pecunia.builders import (
    CASTOR,
    CITIZEN_1_2,
    CITIZEN_2_3,
    CITIZEN_3_3,
    DECK,
    EVICTION,
    FISH,
    POACHING,
    QUEUE_JUMPER,
    REORDERING,
    SENATE,
    SENATOR_1_3,
    SENATOR_2_4,
    SENATOR_3_5,
    SLAVE_3_1,
    SLAVE_5_2,
    SWAP,
    TAX,
    VILLA,
    WOMAN_1_1,
    WOMAN_2_2,
    WOMAN_2_3,
    L,
    M,
    R,
    assert_cards_accounted,
    build,
    senator_slave_pairs,
)

E = ENGINE


def seat_actions(state, seat=0):
    return [a for a in E.legal_actions(state, seat) if isinstance(a, SeatRoman)]


def plays_of(state, cls, seat=0):
    return [a for a in E.legal_actions(state, seat) if isinstance(a, cls)]


# ---------------------------------------------------------------------------------------
# The deck as data


def test_default_deck_is_pecunia_deck_md():
    """The default deck file holds exactly the 70 Roman and 40 action cards of pecunia-deck.md."""
    romans = Counter((c.kind, c.rounds, c.sesterces) for c in DECK.romans)
    S, C, W, V = RomanKind.SENATOR, RomanKind.CITIZEN, RomanKind.WOMAN, RomanKind.SLAVE
    assert romans == {
        (S, 1, 3): 3, (S, 1, 4): 2, (S, 2, 4): 4, (S, 2, 5): 3, (S, 3, 5): 3,
        (C, 1, 2): 4, (C, 2, 2): 4, (C, 2, 3): 5, (C, 3, 3): 4, (C, 3, 4): 3,
        (W, 1, 1): 3, (W, 1, 2): 4, (W, 2, 2): 4, (W, 2, 3): 4,
        (V, 3, 1): 5, (V, 3, 2): 3, (V, 4, 1): 4, (V, 4, 2): 4, (V, 5, 2): 4,
    }  # fmt: skip
    assert Counter(c.kind for c in DECK.actions) == {
        ActionKind.VILLA_DIXIUS: 4, ActionKind.QUEUE_JUMPER: 6, ActionKind.CASTOR_OIL: 5,
        ActionKind.FISH_POISONING: 5, ActionKind.SPECIAL_TAX: 4, ActionKind.POACHING: 4, ActionKind.SWAP: 4,
        ActionKind.SENATE_MEETING: 3, ActionKind.REORDERING: 3, ActionKind.EVICTION: 2,
    }  # fmt: skip
    assert [c.id for c in DECK.romans] == list(range(70))
    assert [c.id for c in DECK.actions] == list(range(40))
    # the names the tests use
    assert DECK.romans[SENATOR_3_5[0]].rounds == 3 and DECK.romans[SLAVE_5_2[-1]].kind is RomanKind.SLAVE
    assert DECK.actions[EVICTION[-1]].kind is ActionKind.EVICTION


def test_deck_option_selects_another_deck_file():
    state, _ = E.new_game(3, {"deck": "gentle"}, 7)
    assert state.deck.name == "gentle"
    kinds = Counter(c.kind for c in state.deck.actions)
    assert kinds[ActionKind.FISH_POISONING] == 0 and sum(kinds.values()) == 40
    assert_cards_accounted(state)


def _deck_dir(tmp_path: Path, name: str, mutate) -> PecuniaEngine:
    data = json.loads((DECKS_DIR / "default.json").read_text())
    data["name"] = name
    mutate(data)
    (tmp_path / "default.json").write_text((DECKS_DIR / "default.json").read_text())
    (tmp_path / f"{name}.json").write_text(json.dumps(data))
    return PecuniaEngine(decks_dir=tmp_path)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["romans"][0].update(copies=4), "needs 15 senator cards, has 16"),
        (lambda d: d["actions"].pop(), "needs 40 action cards, has 38"),
        (lambda d: d["actions"][0].update(kind="bribe"), "unknown action card 'bribe'"),
        (lambda d: d["romans"][0].update(kind="gladiator"), "unknown Roman kind 'gladiator'"),
        (lambda d: d["romans"][0].update(rounds=0), "'rounds' must be between 1 and 9"),
        (lambda d: d["romans"][0].update(sesterces="3"), "'sesterces' must be an integer"),
        (lambda d: d["romans"][0].update(colour="red"), "unknown field(s) colour"),
        (lambda d: d["actions"][0].pop("copies"), "missing field(s) copies"),
        (lambda d: d.update(name="other"), "'name' must be 'bad'"),
        (lambda d: d.pop("romans"), "'romans' must be a non-empty list"),
    ],
)
def test_bad_deck_file_is_invalid_config(tmp_path, mutate, message):
    engine = _deck_dir(tmp_path, "bad", mutate)
    assert "bad" in dict((o.name, o.choices) for o in engine.info.options)["deck"]
    with pytest.raises(InvalidConfig) as error:
        engine.new_game(2, {"deck": "bad"}, 1)
    assert message in str(error.value)
    assert "deck 'bad'" in str(error.value)
    engine.new_game(2, {}, 1)  # the default deck of the same directory is fine


def test_deck_file_that_is_not_json_is_invalid_config(tmp_path):
    (tmp_path / "broken.json").write_text("{romans: ")
    engine = PecuniaEngine(decks_dir=tmp_path)
    with pytest.raises(InvalidConfig, match="not readable JSON"):
        engine.new_game(2, {"deck": "broken"}, 1)


def test_unknown_deck_name_or_path_is_invalid_config():
    for name in ("nosuch", "../default", "/etc/passwd"):
        with pytest.raises(InvalidConfig):
            E.new_game(2, {"deck": name}, 1)
    with pytest.raises(InvalidConfig, match="no such deck"):
        E.deck("nosuch")
    with pytest.raises(InvalidConfig, match="lower-case"):
        E.deck("../default")


def test_player_count_and_unknown_options_are_invalid_config():
    for players in (1, 7):
        with pytest.raises(InvalidConfig):
            E.new_game(players, {}, 1)
    with pytest.raises(InvalidConfig):
        E.new_game(2, {"senators": "many"}, 1)


# ---------------------------------------------------------------------------------------
# P6: setup


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_p6_setup_left_and_right_seated_queue_of_five_two_action_cards(players):
    """P6: LEFT and RIGHT get one Roman each with its round markers, MIDDLE starts empty,
    5 cards form the queue, 2 action cards in hand; every card accounted for."""
    for seed in range(10):
        state, events = E.new_game(players, {}, seed)
        assert_cards_accounted(state)
        setup = events[: next(i for i, e in enumerate(events) if isinstance(e, TurnStarted))]
        for p in range(players):
            seated = [e for e in setup if isinstance(e, RomanSeated) and e.player == p]
            assert [e.seat for e in seated] == [L, R]
            assert all(e.markers == e.card.rounds for e in seated)
            assert [len(e.cards) for e in setup if isinstance(e, QueueDealt) and e.player == p] == [5]
            assert [e.count for e in setup if isinstance(e, ActionCardsDrawn) and e.player == p] == [2]
        if state.turn == 0 and state.phase is Phase.MARKERS:  # the first player is asked at once
            for p in range(players):
                assert state.seats[p][M] == () and len(state.queues[p]) == 5 and len(state.hands[p]) == 2
        assert state.coins == (0,) * players or state.turn > 0


def test_p6_middle_seat_is_filled_at_the_first_refill():
    """P6: the MIDDLE seat starts empty and is filled at the refill step of the first turn."""
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 3)], [], [(CITIZEN_3_3[1], 3)]]},
        queues={0: [CITIZEN_2_3[0], CITIZEN_2_3[1], CITIZEN_2_3[2], CITIZEN_2_3[3], CITIZEN_2_3[4]]},
        hands={0: [VILLA[0]]},
    )
    after, _ = E.apply(state, 0, RemoveMarkers())
    assert after.phase is Phase.REFILL
    assert seat_actions(after) == [SeatRoman(M)]
    after, _ = E.apply(after, 0, SeatRoman(M))
    assert after.seats[0][M] == (Seated(CITIZEN_2_3[0], 2),)


def test_p6_random_start_player_and_deal_are_deterministic():
    a, ea = E.new_game(4, {}, 5)
    b, eb = E.new_game(4, {}, 5)
    assert a == b and ea == eb
    starts = {E.new_game(4, {}, seed)[0].start_player for seed in range(40)}
    assert starts == {0, 1, 2, 3}


# ---------------------------------------------------------------------------------------
# P4: the four steps of a turn


def test_p4_remove_one_marker_from_every_seated_roman_and_pay_those_without():
    """P4 steps 1-2: one marker off every seated Roman (both stacked women too); a Roman left
    without markers pays its sesterces and goes to the face-up discard pile."""
    state = build(
        seats={
            0: [[(SENATOR_1_3[0], 1)], [(WOMAN_2_2[0], 2), (WOMAN_1_1[0], 1)], [(SLAVE_5_2[0], 5)]],
            1: [[(CITIZEN_3_3[0], 1)], [], []],
        },
        queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1]]},
        hands={0: [VILLA[0]]},
        coins=[4, 0],
    )
    after, events = E.apply(state, 0, RemoveMarkers())
    assert after.seats[0] == ((), (Seated(WOMAN_2_2[0], 1),), (Seated(SLAVE_5_2[0], 4),))
    assert after.coins == (4 + 3 + 1, 0)
    assert after.roman_discard == (SENATOR_1_3[0], WOMAN_1_1[0])
    assert after.seats[1] == state.seats[1]  # only the active player's latrine
    assert isinstance(events[0], MarkersRemoved)
    paid = [e for e in events if isinstance(e, RomanPaid)]
    assert [(e.card.id, e.amount, e.sesterces) for e in paid] == [(SENATOR_1_3[0], 3, 7), (WOMAN_1_1[0], 1, 8)]
    assert after.phase is Phase.REFILL


def test_p4_roman_already_without_markers_pays_at_step_two():
    """P4: a Roman whose markers were all removed by Castor oil pays at the next step 2."""
    state = build(
        seats={0: [[(SENATOR_3_5[0], 0)], [(CITIZEN_3_3[0], 3)], []]},
        queues={0: [WOMAN_2_2[0]]},
        hands={0: [VILLA[0]]},
    )
    after, _ = E.apply(state, 0, RemoveMarkers())
    assert after.coins[0] == 5
    assert after.seats[0][L] == () and after.seats[0][M] == (Seated(CITIZEN_3_3[0], 2),)


def test_p4_draw_action_card_ends_the_turn_next_player_clockwise():
    """P4 step 4: draw one action card; the turn ends; the next seat clockwise starts."""
    state = build(
        players=3,
        seats={p: [[(CITIZEN_3_3[p], 3)], [(CITIZEN_2_3[p], 2)], [(SLAVE_5_2[p], 5)]] for p in range(3)},
        queues={p: [WOMAN_2_2[p]] for p in range(3)},
        hands={0: [VILLA[0]], 1: [VILLA[1]]},
        active=0,
        phase=Phase.DRAW,
        villa=True,
        action_pile=[CASTOR[0], FISH[0]],
        action_discard=[c for c in range(40) if c not in (VILLA[0], VILLA[1], CASTOR[0], FISH[0])],
    )
    after, events = E.apply(state, 0, DrawActionCard())
    assert after.hands[0] == (VILLA[0], FISH[0])  # the top card is the last of the pile
    assert after.active == 1 and after.phase is Phase.MARKERS and after.turn == 1
    assert after.villa is False
    assert any(isinstance(e, TurnStarted) and e.player == 1 for e in events)


def test_p4_action_cards_at_any_point_of_own_turn():
    """P4: action cards may be played before step 1, during refilling and before step 4."""
    base = dict(
        seats={0: [[(CITIZEN_3_3[0], 3)], [], [(CITIZEN_3_3[1], 3)]], 1: [[(SENATOR_2_4[0], 2)], [], []]},
        queues={0: [CITIZEN_2_3[0], CITIZEN_2_3[1]], 1: [CITIZEN_2_3[2]]},
        hands={0: [VILLA[0], FISH[0]]},
    )
    for phase in (Phase.MARKERS, Phase.REFILL, Phase.DRAW):
        state = build(phase=phase, **base)
        legal = E.legal_actions(state, 0)
        assert PlayVillaDixius() in legal
        assert PlayFishPoisoning(1, L, 0) in legal
        after, _ = E.apply(state, 0, PlayFishPoisoning(1, L, 0))
        assert after.phase is phase
        assert after.seats[1][L] == (Seated(SENATOR_2_4[0], 4),)


def test_p4_several_action_cards_in_one_turn():
    def with_rng(rng: int):
        return build(
            seats={0: [[(CITIZEN_3_3[0], 3)], [], []], 1: [[(SENATOR_2_4[0], 2)], [], [(SLAVE_3_1[0], 3)]]},
            queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1]]},
            hands={0: [FISH[0], FISH[1], VILLA[0]]},
            rng=rng,
        )

    # The copy played is drawn at random (P7): take a state whose draw plays FISH[0] first,
    # so the order of the discard below is known whatever the RNG's outputs are.
    candidates = (with_rng(rng) for rng in range(64))
    state = next(s for s in candidates if E.apply(s, 0, PlayFishPoisoning(1, L, 0))[0].action_discard == (FISH[0],))
    state, _ = E.apply(state, 0, PlayFishPoisoning(1, L, 0))
    state, _ = E.apply(state, 0, PlayFishPoisoning(1, R, 0))
    assert state.seats[1][L][0].markers == 4 and state.seats[1][R][0].markers == 5
    assert state.hands[0] == (VILLA[0],)
    assert state.action_discard == (FISH[0], FISH[1])


def test_p4_action_cards_only_on_own_turn():
    """P4: only the active player decides; others can neither play nor act."""
    state = build(
        seats={1: [[(SENATOR_2_4[0], 2)], [], []], 0: [[(CITIZEN_3_3[0], 3)], [], []]},
        queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1]]},
        hands={0: [VILLA[0]], 1: [FISH[0], VILLA[1]]},
    )
    assert E.deciders(state) == (0,)
    assert E.legal_actions(state, 1) == []
    with pytest.raises(NotYourDecision):
        E.apply(state, 1, PlayFishPoisoning(0, L, 0))


def test_p4_no_action_card_after_drawing():
    """P4: drawing the action card ends the turn, so it cannot be played in that turn."""
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 3)], [(CITIZEN_3_3[1], 3)], [(CITIZEN_3_3[2], 3)]]},
        queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1]]},
        hands={0: [VILLA[0]], 1: [VILLA[1]]},
        phase=Phase.DRAW,
    )
    after, _ = E.apply(state, 0, DrawActionCard())
    assert after.active == 1
    assert E.legal_actions(after, 0) == []


# ---------------------------------------------------------------------------------------
# P3: refilling


def test_p3_refill_only_from_the_start_of_the_queue_onto_a_free_seat_of_choice():
    """P3: only the head of the queue is seated, on any free seat the player chooses."""
    state = build(
        seats={0: [[], [(CITIZEN_3_3[0], 2)], []]},
        queues={0: [CITIZEN_2_3[0], SENATOR_1_3[0], WOMAN_1_1[0]]},
        hands={0: [VILLA[0]]},
        phase=Phase.REFILL,
    )
    assert seat_actions(state) == [SeatRoman(L), SeatRoman(R)]
    assert EndRefill() not in E.legal_actions(state, 0)  # a free seat takes the head: must refill
    after, _ = E.apply(state, 0, SeatRoman(R))
    assert after.seats[0][R] == (Seated(CITIZEN_2_3[0], 2),)
    assert after.queues[0] == (SENATOR_1_3[0], WOMAN_1_1[0])
    assert seat_actions(after) == [SeatRoman(L)]


def test_p3_refilling_stops_when_the_head_fits_no_free_seat():
    """P3: the head (a senator) cannot sit beside the slave; refilling may stop and the seat
    stays empty, even though the citizen behind the head would fit."""
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 2)], [], [(SLAVE_5_2[0], 4)]]},
        queues={0: [SENATOR_1_3[0], CITIZEN_2_3[0]]},
        hands={0: [QUEUE_JUMPER[0]]},
        phase=Phase.REFILL,
    )
    legal = E.legal_actions(state, 0)
    assert seat_actions(state) == []
    assert EndRefill() in legal
    assert PlayQueueJumper(1) in legal  # the player may (but need not) play a card to fill it
    after, _ = E.apply(state, 0, EndRefill())
    assert after.phase is Phase.DRAW
    assert after.seats[0][M] == ()
    assert after.queues[0] == state.queues[0]


def test_p3_forced_stop_is_automatic_without_choices():
    """P3: with nothing else to decide, a blocked refill ends by itself and the turn goes on."""
    state = build(
        seats={0: [[(SENATOR_2_4[0], 2)], [], [(CITIZEN_3_3[0], 3)]], 1: [[(CITIZEN_3_3[1], 3)], [], []]},
        queues={0: [SLAVE_3_1[0]], 1: [CITIZEN_2_3[0]]},
        hands={1: [VILLA[1]]},
        action_pile=[TAX[0]],
        action_discard=[c for c in range(40) if c not in (VILLA[1], TAX[0])],
    )
    assert E.legal_actions(state, 0) == [RemoveMarkers()]  # seat 0 holds no action card
    after, _ = E.apply(state, 0, RemoveMarkers())
    # the slave fits no free seat (P2), nothing else to decide: refilling stopped, the card
    # was drawn and seat 1 (who holds a card) is asked
    assert after.seats[0] == ((Seated(SENATOR_2_4[0], 1),), (), (Seated(CITIZEN_3_3[0], 2),))
    assert after.queues[0] == (SLAVE_3_1[0],)
    assert after.active == 1 and after.hands[0] == (TAX[0],)


def test_p3_two_women_at_the_head_may_go_together():
    """P3 / special rule 2: two women at the head may share a free seat (optional)."""
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 2)], [], [(CITIZEN_3_3[1], 2)]]},
        queues={0: [WOMAN_2_2[0], WOMAN_1_1[0], CITIZEN_2_3[0]]},
        hands={0: [VILLA[0]]},
        phase=Phase.REFILL,
    )
    assert seat_actions(state) == [SeatRoman(M), SeatRoman(M, pair=True)]
    after, _ = E.apply(state, 0, SeatRoman(M, pair=True))
    assert after.seats[0][M] == (Seated(WOMAN_2_2[0], 2), Seated(WOMAN_1_1[0], 1))
    assert after.queues[0] == (CITIZEN_2_3[0],)


def test_p3_woman_may_join_a_lone_woman_even_with_no_free_seat():
    """P1/P3: a woman at the head may go onto a seat holding exactly one woman; optional."""
    state = build(
        seats={0: [[(WOMAN_2_3[0], 1)], [(CITIZEN_3_3[0], 2)], [(WOMAN_2_2[0], 2), (WOMAN_1_1[0], 1)]]},
        queues={0: [WOMAN_2_2[1], CITIZEN_2_3[0]]},
        hands={0: [VILLA[0]]},
        phase=Phase.REFILL,
    )
    legal = E.legal_actions(state, 0)
    assert seat_actions(state) == [SeatRoman(L)]  # not on the full stack of two, not on the citizen
    assert EndRefill() in legal  # optional: no seat is free
    after, _ = E.apply(state, 0, SeatRoman(L))
    assert after.seats[0][L] == (Seated(WOMAN_2_3[0], 1), Seated(WOMAN_2_2[1], 2))


def test_p1_no_one_but_a_woman_joins_a_woman():
    """P1: a seat holds one Roman, or two women: a citizen never joins a lone woman."""
    state = build(
        seats={0: [[(WOMAN_2_3[0], 1)], [(CITIZEN_3_3[0], 2)], [(CITIZEN_3_3[1], 2)]]},
        queues={0: [CITIZEN_2_3[0]]},
        hands={0: [VILLA[0]]},
        phase=Phase.REFILL,
    )
    assert seat_actions(state) == []
    assert EndRefill() in E.legal_actions(state, 0)


# ---------------------------------------------------------------------------------------
# P1 / P2: senators and slaves


def test_p2_senator_never_seated_beside_a_slave():
    """P2 (rulebook example): the middle seat cannot take the senator beside the slave on the
    right; LEFT is not adjacent to RIGHT (P1), so a free LEFT would take him."""
    state = build(
        seats={0: [[], [], [(SLAVE_3_1[0], 2)]]},
        queues={0: [SENATOR_1_3[0], CITIZEN_2_3[0]]},
        hands={0: [VILLA[0]]},
        phase=Phase.REFILL,
    )
    assert seat_actions(state) == [SeatRoman(L)]


def test_p2_slave_never_seated_beside_a_senator_either_way_round():
    state = build(
        seats={0: [[(SENATOR_2_4[0], 2)], [], []]},
        queues={0: [SLAVE_5_2[0]]},
        hands={0: [VILLA[0]]},
        phase=Phase.REFILL,
    )
    assert seat_actions(state) == [SeatRoman(R)]
    after, _ = E.apply(state, 0, SeatRoman(R))
    assert senator_slave_pairs(after, 0) == set()


def test_p2_women_and_citizens_sit_beside_anyone():
    state = build(
        seats={0: [[(SENATOR_2_4[0], 2)], [], [(SLAVE_5_2[0], 3)]]},
        queues={0: [CITIZEN_2_3[0]]},
        hands={0: [VILLA[0]]},
        phase=Phase.REFILL,
    )
    assert seat_actions(state) == [SeatRoman(M)]


def test_p2_pair_seated_under_villa_dixius_stays_after_the_turn():
    """P2: what a Villa Dixius allowed stays seated; afterwards the rule holds again."""
    state = build(
        seats={0: [[(SENATOR_2_4[0], 2)], [(SLAVE_5_2[0], 3)], []], 1: [[(CITIZEN_3_3[1], 3)], [], []]},
        queues={0: [SENATOR_1_3[0], CITIZEN_2_3[0]]},
        hands={0: [VILLA[0], FISH[0]]},
        phase=Phase.REFILL,
        villa=False,
    )
    assert seat_actions(state) == []
    after, _ = E.apply(state, 0, PlayVillaDixius())
    assert after.villa
    after, _ = E.apply(after, 0, SeatRoman(R))
    assert senator_slave_pairs(after, 0) == {(SENATOR_2_4[0], SLAVE_5_2[0]), (SENATOR_1_3[0], SLAVE_5_2[0])}
    # the pair stays; next turn no senator may join the slave's side again
    nxt = build(
        seats={0: [[], [(SLAVE_5_2[0], 2)], [(SENATOR_1_3[0], 1)]]},
        queues={0: [SENATOR_1_3[1]]},
        hands={0: [FISH[0], TAX[0]]},
        phase=Phase.REFILL,
        coins=[0, 3],
    )
    assert seat_actions(nxt) == []


# ---------------------------------------------------------------------------------------
# P5: empty queue and empty draw piles


def test_p5_empty_queue_refilled_with_five_at_once_and_refilling_goes_on():
    state = build(
        seats={0: [[], [], [(CITIZEN_3_3[0], 2)]]},
        queues={0: [CITIZEN_2_3[0]]},
        hands={0: [VILLA[0]]},
        phase=Phase.REFILL,
        roman_pile=None,
    )
    top5 = list(reversed(state.roman_pile[-5:]))
    after, events = E.apply(state, 0, SeatRoman(L))
    assert after.queues[0] == tuple(top5)  # in the order drawn
    assert next(e for e in events if isinstance(e, QueueDealt)).cards == tuple(DECK.romans[c] for c in top5)
    assert len(after.roman_pile) == len(state.roman_pile) - 5
    assert_cards_accounted(after)


def test_p5_empty_roman_draw_pile_is_replaced_by_the_shuffled_discard_pile():
    discard = [c for c in range(70) if c not in (CITIZEN_2_3[0], CITIZEN_3_3[0], 1, 2)]
    state = build(
        seats={0: [[], [], [(CITIZEN_3_3[0], 2)]]},
        queues={0: [CITIZEN_2_3[0]]},
        hands={0: [VILLA[0]]},
        phase=Phase.REFILL,
        roman_pile=[1, 2],
        roman_discard=discard,
    )
    after, events = E.apply(state, 0, SeatRoman(L))
    reshuffles = [e for e in events if isinstance(e, PileReshuffled)]
    assert reshuffles == [PileReshuffled(Pile.ROMAN, len(discard))]
    assert after.queues[0][:2] == (2, 1)
    assert after.roman_discard == ()
    assert len(after.roman_pile) == len(discard) - 3
    assert sorted(after.roman_pile + after.queues[0][2:]) == sorted(discard)
    assert_cards_accounted(after)


def test_p5_empty_action_draw_pile_is_replaced_by_the_shuffled_discard_pile():
    held = (VILLA[0], VILLA[1])
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 2)], [(CITIZEN_3_3[1], 2)], [(CITIZEN_3_3[2], 2)]]},
        queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1]]},
        hands={0: [held[0]], 1: [held[1]]},
        phase=Phase.DRAW,
        action_pile=[TAX[0]],
        action_discard=[c for c in range(40) if c not in (*held, TAX[0])],
    )
    after, events = E.apply(state, 0, DrawActionCard())
    assert after.hands[0] == (held[0], TAX[0])
    assert PileReshuffled(Pile.ACTION, 37) in events  # as soon as the pile is used up
    assert len(after.action_pile) == 37 and after.action_discard == ()
    assert_cards_accounted(after)


def test_p5_both_roman_piles_empty_the_queue_waits():
    """P5, project decision: with no Roman card left to draw, an empty queue stays empty and
    refilling stops; every card is still accounted for."""
    seated = [[(CITIZEN_3_3[0], 2)], [], [(CITIZEN_3_3[1], 2)]]
    others = [c for c in range(70) if c not in (CITIZEN_3_3[0], CITIZEN_3_3[1], CITIZEN_2_3[0])]
    state = build(
        seats={0: seated},
        queues={0: [CITIZEN_2_3[0]], 1: others},
        hands={0: [VILLA[0]]},
        phase=Phase.REFILL,
        roman_pile=[],
    )
    after, _ = E.apply(state, 0, SeatRoman(M))
    assert after.queues[0] == ()
    assert E.legal_actions(after, 0) == [EndRefill(), PlayVillaDixius()]
    assert_cards_accounted(after)


# ---------------------------------------------------------------------------------------
# P7: the target and the end; hidden information


def test_p7_game_ends_the_moment_the_target_is_reached():
    """P7: the first Roman that brings the purse to the target ends the game at once; the
    next Roman without markers stays seated, unpaid."""
    state = build(
        seats={0: [[(SENATOR_1_3[0], 1)], [(CITIZEN_1_2[0], 1)], []]},
        queues={0: [CITIZEN_2_3[0]]},
        coins=[18, 19],
        target=20,
        hands={0: [VILLA[0]]},
    )
    after, events = E.apply(state, 0, RemoveMarkers())
    assert after.phase is Phase.OVER and after.coins == (21, 19)
    assert after.seats[0][M] == (Seated(CITIZEN_1_2[0], 0),)
    assert E.deciders(after) == ()
    assert E.legal_actions(after, 0) == []
    assert isinstance(events[-1], GameEnded) and events[-1].winners == (0,)
    outcome = E.outcome(after)
    assert outcome is not None and outcome.winners == (0,) and outcome.scores == (21, 19)
    with pytest.raises(NotYourDecision):
        E.apply(after, 0, DrawActionCard())


@pytest.mark.parametrize(("players", "target"), [(2, 30), (3, 25), (4, 20), (5, 20), (6, 20)])
def test_p7_default_target_by_player_count(players, target):
    state, _ = E.new_game(players, {}, 1)
    assert state.target == target
    state, _ = E.new_game(players, {"target": "12"}, 1)
    assert state.target == 12


def test_p7_views_show_own_hand_others_counts_public_board():
    """P7: sesterces, seats and queues public; a hand only to its owner; draw piles as counts."""
    state = build(
        players=3,
        seats={1: [[(SENATOR_2_4[0], 2)], [], []]},
        queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1]], 2: [CITIZEN_2_3[2]]},
        hands={0: [VILLA[0], FISH[0]], 1: [TAX[0]], 2: []},
        coins=[1, 2, 3],
    )
    mine = E.view(state, 0)
    assert [c.id for c in mine.players[0].hand] == [VILLA[0], FISH[0]]
    assert mine.players[1].hand is None and mine.players[1].hand_count == 1
    assert [p.sesterces for p in mine.players] == [1, 2, 3]
    assert mine.players[1].latrine[0][0].card.id == SENATOR_2_4[0]
    assert mine.players[2].queue[0].id == CITIZEN_2_3[2]
    assert mine.roman_pile_count == len(state.roman_pile) and mine.action_pile_count == len(state.action_pile)
    spectator = E.view(state, None)
    assert all(p.hand is None for p in spectator.players)


def test_p7_whether_a_turn_runs_by_itself_does_not_depend_on_the_hand():
    """P7: hands are secret. Seat 0 holds one action card, a Special tax (no opponent has a
    sesterce, so it cannot be played) or a Villa Dixius; the other card is in the draw pile.
    Everything the others see must be the same either way: seat 0 is asked in both cases, and is
    not played for when its card is unplayable (that would tell everybody what it holds)."""
    full = {p: [[(CITIZEN_3_3[p], 3)], [(CITIZEN_2_3[p], 3)], [(CITIZEN_1_2[p], 3)]] for p in range(2)}
    rest = [c for c in range(40) if c not in (TAX[0], VILLA[0], VILLA[1], FISH[0])]
    public = []
    for held, hidden in ((TAX[0], VILLA[0]), (VILLA[0], TAX[0])):
        state = build(
            seats=full,
            queues={0: [CITIZEN_3_3[2]], 1: [CITIZEN_3_3[3]]},
            hands={0: [held], 1: [VILLA[1]]},
            active=1,
            phase=Phase.DRAW,
            action_pile=[hidden, FISH[0]],
            action_discard=rest,
        )
        after, events = E.apply(state, 1, DrawActionCard())
        assert_cards_accounted(after)
        public.append(
            (
                E.deciders(after),
                E.view(after, 1),
                E.view(after, None),
                [E.project_event(e, 1) for e in events],
                [E.project_event(e, None) for e in events],
            )
        )
        assert E.deciders(after) == (0,) and after.phase is Phase.MARKERS and after.turn == 1
    assert public[0] == public[1]
    assert E.legal_actions(after, 0)[0] == RemoveMarkers()


def test_p7_a_turn_runs_by_itself_when_the_hand_is_empty():
    """P7: hand sizes are public, so a seat without action cards is never asked for a single
    choice: its turn runs by itself (project decision)."""
    full = {p: [[(CITIZEN_3_3[p], 3)], [(CITIZEN_2_3[p], 3)], [(CITIZEN_1_2[p], 3)]] for p in range(2)}
    state = build(
        seats=full,
        queues={0: [CITIZEN_3_3[2]], 1: [CITIZEN_3_3[3]]},
        hands={1: [VILLA[1]]},
        active=1,
        phase=Phase.DRAW,
    )
    after, _ = E.apply(state, 1, DrawActionCard())
    assert after.active == 1 and after.turn == 2 and len(after.hands[0]) == 1


def test_p7_the_copy_played_does_not_tell_which_other_copies_are_held():
    """P7: of several cards of one kind, the one that leaves the hand is chosen at random. A
    fixed choice (the lowest-numbered copy) would reveal the hand: playing Villa Dixius 3, the
    highest-numbered one, would tell everybody that no other Villa Dixius is held."""
    played = set()
    for rng in range(40):
        state = build(
            seats={0: [[(CITIZEN_3_3[0], 3)], [], []]},
            queues={0: [CITIZEN_2_3[0]]},
            hands={0: [VILLA[0], VILLA[3]]},
            rng=rng,
        )
        after, events = E.apply(state, 0, PlayVillaDixius())
        (card,) = after.action_discard
        assert events[0] == ActionCardPlayed(0, DECK.actions[card], PlayVillaDixius())
        assert after.hands[0] == tuple(c for c in (VILLA[0], VILLA[3]) if c != card)
        played.add(card)
    assert played == {VILLA[0], VILLA[3]}


def test_turn_limit_ends_the_game_most_sesterces_win():
    """P8: the turn limit (the rules alone can loop forever) ends the game when the last turn
    ends; the players with the most sesterces win, ties share."""
    state = build(
        players=3,
        seats={0: [[(CITIZEN_3_3[0], 2)], [(CITIZEN_3_3[1], 2)], [(CITIZEN_3_3[2], 2)]]},
        queues={p: [CITIZEN_2_3[p]] for p in range(3)},
        hands={0: [VILLA[0]]},
        phase=Phase.DRAW,
        coins=[5, 9, 9],
        turn=9,
        turn_limit=10,
    )
    after, _ = E.apply(state, 0, DrawActionCard())
    assert after.phase is Phase.OVER and after.end_reason is EndReason.TURN_LIMIT
    assert after.winners == (1, 2)
    assert E.outcome(after).winners == (1, 2)


def test_turn_limit_option_defaults_to_1000_and_0_turns_it_off():
    """P8: ``turn_limit`` is a table option, default 1000 turns; 0 means no limit, and a turn
    short of the limit ends as usual."""
    assert E.new_game(2, {}, 1)[0].turn_limit == 1000
    assert E.new_game(2, {"turn_limit": "25"}, 1)[0].turn_limit == 25
    with pytest.raises(InvalidConfig):
        E.new_game(2, {"turn_limit": "-1"}, 1)
    for limit, turn in ((0, 5000), (10, 8)):
        state = build(
            seats={0: [[(CITIZEN_3_3[0], 2)], [], []], 1: [[(CITIZEN_3_3[1], 2)], [], []]},
            queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1]]},
            hands={0: [VILLA[0]], 1: [VILLA[1]]},
            phase=Phase.DRAW,
            coins=[5, 9],
            turn=turn,
            turn_limit=limit,
        )
        after, events = E.apply(state, 0, DrawActionCard())
        assert after.phase is Phase.MARKERS and after.active == 1 and after.turn == turn + 1
        assert after.end_reason is EndReason.NONE and E.outcome(after) is None
        assert not any(isinstance(e, GameEnded) for e in events)


# ---------------------------------------------------------------------------------------
# Errors


def test_an_action_listed_for_another_state_is_checked_again():
    """``apply`` trusts without a second check only an action of the very list it gave out
    for the very state; anything else is checked in full."""
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 2)], [], []], 1: [[(SENATOR_2_4[0], 2)], [], []]},
        queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1]]},
        hands={0: [VILLA[0]]},
    )
    legal = E.legal_actions(state, 0)
    assert legal == [RemoveMarkers(), PlayVillaDixius()]
    after, _ = E.apply(state, 0, legal[1])
    assert after.villa
    E.legal_actions(state, 0)
    with pytest.raises(IllegalAction):
        E.apply(after, 0, legal[1])  # a Villa Dixius is in force and none is left in hand
    legal.append(DrawActionCard())  # the caller's list is its own
    with pytest.raises(IllegalAction):
        E.apply(state, 0, legal[-1])


def test_illegal_and_malformed_actions():
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 2)], [], []], 1: [[(SENATOR_2_4[0], 2)], [], []]},
        queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1]]},
        hands={0: [VILLA[0]]},
    )
    with pytest.raises(IllegalAction):
        E.apply(state, 0, PlayFishPoisoning(1, L, 0))  # no such card in hand
    with pytest.raises(IllegalAction):
        E.apply(state, 0, SeatRoman(M))  # not the refill step yet
    with pytest.raises(IllegalAction):
        E.apply(state, 0, DrawActionCard())  # step 4 comes after the refill
    for bad in ("draw", None, SeatRoman(5), PlayCastorOil(L, 2, 1), PlayCastorOil(L, 0, 3), PlaySpecialTax(9)):
        with pytest.raises(MalformedAction):
            E.apply(state, 0, bad)
    assert E.apply(state, 0, RemoveMarkers())[0] != state  # the state passed in is untouched
    assert state.phase is Phase.MARKERS


# ---------------------------------------------------------------------------------------
# Action cards of the default deck (pecunia-deck.md), one test each and a few more.


def test_card_villa_dixius_ignores_the_senator_slave_rule_for_the_rest_of_the_turn():
    state = build(
        seats={0: [[], [], [(SLAVE_3_1[0], 2)]], 1: [[(CITIZEN_3_3[1], 3)], [], []]},
        queues={0: [SENATOR_1_3[0], SENATOR_1_3[1]]},
        hands={0: [VILLA[0], FISH[0]]},
        phase=Phase.REFILL,
    )
    assert seat_actions(state) == [SeatRoman(L)]
    after, events = E.apply(state, 0, PlayVillaDixius())
    assert after.villa and after.hands[0] == (FISH[0],) and after.action_discard == (VILLA[0],)
    assert isinstance(events[0], ActionCardPlayed) and events[0].card.kind is ActionKind.VILLA_DIXIUS
    assert seat_actions(after) == [SeatRoman(L), SeatRoman(M)]
    assert PlayVillaDixius() not in E.legal_actions(after, 0)
    after, _ = E.apply(after, 0, SeatRoman(M))
    assert senator_slave_pairs(after, 0) == {(SENATOR_1_3[0], SLAVE_3_1[0])}


def test_card_queue_jumper_moves_one_roman_of_own_queue_to_its_start():
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 2)], [(CITIZEN_3_3[1], 2)], [(CITIZEN_3_3[2], 2)]]},
        queues={0: [SENATOR_1_3[0], CITIZEN_2_3[0], WOMAN_1_1[0], SLAVE_3_1[0]]},
        hands={0: [QUEUE_JUMPER[0], VILLA[0]]},
    )
    assert plays_of(state, PlayQueueJumper) == [PlayQueueJumper(1), PlayQueueJumper(2), PlayQueueJumper(3)]
    after, _ = E.apply(state, 0, PlayQueueJumper(2))
    assert after.queues[0] == (WOMAN_1_1[0], SENATOR_1_3[0], CITIZEN_2_3[0], SLAVE_3_1[0])
    assert after.action_discard == (QUEUE_JUMPER[0],)


def test_card_queue_jumper_needs_a_card_behind_the_start():
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 2)], [], []]},
        queues={0: [SENATOR_1_3[0]]},
        hands={0: [QUEUE_JUMPER[0], VILLA[0]]},
    )
    assert plays_of(state, PlayQueueJumper) == []
    with pytest.raises(IllegalAction):
        E.apply(state, 0, PlayQueueJumper(0))


def test_card_castor_oil_removes_up_to_two_markers_from_own_roman():
    state = build(
        seats={
            0: [[(SLAVE_5_2[0], 5)], [(WOMAN_2_2[0], 1), (WOMAN_2_3[0], 2)], [(CITIZEN_3_3[0], 0)]],
            1: [[(SENATOR_2_4[0], 2)], [], []],
        },
        queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1]]},
        hands={0: [CASTOR[0], VILLA[0]]},
    )
    assert plays_of(state, PlayCastorOil) == [
        PlayCastorOil(L, 0, 1),
        PlayCastorOil(L, 0, 2),
        PlayCastorOil(M, 0, 1),  # the bottom woman has only one marker
        PlayCastorOil(M, 1, 1),
        PlayCastorOil(M, 1, 2),
    ]  # not the citizen without markers, never an opponent's Roman
    after, _ = E.apply(state, 0, PlayCastorOil(M, 1, 2))
    assert after.seats[0][M] == (Seated(WOMAN_2_2[0], 1), Seated(WOMAN_2_3[0], 0))
    assert after.coins == (0, 0)  # she pays at the next step 2, not now
    after, _ = E.apply(after, 0, RemoveMarkers())
    assert after.coins[0] == 2 + 3 + 3  # both women and the citizen


def test_card_fish_poisoning_adds_two_markers_to_an_opponents_roman():
    state = build(
        players=3,
        seats={
            0: [[(CITIZEN_3_3[0], 2)], [], []],
            1: [[(SENATOR_2_4[0], 1)], [], []],
            2: [[], [(WOMAN_2_2[0], 0), (WOMAN_1_1[0], 1)], []],
        },
        queues={p: [CITIZEN_2_3[p]] for p in range(3)},
        hands={0: [FISH[0], VILLA[0]]},
    )
    assert plays_of(state, PlayFishPoisoning) == [
        PlayFishPoisoning(1, L, 0),
        PlayFishPoisoning(2, M, 0),
        PlayFishPoisoning(2, M, 1),
    ]
    after, _ = E.apply(state, 0, PlayFishPoisoning(2, M, 0))
    assert after.seats[2][M] == (Seated(WOMAN_2_2[0], 2), Seated(WOMAN_1_1[0], 1))
    assert after.seats[0] == state.seats[0]


def test_card_special_tax_takes_two_or_all_an_opponent_has():
    state = build(
        players=3,
        seats={0: [[(CITIZEN_3_3[0], 2)], [], []]},
        queues={p: [CITIZEN_2_3[p]] for p in range(3)},
        hands={0: [TAX[0], TAX[1], VILLA[0]]},
        coins=[0, 5, 1],
    )
    assert plays_of(state, PlaySpecialTax) == [PlaySpecialTax(1), PlaySpecialTax(2)]
    after, events = E.apply(state, 0, PlaySpecialTax(1))
    assert after.coins == (0, 3, 1) and SesterceTaxed(1, 2, 3) in events
    after, events = E.apply(after, 0, PlaySpecialTax(2))
    assert after.coins == (0, 3, 0) and SesterceTaxed(2, 1, 0) in events


def test_card_special_tax_needs_an_opponent_with_sesterces():
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 2)], [], []]},
        queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1]]},
        hands={0: [TAX[0], VILLA[0]]},
        coins=[7, 0],
    )
    assert plays_of(state, PlaySpecialTax) == []


def test_card_poaching_takes_the_start_of_an_opponents_queue():
    state = build(
        players=3,
        seats={0: [[(CITIZEN_3_3[0], 2)], [], []]},
        queues={0: [CITIZEN_2_3[0]], 1: [SENATOR_1_3[0], SLAVE_3_1[0]], 2: []},
        hands={0: [POACHING[0], VILLA[0]]},
    )
    assert plays_of(state, PlayPoaching) == [PlayPoaching(1)]  # an empty queue has no start
    after, _ = E.apply(state, 0, PlayPoaching(1))
    assert after.queues[0] == (SENATOR_1_3[0], CITIZEN_2_3[0])
    assert after.queues[1] == (SLAVE_3_1[0],)


def test_card_poaching_the_last_card_refills_the_opponents_queue():
    """Poaching + P5: the opponent's emptied queue gets 5 new cards at once."""
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 2)], [], []]},
        queues={0: [CITIZEN_2_3[0]], 1: [SENATOR_1_3[0]]},
        hands={0: [POACHING[0], VILLA[0]]},
    )
    top5 = tuple(reversed(state.roman_pile[-5:]))
    after, events = E.apply(state, 0, PlayPoaching(1))
    assert after.queues[1] == top5
    assert any(isinstance(e, QueueDealt) and e.player == 1 for e in events)
    assert_cards_accounted(after)


def test_card_swap_exchanges_a_roman_of_own_queue_with_one_of_an_opponents():
    state = build(
        players=3,
        seats={0: [[(CITIZEN_3_3[0], 2)], [], []]},
        queues={0: [CITIZEN_2_3[0], SLAVE_3_1[0]], 1: [SENATOR_1_3[0]], 2: [WOMAN_1_1[0], SENATOR_3_5[0]]},
        hands={0: [SWAP[0], VILLA[0]]},
    )
    swaps = plays_of(state, PlaySwap)
    assert len(swaps) == 2 * (1 + 2)
    assert PlaySwap(1, 2, 1) in swaps and PlaySwap(0, 1, 0) in swaps
    after, _ = E.apply(state, 0, PlaySwap(1, 2, 1))
    assert after.queues[0] == (CITIZEN_2_3[0], SENATOR_3_5[0])
    assert after.queues[2] == (WOMAN_1_1[0], SLAVE_3_1[0])
    assert after.queues[1] == (SENATOR_1_3[0],)


def test_card_senate_meeting_sends_every_senator_of_one_opponent_away_unpaid():
    state = build(
        players=3,
        seats={
            0: [[(CITIZEN_3_3[0], 2)], [], []],
            1: [[(SENATOR_2_4[0], 1)], [(CITIZEN_3_3[1], 2)], [(SENATOR_3_5[0], 3)]],
            2: [[(CITIZEN_3_3[2], 2)], [], []],
        },
        queues={p: [CITIZEN_2_3[p]] for p in range(3)},
        hands={0: [SENATE[0], VILLA[0]]},
        coins=[0, 4, 0],
    )
    assert plays_of(state, PlaySenateMeeting) == [PlaySenateMeeting(1)]  # seat 2 seats no senator
    after, events = E.apply(state, 0, PlaySenateMeeting(1))
    assert after.seats[1] == ((), (Seated(CITIZEN_3_3[1], 2),), ())
    assert after.coins == (0, 4, 0)
    assert after.roman_discard == (SENATOR_2_4[0], SENATOR_3_5[0])
    assert [e.card.id for e in events if isinstance(e, RomanRemoved)] == [SENATOR_2_4[0], SENATOR_3_5[0]]


def test_card_reordering_puts_own_queue_in_any_order():
    queue = [SENATOR_1_3[0], CITIZEN_2_3[0], WOMAN_1_1[0], SLAVE_3_1[0]]
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 2)], [(CITIZEN_3_3[1], 2)], [(CITIZEN_3_3[2], 2)]]},
        queues={0: queue},
        hands={0: [REORDERING[0], VILLA[0]]},
    )
    state, _ = E.apply(state, 0, PlayReordering())
    assert state.reorder == 0
    assert E.legal_actions(state, 0) == [PickNext(0), PickNext(1), PickNext(2), PickNext(3)]  # nothing else now
    state, _ = E.apply(state, 0, PickNext(3))  # the slave first
    assert state.queues[0] == (SLAVE_3_1[0], SENATOR_1_3[0], CITIZEN_2_3[0], WOMAN_1_1[0])
    assert E.legal_actions(state, 0) == [PickNext(1), PickNext(2), PickNext(3)]
    state, _ = E.apply(state, 0, PickNext(3))  # then the woman
    state, _ = E.apply(state, 0, PickNext(3))  # then the citizen; the senator is last
    assert state.queues[0] == (SLAVE_3_1[0], WOMAN_1_1[0], CITIZEN_2_3[0], SENATOR_1_3[0])
    assert state.reorder is None and state.phase is Phase.MARKERS
    assert RemoveMarkers() in E.legal_actions(state, 0)


def test_card_reordering_needs_two_cards():
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 2)], [], []]},
        queues={0: [CITIZEN_2_3[0]]},
        hands={0: [REORDERING[0], VILLA[0]]},
    )
    assert PlayReordering() not in E.legal_actions(state, 0)


def test_card_eviction_sends_one_opponents_roman_away_unpaid():
    state = build(
        seats={
            0: [[(CITIZEN_3_3[0], 2)], [], []],
            1: [[(SENATOR_2_4[0], 1)], [(WOMAN_2_2[0], 1), (WOMAN_1_1[0], 1)], []],
        },
        queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1]]},
        hands={0: [EVICTION[0], VILLA[0]]},
        coins=[0, 3],
    )
    assert plays_of(state, PlayEviction) == [PlayEviction(1, L, 0), PlayEviction(1, M, 0), PlayEviction(1, M, 1)]
    after, events = E.apply(state, 0, PlayEviction(1, M, 0))
    assert after.seats[1][M] == (Seated(WOMAN_1_1[0], 1),)
    assert after.coins == (0, 3) and after.roman_discard == (WOMAN_2_2[0],)
    assert RomanRemoved(1, M, DECK.romans[WOMAN_2_2[0]]) in events


def test_seat_emptied_by_an_opponent_is_refilled_at_its_owners_next_refill():
    """pecunia-deck.md: a seat emptied by an opponent's card waits for its owner's refill."""
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 2)], [], []], 1: [[(SENATOR_2_4[0], 2)], [(CITIZEN_3_3[1], 3)], []]},
        queues={0: [CITIZEN_2_3[0]], 1: [CITIZEN_2_3[1], CITIZEN_2_3[2]]},
        hands={0: [EVICTION[0]], 1: [VILLA[1]]},
        phase=Phase.DRAW,
    )
    state, _ = E.apply(state, 0, PlayEviction(1, L, 0))
    assert state.seats[1][L] == () and state.active == 1  # the rest of seat 0's turn ran by itself
    state, _ = E.apply(state, 1, RemoveMarkers())
    assert seat_actions(state, 1) == [SeatRoman(L), SeatRoman(R)]


def test_no_card_without_a_legal_target():
    """pecunia-deck.md: a card with no legal target cannot be played."""
    state = build(
        seats={0: [[(CITIZEN_3_3[0], 0)], [], []], 1: [[], [], []]},
        queues={0: [CITIZEN_2_3[0]], 1: []},
        hands={0: [c for c in (CASTOR[0], FISH[0], EVICTION[0], SENATE[0], POACHING[0], SWAP[0], VILLA[0])]},
        coins=[0, 0],
        roman_pile=[],
        roman_discard=[c for c in range(70) if c not in (CITIZEN_3_3[0], CITIZEN_2_3[0])],
    )
    assert E.legal_actions(state, 0) == [RemoveMarkers(), PlayVillaDixius()]

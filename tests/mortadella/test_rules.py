"""One or more tests per ruling M1-M20 (shared/rules/RULINGS.md), each from a literal state,
one action and an assertion on the result. Setup rulings (M10 start, M17, M18, M20) are
checked on ``new_game``, which is where they act."""

import itertools
from dataclasses import replace

import pytest

from services.engine.errors import IllegalAction, InvalidConfig, MalformedAction, NotYourDecision
from services.mortadella import ENGINE
from services.mortadella.model import (
    ROLE_INFO,
    ROLE_POOLS,
    ChooseDice,
    ChooseRevolution,
    ChooseStartToken,
    ChooseTarget,
    DiceChosen,
    Effect,
    EliminationCause,
    EndReason,
    GameEnded,
    GuessContext,
    GuessMade,
    GuessRole,
    LombardDecided,
    NoEffect,
    PayCancel,
    Phase,
    PlagueDiscard,
    PlayerEliminated,
    ResolveEffect,
    Role,
    RoleDealt,
    RoleReplaced,
    RollDice,
    SkipTurnGiven,
    Special,
    SpecialEventOccurred,
    StartPlayerChosen,
    StartRoll,
    StealFrom,
    Symbol,
    TokenCause,
    TokensChanged,
    TurnSkipped,
    TurnStarted,
    UseLombard,
    meets_row,
)
from tests.mortadella.builders import ZERO, B, M, P, R, T, W, make_state, resolving


def act(state, seat, action):
    return ENGINE.apply(state, seat, action)


def of(events, kind):
    return [e for e in events if isinstance(e, kind)]


def lombard(dice, n=4, holder=3, **fields):
    """Seat 0 has just rolled ``dice``; the Lombard holder is to decide."""
    return make_state(n, phase=Phase.LOMBARD, dice=dice, lombard_holder=holder, **fields)


# ------------------------------------------------------------------ M1 dice


def test_m1_a_roll_is_five_dice_of_the_six_symbols():
    state = make_state(4)
    new, events = act(state, 0, RollDice(False))
    assert len(new.dice) == 5
    assert all(isinstance(d, Symbol) for d in new.dice)
    assert of(events, TurnStarted) == []


def test_m1_every_symbol_comes_up():
    seen = set()
    for rng in range(40):
        new, _ = act(make_state(4, rng=rng), 0, RollDice(False))
        seen.update(new.dice)
    assert seen == set(Symbol)


# ------------------------------------------------------------------ M2 tokens


def test_m2_there_are_four_token_kinds_only():
    state = make_state(7, phase=Phase.SETUP_TOKEN, waiting=tuple(range(7)))
    assert set(ENGINE.legal_actions(state, 3)) == {ChooseStartToken(s) for s in (P, T, B, M)}
    assert all(len(t) == 4 for t in state.tokens)


def test_m2_wine_and_rat_dice_give_no_token():
    state = resolving(4, remaining=(R, W), chosen=(R, W, W))
    new, events = act(state, 0, ResolveEffect((R,), Effect.PLAGUE))
    assert new.phase is Phase.TARGET and new.effect is Effect.DRUNKENNESS  # the WINE die, resolved next
    assert new.tokens == state.tokens
    assert of(events, TokensChanged) == []


# ------------------------------------------------------------------ M3 turn


def test_m3_keep_the_two_passed_dice_and_roll_three():
    state = make_state(4, passed=(W, R))
    new, _ = act(state, 0, RollDice(True))
    assert new.kept and new.dice[:2] == (W, R) and len(new.dice) == 5
    assert new.phase is Phase.LOMBARD


def test_m3_refuse_the_passed_dice_and_roll_five():
    state = make_state(4, passed=(W, R), rng=7)
    new, _ = act(state, 0, RollDice(False))
    assert not new.kept and len(new.dice) == 5


def test_m3_with_kept_dice_only_one_rolled_die_is_added():
    state = make_state(4, phase=Phase.CHOOSE_DICE, lombard_used=True, kept=True, dice=(W, R, P, T, M))
    legal = set(ENGINE.legal_actions(state, 0))
    assert legal == {ChooseDice((P, W, R)), ChooseDice((T, W, R)), ChooseDice((M, W, R))}
    with pytest.raises(IllegalAction):
        act(state, 0, ChooseDice((P, T, M)))


def test_m3_any_three_of_five_without_kept_dice():
    state = make_state(4, phase=Phase.CHOOSE_DICE, lombard_used=True, dice=(P, P, T, W, R))
    legal = set(ENGINE.legal_actions(state, 0))
    assert legal == {
        ChooseDice(c) for c in ((P, P, T), (P, P, W), (P, P, R), (P, T, W), (P, T, R), (P, W, R), (T, W, R))
    }


def test_m3_choosing_sets_the_dice_to_resolve_and_to_pass():
    state = make_state(4, phase=Phase.CHOOSE_DICE, lombard_used=True, dice=(P, P, T, W, R))
    new, events = act(state, 0, ChooseDice((R, P, P)))  # any order
    assert new.chosen == (P, P, R) and new.unchosen == (T, W)
    assert of(events, DiceChosen) == [DiceChosen(0, (P, P, R), (T, W))]


def test_m3_the_two_unchosen_dice_pass_to_the_next_player():
    state = resolving(4, remaining=(T,), chosen=(P, P, T), unchosen=(W, R))
    new, events = act(state, 0, ResolveEffect((T,), Effect.ACQUIRE_TOWER))
    assert new.tokens[0] == (0, 1, 0, 0)
    assert new.active == 1 and new.passed == (W, R) and new.phase is Phase.PRE_ROLL
    assert TurnStarted(1, 2, (W, R)) in events
    assert set(ENGINE.legal_actions(new, 1)) == {RollDice(False), RollDice(True)}


# ------------------------------------------------------------------ M4 ordering, grouping


def test_m4_singles_and_pairs_are_offered():
    state = resolving(4, remaining=(P, P, W))
    assert set(ENGINE.legal_actions(state, 0)) == {
        ResolveEffect((P,), Effect.ACQUIRE_PEOPLE),
        ResolveEffect((W,), Effect.DRUNKENNESS),
        ResolveEffect((P, P), Effect.ACQUIRE_TWO_PEOPLE),
        ResolveEffect((P, P), Effect.REVOLUTION),
    }


def test_m4_two_people_together_acquire_two():
    state = resolving(4, remaining=(P, P, T))
    new, _ = act(state, 0, ResolveEffect((P, P), Effect.ACQUIRE_TWO_PEOPLE))
    assert new.tokens[0] == (2, 1, 0, 0)  # the Tower die then resolved by itself
    assert new.active == 1


def test_m4_two_people_one_by_one():
    state = resolving(4, remaining=(P, P, T))
    new, _ = act(state, 0, ResolveEffect((P,), Effect.ACQUIRE_PEOPLE))
    assert new.tokens[0] == (1, 0, 0, 0)
    assert new.phase is Phase.RESOLVE and new.remaining == (P, T)


def test_m4_two_people_as_revolution():
    state = resolving(4, remaining=(P, P, T))
    new, _ = act(state, 0, ResolveEffect((P, P), Effect.REVOLUTION))
    assert new.phase is Phase.REVOLUTION_TARGET and new.effect is Effect.REVOLUTION
    assert new.tokens[0] == ZERO


def test_m4_two_wines_are_inebriation():
    state = resolving(4, remaining=(W, W, T))
    new, _ = act(state, 0, ResolveEffect((W, W), Effect.INEBRIATION))
    assert new.phase is Phase.TARGET and new.effect is Effect.INEBRIATION and new.remaining == (T,)


def test_m4_two_rats_are_black_death():
    state = resolving(4, remaining=(R, R, T), tokens={0: (1, 0, 0, 1), 1: (1, 1, 0, 1), 2: (0, 0, 0, 2)})
    new, _ = act(state, 0, ResolveEffect((R, R), Effect.BLACK_DEATH))
    assert new.tokens[0] == ZERO  # People and Mortadella, no Tower to save the People
    assert new.tokens[1] == (1, 1, 0, 0) and new.tokens[2] == (0, 0, 0, 1)
    assert new.phase is Phase.PLAGUE and ENGINE.deciders(new) == (1,)


def test_m4_a_pair_needs_two_dice_of_the_symbol():
    state = resolving(4, remaining=(P, T, W))
    with pytest.raises(IllegalAction):
        act(state, 0, ResolveEffect((P, T), Effect.ACQUIRE_TWO_PEOPLE))


# ------------------------------------------------------------------ M5 Book and Joker


def test_m5_a_book_die_acquires_a_book_or_is_a_joker():
    state = resolving(4, remaining=(B, T))
    assert {a for a in ENGINE.legal_actions(state, 0) if a.dice == (B,)} == {
        ResolveEffect((B,), e)
        for e in (
            Effect.ACQUIRE_BOOK,
            Effect.ACQUIRE_PEOPLE,
            Effect.ACQUIRE_TOWER,
            Effect.ACQUIRE_MORTADELLA,
            Effect.DRUNKENNESS,
            Effect.PLAGUE,
        )
    }


def test_m5_book_acquires_a_book():
    state = resolving(4, remaining=(B, T, T))
    new, _ = act(state, 0, ResolveEffect((B,), Effect.ACQUIRE_BOOK))
    assert new.tokens[0] == (0, 2, 1, 0)


def test_m5_joker_counts_as_another_symbol():
    state = resolving(4, remaining=(B, T, W))
    new, _ = act(state, 0, ResolveEffect((B,), Effect.ACQUIRE_MORTADELLA))
    assert new.tokens[0] == (0, 0, 0, 1) and new.remaining == (T, W)


def test_m5_joker_completes_a_pair():
    state = resolving(4, remaining=(P, B, T))
    new, _ = act(state, 0, ResolveEffect((B, P), Effect.ACQUIRE_TWO_PEOPLE))
    assert new.tokens[0] == (2, 1, 0, 0)


def test_m5_jokers_never_change_the_special_events():
    state = lombard((P, P, P, P, B))
    new, events = act(state, 3, UseLombard(False))
    assert of(events, SpecialEventOccurred) == []
    assert new.tokens == state.tokens and new.phase is Phase.CHOOSE_DICE


# ------------------------------------------------------------------ M6 targets and cancels


def target_state(effect, **fields):
    fields.setdefault("phase", Phase.TARGET)
    return resolving(4, remaining=(P, T), effect=effect, **fields)


def test_m6_the_target_of_drunkenness_is_asked_to_cancel():
    state = target_state(Effect.DRUNKENNESS, tokens={2: (1, 0, 0, 1)})
    new, _ = act(state, 0, ChooseTarget(2))
    assert new.phase is Phase.CANCEL and ENGINE.deciders(new) == (2,)
    assert set(ENGINE.legal_actions(new, 2)) == {PayCancel(True), PayCancel(False)}
    assert ENGINE.legal_actions(new, 0) == []


def test_m6_paying_one_mortadella_cancels_drunkenness():
    state = target_state(Effect.DRUNKENNESS, tokens={2: (1, 0, 0, 1)}, phase=Phase.CANCEL, target=2)
    new, _ = act(state, 2, PayCancel(True))
    assert new.tokens[2] == (1, 0, 0, 0)
    assert new.phase is Phase.RESOLVE and new.active == 0


def test_m6_not_paying_discards_one_people():
    state = target_state(Effect.DRUNKENNESS, tokens={2: (1, 0, 0, 1)}, phase=Phase.CANCEL, target=2)
    new, _ = act(state, 2, PayCancel(False))
    assert new.tokens[2] == (0, 0, 0, 1)


def test_m6_a_target_without_mortadella_is_not_asked():
    state = target_state(Effect.DRUNKENNESS, tokens={2: (2, 0, 0, 0)})
    new, _ = act(state, 0, ChooseTarget(2))
    assert new.tokens[2] == (1, 0, 0, 0) and new.phase is Phase.RESOLVE


def test_m6_the_active_player_may_target_himself():
    state = target_state(Effect.DRUNKENNESS, tokens={0: (1, 0, 0, 0)})
    assert ChooseTarget(0) in ENGINE.legal_actions(state, 0)
    new, _ = act(state, 0, ChooseTarget(0))
    assert new.tokens[0] == ZERO


def test_m6_inebriation_cancel_costs_two_mortadella():
    state = target_state(Effect.INEBRIATION, tokens={1: (0, 0, 0, 2)}, phase=Phase.CANCEL, target=1)
    new, _ = act(state, 1, PayCancel(True))
    assert new.tokens[1] == ZERO and not new.skip_turn[1]


def test_m6_one_mortadella_cannot_cancel_inebriation():
    state = target_state(Effect.INEBRIATION, tokens={1: (0, 0, 0, 1)})
    new, events = act(state, 0, ChooseTarget(1))
    assert new.skip_turn[1] and new.tokens[1] == (0, 0, 0, 1)
    assert SkipTurnGiven(1) in events


def test_m6_revolution_discards_the_named_book():
    state = resolving(
        4, remaining=(T,), phase=Phase.REVOLUTION_TARGET, effect=Effect.REVOLUTION, tokens={3: (0, 1, 2, 0)}
    )
    new, _ = act(state, 0, ChooseRevolution(3, B))
    assert new.tokens[3] == (0, 1, 1, 0)


def test_m6_revolution_does_nothing_if_the_target_has_none():
    state = resolving(
        4, remaining=(P, T), phase=Phase.REVOLUTION_TARGET, effect=Effect.REVOLUTION, tokens={3: (0, 0, 2, 0)}
    )
    new, events = act(state, 0, ChooseRevolution(3, T))
    assert new.tokens == state.tokens and NoEffect(0, Effect.REVOLUTION) in events


def test_m6_revolution_offers_every_player_and_tower_or_book():
    state = resolving(3, remaining=(T,), phase=Phase.REVOLUTION_TARGET, effect=Effect.REVOLUTION)
    assert set(ENGINE.legal_actions(state, 0)) == {ChooseRevolution(t, s) for t in range(3) for s in (T, B)}


# ------------------------------------------------------------------ M7 Plague, Black Death


def test_m7_plague_hits_everyone_the_active_player_included():
    state = resolving(4, remaining=(R, T, T), tokens={0: (1, 0, 0, 0), 1: (2, 0, 0, 0), 3: (1, 0, 0, 0)})
    new, _ = act(state, 0, ResolveEffect((R,), Effect.PLAGUE))
    assert [t[0] for t in new.tokens] == [0, 1, 0, 0]


def test_m7_holders_of_people_and_tower_decide_all_at_once():
    state = resolving(4, remaining=(R, T), tokens={0: (1, 1, 0, 0), 1: (1, 0, 0, 0), 2: (1, 2, 0, 0), 3: (0, 1, 0, 0)})
    new, _ = act(state, 0, ResolveEffect((R,), Effect.PLAGUE))
    assert new.phase is Phase.PLAGUE and ENGINE.deciders(new) == (0, 2)
    assert new.tokens[1] == ZERO and new.tokens[3] == (0, 1, 0, 0)
    assert set(ENGINE.legal_actions(new, 2)) == {PlagueDiscard(P), PlagueDiscard(T)}


def test_m7_plague_answers_come_in_any_order():
    state = resolving(
        4,
        remaining=(P, T),
        phase=Phase.PLAGUE,
        effect=Effect.PLAGUE,
        waiting=(0, 2),
        tokens={0: (1, 1, 0, 0), 2: (1, 2, 0, 0)},
    )
    new, _ = act(state, 2, PlagueDiscard(T))
    assert new.tokens[2] == (1, 1, 0, 0) and ENGINE.deciders(new) == (0,)
    new, _ = act(new, 0, PlagueDiscard(P))
    assert new.tokens[0] == (0, 1, 0, 0) and new.phase is Phase.RESOLVE


def test_m7_black_death_also_discards_one_mortadella():
    state = resolving(4, remaining=(R, R, T), tokens={1: (0, 0, 0, 3), 2: (1, 0, 0, 0)})
    new, events = act(state, 0, ResolveEffect((R, R), Effect.BLACK_DEATH))
    assert new.tokens[1] == (0, 0, 0, 2) and new.tokens[2] == ZERO
    assert TokensChanged(1, M, -1, TokenCause.BLACK_DEATH, None) in events


def test_m7_black_death_tower_substitute_stays_valid():
    state = resolving(
        4, remaining=(P, T), phase=Phase.PLAGUE, effect=Effect.BLACK_DEATH, waiting=(1,), tokens={1: (1, 1, 0, 0)}
    )
    new, _ = act(state, 1, PlagueDiscard(T))
    assert new.tokens[1] == (1, 0, 0, 0)


# ------------------------------------------------------------------ M8 deadly sins


def test_m8_the_eighth_token_of_a_symbol_eliminates():
    state = resolving(4, remaining=(P,), chosen=(P, W, W), tokens={0: (7, 2, 1, 3)})
    new, events = act(state, 0, ResolveEffect((P,), Effect.ACQUIRE_PEOPLE))
    assert not new.in_game[0] and new.tokens[0] == ZERO
    assert of(events, PlayerEliminated) == [PlayerEliminated(0, EliminationCause.DEADLY_SIN, (8, 2, 1, 3), None)]
    assert new.active == 1 and new.passed == (W, R)  # the turn ends, the dice still pass on


def test_m8_an_eliminated_role_stays_secret():
    state = resolving(4, remaining=(P,), tokens={0: (7, 0, 0, 0)})
    _, events = act(state, 0, ResolveEffect((P,), Effect.ACQUIRE_PEOPLE))
    for viewer in (None, 1, 2, 3):
        for event in events:
            seen = ENGINE.project_event(event, viewer)
            assert not isinstance(seen, (RoleDealt, RoleReplaced, GameEnded))
    assert ENGINE.view(make_state(4, in_game=(False, True, True, True)), 1).seats[0].role is None


def test_m8_eliminated_seats_are_skipped_and_dice_pass_to_the_next_in_play():
    state = resolving(4, remaining=(T,), in_game=(True, False, True, True), tokens={})
    new, _ = act(state, 0, ResolveEffect((T,), Effect.ACQUIRE_TOWER))
    assert new.active == 2 and new.passed == (W, R)


def test_m8_the_brigand_is_not_subject_to_the_deadly_sins():
    state = make_state(
        7,
        active=6,
        phase=Phase.STEAL,
        lombard_used=True,
        effect=Effect.ACQUIRE_PEOPLE,
        steal_symbol=P,
        steals_left=1,
        dice=(P, T, T, W, R),
        chosen=(P, T, T),
        unchosen=(W, R),
        remaining=(T,),
        tokens={0: (1, 0, 0, 0), 1: (1, 0, 0, 0), 6: (7, 0, 1, 0)},
    )
    new, _ = act(state, 6, StealFrom(1))
    assert new.in_game[6] and new.tokens[6][0] == 8


def test_m8_without_the_additional_rules_there_is_no_limit():
    state = resolving(4, remaining=(P, T), additional_rules=False, lombard_holder=None, tokens={0: (7, 0, 0, 0)})
    new, _ = act(state, 0, ResolveEffect((P,), Effect.ACQUIRE_PEOPLE))
    assert new.in_game[0] and new.tokens[0][0] == 8


def test_m8_a_lombard_holder_eliminated_hands_the_token_right():
    state = lombard((P, P, P, P, P), holder=2, tokens={2: (7, 0, 0, 0)})
    new, events = act(state, 2, UseLombard(False))
    assert not new.in_game[2] and new.lombard_holder == 1
    assert of(events, PlayerEliminated)[0].lombard_to == 1


# ------------------------------------------------------------------ M9 Skip Turn


def test_m9_a_skipped_player_loses_the_whole_turn_and_the_dice_go_on():
    state = resolving(4, remaining=(T,), skip_turn=(False, True, False, False))
    new, events = act(state, 0, ResolveEffect((T,), Effect.ACQUIRE_TOWER))
    assert TurnSkipped(1) in events
    assert not new.skip_turn[1]
    assert new.active == 2 and new.passed == (W, R) and new.turn == state.turn + 2


def test_m9_inebriation_hands_over_the_skip_turn_token():
    state = target_state(Effect.INEBRIATION)
    new, events = act(state, 0, ChooseTarget(3))
    assert new.skip_turn == (False, False, False, True) and SkipTurnGiven(3) in events


def test_m9_a_second_inebriation_does_not_stack():
    state = target_state(Effect.INEBRIATION, skip_turn=(False, False, False, True))
    new, events = act(state, 0, ChooseTarget(3))
    assert new.skip_turn == state.skip_turn and NoEffect(0, Effect.INEBRIATION) in events


# ------------------------------------------------------------------ M10 Lombard Company


def test_m10_the_token_starts_with_the_last_player_in_turn_order():
    for n in range(2, 8):
        for seed in range(5):
            state, _ = ENGINE.new_game(n, {}, seed)
            assert state.lombard_holder == (state.start_player - 1) % n


def test_m10_the_holder_is_offered_a_reroll_after_any_roll():
    state = make_state(4, active=1, lombard_holder=3)
    new, _ = act(state, 1, RollDice(False))
    assert new.phase is Phase.LOMBARD and ENGINE.deciders(new) == (3,)


def test_m10_rerolling_an_opponents_roll_gives_him_the_token():
    state = lombard((P, T, W, R, R), holder=3)
    new, events = act(state, 3, UseLombard(True))
    assert new.lombard_holder == 0
    assert of(events, LombardDecided)[0].reroll
    assert new.phase is not Phase.LOMBARD  # one offer per roll


def test_m10_rerolling_ones_own_roll_passes_the_token_right():
    state = lombard((P, T, W, R, R), holder=0)
    new, _ = act(state, 0, UseLombard(True))
    assert new.lombard_holder == 3


def test_m10_a_reroll_rerolls_only_the_three_rolled_dice():
    state = lombard((W, W, P, T, B), holder=2, kept=True, passed=(W, W))
    for rng in range(10):
        new, _ = act(replace(state, rng=rng), 2, UseLombard(True))
        assert new.dice[:2] == (W, W)


def test_m10_declining_keeps_dice_and_token():
    state = lombard((P, T, W, R, R), holder=3)
    new, _ = act(state, 3, UseLombard(False))
    assert new.dice == state.dice and new.lombard_holder == 3 and new.phase is Phase.CHOOSE_DICE


# ------------------------------------------------------------------ M11 Porchetta


def test_m11_porchetta_every_player_acquires_one():
    state = lombard((M, M, M, M, M))
    new, events = act(state, 3, UseLombard(False))
    assert SpecialEventOccurred(Special.PORCHETTA, M) in events
    assert [t[3] for t in new.tokens] == [4, 1, 1, 1]  # seat 0 then resolved its three Mortadella dice


def test_m11_porchetta_win_goes_to_the_first_in_turn_order_from_the_active_player():
    state = lombard(
        (P, P, P, P, P),
        holder=3,
        active=1,
        tokens={0: (1, 2, 2, 5), 2: (3, 6, 0, 0), 3: (4, 0, 0, 4)},  # Prince, Lord, Captain one People short
    )
    new, _ = act(state, 3, UseLombard(False))
    assert new.phase is Phase.OVER and new.winners == (2,) and new.end_reason is EndReason.VICTORY_ROW


def test_m15_the_view_at_a_tied_end_lists_every_row_met_the_winner_first():
    """M15: the seats whose rows Porchetta met at once, in turn order from the active player
    (seat 1), so that a client can say why the first of them won (View.rows_met)."""
    state = lombard(
        (P, P, P, P, P),
        holder=3,
        active=1,
        tokens={0: (1, 2, 2, 5), 2: (3, 6, 0, 0), 3: (4, 0, 0, 4)},
    )
    new, _ = act(state, 3, UseLombard(False))
    met = ENGINE.view(new, None).rows_met
    assert met == (2, 3, 0) and new.winners == met[:1]
    assert all(ENGINE.view(new, seat).rows_met == met for seat in range(4))  # public: the roles are revealed
    assert ENGINE.view(state, None).rows_met == ()  # only at the end


def test_m11_the_masters_row_met_by_porchetta_on_another_turn_is_no_win():
    state = lombard((M, M, M, M, M), n=6, holder=5, active=0, tokens={5: (3, 0, 3, 2)})
    new, _ = act(state, 5, UseLombard(False))
    assert new.phase is not Phase.OVER and new.phase is not Phase.MASTER_GUESS


def test_m11_porchetta_on_the_masters_turn_asks_his_guess():
    state = lombard((M, M, M, M, M), n=6, holder=4, active=5, tokens={5: (3, 0, 3, 2)})
    new, _ = act(state, 4, UseLombard(False))
    assert new.phase is Phase.MASTER_GUESS and new.guess_context is GuessContext.AFTER_EVENT


# ------------------------------------------------------------------ M12 Earthquake


def test_m12_earthquake_discards_all_towers_and_books():
    state = lombard((W, W, R, R, R), tokens={0: (1, 3, 2, 1), 2: (0, 1, 5, 0)})
    new, events = act(state, 3, UseLombard(False))
    assert SpecialEventOccurred(Special.EARTHQUAKE, None) in events
    assert new.tokens[0] == (1, 0, 0, 1) and new.tokens[2] == ZERO
    assert new.phase is Phase.CHOOSE_DICE


def test_m12_earthquake_can_make_another_player_win():
    state = lombard((W, R, R, W, W), tokens={3: (5, 0, 1, 4)})  # seat 3, the Captain, one Book too many
    new, _ = act(state, 3, UseLombard(False))
    assert new.winners == (3,) and new.end_reason is EndReason.VICTORY_ROW


# ------------------------------------------------------------------ M13 Carnival


def test_m13_five_different_symbols_are_carnival():
    state = lombard((P, T, B, M, W))
    new, events = act(state, 3, UseLombard(False))
    assert new.carnival and SpecialEventOccurred(Special.CARNIVAL, None) in events


def test_m13_carnival_acquisitions_are_stolen_from_an_opponent_of_choice():
    state = resolving(4, remaining=(T, W), carnival=True, tokens={1: (0, 1, 0, 0), 2: (0, 2, 0, 0)})
    new, _ = act(state, 0, ResolveEffect((T,), Effect.ACQUIRE_TOWER))
    assert new.phase is Phase.STEAL and set(ENGINE.legal_actions(new, 0)) == {StealFrom(1), StealFrom(2)}
    new, _ = act(new, 0, StealFrom(2))
    assert new.tokens[0] == (0, 1, 0, 0) and new.tokens[2] == (0, 1, 0, 0)


def test_m13_a_single_possible_victim_is_robbed_at_once():
    state = resolving(4, remaining=(M, W), carnival=True, tokens={3: (0, 0, 0, 2)})
    new, _ = act(state, 0, ResolveEffect((M,), Effect.ACQUIRE_MORTADELLA))
    assert new.tokens[0] == (0, 0, 0, 1) and new.tokens[3] == (0, 0, 0, 1)


def test_m13_nothing_if_no_opponent_holds_one():
    state = resolving(4, remaining=(B, W), carnival=True, tokens={0: (0, 0, 3, 0)})
    new, events = act(state, 0, ResolveEffect((B,), Effect.ACQUIRE_BOOK))
    assert new.tokens == state.tokens and NoEffect(0, Effect.ACQUIRE_BOOK) in events


def test_m13_two_people_may_come_from_two_opponents():
    state = resolving(4, remaining=(P, P, W), carnival=True, tokens={1: (1, 0, 0, 0), 2: (1, 0, 0, 0)})
    new, _ = act(state, 0, ResolveEffect((P, P), Effect.ACQUIRE_TWO_PEOPLE))
    assert new.steals_left == 2
    new, _ = act(new, 0, StealFrom(1))
    assert new.tokens[0] == (2, 0, 0, 0) and new.tokens[2] == ZERO  # the second from the only one left


def test_m13_wine_and_rat_apply_as_usual_during_carnival():
    state = resolving(4, remaining=(R, W), carnival=True, tokens={1: (1, 0, 0, 0)})
    new, _ = act(state, 0, ResolveEffect((R,), Effect.PLAGUE))
    assert new.tokens[1] == ZERO


# ------------------------------------------------------------------ M14 victory table


EXPECTED_ROWS = {
    Role.PRINCE: ((2, 2, 2, 5), [(1, 2, 2, 5), (2, 2, 2, 4)]),
    Role.RECTOR: ((4, 2, 5, 0), [(3, 2, 5, 7), (4, 1, 5, 0)]),
    Role.LORD: ((4, 6, 3, 0), [(4, 6, 0, 1), (3, 7, 0, 0)]),
    Role.CAPTAIN: ((5, 0, 0, 4), [(5, 3, 1, 4), (4, 0, 0, 7)]),
    Role.CARDINAL: ((5, 3, 0, 2), [(5, 2, 7, 7), (4, 3, 0, 2)]),
    Role.MASTER: ((3, 0, 3, 3), [(2, 7, 3, 3), (3, 0, 3, 2)]),
    Role.BRIGAND: ((0, 5, 9, 0), [(8, 0, 1, 0), (8, 0, 0, 8), (7, 0, 0, 0)]),
}


@pytest.mark.parametrize("role", list(Role))
def test_m14_victory_rows_from_the_game_data(role):
    meets, misses = EXPECTED_ROWS[role]
    assert meets_row(role, meets)
    for tokens in misses:
        assert not meets_row(role, tokens)


def test_m14_the_table_lives_in_game_data():
    assert ROLE_INFO[Role.LORD].rows == (((0, 4, None), (1, 6, None), (3, 0, 0)),)
    assert ROLE_INFO[Role.MASTER].requires_guess and ROLE_INFO[Role.BRIGAND].face_up


def test_m14_the_active_player_wins_when_an_effect_meets_the_row():
    state = resolving(4, remaining=(M, W), tokens={0: (2, 2, 2, 4)})  # seat 0 is the Prince
    new, events = act(state, 0, ResolveEffect((M,), Effect.ACQUIRE_MORTADELLA))
    assert new.phase is Phase.OVER and new.winners == (0,) and new.end_reason is EndReason.VICTORY_ROW
    assert of(events, GameEnded)[0].roles == state.roles
    # The role reads as an apposition, so a reader's "(you)" mark stays apart from it.
    assert ENGINE.outcome(new).summary == "seat 0, the Prince of Tortellini, meets the victory row"


def test_m14_the_brigand_wins_with_eight_of_one_and_none_of_the_other_two():
    state = make_state(
        7,
        active=6,
        phase=Phase.STEAL,
        lombard_used=True,
        effect=Effect.ACQUIRE_MORTADELLA,
        steal_symbol=M,
        steals_left=1,
        dice=(M, T, T, W, R),
        chosen=(M, T, T),
        unchosen=(W, R),
        remaining=(T, T),
        tokens={0: (0, 0, 0, 1), 1: (0, 0, 0, 1), 6: (0, 4, 0, 7)},
    )
    new, _ = act(state, 6, StealFrom(0))
    assert new.winners == (6,)


# ------------------------------------------------------------------ M15 when victory is checked


def test_m15_victory_is_checked_at_the_start_of_a_turn():
    # Seat 2, the Lord, already meets his row; seat 1 is out, so seat 2 plays next.
    state = resolving(4, remaining=(T,), tokens={2: (4, 6, 0, 0)}, in_game=(True, False, True, True))
    new, events = act(state, 0, ResolveEffect((T,), Effect.ACQUIRE_TOWER))
    assert new.winners == (2,) and TurnStarted(2, 2, (W, R)) in events


def test_m15_another_player_does_not_win_on_the_active_players_turn():
    state = resolving(
        4, remaining=(P, T), phase=Phase.PLAGUE, effect=Effect.BLACK_DEATH, waiting=(2,), tokens={2: (5, 6, 0, 0)}
    )
    new, _ = act(state, 2, PlagueDiscard(P))  # the Lord now meets his row, on seat 0's turn
    assert new.phase is Phase.RESOLVE and new.tokens[2] == (4, 6, 0, 0)


def test_m15_the_last_player_left_wins():
    state = resolving(3, remaining=(P,), in_game=(True, True, False), tokens={0: (7, 0, 0, 0)})
    new, _ = act(state, 0, ResolveEffect((P,), Effect.ACQUIRE_PEOPLE))
    assert new.winners == (1,) and new.end_reason is EndReason.LAST_STANDING


# ------------------------------------------------------------------ M16 the Master's guess


def master_state(n=6, **fields):
    # Seat 5 is the Master (builders.ROLES[6]); seats 0-4: Prince, Rector, Lord, Captain, Cardinal.
    return resolving(n, remaining=(M, W), active=5, lombard_holder=4, **fields)


def test_m16_the_master_meeting_his_row_must_name_a_player_and_role():
    state = master_state(tokens={5: (3, 0, 3, 2)})
    new, _ = act(state, 5, ResolveEffect((M,), Effect.ACQUIRE_MORTADELLA))
    assert new.phase is Phase.MASTER_GUESS and ENGINE.deciders(new) == (5,)
    legal = set(ENGINE.legal_actions(new, 5))
    roles = (Role.PRINCE, Role.RECTOR, Role.LORD, Role.CAPTAIN, Role.CARDINAL)
    assert legal == {GuessRole(t, r) for t in range(5) for r in roles}


def test_m16_a_right_guess_wins():
    state = master_state(tokens={5: (3, 0, 3, 3)}, phase=Phase.MASTER_GUESS, guess_context=GuessContext.AFTER_EFFECT)
    new, events = act(state, 5, GuessRole(2, Role.LORD))
    assert new.winners == (5,) and new.end_reason is EndReason.MASTER_GUESS
    assert GuessMade(5, 2, Role.LORD, True) in events


def test_m16_a_wrong_guess_eliminates_the_master_and_reveals_no_role():
    state = master_state(tokens={5: (3, 0, 3, 3)}, phase=Phase.MASTER_GUESS, guess_context=GuessContext.AFTER_EFFECT)
    new, events = act(state, 5, GuessRole(2, Role.PRINCE))
    assert not new.in_game[5] and new.phase is not Phase.OVER
    assert GuessMade(5, 2, Role.PRINCE, False) in events
    assert of(events, PlayerEliminated)[0].cause is EliminationCause.WRONG_GUESS
    for viewer in (None, 0, 1, 2, 3, 4):
        for event in events:
            seen = ENGINE.project_event(event, viewer)
            assert not isinstance(seen, (RoleDealt, RoleReplaced, GameEnded))
    assert new.active == 0 and new.passed == (W, R)


def test_m16_the_brigand_is_never_named():
    state = make_state(
        7, active=5, phase=Phase.MASTER_GUESS, guess_context=GuessContext.START_OF_TURN, tokens={5: (3, 0, 3, 3)}
    )
    legal = ENGINE.legal_actions(state, 5)
    assert legal and all(a.target != 6 and a.role not in (Role.BRIGAND, Role.MASTER) for a in legal)
    with pytest.raises(IllegalAction):
        act(state, 5, GuessRole(6, Role.BRIGAND))


def test_m16_the_master_guesses_at_the_start_of_his_turn():
    state = resolving(6, remaining=(T,), active=4, lombard_holder=3, tokens={5: (3, 1, 3, 3)})
    new, _ = act(state, 4, ResolveEffect((T,), Effect.ACQUIRE_TOWER))
    assert new.active == 5 and new.phase is Phase.MASTER_GUESS
    assert new.guess_context is GuessContext.START_OF_TURN


def test_m16_after_porchetta_a_wrong_guess_hands_the_win_to_the_next_row_met():
    state = make_state(
        6,
        active=5,
        lombard_holder=4,
        lombard_used=True,
        phase=Phase.MASTER_GUESS,
        guess_context=GuessContext.AFTER_EVENT,
        dice=(P, P, P, P, P),
        tokens={5: (3, 0, 3, 3), 2: (4, 6, 0, 0), 3: (5, 0, 0, 4)},
    )
    new, _ = act(state, 5, GuessRole(0, Role.RECTOR))  # seat 0 is the Prince
    assert not new.in_game[5] and new.winners == (2,) and new.end_reason is EndReason.VICTORY_ROW


def test_m16_a_wrong_guess_at_the_start_of_the_turn_hands_the_dice_on():
    state = make_state(
        6,
        active=5,
        lombard_holder=4,
        passed=(W, R),
        phase=Phase.MASTER_GUESS,
        guess_context=GuessContext.START_OF_TURN,
        tokens={5: (3, 0, 3, 3)},
    )
    new, _ = act(state, 5, GuessRole(1, Role.LORD))  # seat 1 is the Rector
    assert not new.in_game[5] and new.active == 0 and new.passed == (W, R)


# ------------------------------------------------------------------ M17 start player


def test_m17_the_most_mortadella_and_wine_starts_and_ties_reroll():
    for n in range(2, 8):
        for seed in range(20):
            state, events = ENGINE.new_game(n, {}, seed)
            rounds = of(events, StartRoll)
            assert rounds[0].seats == tuple(range(n))
            for before, after in itertools.pairwise(rounds):
                scores = [sum(d in (M, W) for d in roll) for roll in before.rolls]
                tied = tuple(s for s, sc in zip(before.seats, scores, strict=True) if sc == max(scores))
                assert after.seats == tied and len(tied) > 1
            last = rounds[-1]
            scores = [sum(d in (M, W) for d in roll) for roll in last.rolls]
            assert scores.count(max(scores)) == 1
            assert state.start_player == last.seats[scores.index(max(scores))]
            assert StartPlayerChosen(state.start_player, state.lombard_holder) in events


# ------------------------------------------------------------------ M18 roles


def test_m18_role_pools_by_player_count():
    assert set(ROLE_POOLS[2]) == {Role.PRINCE, Role.RECTOR, Role.LORD, Role.CAPTAIN, Role.CARDINAL}
    for n in range(3, 7):
        assert set(ROLE_POOLS[n]) == set(ROLE_POOLS[2]) | {Role.MASTER}
    assert set(ROLE_POOLS[7]) == set(Role)
    for n in range(2, 8):
        state, _ = ENGINE.new_game(n, {}, n * 31)
        assert len(set(state.roles)) == n and set(state.roles) | set(state.undealt) == set(ROLE_POOLS[n])


def test_m18_a_seat_sees_its_own_role_and_the_face_up_brigand_only():
    state = make_state(7)
    view = ENGINE.view(state, 2)
    assert [s.role for s in view.seats] == [None, None, Role.LORD, None, None, None, Role.BRIGAND]
    assert [s.role for s in ENGINE.view(state, None).seats] == [None] * 6 + [Role.BRIGAND]


def test_m18_the_role_deal_is_private_but_the_brigands():
    _, events = ENGINE.new_game(7, {}, 3)
    dealt = of(events, RoleDealt)
    for event in dealt:
        for viewer in (None, *range(7)):
            seen = ENGINE.project_event(event, viewer)
            visible = viewer == event.seat or event.role is Role.BRIGAND
            assert seen.role == (event.role if visible else None)


# ------------------------------------------------------------------ M19 two-player guess


def test_m19_before_rolling_a_player_may_guess_the_opponents_role():
    state = make_state(2, passed=(W, R))
    legal = set(ENGINE.legal_actions(state, 0))
    assert legal == {RollDice(False), RollDice(True)} | {
        GuessRole(1, r) for r in (Role.RECTOR, Role.LORD, Role.CAPTAIN, Role.CARDINAL)
    }


def test_m19_a_right_guess_wins():
    new, _ = act(make_state(2), 0, GuessRole(1, Role.RECTOR))
    assert new.winners == (0,) and new.end_reason is EndReason.TWO_PLAYER_GUESS


def test_m19_a_wrong_guess_costs_every_token_and_the_role_card():
    state = make_state(2, passed=(W, R), tokens={0: (2, 1, 1, 3), 1: (1, 0, 0, 0)})
    new, events = act(state, 0, GuessRole(1, Role.LORD))
    assert GuessMade(0, 1, Role.LORD, False) in events
    assert new.tokens[0] == ZERO and new.tokens[1] == (1, 0, 0, 0)
    assert new.removed_roles[0] == (Role.PRINCE,)
    assert new.roles[0] in UNDEALT_2 and new.roles[0] not in new.undealt and len(new.undealt) == 2
    assert new.active == 1 and new.passed == (W, R)  # the turn passes, the dice with it
    replaced = of(events, RoleReplaced)[0]
    assert ENGINE.project_event(replaced, 1) == RoleReplaced(0, None, None)
    assert ENGINE.project_event(replaced, 0) == replaced
    assert ENGINE.view(new, 1).seats[0].removed_roles == ()
    assert ENGINE.view(new, 0).seats[0].removed_roles == (Role.PRINCE,)


UNDEALT_2 = (Role.LORD, Role.CAPTAIN, Role.CARDINAL)


def test_m19_no_guess_once_no_undealt_role_remains():
    state = make_state(2, passed=(W, R), undealt=(), removed_roles=((Role.LORD, Role.CAPTAIN, Role.CARDINAL), ()))
    assert set(ENGINE.legal_actions(state, 0)) == {RollDice(False), RollDice(True)}


# ------------------------------------------------------------------ M20 six / seven players, Brigand


def test_m20_six_players_start_with_one_people_and_one_mortadella():
    state, _ = ENGINE.new_game(6, {}, 1)
    assert state.tokens == ((1, 0, 0, 1),) * 6


def test_m20_seven_players_start_with_two_people_and_choose_one_token():
    state, _ = ENGINE.new_game(7, {}, 1)
    assert state.tokens == ((2, 0, 0, 0),) * 7
    assert state.phase is Phase.SETUP_TOKEN and set(ENGINE.deciders(state)) == set(range(7))


def test_m20_the_seven_player_choice_is_each_seats_own_decision():
    state = make_state(
        7, phase=Phase.SETUP_TOKEN, waiting=(0, 1, 2, 3, 4, 5, 6), turn=0, tokens={s: (2, 0, 0, 0) for s in range(7)}
    )
    new, _ = act(state, 4, ChooseStartToken(B))
    assert new.tokens[4] == (2, 0, 1, 0) and 4 not in ENGINE.deciders(new)
    with pytest.raises(NotYourDecision):
        act(new, 4, ChooseStartToken(B))


def test_m20_the_game_starts_after_the_last_choice():
    state = make_state(7, phase=Phase.SETUP_TOKEN, waiting=(6,), turn=0, start_player=2, active=2)
    new, _ = act(state, 6, ChooseStartToken(P))
    assert new.tokens[6] == (1, 0, 0, 0) and new.active == 2 and new.turn == 1
    assert new.phase is Phase.LOMBARD  # seat 2 rolled five dice at once: nothing to choose


def test_m20_the_brigands_acquisitions_are_stolen():
    state = make_state(
        7,
        active=6,
        phase=Phase.RESOLVE,
        lombard_used=True,
        dice=(B, T, T, W, R),
        chosen=(B, T, T),
        unchosen=(W, R),
        remaining=(B, T, T),
        tokens={1: (0, 0, 2, 0), 4: (0, 0, 1, 0)},
    )
    new, _ = act(state, 6, ResolveEffect((B,), Effect.ACQUIRE_BOOK))
    assert new.phase is Phase.STEAL and set(ENGINE.legal_actions(new, 6)) == {StealFrom(1), StealFrom(4)}


# ------------------------------------------------------------------ turn limit and errors


def test_turn_limit_ends_the_game_with_no_winner():
    """M21: when ``max_turns`` turns have begun and the last one ends, nobody wins and the
    outcome says the limit ended the game."""
    state = resolving(4, remaining=(T,), turn=30, max_turns=30)
    new, _ = act(state, 0, ResolveEffect((T,), Effect.ACQUIRE_TOWER))
    assert new.phase is Phase.OVER and new.winners == () and new.end_reason is EndReason.TURN_LIMIT
    assert "turn limit" in ENGINE.outcome(new).summary
    assert ENGINE.deciders(new) == ()


def test_turn_limit_counts_skipped_turns():
    """M21 with M9: a skipped turn is a turn begun, so it counts toward ``max_turns``."""
    state = resolving(4, remaining=(T,), turn=29, max_turns=30, skip_turn=(False, True, False, False))
    new, events = act(state, 0, ResolveEffect((T,), Effect.ACQUIRE_TOWER))
    assert TurnSkipped(1) in events
    assert new.turn == 30 and new.end_reason is EndReason.TURN_LIMIT and new.winners == ()


def test_the_last_turn_before_the_limit_can_still_be_won():
    """M21 only ends a game nobody has won: a row met in the last turn wins (M15)."""
    state = resolving(4, remaining=(M,), turn=30, max_turns=30, tokens={0: (2, 2, 2, 4)})
    new, _ = act(state, 0, ResolveEffect((M,), Effect.ACQUIRE_MORTADELLA))
    assert new.end_reason is EndReason.VICTORY_ROW and new.winners == (0,)


def test_the_turn_limit_is_a_table_option():
    """M21: ``max_turns``, default 500, at least 1."""
    spec = {o.name: o for o in ENGINE.info.options}["max_turns"]
    assert spec.default == "500" and spec.minimum == 1
    state, _ = ENGINE.new_game(3, {"max_turns": "7"}, 1)
    assert state.max_turns == 7
    with pytest.raises(InvalidConfig):
        ENGINE.new_game(3, {"max_turns": "0"}, 1)


def test_a_seat_that_need_not_decide_is_refused():
    with pytest.raises(NotYourDecision):
        act(make_state(4), 2, RollDice(False))


def test_an_action_of_the_wrong_phase_is_illegal():
    with pytest.raises(IllegalAction):
        act(make_state(4), 0, ChooseTarget(1))


@pytest.mark.parametrize(
    "action",
    [
        "roll",
        None,
        RollDice("yes"),
        ChooseDice((P, P)),
        ChooseTarget(-1),
        ResolveEffect((P, P, P), Effect.PLAGUE),
        ChooseRevolution(1, P),
        PlagueDiscard(M),
        ChooseStartToken(W),
    ],
)
def test_malformed_actions_are_refused(action):
    with pytest.raises(MalformedAction):
        act(make_state(4), 0, action)


def test_apply_never_mutates_its_input():
    state = resolving(4, remaining=(P, P, T))
    copy = replace(state)
    act(state, 0, ResolveEffect((P, P), Effect.ACQUIRE_TWO_PEOPLE))
    assert state == copy

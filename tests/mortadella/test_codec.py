"""Codec: exact round trips of states and actions, and malformed actions refused."""

import pytest

from services.engine.api import Game, GameInfo
from services.engine.errors import MalformedAction
from services.mortadella import CODEC, ENGINE, GAME, INFO
from services.mortadella.model import (
    ChooseDice,
    ChooseRevolution,
    ChooseStartToken,
    ChooseTarget,
    Effect,
    GuessContext,
    GuessRole,
    PayCancel,
    Phase,
    PlagueDiscard,
    ResolveEffect,
    Role,
    RollDice,
    StealFrom,
    UseLombard,
    WrongGuess,
)
from tavola.mortadella.v1 import mortadella_pb2 as pb
from tests.engine_harness import random_playout
from tests.mortadella.builders import B, M, P, R, T, W, make_state, resolving

EVERY_ACTION = [
    ChooseStartToken(M),
    RollDice(False),
    RollDice(True),
    GuessRole(3, Role.CARDINAL),
    UseLombard(True),
    UseLombard(False),
    ChooseDice((P, B, R)),
    ResolveEffect((B,), Effect.ACQUIRE_MORTADELLA),
    ResolveEffect((P, B), Effect.REVOLUTION),
    ChooseTarget(0),
    ChooseRevolution(2, T),
    PayCancel(True),
    PayCancel(False),
    PlagueDiscard(T),
    StealFrom(6),
]


def test_the_package_exports_the_game():
    assert isinstance(GAME, Game) and GAME.engine is ENGINE and GAME.codec is CODEC
    assert isinstance(INFO, GameInfo) and INFO.game_id == "mortadella"
    assert (INFO.min_players, INFO.max_players) == (2, 7)
    assert {o.name for o in INFO.options} == {"max_turns", "additional_rules"}
    assert CODEC.action_type() is pb.Action


@pytest.mark.parametrize("action", EVERY_ACTION)
def test_actions_round_trip(action):
    message = CODEC.action_to_proto(action)
    again = pb.Action.FromString(message.SerializeToString())
    assert CODEC.action_from_proto(again) == action


@pytest.mark.parametrize(
    "state",
    [
        make_state(4),
        make_state(2, removed_roles=((Role.LORD,), ()), undealt=(Role.CAPTAIN, Role.CARDINAL)),
        make_state(4, additional_rules=False, lombard_holder=None),
        resolving(5, remaining=(P, P), phase=Phase.TARGET, effect=Effect.DRUNKENNESS, target=3, carnival=True),
        resolving(4, remaining=(T,), phase=Phase.PLAGUE, effect=Effect.BLACK_DEATH, waiting=(2, 0)),
        resolving(
            4,
            remaining=(W,),
            phase=Phase.STEAL,
            effect=Effect.ACQUIRE_TWO_PEOPLE,
            steal_symbol=P,
            steals_left=2,
            kept=True,
            passed=(W, R),
        ),
        make_state(
            6,
            phase=Phase.MASTER_GUESS,
            active=5,
            guess_context=GuessContext.AFTER_EVENT,
            tokens={5: (3, 0, 3, 3)},
            skip_turn=(True, False, False, False, False, False),
        ),
        make_state(3, phase=Phase.OVER, winners=(1,), in_game=(False, True, True), rng=(1 << 64) - 1),
        make_state(
            2,
            removed_roles=((Role.LORD,), ()),
            undealt=(Role.CAPTAIN, Role.CARDINAL),
            wrong_guesses=(WrongGuess(0, 0, 1, 0, Role.LORD), WrongGuess(1, 0, 0, 1, Role.CARDINAL)),
        ),
    ],
)
def test_literal_states_round_trip(state):
    message = CODEC.state_to_proto(state)
    again = pb.GameState.FromString(message.SerializeToString())
    assert CODEC.state_from_proto(again) == state


def test_states_round_trip_along_playouts():
    for n in range(2, 8):
        for seed in range(4):
            playout = random_playout(GAME, n, {"max_turns": "30"}, seed, check_codec=True)
            assert CODEC.state_from_proto(CODEC.state_to_proto(playout.state)) == playout.state


def test_views_round_trip_for_every_viewer_along_playouts():
    """view_from_proto inverts view_to_proto, for every seat and a spectator (None), on the
    states of random games at every player count, with and without the additional rules."""
    assert CODEC.view_type() is pb.View
    checked = 0
    for n in range(2, 8):
        for seed in range(12):
            options = {"max_turns": "60", "additional_rules": "false" if seed % 3 == 2 else "true"}
            playout = random_playout(GAME, n, options, 500 + seed)
            state, _ = ENGINE.new_game(n, options, 500 + seed)
            states = [state]
            for seat, action in playout.actions:
                state, _ = ENGINE.apply(state, seat, action)
                states.append(state)
            for state in [*states[:: max(1, len(states) // 40)], states[-1]]:
                for viewer in (None, *range(n)):
                    view = ENGINE.view(state, viewer)
                    data = CODEC.view_to_proto(view).SerializeToString()
                    assert CODEC.view_from_proto(pb.View.FromString(data)) == view
                    checked += 1
    assert checked > 5000


def test_a_view_with_wrong_guesses_round_trips():
    state = make_state(
        2,
        removed_roles=((Role.LORD,), ()),
        undealt=(Role.CAPTAIN, Role.CARDINAL),
        wrong_guesses=(WrongGuess(0, 0, 1, 0, Role.LORD), WrongGuess(1, 0, 0, 1, Role.CARDINAL)),
    )
    for viewer in (None, 0, 1):
        view = ENGINE.view(state, viewer)
        assert view.wrong_guesses == state.wrong_guesses  # public (M16, M19)
        assert CODEC.view_from_proto(pb.View.FromString(CODEC.view_to_proto(view).SerializeToString())) == view


def test_views_encode_with_and_without_viewer():
    state = make_state(7, lombard_holder=None, target=2)
    spectator = CODEC.view_to_proto(ENGINE.view(state, None))
    assert not spectator.HasField("viewer") and not spectator.HasField("lombard_holder")
    assert spectator.HasField("target") and spectator.target == 2
    seat = CODEC.view_to_proto(ENGINE.view(state, 0))
    assert seat.HasField("viewer") and seat.viewer == 0
    assert seat.seats[0].role == pb.ROLE_PRINCE and seat.seats[1].role == pb.ROLE_UNSPECIFIED
    assert list(seat.deciding_seats) == [0]


def test_every_event_kind_encodes():
    kinds = set()
    for n in range(2, 8):
        for seed in range(30):
            playout = random_playout(GAME, n, {"max_turns": "80"}, seed)
            for event in playout.events:
                kinds.add(CODEC.event_to_proto(event).WhichOneof("kind"))
    assert kinds >= {
        "role_dealt",
        "start_roll",
        "start_player_chosen",
        "turn_started",
        "turn_skipped",
        "dice_rolled",
        "lombard_decided",
        "special_event_occurred",
        "dice_chosen",
        "effect_chosen",
        "target_chosen",
        "cancel_decided",
        "tokens_changed",
        "skip_turn_given",
        "no_effect",
        "guess_made",
        "role_replaced",
        "player_eliminated",
        "game_ended",
    }


@pytest.mark.parametrize(
    "message",
    [
        pb.Action(),  # no kind at all
        pb.Action(choose_start_token=pb.ChooseStartToken()),  # SYMBOL_UNSPECIFIED
        pb.Action(choose_start_token=pb.ChooseStartToken(symbol=pb.SYMBOL_WINE)),  # no such token
        pb.Action(choose_start_token=pb.ChooseStartToken(symbol=42)),
        pb.Action(guess_role=pb.GuessRole(target=1)),  # ROLE_UNSPECIFIED
        pb.Action(guess_role=pb.GuessRole(target=1, role=99)),
        pb.Action(guess_role=pb.GuessRole(target=-1, role=pb.ROLE_LORD)),
        pb.Action(choose_dice=pb.ChooseDice(symbols=[pb.SYMBOL_PEOPLE, pb.SYMBOL_TOWER])),
        pb.Action(choose_dice=pb.ChooseDice(symbols=[pb.SYMBOL_PEOPLE, pb.SYMBOL_TOWER, 0])),
        pb.Action(resolve_effect=pb.ResolveEffect(dice=[pb.SYMBOL_PEOPLE])),  # EFFECT_UNSPECIFIED
        pb.Action(resolve_effect=pb.ResolveEffect(dice=[], effect=pb.EFFECT_PLAGUE)),
        pb.Action(resolve_effect=pb.ResolveEffect(dice=[5, 5, 5], effect=pb.EFFECT_INEBRIATION)),
        pb.Action(resolve_effect=pb.ResolveEffect(dice=[1], effect=77)),
        pb.Action(choose_target=pb.ChooseTarget(target=-3)),
        pb.Action(choose_revolution=pb.ChooseRevolution(target=1, symbol=pb.SYMBOL_PEOPLE)),
        pb.Action(plague_discard=pb.PlagueDiscard(symbol=pb.SYMBOL_BOOK)),
        pb.Action(steal_from=pb.StealFrom(victim=-1)),
    ],
)
def test_malformed_actions_are_refused(message):
    with pytest.raises(MalformedAction):
        CODEC.action_from_proto(message)


def test_a_message_of_another_type_is_malformed():
    with pytest.raises(MalformedAction):
        CODEC.action_from_proto(pb.GameState())
    with pytest.raises(MalformedAction):
        CODEC.action_to_proto("roll")  # type: ignore[arg-type]


def test_labels_are_short_and_human():
    labels = {ENGINE.describe_action(a) for a in EVERY_ACTION}
    assert "roll 5 dice" in labels and "guess seat 3 is the Cardinal" in labels
    assert "resolve [People] [Book] as a Joker: the Revolution" in labels
    assert "use [People] [Book] [Rat]" in labels and "discard 1 Tower instead of People" in labels
    assert all(len(label) < 60 for label in labels)
    # The rulebook's words: no face or token in capitals.
    for label in labels:
        assert not any(word in label for word in ("PEOPLE", "TOWER", "BOOK", "WINE", "RAT")), label

"""Codec: exact state round trips, action round trips, malformed actions, events and views."""

import pytest
from google.protobuf.any_pb2 import Any

from services.borgia import GAME
from services.borgia.model import (
    ActionPerformed,
    Allow,
    Bid,
    BidMade,
    Bribe,
    Call,
    Cardinal,
    Direction,
    Face,
    GameEnded,
    GameStarted,
    JudgementPair,
    JudgementSplit,
    PerformNothing,
    Phase,
    Poison,
    Rumor,
)
from services.engine.errors import MalformedAction
from tavola.borgia.v1 import borgia_pb2 as pb
from tests.borgia.test_playouts import CONFIGS, reachable_states
from tests.borgia.test_rules import make_state, over_state, shadow_state
from tests.engine_harness import random_playout

ENGINE, CODEC = GAME.engine, GAME.codec


def round_trip_state(state):
    message = CODEC.state_to_proto(state)
    wire = pb.GameState.FromString(message.SerializeToString())
    return CODEC.state_from_proto(wire)


@pytest.mark.parametrize(
    "state",
    [
        make_state(),
        make_state(phase=Phase.RESPOND, bid=Bid(4, Face.RUMOR), antipope=Cardinal.SFORZA),
        make_state(phase=Phase.PERFORM, bid=Bid(2, Face.BRIBE), called=True, rumors=((Cardinal.BORGIA,), (), ())),
        shadow_state(rumors=((), (Cardinal.BORGIA, Cardinal.COLONNA)), rng=(1 << 64) - 1),
        over_state(dice=((), (Face.FATE,), (Face.BRIBE, Face.RUMOR)), influence=(0, 31, 2, 7, 0, 120)),
    ],
)
def test_literal_states_round_trip_exactly(state):
    assert round_trip_state(state) == state


def test_playout_states_round_trip_exactly_through_any():
    for players, options in CONFIGS:
        state, _ = ENGINE.new_game(players, options, 77)
        packed = Any()
        packed.Pack(CODEC.state_to_proto(state))
        assert packed.type_url.endswith("tavola.borgia.v1.GameState")
        unpacked = pb.GameState()
        assert packed.Unpack(unpacked)
        assert CODEC.state_from_proto(unpacked) == state
        playout = random_playout(GAME, players, options, 77)
        assert round_trip_state(playout.state) == playout.state


def test_corrupt_state_is_rejected():
    message = CODEC.state_to_proto(make_state())
    message.phase = pb.PHASE_UNSPECIFIED
    with pytest.raises(ValueError):
        CODEC.state_from_proto(message)


def test_every_kind_of_action_round_trips():
    actions = [
        Bid(3, Face.POISON),
        Call(),
        Allow(),
        Bribe(Cardinal.MEDICI, Direction.BOTTOM),
        Poison(Cardinal.SFORZA, Cardinal.BORGIA),
        JudgementPair(Cardinal.ORSINI, Cardinal.COLONNA),
        JudgementSplit((Cardinal.SFORZA, Cardinal.MEDICI), (Cardinal.BORGIA, Cardinal.ORSINI)),
        Rumor(Cardinal.DELLA_ROVERE, 1),
        Rumor(Cardinal.DELLA_ROVERE, 1, Cardinal.SFORZA),
        PerformNothing(),
    ]
    seen = set()
    for players, options in CONFIGS:
        playout = random_playout(GAME, players, options, 3)
        actions.extend(action for _, action in playout.actions)
    for action in actions:
        message = CODEC.action_to_proto(action)
        assert isinstance(message, CODEC.action_type())
        wire = pb.Action.FromString(message.SerializeToString())
        assert CODEC.action_from_proto(wire) == action
        seen.add(message.WhichOneof("kind"))
    assert len(seen) == 10


def test_unordered_pairs_are_the_same_action():
    assert Poison(Cardinal.SFORZA, Cardinal.BORGIA) == Poison(Cardinal.BORGIA, Cardinal.SFORZA)
    message = pb.Action(
        judgement_split=pb.JudgementSplitAction(
            source_a=pb.CARDINAL_SFORZA,
            source_b=pb.CARDINAL_BORGIA,
            target_a=pb.CARDINAL_ORSINI,
            target_b=pb.CARDINAL_MEDICI,
        )
    )
    assert CODEC.action_from_proto(message) == JudgementSplit(
        (Cardinal.BORGIA, Cardinal.SFORZA), (Cardinal.MEDICI, Cardinal.ORSINI)
    )


@pytest.mark.parametrize(
    "message",
    [
        pb.Action(),  # no oneof set
        pb.View(),  # not an action message at all
        pb.Action(bid=pb.Bid(count=3)),  # ACTION_KIND_UNSPECIFIED
        pb.Action(bid=pb.Bid(count=3, action=99)),  # out-of-range enum (B3: FATE is no action kind)
        pb.Action(bribe=pb.BribeAction(cardinal=pb.CARDINAL_MEDICI)),  # no direction
        pb.Action(bribe=pb.BribeAction(cardinal=0, direction=pb.DIRECTION_TOP)),
        pb.Action(poison=pb.PoisonAction(first=pb.CARDINAL_MEDICI, second=7)),
        pb.Action(judgement_pair=pb.JudgementPairAction(source=pb.CARDINAL_MEDICI)),
        pb.Action(judgement_split=pb.JudgementSplitAction(source_a=1, source_b=2, target_a=3)),
        pb.Action(accuse=pb.AccuseAction()),
        pb.Action(rumor=pb.RumorAction(target_seat=1)),
        pb.Action(rumor=pb.RumorAction(card=pb.CARDINAL_MEDICI, target_seat=1, returned=42)),
    ],
)
def test_malformed_actions_are_rejected(message):
    with pytest.raises(MalformedAction):
        CODEC.action_from_proto(message)


def test_action_to_proto_rejects_foreign_values():
    with pytest.raises(MalformedAction):
        CODEC.action_to_proto("call")


def test_every_event_kind_encodes():
    kinds = set()
    for players, options in CONFIGS:
        playout = random_playout(GAME, players, options, 11)
        for event in playout.events:
            message = CODEC.event_to_proto(event)
            assert pb.Event.FromString(message.SerializeToString()) == message
            kinds.add(message.WhichOneof("kind"))
            if isinstance(event, BidMade):
                assert message.bid_made.bid.count == event.count
            if isinstance(event, GameStarted):
                assert list(message.game_started.dice_counts) == list(event.dice_counts)
            if isinstance(event, ActionPerformed):
                assert CODEC.action_from_proto(message.action_performed.action) == event.action
            if isinstance(event, GameEnded):
                assert list(message.game_ended.result.winners) == list(event.result.winners)
                assert message.game_ended.result.pope == int(event.result.pope) + 1
    assert kinds == {field.name for field in pb.Event.DESCRIPTOR.oneofs_by_name["kind"].fields}


def test_view_messages():
    state = make_state(phase=Phase.RESPOND, bid=Bid(4, Face.RUMOR), antipope=Cardinal.SFORZA)
    spectator = CODEC.view_to_proto(ENGINE.view(state, None))
    assert not spectator.HasField("viewer_seat")
    assert spectator.responder_seat == 1 and spectator.HasField("responder_seat")
    assert spectator.bid.count == 4 and spectator.bid.action == pb.ACTION_KIND_RUMOR
    assert spectator.antipope == pb.CARDINAL_SFORZA
    assert [entry.influence for entry in spectator.influence] == [2] * 6
    assert len(spectator.centre_rumors) == 6
    seat = CODEC.view_to_proto(ENGINE.view(state, 2))
    assert seat.HasField("viewer_seat") and seat.viewer_seat == 2
    assert not seat.seats[2].dice_hidden and seat.seats[0].dice_hidden
    bidding = CODEC.view_to_proto(ENGINE.view(make_state(), 0))
    assert not bidding.HasField("responder_seat") and not bidding.HasField("bid")


def test_view_type_is_the_view_message():
    assert CODEC.view_type() is pb.View


def views_of_random_playouts(seeds):
    """Views of reachable states along random playouts, for every viewer and spectators."""
    for players, options in CONFIGS:
        for seed in seeds:
            states = reachable_states(players, options, seed)
            for state in [*states[:: max(1, len(states) // 25)], states[-1]]:
                for viewer in [None, *range(players)]:
                    yield ENGINE.view(state, viewer)


def test_views_round_trip_exactly():
    """view_from_proto inverts view_to_proto: hidden dice and puppets (B2), revealed dice after a
    call (B4), Shadow Puppets (B10) and the final result (B9) all come back equal."""
    count = 0
    kinds = set()
    for view in views_of_random_playouts(range(3)):
        wire = pb.View.FromString(CODEC.view_to_proto(view).SerializeToString())
        decoded = CODEC.view_from_proto(wire)
        assert decoded == view
        count += 1
        kinds.add((view.phase, view.viewer is None, view.called))
    assert count > 2000
    assert {phase for phase, _, _ in kinds} == set(Phase)
    assert any(called for _, _, called in kinds) and any(spectator for _, spectator, _ in kinds)


def test_view_from_proto_rejects_other_messages():
    with pytest.raises(TypeError):
        CODEC.view_from_proto(pb.GameState())
    message = CODEC.view_to_proto(ENGINE.view(make_state(), 0))
    message.phase = pb.PHASE_UNSPECIFIED
    with pytest.raises(ValueError):
        CODEC.view_from_proto(message)

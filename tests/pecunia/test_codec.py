"""The Pecunia non olet codec: exact round trips, and MalformedAction for nonsense."""

from __future__ import annotations

import pytest

from services.engine.api import Game
from services.engine.errors import MalformedAction
from services.pecunia import GAME, INFO
from services.pecunia.model import (
    ActionCardPlayed,
    DrawActionCard,
    EndRefill,
    PickNext,
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
    RemoveMarkers,
    SeatPos,
    SeatRoman,
)
from tavola.pecunia.v1 import pecunia_pb2 as pb
from tests.engine_harness import random_playout
from tests.pecunia.builders import VILLA, build

ENGINE, CODEC = GAME.engine, GAME.codec
L, M, R = SeatPos.LEFT, SeatPos.MIDDLE, SeatPos.RIGHT

EVERY_ACTION = [
    RemoveMarkers(),
    SeatRoman(L),
    SeatRoman(R, pair=True),
    EndRefill(),
    DrawActionCard(),
    PlayVillaDixius(),
    PlayQueueJumper(3),
    PlayCastorOil(M, 1, 2),
    PlayFishPoisoning(4, R, 0),
    PlaySpecialTax(2),
    PlayPoaching(5),
    PlaySwap(0, 3, 7),
    PlaySenateMeeting(1),
    PlayReordering(),
    PlayEviction(2, M, 1),
    PickNext(4),
]


def test_game_exports_engine_codec_and_info():
    assert isinstance(GAME, Game)
    assert INFO.game_id == "pecunia" and INFO.display_name == "Pecunia non olet"
    assert (INFO.min_players, INFO.max_players) == (2, 6)
    options = {o.name: o for o in INFO.options}
    assert set(options) == {"target", "deck", "turn_limit"}
    assert options["deck"].kind == "enum" and options["deck"].default == "default"
    assert "gentle" in options["deck"].choices
    assert CODEC.action_type() is pb.Action


@pytest.mark.parametrize("action", EVERY_ACTION, ids=lambda a: type(a).__name__)
def test_every_kind_of_action_round_trips(action):
    message = CODEC.action_to_proto(action)
    assert isinstance(message, pb.Action)
    assert CODEC.action_from_proto(message) == action
    again = pb.Action.FromString(message.SerializeToString())
    assert CODEC.action_from_proto(again) == action
    assert ENGINE.describe_action(action)


def test_seat_positions_map_to_their_proto_names():
    assert CODEC.action_to_proto(SeatRoman(L)).seat_roman.seat == pb.SEAT_POSITION_LEFT
    assert CODEC.action_to_proto(SeatRoman(M)).seat_roman.seat == pb.SEAT_POSITION_MIDDLE
    assert CODEC.action_to_proto(SeatRoman(R)).seat_roman.seat == pb.SEAT_POSITION_RIGHT


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_states_legal_actions_views_and_events_round_trip_along_playouts(players):
    for seed in range(6):
        playout = random_playout(GAME, players, {"deck": ("default", "gentle")[seed % 2]}, 70 + seed)
        state, events = ENGINE.new_game(players, {"deck": ("default", "gentle")[seed % 2]}, 70 + seed)
        for seat, action in [*playout.actions, (None, None)]:
            message = CODEC.state_to_proto(state)
            restored = CODEC.state_from_proto(pb.GameState.FromString(message.SerializeToString()))
            assert restored == state
            for legal in ENGINE.legal_actions(state, state.active):
                assert CODEC.action_from_proto(CODEC.action_to_proto(legal)) == legal
            for event in events:
                encoded = CODEC.event_to_proto(event)
                assert encoded.WhichOneof("kind") is not None
                if isinstance(event, ActionCardPlayed):
                    assert CODEC.action_from_proto(encoded.action_card_played.action) == event.action
            for viewer in [None, *range(players)]:
                CODEC.view_to_proto(ENGINE.view(state, viewer))
            if action is None:
                break
            state, events = ENGINE.apply(state, seat, action)
        assert ENGINE.outcome(state) is not None


def test_state_round_trip_keeps_reordering_villa_and_rng():
    state = build(
        seats={0: [[(46, 1), (35, 0)], [], [(66, 5)]]},
        queues={0: [0, 15, 50], 1: [16]},
        hands={0: [VILLA[0], 38]},
        villa=True,
        reorder=1,
        rng=(1 << 64) - 3,
        coins=[7, 2],
    )
    restored = CODEC.state_from_proto(CODEC.state_to_proto(state))
    assert restored == state and restored.reorder == 1 and restored.villa
    assert CODEC.state_from_proto(CODEC.state_to_proto(build())).reorder is None


def _message(**fields) -> pb.Action:
    return pb.Action(**fields)


@pytest.mark.parametrize(
    "message",
    [
        pb.Action(),  # no oneof set
        _message(seat_roman=pb.SeatRoman(seat=pb.SEAT_POSITION_UNSPECIFIED)),
        _message(seat_roman=pb.SeatRoman(seat=9)),
        _message(play_castor_oil=pb.PlayCastorOil(seat=pb.SEAT_POSITION_LEFT, slot=0, amount=0)),
        _message(play_castor_oil=pb.PlayCastorOil(seat=pb.SEAT_POSITION_LEFT, slot=0, amount=3)),
        _message(play_castor_oil=pb.PlayCastorOil(seat=pb.SEAT_POSITION_LEFT, slot=2, amount=1)),
        _message(play_fish_poisoning=pb.PlayFishPoisoning(target=1, seat=-1, slot=0)),
        _message(play_fish_poisoning=pb.PlayFishPoisoning(target=-1, seat=pb.SEAT_POSITION_LEFT)),
        _message(play_eviction=pb.PlayEviction(target=1, seat=pb.SEAT_POSITION_RIGHT, slot=-1)),
        _message(play_special_tax=pb.PlaySpecialTax(target=-2)),
        _message(play_swap=pb.PlaySwap(index=-1, target=1, target_index=0)),
        _message(play_queue_jumper=pb.PlayQueueJumper(index=-5)),
        _message(pick_next=pb.PickNext(index=-1)),
    ],
)
def test_malformed_action_messages_are_rejected(message):
    with pytest.raises(MalformedAction):
        CODEC.action_from_proto(message)


def test_a_message_of_another_type_is_malformed():
    for other in (pb.View(), pb.GameState(), None, "remove_markers"):
        with pytest.raises(MalformedAction):
            CODEC.action_from_proto(other)


def test_well_formed_but_out_of_table_targets_are_malformed_at_the_engine():
    state = build(seats={0: [[(20, 2)], [], []]}, queues={0: [22], 1: [23]}, hands={0: [VILLA[0], 20]}, coins=[0, 4])
    action = CODEC.action_from_proto(pb.Action(play_special_tax=pb.PlaySpecialTax(target=5)))
    with pytest.raises(MalformedAction):
        ENGINE.apply(state, 0, action)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_views_decode_to_themselves_for_every_viewer(players):
    """view_from_proto inverts view_to_proto (bots decode what the gateway sends), on views of
    random reachable states, for every seat and for spectators; hands stay hidden (P7)."""
    assert CODEC.view_type() is pb.View
    checked = 0
    for seed in range(4):
        options = {"deck": ("default", "gentle")[seed % 2], "turn_limit": ("1000", "15")[seed // 2]}
        playout = random_playout(GAME, players, options, 300 + seed)
        state, _ = ENGINE.new_game(players, options, 300 + seed)
        for index, (seat, action) in enumerate([*playout.actions, (None, None)]):
            if index % 4 == 0 or action is None:
                for viewer in [None, *range(players)]:
                    view = ENGINE.view(state, viewer)
                    wire = pb.View.FromString(CODEC.view_to_proto(view).SerializeToString())
                    decoded = CODEC.view_from_proto(wire)
                    assert decoded == view
                    assert [p.hand is not None for p in decoded.players] == [p == viewer for p in range(players)]
                    checked += 1
            if action is not None:
                state, _ = ENGINE.apply(state, seat, action)
    assert checked > 30 * players


def test_a_view_decoder_refuses_other_messages():
    for other in (pb.GameState(), pb.Action(), None):
        with pytest.raises(TypeError):
            CODEC.view_from_proto(other)
    with pytest.raises(ValueError):
        CODEC.view_from_proto(pb.View(phase=9))
    broken = CODEC.view_to_proto(ENGINE.view(build(), 0))
    del broken.players[0].latrine[2]
    with pytest.raises(ValueError):
        CODEC.view_from_proto(broken)

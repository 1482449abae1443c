"""Hidden information (P7, issue item 3): a seat sees its own hand of action cards, other hands
only as counts, and the order of neither draw pile; coins, seats, queues and discard piles are
public. Checked on the engine's values and on the encoded protos, by walking random playouts.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from services.engine.errors import IllegalAction, NotYourDecision
from services.pecunia import GAME
from services.pecunia.model import ActionCardsDrawn, Phase, PlayEviction, SeatPos
from tests.engine_harness import random_playout
from tests.pecunia.builders import VILLA, build

ENGINE, CODEC = GAME.engine, GAME.codec


def _twin(state, viewer, rng: random.Random):
    """The same position with everything ``viewer`` may not see dealt differently: the hidden
    action cards (other hands and the draw pile) reshuffled between the same places in the same
    numbers, and the Roman draw pile reordered."""
    others = [p for p in range(state.player_count) if p != viewer]
    hidden = list(state.action_pile) + [c for p in others for c in state.hands[p]]
    rng.shuffle(hidden)
    hands = list(state.hands)
    for p in others:
        size = len(hands[p])
        hands[p], hidden = tuple(sorted(hidden[:size])), hidden[size:]
    romans = list(state.roman_pile)
    rng.shuffle(romans)
    return replace(state, hands=tuple(hands), action_pile=tuple(hidden), roman_pile=tuple(romans))


def _walk(players: int, seed: int):
    """Yields (state, events of the action that led to it) along a random playout."""
    playout = random_playout(GAME, players, {}, seed)
    state, events = ENGINE.new_game(players, {}, seed)
    yield state, events
    for seat, action in playout.actions:
        state, events = ENGINE.apply(state, seat, action)
        yield state, events


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_views_depend_on_nothing_the_viewer_may_not_see(players):
    rng = random.Random(players)
    for seed in range(12):
        for step, (state, _) in enumerate(_walk(players, 500 + seed)):
            if step % 3:
                continue
            for viewer in [None, *range(players)]:
                view = ENGINE.view(state, viewer)
                twin = _twin(state, viewer, rng)
                assert ENGINE.view(twin, viewer) == view
                encoded = CODEC.view_to_proto(view)
                assert CODEC.view_to_proto(ENGINE.view(twin, viewer)).SerializeToString(
                    deterministic=True
                ) == encoded.SerializeToString(deterministic=True)
                for p, player in enumerate(encoded.players):
                    if p == viewer:
                        assert player.hand_visible
                        assert [c.id for c in player.hand] == list(state.hands[p])
                    else:
                        assert not player.hand_visible and len(player.hand) == 0
                    assert player.hand_count == len(state.hands[p])
                    assert player.sesterces == state.coins[p]  # public
                    assert [c.id for c in player.queue] == list(state.queues[p])  # face up
                    assert [[r.card.id for r in seat.romans] for seat in player.latrine] == [
                        [r.card for r in stack] for stack in state.seats[p]
                    ]
                assert encoded.roman_pile_count == len(state.roman_pile)
                assert encoded.action_pile_count == len(state.action_pile)
                assert [c.id for c in encoded.roman_discard] == list(state.roman_discard)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_projected_events_hide_drawn_action_cards_from_everyone_else(players):
    drawn_seen = 0
    for seed in range(15):
        for _, events in _walk(players, 900 + seed):
            for event in events:
                for viewer in [None, *range(players)]:
                    projected = ENGINE.project_event(event, viewer)
                    assert projected is not None  # every event has a public part
                    encoded = CODEC.event_to_proto(projected)
                    if isinstance(event, ActionCardsDrawn):
                        assert projected.count == event.count == len(event.cards)
                        if viewer == event.player:
                            assert projected == event
                            drawn_seen += bool(event.cards)
                        else:
                            assert projected.cards == () and len(encoded.action_cards_drawn.cards) == 0
                    else:
                        assert projected == event  # everything else is public
    assert drawn_seen > 0


def test_spectator_sees_no_hand_and_no_pile_order():
    state, _ = ENGINE.new_game(4, {}, 3)
    view = ENGINE.view(state, None)
    assert view.viewer is None
    assert all(p.hand is None for p in view.players)
    assert [p.hand_count for p in view.players] == [len(h) for h in state.hands]
    encoded = CODEC.view_to_proto(view)
    assert not encoded.HasField("viewer")
    assert not any(p.hand_visible or p.hand for p in encoded.players)


def test_hands_stay_secret_after_the_end():
    """Project decision (P7): the rules never reveal hands, not even at the end."""
    state = build(
        seats={0: [[(0, 1)], [], []]},
        queues={0: [15]},
        hands={0: [VILLA[0]], 1: [VILLA[1]]},
        coins=[29, 0],
    )
    after, _ = ENGINE.apply(state, 0, ENGINE.legal_actions(state, 0)[0])
    assert after.phase is Phase.OVER
    assert ENGINE.view(after, 0).players[1].hand is None
    assert ENGINE.view(after, None).players[0].hand is None


def test_error_messages_reveal_no_hand():
    """An illegal play names only the action tried, never what the seat (or anyone) holds."""
    state = build(
        seats={0: [[(20, 2)], [], []], 1: [[(21, 2)], [], []]},
        queues={0: [22], 1: [23]},
        hands={0: [VILLA[0]], 1: [38]},
    )
    with pytest.raises(IllegalAction) as error:
        ENGINE.apply(state, 0, PlayEviction(1, SeatPos.LEFT, 0))
    assert "Villa" not in str(error.value)
    with pytest.raises(NotYourDecision) as error:
        ENGINE.apply(state, 1, PlayEviction(0, SeatPos.LEFT, 0))
    assert "Eviction" not in str(error.value)

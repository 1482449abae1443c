"""services/rules_server.py: the views ApplyAction sends with its result (view_seats) are
those GetView answers on the new state, the packed legal actions it keeps answer as
freshly packed ones, and a state it sent answers as the same state decoded (the service
keeps the states it sent by their bytes, which holds only while the engines never change a
state in place), a legal action it packed as the same action decoded."""

import asyncio
import pickle
import random

import pytest

from services.registry import game_ids, get_game, player_counts
from services.rules_server import RulesServicer
from tavola.rules.v1 import rules_pb2


async def _play(game_id: str, players: int, seed: int, steps: int) -> int:
    rules = RulesServicer(get_game(game_id))
    fresh = RulesServicer(get_game(game_id))  # its cache is emptied before every view
    chooser = random.Random(seed)
    dealt = await rules.NewGame(rules_pb2.NewGameRequest(player_count=players, seed=seed), None)
    state, status = dealt.state, dealt.status
    checked = 0
    for _ in range(steps):
        if status.finished:
            break
        seat = chooser.choice(list(status.deciding_seats))
        legal = await rules.GetView(rules_pb2.GetViewRequest(state=state, seat=seat), None)
        fresh._legal_cache.clear()
        assert legal == await fresh.GetView(rules_pb2.GetViewRequest(state=state, seat=seat), None)
        action = chooser.choice(list(legal.legal_actions)).action
        wanted = [s for s in range(players) if s != 1]  # one seat left out
        request = rules_pb2.ApplyActionRequest(state=state, seat=seat, action=action, view_seats=wanted)
        applied = await rules.ApplyAction(request, None)
        state, status = applied.state, applied.status
        expected = [s for s in status.deciding_seats if s in wanted] if not status.finished else []
        assert [view.seat for view in applied.views] == expected
        for view in applied.views:
            alone = await rules.GetView(rules_pb2.GetViewRequest(state=state, seat=view.seat), None)
            assert view.view == alone
            checked += 1
        plain = await rules.ApplyAction(
            rules_pb2.ApplyActionRequest(state=request.state, seat=seat, action=action), None
        )
        assert not plain.views and plain.state == applied.state
        # A watched seat's view comes whether it decides or not, after the deciders' (each once).
        watched = await rules.ApplyAction(
            rules_pb2.ApplyActionRequest(
                state=request.state, seat=seat, action=action, view_seats=wanted, watched_seats=[1, seat, 99]
            ),
            None,
        )
        extra = sorted({1, seat} - set(expected))
        assert [view.seat for view in watched.views] == expected + extra
        for view in watched.views[len(expected) :]:
            assert view.view == await rules.GetView(rules_pb2.GetViewRequest(state=state, seat=view.seat), None)
    return checked


@pytest.mark.parametrize("game_id", game_ids())
def test_apply_action_sends_the_views_get_view_answers(game_id):
    players = max(player_counts(game_id))
    assert asyncio.run(_play(game_id, players, seed=11, steps=60)) > 0


async def _answers_from_kept_states(game_id: str, players: int, seed: int, steps: int) -> int:
    rules = RulesServicer(get_game(game_id))
    chooser = random.Random(seed)
    dealt = await rules.NewGame(rules_pb2.NewGameRequest(player_count=players, seed=seed), None)
    state, status = dealt.state, dealt.status
    kept = 0
    for _ in range(steps):
        if status.finished:
            break
        kept += state.value in rules._states
        seat = chooser.choice(list(status.deciding_seats))
        view = await rules.GetView(rules_pb2.GetViewRequest(state=state, seat=seat), None)
        action = chooser.choice(list(view.legal_actions)).action
        assert action.value in rules._packed_actions
        request = rules_pb2.ApplyActionRequest(state=state, seat=seat, action=action, view_seats=range(players))
        applied = await rules.ApplyAction(request, None)
        rules._states.clear()  # the same calls on a decoded state and action
        rules._legal_cache.clear()
        rules._packed_actions.clear()
        assert view == await rules.GetView(rules_pb2.GetViewRequest(state=state, seat=seat), None)
        assert applied == await rules.ApplyAction(request, None)
        state, status = applied.state, applied.status
    return kept


@pytest.mark.parametrize("game_id", game_ids())
def test_a_kept_state_and_action_answer_as_decoded(game_id):
    players = max(player_counts(game_id))
    assert asyncio.run(_answers_from_kept_states(game_id, players, seed=5, steps=40)) > 10


@pytest.mark.parametrize("game_id", game_ids())
def test_the_engines_never_change_a_state_in_place(game_id):
    engine = get_game(game_id).engine
    chooser = random.Random(2)
    for seed in range(6):
        state, _ = engine.new_game(chooser.choice(list(player_counts(game_id))), {}, seed)
        for _ in range(300):
            deciders = engine.deciders(state)
            if not deciders:
                break
            seat = chooser.choice(deciders)
            before = pickle.dumps(state)
            action = chooser.choice(list(engine.legal_actions(state, seat)))
            engine.view(state, seat)
            new_state, _ = engine.apply(state, seat, action)
            assert pickle.dumps(state) == before
            state = new_state

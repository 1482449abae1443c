"""services/rules_server.py: the views ApplyAction sends with its result (view_seats) are
those GetView answers on the new state, and the packed legal actions it keeps answer as
freshly packed ones."""

import asyncio
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
    return checked


@pytest.mark.parametrize("game_id", game_ids())
def test_apply_action_sends_the_views_get_view_answers(game_id):
    players = max(player_counts(game_id))
    assert asyncio.run(_play(game_id, players, seed=11, steps=60)) > 0

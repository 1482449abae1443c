"""gateway/reads.py's ``view_response``: the GetViewResponse it writes from the rules
service's view, its parts copied as bytes, is the message built field by field (its bytes too), for every
game's seats (deciding or not) and its spectator, over random playouts: without the labels'
phrases, which the rules service leaves out when asked and the gateway sends no client."""

import asyncio
import random

import pytest

from gateway.reads import view_response
from services.registry import game_ids, get_game, player_counts
from services.rules_server import RulesServicer
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2


def _table(players: int, version: int, deciding: list[int]) -> gw.Table:
    table = gw.Table(table_id="0123456789abcdef", game_id="game", player_count=players, version=version)
    for seat in range(players):
        table.seats.add(seat=seat, kind=gw.SEAT_KIND_HUMAN, taken=True, display_name=f"città {seat}")
    table.deciding_seats.extend(deciding)
    table.update_time.FromNanoseconds(1_700_000_000_123_456_789)
    return table


def _unphrased(legal) -> list[rules_pb2.LegalAction]:
    plain = [rules_pb2.LegalAction(action=item.action, label=item.label) for item in legal]
    for item in plain:
        assert not item.HasField("label_phrase")
    return plain


async def _compare(game_id: str, players: int, seed: int, steps: int, omit: bool) -> int:
    rules = RulesServicer(get_game(game_id))
    chooser = random.Random(seed)
    dealt = await rules.NewGame(rules_pb2.NewGameRequest(player_count=players, seed=seed), None)
    state, status = dealt.state, dealt.status
    compared = 0
    for version in range(steps):
        if status.finished:
            break
        table = _table(players, version, list(status.deciding_seats))
        views = {}
        for seat in [*range(players), None]:
            request = rules_pb2.GetViewRequest(
                state=state, omit_label_phrases=omit, **({} if seat is None else {"seat": seat})
            )
            view = views[seat] = await rules.GetView(request, None)
            phrases = [item.HasField("label_phrase") for item in view.legal_actions]
            assert not any(phrases) if omit else all(phrases)  # every game here has its words
            must_decide = seat in status.deciding_seats
            built = gw.GetViewResponse(
                table=table,
                seat=seat or 0,
                view=view.view,
                must_decide=must_decide,
                legal_actions=_unphrased(view.legal_actions),
            )
            data = view_response(table, seat or 0, view, must_decide, phrased=not omit)
            assert data == built.SerializeToString()
            assert gw.GetViewResponse.FromString(data) == built
            compared += 1
        seat = chooser.choice(list(status.deciding_seats))
        action = chooser.choice(list(views[seat].legal_actions)).action
        applied = await rules.ApplyAction(rules_pb2.ApplyActionRequest(state=state, seat=seat, action=action), None)
        state, status = applied.state, applied.status
    return compared


@pytest.mark.parametrize("omit", [False, True], ids=["phrased", "omitted"])
@pytest.mark.parametrize("game_id", game_ids())
def test_a_view_written_from_its_parts_is_the_view_built_field_by_field(game_id, omit):
    for players in sorted(player_counts(game_id))[:: max(1, len(player_counts(game_id)) - 1)]:
        assert asyncio.run(_compare(game_id, players, seed=players, steps=40, omit=omit)) > 0


def test_an_empty_view_stays_present():
    table = _table(2, 1, [])
    view = rules_pb2.GetViewResponse()
    view.view.SetInParent()  # set, and empty
    written = gw.GetViewResponse.FromString(view_response(table, 1, view, must_decide=False))
    assert written.HasField("view") and not written.legal_actions and not written.must_decide

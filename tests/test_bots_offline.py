"""Bot strategies on the pure engines (bots/lab/offline.py): they choose only legal actions,
from what their seat sees, and the Borgia odds bot reads its dice as B2-B4 allow."""

import random

import pytest
from google.protobuf import any_pb2

from bots.borgia.odds import borgia_odds
from bots.lab.offline import play
from bots.search.strategies import random_legal
from services.borgia import GAME as BORGIA
from services.registry import get_game
from tavola.borgia.v1 import borgia_pb2 as pb
from tavola.gateway.v1 import gateway_pb2
from tavola.rules.v1 import rules_pb2


def pack(message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def responding(bid_count: int, my_dice: list[int], others: int = 3) -> gateway_pb2.GetViewResponse:
    """Seat 0 answers seat 1's bid of POISON; it sees its own dice and the others' counts."""
    view = pb.View(
        viewer_seat=0,
        player_count=2,
        phase=pb.PHASE_RESPOND,
        active_seat=1,
        responder_seat=0,
        bid=pb.Bid(count=bid_count, action=pb.ACTION_KIND_POISON),
        seats=[
            pb.SeatView(seat=0, dice_count=len(my_dice), dice=my_dice),
            pb.SeatView(seat=1, dice_count=others, dice_hidden=True, puppets_hidden=True),
        ],
    )
    legal = [
        rules_pb2.LegalAction(action=pack(pb.Action(call=pb.CallAction())), label="call"),
        rules_pb2.LegalAction(action=pack(pb.Action(allow=pb.AllowAction())), label="allow"),
    ]
    return gateway_pb2.GetViewResponse(seat=0, view=pack(view), must_decide=True, legal_actions=legal)


def test_the_odds_bot_calls_a_bid_it_cannot_believe():
    """B4: it holds 2 matching dice (POISON and a FATE) and 3 unknown dice show about 1 more."""
    assert borgia_odds(responding(6, [pb.FACE_POISON, pb.FACE_FATE]), random.Random(0)).label == "call"


def test_the_odds_bot_allows_a_bid_its_own_dice_make_true():
    assert borgia_odds(responding(2, [pb.FACE_POISON, pb.FACE_FATE]), random.Random(0)).label == "allow"


@pytest.mark.parametrize("game_id", ["borgia", "mortadella", "pecunia"])
def test_every_strategy_plays_only_legal_actions_to_the_end(game_id):
    """Any illegal choice would make the engine raise; every game must end."""
    game = get_game(game_id)
    for name, strategy in {"random": random_legal, "borgia-odds": borgia_odds}.items():
        for seed in range(20):
            players = 2 + seed % 4
            outcome = play(game, [strategy] * players, {}, seed)
            assert outcome is not None, (name, seed)


@pytest.mark.slow
def test_the_odds_bot_wins_more_often_than_a_random_bot_in_the_same_seat():
    games = 150
    odds = sum(0 in play(BORGIA, [borgia_odds, random_legal, random_legal], {}, s).winners for s in range(games))
    rand = sum(0 in play(BORGIA, [random_legal] * 3, {}, s).winners for s in range(games))
    assert odds > rand

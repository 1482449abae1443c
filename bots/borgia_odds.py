"""A House of Borgia bot that plays the odds, from its own view only.

It knows its own dice and puppet; every other die shows a given action or Fate with
probability 2/6. So it expects ``own matching dice + unknown dice / 3`` of an action:
- answering a bid, it calls when the bid asks for more than it expects (B4);
- bidding, it picks the legal bid with the best margin between expectation and count;
- performing, it helps its puppet: bribes it to the top, judges influence onto it,
  poisons and accuses others, and never spreads a rumor of its own puppet.
In any other game it plays a random legal action.
"""

import random

from tavola.borgia.v1 import borgia_pb2 as pb
from tavola.gateway.v1 import gateway_pb2
from tavola.rules.v1 import rules_pb2


def borgia_odds(response: gateway_pb2.GetViewResponse, rng: random.Random) -> rules_pb2.LegalAction:
    view = pb.View()
    legal = list(response.legal_actions)
    if not response.view.Unpack(view):
        return rng.choice(legal)
    actions = []
    for option in legal:
        action = pb.Action()
        option.action.Unpack(action)
        actions.append(action)
    me = next(seat for seat in view.seats if seat.seat == view.viewer_seat)
    unknown = sum(seat.dice_count for seat in view.seats if seat.seat != me.seat)

    def expected(kind: int) -> float:  # ActionKind values equal the Face values (B2)
        return sum(1 for face in me.dice if face in (kind, pb.FACE_FATE)) + unknown / 3

    if view.phase == pb.PHASE_RESPOND:
        wanted = "call" if view.bid.count > expected(view.bid.action) + 0.5 else "allow"
        scores = [1.0 if action.WhichOneof("kind") == wanted else 0.0 for action in actions]
    elif view.phase == pb.PHASE_BID:
        scores = [expected(a.bid.action) - a.bid.count - a.bid.count / 100 for a in actions]
    else:
        influence = {entry.cardinal: entry.influence for entry in view.influence}
        scores = [_perform_score(action, set(me.puppets), influence, view.ladder) for action in actions]
    best = max(scores)
    return rng.choice([option for option, score in zip(legal, scores, strict=True) if score == best])


def _perform_score(action: pb.Action, mine: set[int], influence: dict[int, int], ladder) -> float:
    kind = action.WhichOneof("kind")
    if kind == "bribe":
        top = action.bribe.direction == pb.DIRECTION_TOP
        return 2.0 if (action.bribe.cardinal in mine) == top else 0.0
    if kind == "poison":
        hit = [action.poison.first, action.poison.second]
        return -sum(1 for c in hit if c in mine) + sum(influence.get(c, 0) for c in hit if c not in mine) / 10
    if kind == "judgement_pair":
        pair = action.judgement_pair
        return 2.0 * ((pair.target in mine) - (pair.source in mine))
    if kind == "judgement_split":
        split = action.judgement_split
        gained = (split.target_a in mine) + (split.target_b in mine)
        lost = (split.source_a in mine) + (split.source_b in mine)
        return float(gained - lost)
    if kind == "accuse":  # freeze the strongest rival
        return -1.0 if action.accuse.cardinal in mine else influence.get(action.accuse.cardinal, 0) / 10
    if kind == "rumor":
        return -1.0 if action.rumor.card in mine else 0.0
    return 0.0

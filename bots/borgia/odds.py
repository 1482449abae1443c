"""A House of Borgia bot that plays the odds, from its own view only.

It knows its own dice and puppet; every other die shows a given action or Fate with
probability 2/6. So it expects ``own matching dice + unknown dice / 3`` of an action:
- answering a bid, it calls when the bid asks for more than it expects (B4);
- bidding, it picks the legal bid with the best margin between expectation and count,
  which is always a bid at the lowest legal count, on the action it holds most of;
- performing, it helps its puppet: bribes it to the top, judges influence onto it,
  poisons and accuses others, and never spreads a rumor of its own puppet.
Ties are broken by ``rng``. In any other game the worker strategy plays a random legal action.

``borgia_odds_policy`` works on the engine's own values, so a search bot can use it as a
cheap rollout policy on sampled states; ``borgia_odds`` is the same policy as a worker strategy.
"""

import random
from collections.abc import Mapping, Sequence
from typing import cast

from google.protobuf.descriptor import Descriptor

from bots.search.policy import Strategy, policy_strategy
from services.borgia import GAME
from services.borgia.model import (
    Accuse,
    Allow,
    Bid,
    BorgiaAction,
    BorgiaView,
    Bribe,
    Call,
    Direction,
    Face,
    JudgementPair,
    JudgementSplit,
    Phase,
    Poison,
    Rumor,
)
from services.engine.api import Game, OptionValue
from services.registry import get_game
from tavola.borgia.v1 import borgia_pb2 as pb
from tavola.gateway.v1 import gateway_pb2
from tavola.rules.v1 import rules_pb2


def borgia_odds_policy(
    game: Game, view: BorgiaView, seat: int, legal: Sequence[BorgiaAction], rng: random.Random
) -> BorgiaAction:
    me = view.seats[seat]
    phase = view.phase
    if phase == Phase.BID:
        # Each bid scores expected - count (a little less for higher counts): the best bids
        # are at the lowest legal count, on the faces with the most own matching dice.
        low = 1 if view.bid is None else view.bid.count + 1
        own = own_matching(me.dice)
        best = max(own)
        # Every legal action of the phase is a bid (B3); the type check narrows it.
        choices: list[BorgiaAction] = [a for a in legal if type(a) is Bid and a.count == low and own[a.action] == best]
    elif phase == Phase.RESPOND:
        bid = view.bid
        assert bid is not None  # there is a bid to answer
        unknown = sum(s.dice_count for s in view.seats) - me.dice_count
        expected = own_matching(me.dice)[bid.action] + unknown / 3
        wanted = Call if bid.count > expected + 0.5 else Allow
        # B12: at the highest count only a call is legal, whatever the bot wanted.
        choices = [a for a in legal if type(a) is wanted] or list(legal)
    else:
        mine = me.puppets or ()
        influence = view.influence
        scores = [_perform_score(action, mine, influence) for action in legal]
        top = max(scores)
        choices = [action for action, score in zip(legal, scores, strict=True) if score == top]
    return rng.choice(choices)


def settled_answer(game: Game, view: BorgiaView, seat: int, legal: Sequence[BorgiaAction]) -> BorgiaAction | None:
    """The answer to a bid that the seat's own view settles (B4), else None: a bid its own
    dice already make true is allowed (a call would cost it a die for nothing), one that
    its own dice and every die it cannot see could not make true is called. Only a legal
    answer is returned (B12: at the highest count a call is the only one)."""
    bid = view.bid
    if view.phase != Phase.RESPOND or bid is None:
        return None
    me = view.seats[seat]
    if me.dice is None:
        return None
    own = own_matching(me.dice)[bid.action]
    unseen = sum(s.dice_count for s in view.seats) - me.dice_count
    if own >= bid.count:
        wanted: type = Allow
    elif own + unseen < bid.count:
        wanted = Call
    else:
        return None
    return next((action for action in legal if type(action) is wanted), None)


def own_matching(dice) -> list[int]:
    """Per bid face (indexed by Face): own dice showing it or FATE (B4)."""
    fates = dice.count(Face.FATE)
    return [dice.count(face) + fates for face in (Face.BRIBE, Face.POISON, Face.JUDGEMENT, Face.ACCUSATION, Face.RUMOR)]


def _perform_score(action: BorgiaAction, mine, influence) -> float:
    if type(action) is Bribe:
        return 2.0 if (action.cardinal in mine) == (action.direction == Direction.TOP) else 0.0
    if type(action) is Poison:
        hit = (action.first, action.second)
        return -sum(1 for c in hit if c in mine) + sum(influence[c] for c in hit if c not in mine) / 10
    if type(action) is JudgementPair:
        return 2.0 * ((action.target in mine) - (action.source in mine))
    if type(action) is JudgementSplit:
        gained = sum(1 for c in action.targets if c in mine)
        lost = sum(1 for c in action.sources if c in mine)
        return float(gained - lost)
    if type(action) is Accuse:  # freeze the strongest rival
        return -1.0 if action.cardinal in mine else influence[action.cardinal] / 10
    if type(action) is Rumor:
        return -1.0 if action.card in mine else 0.0
    return 0.0


_borgia_strategy = policy_strategy(GAME, borgia_odds_policy)


def borgia_odds(response: gateway_pb2.GetViewResponse, rng: random.Random) -> rules_pb2.LegalAction:
    # The stubs give DESCRIPTOR as the pure-Python or upb class; Is takes either at run time.
    if not response.view.Is(cast(Descriptor, pb.View.DESCRIPTOR)):
        return rng.choice(list(response.legal_actions))  # another game
    return _borgia_strategy(response, rng)


def make_borgia_odds(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    """The ``borgia-odds`` bot (``bots/borgia/specs.py``)."""
    return policy_strategy(get_game(game_id), borgia_odds_policy)

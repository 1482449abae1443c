"""House of Borgia's heuristic: the odds bot's reading of the dice, plus a reckoning of
what each action does to the standings. From its own view only.

Every cardinal is projected to ``influence + rally * horizon``: what it holds plus what its
place on the ladder brings over the next few rounds (B7; the Antipope gains nothing, B6),
where the horizon is the fewest dice any player holds, at most three rounds (the game ends
when one player has none, B8, and a bribe rarely leaves a ladder alone for longer).

- bidding (B3), it bids the lowest legal count on the action worth most now: how much that
  action would lift its puppet's projection over the strongest rival's, if the bid holds,
  weighed by the odds that it holds (its own matching dice are sure, every hidden die shows
  the action or Fate with probability 1/3) against the die a caught bluff costs (B4);
- answering a bid, it calls as the odds bot does: when the bid asks for more than it expects;
- performing (B5), it picks the action that leaves its puppet best placed against every
  rival, the nearest counting most, and never spreads a rumor of its own puppet.

Against three random bots it wins 75% of 4-player games, the odds bot 34%
(``python -m bots.lab.arena``; more figures in docs/benchmarks.md). A search bot uses it to rank its
own candidates and to model the other seats.
"""

import math
import random
from collections.abc import Mapping, Sequence
from functools import cache

from bots.borgia.odds import borgia_odds_policy, own_matching
from services.borgia.model import (
    BID_FACES,
    Accuse,
    Bid,
    BorgiaAction,
    BorgiaView,
    Bribe,
    Cardinal,
    Direction,
    Face,
    JudgementPair,
    JudgementSplit,
    Phase,
    Poison,
    Rumor,
)
from services.engine.api import Game

HORIZON = 3  # rounds of rally a ladder place is worth, at most
SPREAD = 3.0  # influence over which a rival's threat fades (see _standing)
DIE_COST = 2.0  # what a caught bluff costs, in influence: the die's end bonus (B9)
RALLY_FEW, RALLY_MANY = (3, 2, 1), (3, 2, 2, 1)  # B7: 2-4 players, 5-6 players
CARDINAL_COUNT = 6

Standings = tuple[Sequence[int], Sequence[Cardinal], Cardinal | None]  # influence, ladder, antipope


def borgia_heuristic_policy(
    game: Game, view: BorgiaView, seat: int, legal: Sequence[BorgiaAction], rng: random.Random
) -> BorgiaAction:
    if view.phase == Phase.RESPOND:
        return borgia_odds_policy(game, view, seat, legal, rng)
    if view.phase == Phase.BID:
        return lowest_bid(view, seat, legal, rng)
    mine = view.seats[seat].puppets or ()
    horizon = _horizon(view)
    current = (view.influence, view.ladder, view.antipope)
    return _best(legal, lambda action: _perform_value(view, mine, horizon, current, action), rng)


def lowest_bid(
    view: BorgiaView,
    seat: int,
    legal: Sequence[BorgiaAction],
    rng: random.Random,
    extra: Mapping[Face, float] | None = None,
) -> BorgiaAction:
    """The bid worth most (``bid_values``, with ``extra`` gains) at the lowest legal count:
    higher only adds risk. Each face is reckoned once."""
    low = 1 if view.bid is None else view.bid.count + 1
    values = bid_values(view, seat, low, extra)
    return _best(legal, lambda bid: values[bid.action] if type(bid) is Bid and bid.count == low else -math.inf, rng)


def _best(legal: Sequence[BorgiaAction], value, rng: random.Random) -> BorgiaAction:
    best, choices = -math.inf, list[BorgiaAction]()
    for action in legal:
        score = value(action)
        if score > best + 1e-9:
            best, choices = score, [action]
        elif score > best - 1e-9:
            choices.append(action)
    return rng.choice(choices)


def _projection(view: BorgiaView, standings: Standings, horizon: int) -> list[float]:
    influence, ladder, antipope = standings
    rally = RALLY_MANY if view.player_count >= 5 else RALLY_FEW
    projected = [float(i) for i in influence]
    for place, cardinal in enumerate(ladder[: len(rally)]):
        if cardinal != antipope:
            projected[cardinal] += rally[place] * horizon
    return projected


def _standing(view: BorgiaView, mine, standings: Standings, horizon: int) -> float:
    """Higher is better: minus every rival's threat, exp(its lead over the puppet / SPREAD),
    so the strongest rivals weigh most but a second close one still counts."""
    projected = _projection(view, standings, horizon)
    own = max(projected[c] for c in mine)
    return -sum(math.exp((projected[c] - own) / SPREAD) for c in range(CARDINAL_COUNT) if c not in mine)


def _perform_value(view: BorgiaView, mine, horizon: int, current: Standings, action: BorgiaAction) -> float:
    if type(action) is Rumor:
        return _standing(view, mine, current, horizon) - (1.0 if action.card in mine else 0.0)
    return _standing(view, mine, after(current, action), horizon)


def _horizon(view: BorgiaView) -> int:
    return min(HORIZON, min(s.dice_count for s in view.seats))


def bid_values(view: BorgiaView, seat: int, count: int, extra: Mapping[Face, float] | None = None) -> dict[Face, float]:
    """Per bid face, a bid of ``count``: what its action gains if the bid holds (plus
    ``extra``, a gain the caller reckons itself), times the odds it does, less the die it
    costs if it is called and false."""
    me = view.seats[seat]
    mine = me.puppets or ()
    horizon = _horizon(view)
    hidden = sum(s.dice_count for s in view.seats) - me.dice_count
    own = own_matching(me.dice)
    values = {}
    for face in BID_FACES:
        holds = _at_least(hidden, count - own[face])
        gain = _gain(view, mine, horizon, face) + (extra.get(face, 0.0) if extra else 0.0)
        values[face] = holds * (gain + 1) - (1 - holds) * DIE_COST
    return values


def _gain(view: BorgiaView, mine, horizon: int, face: Face) -> float:
    """How much the best use of ``face`` lifts the puppet's projection over the strongest
    rival's (the obvious uses only: it is reckoned for every bid face at every bid)."""
    current = (view.influence, view.ladder, view.antipope)
    projected = _projection(view, current, horizon)
    own = max(mine, key=projected.__getitem__)
    rival = max((c for c in range(CARDINAL_COUNT) if c not in mine), key=projected.__getitem__)
    antipope = view.antipope
    uses: list[BorgiaAction] = []
    if face == Face.BRIBE:
        uses = [Bribe(Cardinal(own), Direction.TOP), Bribe(Cardinal(rival), Direction.BOTTOM)]
    elif face == Face.POISON and rival != antipope:
        uses = [Poison(Cardinal(rival), Cardinal(rival))]
    elif face == Face.JUDGEMENT and antipope not in (own, rival):
        uses = [JudgementPair(Cardinal(rival), Cardinal(own))]
    elif face == Face.ACCUSATION:
        uses = [Accuse(Cardinal(rival))]
    base = _margin(view, mine, current, horizon)
    return max([_margin(view, mine, after(current, use), horizon) - base for use in uses], default=0.0)


def _margin(view: BorgiaView, mine, standings: Standings, horizon: int) -> float:
    projected = _projection(view, standings, horizon)
    return max(projected[c] for c in mine) - max(projected[c] for c in range(CARDINAL_COUNT) if c not in mine)


def after(standings: Standings, action: BorgiaAction) -> Standings:
    """The influence, ladder and Antipope after a BRIBE, POISON, JUDGEMENT or ACCUSATION
    (B5; influence never below 0). Legality is the engine's: this only reckons the effect."""
    influence, ladder, antipope = standings
    if isinstance(action, Bribe):
        rest = tuple(c for c in ladder if c != action.cardinal)
        ladder = (action.cardinal, *rest) if action.direction == Direction.TOP else (*rest, action.cardinal)
    elif isinstance(action, Accuse):
        antipope = action.cardinal
    elif isinstance(action, (Poison, JudgementPair, JudgementSplit)):
        changed = list(influence)
        for cardinal, delta in _moves(action):
            changed[cardinal] = max(0, changed[cardinal] + delta)
        influence = changed
    return influence, ladder, antipope


def _moves(action) -> list[tuple[Cardinal, int]]:
    if type(action) is Poison:
        if action.first == action.second:
            return [(action.first, -2)]
        return [(action.first, -1), (action.second, -1)]
    if type(action) is JudgementPair:
        return [(action.source, -2), (action.target, 2)]
    return [(c, -1) for c in action.sources] + [(c, 1) for c in action.targets]


@cache
def _at_least(dice: int, needed: int) -> float:
    """The chance that at least ``needed`` of ``dice`` hidden dice match (1/3 each)."""
    if needed <= 0:
        return 1.0
    return sum(math.comb(dice, k) * (1 / 3) ** k * (2 / 3) ** (dice - k) for k in range(needed, dice + 1))

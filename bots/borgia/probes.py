"""Probe bots: simple, fixed ways of playing that a strong bot must beat, each aimed at one
weakness (``python -m bots.lab.arena --gauntlet`` plays every strong bot against each). Their
specs are in ``bots/borgia/specs.py`` (``first-legal``, which plays every game, is
``bots/search/strategies.py``'s); here is how they play.

- ``borgia-decoy``: plays as ``ismcts``'s sharp policy (it reads the others' puppets from
  their performs and aims rumors), but its first two performs serve a decoy cardinal that
  is not its puppet, so a reader that trusts performs aims its rumors at the decoy.
- ``borgia-honest-reader``: the same reading policy, but it never bluffs: it bids only what
  its own dice already make true, where it can.
- ``borgia-always-call`` / ``borgia-always-allow``: the plain heuristic, but every bid is
  called, or allowed (where legal): the first punishes every bluff, the second lets every
  bluff through, so a bot that bids too timidly or too boldly shows.
"""

import dataclasses
import random
from collections.abc import Mapping, Sequence

from bots.borgia.heuristic import borgia_heuristic_policy
from bots.borgia.odds import own_matching
from bots.borgia.puppets import borgia_sharp_policy
from bots.search.policy import Policy, Strategy, policy_strategy
from services.borgia.model import CARDINALS, Allow, Bid, BorgiaAction, BorgiaView, Call, Cardinal, Phase
from services.engine.api import Game, OptionValue
from services.registry import get_game

DECOY_PERFORMS = 2  # performs that serve the decoy before the probe plays for its puppet


def decoy_cardinal(view: BorgiaView, seat: int) -> Cardinal:
    """The cardinal the decoy pretends to back: one that is not its puppet, the same at
    every decision of a game (it keeps no memory, so it is derived from the deal)."""
    mine = view.seats[seat].puppets or ()
    others = [c for c in CARDINALS if c not in mine]
    return others[(seat + sum(mine)) % len(others)]


def borgia_decoy_policy(
    game: Game, view: BorgiaView, seat: int, legal: Sequence[BorgiaAction], rng: random.Random
) -> BorgiaAction:
    me = view.seats[seat]
    if view.phase == Phase.PERFORM and len(me.performed) < DECOY_PERFORMS:
        # Performs as if the decoy were its puppet (the view it decides from says so).
        pretended = dataclasses.replace(me, puppets=(decoy_cardinal(view, seat),))
        seats = tuple(pretended if s.seat == seat else s for s in view.seats)
        return borgia_sharp_policy(game, dataclasses.replace(view, seats=seats), seat, legal, rng)
    return borgia_sharp_policy(game, view, seat, legal, rng)


def borgia_honest_reader_policy(
    game: Game, view: BorgiaView, seat: int, legal: Sequence[BorgiaAction], rng: random.Random
) -> BorgiaAction:
    choice = borgia_sharp_policy(game, view, seat, legal, rng)
    if view.phase != Phase.BID or type(choice) is not Bid:
        return choice
    dice = view.seats[seat].dice or ()
    own = own_matching(dice)
    if own[choice.action] >= choice.count:
        return choice
    # Its own dice make no bid of that face true: the lowest count its dice do make true, on the
    # face it holds most of; with no such bid, the reading policy's own choice (it must bid).
    honest = [a for a in legal if type(a) is Bid and own[a.action] >= a.count]
    if not honest:
        return choice
    low = min(a.count for a in honest)
    best = max(own[a.action] for a in honest if a.count == low)
    return rng.choice([a for a in honest if a.count == low and own[a.action] == best])


def _always(answer: type) -> Policy:
    def policy(
        game: Game, view: BorgiaView, seat: int, legal: Sequence[BorgiaAction], rng: random.Random
    ) -> BorgiaAction:
        if view.phase == Phase.RESPOND:
            fixed = [a for a in legal if type(a) is answer]
            if fixed:
                return fixed[0]
        return borgia_heuristic_policy(game, view, seat, legal, rng)

    return policy


borgia_always_call_policy = _always(Call)
borgia_always_allow_policy = _always(Allow)


def _strategy(game_id: str, policy: Policy) -> Strategy:
    return policy_strategy(get_game(game_id), policy)


def make_decoy(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    return _strategy(game_id, borgia_decoy_policy)


def make_honest_reader(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    return _strategy(game_id, borgia_honest_reader_policy)


def make_always_call(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    return _strategy(game_id, borgia_always_call_policy)


def make_always_allow(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    return _strategy(game_id, borgia_always_allow_policy)

"""Answers a seat of Il Trono di Mortadella may play unsearched: a move its own view proves
wins at once (the playbook's ``settled``, ``bots/mortadella/playbook.py``)."""

from collections.abc import Sequence

from bots.mortadella.roles import deal_odds
from services.engine.api import Game
from services.engine.rng import Rng as _Rng
from services.mortadella.model import GuessRole, Phase, View

# Decisions that draw no dice (M3, M10 roll them): what they do to the decider's tokens follows
# from the view alone, the tokens being public and its own role known.
_SETTLED_PHASES = (Phase.CHOOSE_DICE, Phase.RESOLVE, Phase.STEAL)
_CERTAIN = 1 - 1e-9


def settled_answer(game: Game, view: View, seat: int, legal: Sequence) -> object | None:
    """A move the seat's own view proves wins at once, else None:
    - a guess (M19, two players; M16, the Master's) of a role the deal leaves certain for
      its target (``deal_odds`` is 1: every other role is held, seen or ruled out by wrong
      guesses), since a right guess wins;
    - on its own turn, a die chosen or resolved (or a theft) that completes its victory row,
      checked after every effect the active player resolves (M15): its tokens are public
      and its role its own, so a draw of what it cannot see decides nothing of it (the
      first such move in ``legal``).
    A search plays it unsearched (``bots.search.ismcts.search``'s ``certain``)."""
    if len(legal) < 2:
        return None
    if view.phase in (Phase.PRE_ROLL, Phase.MASTER_GUESS):
        for action in legal:
            if isinstance(action, GuessRole) and deal_odds(view, seat, action.target).get(action.role, 0.0) >= _CERTAIN:
                return action
        return None
    if view.phase not in _SETTLED_PHASES or view.active != seat or seat not in view.deciders:
        return None
    engine = game.engine
    state = engine.sample(view, seat, _Rng(0))
    for action in legal:
        after, _ = engine.apply(state, seat, action)
        if after.winners == (seat,):
            return action
    return None

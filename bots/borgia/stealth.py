"""House of Borgia: a policy that reads the others and keeps its own puppet hidden.

A reader (``bots.borgia.puppets``) names a player's puppet in a rumor as soon as that
player's performs point at it, and a matching rumor eliminates the player (B9). So this
policy performs as the sharp policy does (the heuristic's reckoning of the standings,
rumors aimed where the others' performs point), with one constraint while the game has
rounds left: after each perform, its puppet must not be the cardinal a reader of its
performs would name first. Its puppet then climbs by the others falling (a rival bribed to
the bottom, poisoned, accused: these point at no one) and by its dice at the end (B9);
where every perform would point at it, it plays the one that points at it least, raising
another cardinal (a decoy) if need be. Once a player is down to its last ``REVEAL_AT``
dice, the game may end this round (B8) and a rumor may no longer come in time: it plays
the sharp policy unconstrained. So it does too while its puppet trails (``trailing``): a
puppet that, with its dice's end bonus, would still finish behind another cardinal cannot
wait, and against players who never read, hiding would only let a cardinal that is no
one's puppet be elected.

Where an end of the game now would elect a cardinal that is not its puppet, it keeps the game
going first (``bots.borgia.endgame.keep_going``): it allows rather than call a last die away,
and bids to a player on its last die what no die could make true.

What a reader makes of a perform is ``bots.borgia.puppets.clues``, the same ratios the
project's readers use, applied to every cardinal except the one this policy reads as the
reader's own puppet (a reader never names its own puppet, so a decoy it holds hides nothing).
"""

import math
import random
from collections.abc import Mapping, Sequence

from bots.borgia.endgame import keep_going
from bots.borgia.heuristic import DIE_COST, _horizon, _perform_value, _projection
from bots.borgia.puppets import borgia_sharp_policy, clues, hiding_candidates, puppet_odds
from bots.search.policy import Strategy, policy_strategy
from services.borgia.model import CARDINALS, BorgiaAction, BorgiaView, Cardinal, Phase, Rumor
from services.engine.api import Game, OptionValue
from services.registry import get_game

REVEAL_AT = 1  # with a player down to this many dice, the puppet may be raised openly
LIKELY = 0.5  # a cardinal read with at least these odds as a reader's puppet is taken for it


def read_of(view: BorgiaView, seat: int, also: BorgiaAction | None = None) -> dict[Cardinal, float]:
    """Unnormalised odds of each cardinal being ``seat``'s puppet as a reader of its
    performs (and of ``also``, a perform it considers) takes them: ``clues`` multiplied."""
    weights = dict.fromkeys(CARDINALS, 1.0)
    performs = view.seats[seat].performed + ((also,) if also is not None else ())
    for action in performs:
        for cardinal, ratio in clues(action).items():
            weights[cardinal] *= ratio
    return weights


def _readers_puppets(view: BorgiaView, seat: int) -> set[Cardinal]:
    """The cardinals ``seat`` takes for the others' puppets: each other seat's likeliest,
    where its odds reach ``LIKELY``."""
    found: set[Cardinal] = set()
    for other in view.seats:
        if other.seat == seat:
            continue
        odds = puppet_odds(view, seat, other.seat)
        best = max(odds, key=odds.__getitem__)
        if odds[best] >= LIKELY:
            found.add(best)
    return found


def exposure(view: BorgiaView, seat: int, action: BorgiaAction | None, skip: set[Cardinal]) -> float:
    """How plainly ``seat``'s performs (with ``action``) point at its puppet: the reader's
    odds of the puppet over the best odds of any other cardinal it could name (not in
    ``skip``). Below 1 a reader names another cardinal first."""
    return _exposure(view.seats[seat].puppets or (), read_of(view, seat), action, skip)


def _exposure(
    mine: Sequence[Cardinal], read: dict[Cardinal, float], action: BorgiaAction | None, skip: set[Cardinal]
) -> float:
    ratios = clues(action) if action is not None else dict.fromkeys(CARDINALS, 1.0)
    own = max(read[c] * ratios[c] for c in mine)
    other = max((read[c] * ratios[c] for c in CARDINALS if c not in mine and c not in skip), default=0.0)
    return own / other if other > 0 else math.inf


def trailing(view: BorgiaView, seat: int, mine: Sequence[Cardinal]) -> bool:
    """Whether ``seat``'s puppet, projected over the heuristic's horizon with its dice's end
    bonus (B9), would finish behind another cardinal: hiding longer would then hand the game
    to a rival, or to a cardinal that is no one's puppet (nobody wins)."""
    projected = _projection(view, (view.influence, view.ladder, view.antipope), _horizon(view))
    bonus = (-DIE_COST if view.poisoned_dice else DIE_COST) * view.seats[seat].dice_count
    own = max(projected[c] for c in mine) + bonus
    return own < max(projected[c] for c in CARDINALS if c not in mine)


def borgia_stealth_policy(
    game: Game, view: BorgiaView, seat: int, legal: Sequence[BorgiaAction], rng: random.Random
) -> BorgiaAction:
    going_on = keep_going(view, seat, legal)
    if going_on is not None:
        return going_on  # an end now is a certain loss: no allow nor bid that may bring it
    mine = view.seats[seat].puppets
    if view.phase != Phase.PERFORM or not mine or len(legal) < 2 or min(s.dice_count for s in view.seats) <= REVEAL_AT:
        return borgia_sharp_policy(game, view, seat, legal, rng)
    choice = borgia_sharp_policy(game, view, seat, legal, rng)
    if type(choice) is Rumor or trailing(view, seat, mine):
        return choice  # a rumor points at nobody it helps; a puppet behind cannot wait
    skip = _readers_puppets(view, seat)
    read = read_of(view, seat)
    exposed = {action: _exposure(mine, read, action, skip) for action in legal}
    if exposed[choice] < 1:
        return choice
    hidden = [action for action in legal if exposed[action] < 1]
    if not hidden:
        least = min(exposed.values())
        hidden = [action for action in legal if exposed[action] <= least + 1e-9]
    horizon = _horizon(view)
    current = (view.influence, view.ladder, view.antipope)
    values = {action: _perform_value(view, mine, horizon, current, action) for action in hidden}
    best = max(values.values())
    return rng.choice([action for action, value in values.items() if value >= best - 1e-9])


def stealth_candidates(
    game: Game, view: BorgiaView, seat: int, legal: Sequence[BorgiaAction], rng: random.Random
) -> list[BorgiaAction]:
    """Performs a search that ranks its own by ``borgia_stealth_policy`` should compare
    beside them: the sharp policy's, which may give the puppet away (so the playouts decide
    whether showing it pays), and the quiet and decoy performs of ``hiding_candidates``.
    None outside a perform."""
    if view.phase != Phase.PERFORM or len(legal) < 2:
        return []
    found = [borgia_sharp_policy(game, view, seat, legal, rng), *hiding_candidates(game, view, seat, legal, rng)]
    return list(dict.fromkeys(found))


def make_borgia_sly(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    """The ``borgia-sly`` bot (``bots/borgia/specs.py``)."""
    return policy_strategy(get_game(game_id), borgia_stealth_policy)

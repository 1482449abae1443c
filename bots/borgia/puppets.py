"""House of Borgia: what a seat can read of the others' puppets from their play, and a
sharper heuristic that uses it.

Every perform is public (the view keeps each seat's performed actions, in order), and a
player who pushes a cardinal up the ladder or hands it influence is likely to puppet it,
one who poisons, accuses, judges against or names it in a rumor unlikely to. Each performed
action multiplies the odds of every cardinal being the performer's puppet by a likelihood
ratio (``CLUES``), fitted on heuristic players: over 300 games each at 2, 4 and 6 players,
``borgia-heuristic`` bribed its own puppet to the top in 16-86% of its performs and another
cardinal to the top almost never, and never lowered, poisoned, accused or named its own.
The ratios are kept finite (no cardinal is ever ruled out by play alone), so a player who
bluffs with its performs only blurs the reading.

- ``puppet_odds``: the chance of each cardinal being a seat's puppet, as another seat reads it;
- ``puppet_belief``: the search bot's belief (``bots.search.policy.Belief``), which draws the
  hidden puppets in proportion to those odds (``ismcts:belief=inferred``);
- ``borgia_sharp_policy``: ``borgia-heuristic`` that also spreads rumors where they bite, a
  matching rumor eliminating or penalising the rival (B9, B10, B13), and bids RUMOR when
  such a rumor is worth more than its other bids (``ismcts:rollout=sharp``);
- ``hiding_candidates``: for a search that is read as it reads (``ismcts:self_read=on``,
  whose playouts model the others by the sharp policy, which reads the search bot's own
  performs as it reads everyone's), the performs worth comparing beside the heuristic's
  favourites: the best one that does not point at its own puppet, and decoys, the performs
  it would play if its puppet were the cardinal its performs so far point to most after it.
"""

import dataclasses
import math
import random
from collections.abc import Callable, Sequence

from bots.borgia.heuristic import borgia_heuristic_policy, lowest_bid
from services.borgia.engine import excluded_puppets
from services.borgia.model import (
    CARDINALS,
    Accuse,
    BorgiaAction,
    BorgiaState,
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

# Likelihood ratios: how much likelier a performed action's relation to a cardinal is when
# that cardinal is the performer's puppet than when it is not (fitted, rounded toward 1).
RAISED = 20.0  # bribed to the top, or the target of a judgement (fitted: 26 to over 400)
LOWERED = 0.1  # bribed to the bottom, poisoned, judged against, accused, named in a rumor (fitted: 0)
PASSED_OVER = 0.3  # another cardinal was bribed or judged (fitted: 0.004 to 0.39)
ELIMINATION_WORTH = 10.0  # what eliminating a rival's puppet is worth, in influence


def clues(action: BorgiaAction) -> dict[Cardinal, float]:
    """The likelihood ratio ``action`` gives each cardinal of being its performer's puppet."""
    ratios = dict.fromkeys(CARDINALS, 1.0)
    if type(action) is Bribe:
        ratios = dict.fromkeys(CARDINALS, PASSED_OVER)
        ratios[action.cardinal] = RAISED if action.direction == Direction.TOP else LOWERED
    elif type(action) is JudgementPair:
        ratios = dict.fromkeys(CARDINALS, PASSED_OVER)
        ratios[action.source], ratios[action.target] = LOWERED, RAISED
    elif type(action) is JudgementSplit:
        ratios = dict.fromkeys(CARDINALS, PASSED_OVER)
        ratios.update(dict.fromkeys(action.sources, LOWERED))
        ratios.update(dict.fromkeys(action.targets, RAISED))
    elif type(action) is Poison:
        ratios[action.first] = ratios[action.second] = LOWERED
    elif type(action) is Accuse:
        ratios[action.cardinal] = LOWERED
    elif type(action) is Rumor:
        ratios[action.card] = LOWERED
    return ratios


def candidates(view: BorgiaView, seat: int, target: int) -> list[Cardinal]:
    """The cardinals ``target``'s puppets may be, as ``seat`` sees: none that a visible puppet
    names (its own) nor any the rules rule out (B10: a Shadow Puppets rumor)."""
    shown = {c for s in view.seats if s.puppets is not None for c in s.puppets}
    excluded = excluded_puppets(view, target)
    return [c for c in CARDINALS if c not in shown and c not in excluded]


def puppet_weights(view: BorgiaView, seat: int, target: int) -> dict[Cardinal, float]:
    """Unnormalised odds of each candidate cardinal being one of ``target``'s puppets."""
    weights = dict.fromkeys(candidates(view, seat, target), 1.0)
    for action in view.seats[target].performed:
        for cardinal, ratio in clues(action).items():
            if cardinal in weights:
                weights[cardinal] *= ratio
    return weights


def puppet_odds(view: BorgiaView, seat: int, target: int) -> dict[Cardinal, float]:
    """The chance that each cardinal is (one of) ``target``'s puppet(s), as ``seat`` reads
    the play; an approximation in Shadow Puppets, where each seat holds two."""
    puppets = view.seats[target].puppets
    if puppets is not None:
        return {c: 1.0 if c in puppets else 0.0 for c in CARDINALS}
    weights = puppet_weights(view, seat, target)
    total = sum(weights.values())
    per_seat = 2 if view.shadow_puppets else 1
    return {c: min(1.0, per_seat * weights.get(c, 0.0) / total) if total else 0.0 for c in CARDINALS}


# --------------------------------------------------------------------------- a reading that expects deceit

DECEIT_PRIOR = 0.2  # how likely a player is, before its play shows anything, to open with decoys
DECOY_PERFORMS = 2  # the opening performs a decoy spends on a cardinal that is not its puppet


def decoy_clues(action: BorgiaAction) -> dict[Cardinal, float]:
    """The likelihood ratios of an opening perform under the deceptive model: a cardinal it
    raises is one the performer does *not* puppet (the decoy), and nothing it hurts tells."""
    ratios = dict.fromkeys(CARDINALS, 1.0)
    for cardinal, ratio in clues(action).items():
        if ratio > 1:
            ratios[cardinal] = LOWERED
    return ratios


def _deceptive_weights(view: BorgiaView, seat: int, target: int) -> dict[Cardinal, float]:
    weights = dict.fromkeys(candidates(view, seat, target), 1.0)
    for index, action in enumerate(view.seats[target].performed):
        ratios = decoy_clues(action) if index < DECOY_PERFORMS else clues(action)
        for cardinal, ratio in ratios.items():
            if cardinal in weights:
                weights[cardinal] *= ratio
    return weights


def puppet_deceit(view: BorgiaView, seat: int, target: int) -> float:
    """How likely ``target`` is, as ``seat`` reads its performs so far, to have opened with
    decoys: the posterior weight of the deceptive model against the honest one. Each model
    gives each candidate's performs a likelihood (against a player whose performs say
    nothing); a model's evidence is their mean, so a player whose later performs contradict
    its first ones moves the weight to deceit, and one who stays consistent keeps it honest."""
    return _mixture(view, seat, target)[0]


def _mixture(view: BorgiaView, seat: int, target: int) -> tuple[float, dict[Cardinal, float], dict[Cardinal, float]]:
    honest, deceptive = puppet_weights(view, seat, target), _deceptive_weights(view, seat, target)
    honest_total, deceptive_total = sum(honest.values()), sum(deceptive.values())
    if not honest_total or not deceptive_total:
        return 0.0, honest, deceptive
    deceit = DECEIT_PRIOR * deceptive_total / (DECEIT_PRIOR * deceptive_total + (1 - DECEIT_PRIOR) * honest_total)
    return (
        deceit,
        {c: w / honest_total for c, w in honest.items()},
        {c: w / deceptive_total for c, w in deceptive.items()},
    )


def wary_puppet_weights(view: BorgiaView, seat: int, target: int) -> dict[Cardinal, float]:
    """The chance of each candidate being ``target``'s puppet under a mixture of an honest
    reading (``puppet_weights``) and a deceptive one (its first performs are decoys), each
    weighed by how well it explains that player's performs (``puppet_deceit``): a decoy
    fools the reading only until its later play contradicts it."""
    deceit, honest, deceptive = _mixture(view, seat, target)
    return {c: (1 - deceit) * honest[c] + deceit * deceptive.get(c, 0.0) for c in honest}


def puppet_belief(game: Game, view: BorgiaView, seat: int) -> Callable[[BorgiaState], float]:
    """A search bot's belief about the hidden puppets (``bots.search.policy.Belief``): a sampled
    deal is kept in proportion to how well each seat's performs fit its puppets."""
    return _belief(view, seat, puppet_weights)


def wary_puppet_belief(game: Game, view: BorgiaView, seat: int) -> Callable[[BorgiaState], float]:
    """``puppet_belief`` with the reading that expects decoys (``wary_puppet_weights``)."""
    return _belief(view, seat, wary_puppet_weights)


def _belief(
    view: BorgiaView, seat: int, weigh: Callable[[BorgiaView, int, int], dict[Cardinal, float]]
) -> Callable[[BorgiaState], float]:
    relative: dict[int, dict[Cardinal, float]] = {}
    for other in view.seats:
        if other.puppets is None and other.performed:
            weights = weigh(view, seat, other.seat)
            top = max(weights.values(), default=0.0)
            if top > 0:
                relative[other.seat] = {c: w / top for c, w in weights.items()}

    def likelihood(state: BorgiaState) -> float:
        result = 1.0
        for target, by_cardinal in relative.items():
            for cardinal in state.puppets[target]:
                result *= by_cardinal.get(cardinal, 1.0)
        return result

    return likelihood


# --------------------------------------------------------------------------- sharp policy


def borgia_sharp_policy(
    game: Game, view: BorgiaView, seat: int, legal: Sequence[BorgiaAction], rng: random.Random
) -> BorgiaAction:
    """``borgia-heuristic``, plus rumors aimed by ``puppet_odds``: it performs the rumor
    likeliest to match its target's puppet, and bids RUMOR when such a rumor is worth more
    than its other bids."""
    rumors = [action for action in legal if type(action) is Rumor]
    odds: dict[int, dict[Cardinal, float]] = {}  # by target, read once per decision
    if view.phase == Phase.PERFORM and rumors:
        values = {action: _rumor_value(view, seat, action, odds) for action in rumors}
        best = max(values.values())
        if best > 0:
            return rng.choice([a for a, v in values.items() if v >= best - 1e-9])
    elif view.phase == Phase.BID:
        worth = max((_rumor_value(view, seat, a, odds) for a in _rumors(view, seat)), default=0.0)
        if worth > 0:
            return lowest_bid(view, seat, legal, rng, {Face.RUMOR: worth})
    return borgia_heuristic_policy(game, view, seat, legal, rng)


def _rumor_value(view: BorgiaView, seat: int, action: Rumor, odds_by_target: dict[int, dict[Cardinal, float]]) -> float:
    """What a rumor adds, in influence: the odds it names the target's puppet, less the odds
    of the rumor it displaces, times what a matching rumor costs that player."""
    mine = view.seats[seat].puppets or ()
    if action.card in mine:
        return -math.inf
    odds = odds_by_target.get(action.target)
    if odds is None:
        odds = odds_by_target[action.target] = puppet_odds(view, seat, action.target)
    held = view.seats[action.target].rumors
    if action.returned is not None:
        displaced = odds[action.returned]
    elif held and not view.shadow_puppets:
        displaced = odds[held[0]]  # B5: one rumor each, the old one returns
    else:
        displaced = 0.0
    return (odds[action.card] - displaced) * _match_worth(view, action.target)


def _match_worth(view: BorgiaView, target: int) -> float:
    """What a matching rumor costs ``target``'s side (B9, B10, B13)."""
    if view.flame_of_thy_tongue:
        return float(view.player_count)
    if view.poisoned_dice:
        return 4.0 * view.seats[target].dice_count  # each die turns from +2 to -2
    return ELIMINATION_WORTH


def _rumors(view: BorgiaView, seat: int) -> list[Rumor]:
    """The rumors ``seat`` could spread if a RUMOR bid held: each card it does not hold
    as its puppet, in front of each other seat (the displaced card where two are held)."""
    mine = view.seats[seat].puppets or ()
    placed: list[Rumor] = []
    for other in view.seats:
        if other.seat == seat:
            continue
        for card in CARDINALS:
            if card in mine or card in other.rumors:
                continue
            if view.shadow_puppets and len(other.rumors) >= 2:
                placed.extend(Rumor(card, other.seat, returned) for returned in other.rumors)
            else:
                placed.append(Rumor(card, other.seat, None))
    return placed


# --------------------------------------------------------------------------- hiding from readers

DECOYS = 2  # decoy cardinals a search compares performs for


def reveals(action: BorgiaAction, puppets: Sequence[Cardinal]) -> bool:
    """Whether ``action`` points a reader (``clues``) at one of ``puppets``: it raises that
    cardinal's odds of being the performer's puppet, as much as any other cardinal's or more
    (bribing a rival to the bottom or poisoning it raises every other cardinal alike, and
    points at none)."""
    ratios = clues(action)
    top = max((ratio for cardinal, ratio in ratios.items() if cardinal not in puppets), default=1.0)
    return any(ratios[p] > 1 and ratios[p] >= top for p in puppets)


def hiding_candidates(
    game: Game, view: BorgiaView, seat: int, legal: Sequence[BorgiaAction], rng: random.Random
) -> list[BorgiaAction]:
    """Performs a search should weigh beside its heuristic's favourites when the others read
    its performs (``ismcts:self_read=on``): the heuristic's best perform among those that do
    not point at its puppet (``reveals``), and for each of the ``DECOYS`` cardinals its
    performs so far point to most after its puppet, the sharp policy's perform as if that
    cardinal were its puppet. None outside a perform."""
    mine = view.seats[seat].puppets
    if view.phase != Phase.PERFORM or not mine or len(legal) < 2:
        return []
    found: list[BorgiaAction] = []
    quiet = [action for action in legal if not reveals(action, mine)]
    if quiet:
        found.append(borgia_heuristic_policy(game, view, seat, quiet, rng))
    read = dict.fromkeys((c for c in CARDINALS if c not in mine), 1.0)
    for action in view.seats[seat].performed:
        for cardinal, ratio in clues(action).items():
            if cardinal in read:
                read[cardinal] *= ratio
    decoys = sorted(read, key=lambda c: (-read[c], rng.random()))[:DECOYS]
    for decoy in decoys:
        pretended = dataclasses.replace(view.seats[seat], puppets=(decoy,))
        seats = tuple(pretended if s.seat == seat else s for s in view.seats)
        found.append(borgia_sharp_policy(game, dataclasses.replace(view, seats=seats), seat, legal, rng))
    return list(dict.fromkeys(found))

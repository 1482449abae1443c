"""A Pecunia non olet bot that plays sensible rules of thumb, from its own view only.

Every legal action gets a score in rough sesterces; the best wins (ties broken by ``rng``).
The turn's plain actions (collect, seat, stop, draw) score ``PLAIN``, so an action card is
played only when it looks worth more than keeping it:
- seating: two women together or a woman on a lone woman first, senators and slaves on the
  end seats (P1, P2: the middle seat has two neighbours to upset);
- Castor oil on its own Roman that then pays this very turn, the more it pays the better;
- Fish poisoning, Eviction, Special tax and Senate meeting against the leader, above all on
  Romans about to pay;
- Queue-jumper, Reordering, Poaching and Swap to bring a well paying, short-staying Roman
  that fits a free seat to the start of the queue; Villa Dixius when a good Roman is blocked.

It reads no true state, only the view, so it serves both as a worker strategy
(``pecunia_heuristic``) and as the cheap rollout policy of a search bot.

Measure it against random bots: ``python -m bots.pecunia.heuristic --players 2 --games 200``.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from bots.search.policy import policy_strategy
from services.engine.api import Game
from services.pecunia import GAME
from services.pecunia.model import (
    NEIGHBOURS,
    SHUNS,
    ActionKind,
    EndRefill,
    PecuniaAction,
    PecuniaView,
    Phase,
    PickNext,
    PlayCastorOil,
    PlayerView,
    PlayEviction,
    PlayFishPoisoning,
    PlayPoaching,
    PlayQueueJumper,
    PlayReordering,
    PlaySenateMeeting,
    PlaySpecialTax,
    PlaySwap,
    PlayVillaDixius,
    RemoveMarkers,
    RomanCard,
    RomanKind,
    SeatRoman,
)

PLAIN = 1.0  # score of the turn's plain actions; a card must beat it to be played
_SENATOR, _SLAVE, _WOMAN = RomanKind.SENATOR, RomanKind.SLAVE, RomanKind.WOMAN


def rate(card: RomanCard) -> float:
    """Sesterces per round seated: what a seat earns while the Roman sits on it."""
    return card.sesterces / card.rounds


def fits(latrine, seat: int, card: RomanCard, villa: bool) -> bool:
    """P2 on a view's latrine: may ``card`` sit on ``seat``?"""
    shunned = SHUNS.get(card.kind)
    if villa or shunned is None:
        return True
    return not any(r.card.kind is shunned for n in NEIGHBOURS[seat] for r in latrine[n])


def fitting_free_seat(me: PlayerView, card: RomanCard, villa: bool) -> bool:
    return any(not stack and fits(me.latrine, seat, card, villa) for seat, stack in enumerate(me.latrine))


def due(player: PlayerView) -> int:
    """Sesterces of the player's Romans that pay at the player's next collection."""
    return sum(r.card.sesterces for stack in player.latrine for r in stack if r.markers <= 1)


def threat_weights(view: PecuniaView, seat: int) -> list[float]:
    """How much hurting each opponent is worth: most for the leader, above all near the target."""
    progress = [p.sesterces + due(p) for p in view.players]
    leader = max((p for p in range(len(progress)) if p != seat), key=lambda p: progress[p])
    weights = []
    for p, value in enumerate(progress):
        if p == seat:
            weights.append(0.0)
        elif value >= view.target:
            weights.append(3.0)  # wins at their next collection unless stopped
        else:
            weights.append(1.5 if p == leader else 0.7)
    return weights


def _seat_score(view: PecuniaView, me: PlayerView, action: SeatRoman) -> float:
    head = me.queue[0]
    stack = me.latrine[action.seat]
    if action.pair:
        return PLAIN + 0.3  # two payers on one seat
    if stack:
        return PLAIN + 0.25  # a woman joins a lone woman and leaves the free seats free
    if head.kind in (_SENATOR, _SLAVE) and action.seat != 1:
        return PLAIN + 0.1  # P2: an end seat has one neighbour only
    return PLAIN


def _bring_forward(view: PecuniaView, me: PlayerView, card: RomanCard) -> float:
    """The gain of having ``card`` instead of the present head at the start of the queue."""
    if view.phase is not Phase.REFILL or not fitting_free_seat(me, card, view.villa):
        return 0.0
    head = me.queue[0] if me.queue else None
    if head is None:
        return rate(card)
    gain = rate(card) - rate(head)
    if not fitting_free_seat(me, head, view.villa):
        gain += 1.0  # the head is stuck (P2): without help the seat stays empty
    return gain


def _score(view: PecuniaView, seat: int, action: PecuniaAction, weights: list[float]) -> float:
    me = view.players[seat]
    if type(action) is SeatRoman:
        return _seat_score(view, me, action)
    if type(action) is PickNext:
        return rate(me.queue[action.index])
    if type(action) is PlayCastorOil:
        seated = me.latrine[action.seat][action.slot]
        left = seated.markers - action.amount
        if view.phase is Phase.MARKERS and left <= 1:
            # pays this turn; a marker removed anyway by the collection is a waste
            return 0.6 + 0.4 * seated.card.sesterces - 0.5 * (left < 0 or (left == 0 and action.amount == 2))
        return 0.2
    if type(action) is PlayFishPoisoning or type(action) is PlayEviction:
        target = view.players[action.target]
        seated = target.latrine[action.seat][action.slot]
        soon = 1.0 if seated.markers <= 1 else 0.4
        if type(action) is PlayEviction:
            soon += 0.2
        return seated.card.sesterces * soon * weights[action.target] * 0.8
    if type(action) is PlaySpecialTax:
        return min(2, view.players[action.target].sesterces) * weights[action.target] * 0.45
    if type(action) is PlaySenateMeeting:
        target = view.players[action.target]
        lost = sum(r.card.sesterces for stack in target.latrine for r in stack if r.card.kind is _SENATOR)
        return lost * weights[action.target] * 0.4
    if type(action) is PlayQueueJumper:
        return _bring_forward(view, me, me.queue[action.index])
    if type(action) is PlayReordering:
        return _bring_forward(view, me, max(me.queue, key=rate)) - 0.3
    if type(action) is PlayPoaching:
        taken = view.players[action.target].queue[0]
        return _bring_forward(view, me, taken) + 0.3 * weights[action.target]
    if type(action) is PlaySwap:
        mine, theirs = me.queue[action.index], view.players[action.target].queue[action.target_index]
        if action.index == 0:
            return _bring_forward(view, me, theirs) - 0.2
        return rate(theirs) - rate(mine) - 1.0
    if type(action) is PlayVillaDixius:
        head = me.queue[0] if me.queue else None
        # a good Roman at the start of the queue is kept off every free seat by P2
        blocked = head is not None and any(not s for s in me.latrine) and not fitting_free_seat(me, head, False)
        return 0.6 + rate(head) if view.phase is Phase.REFILL and blocked and head is not None else 0.0
    if type(action) is EndRefill:
        return PLAIN - 0.05  # only legal when the head fits nowhere: try a card first
    return PLAIN  # RemoveMarkers, DrawActionCard


def pecunia_heuristic_policy(
    game: Game, view: PecuniaView, seat: int, legal: Sequence[PecuniaAction], rng: random.Random
) -> PecuniaAction:
    if len(legal) == 1:
        return legal[0]
    weights = threat_weights(view, seat)
    best_score = float("-inf")
    best: list[PecuniaAction] = []
    for action in legal:
        score = _score(view, seat, action, weights)
        if score > best_score:
            best_score, best = score, [action]
        elif score == best_score:
            best.append(action)
    return best[0] if len(best) == 1 else best[rng.randrange(len(best))]


pecunia_heuristic = policy_strategy(GAME, pecunia_heuristic_policy)


def settled_answer(game: Game, view: PecuniaView, seat: int, legal: Sequence[PecuniaAction]) -> PecuniaAction | None:
    """A move the seat's own view proves wins this turn, else None. Seated Romans, their
    markers and every player's sesterces are public and the hand is the seat's own (P7), so
    what its collection pays is known before it is made (P4: step 2 pays each Roman left
    without markers; the game ends the moment the target is reached):
    - collecting now (``RemoveMarkers``) when what it pays reaches the target;
    - else, with Castor oil in hand, the Castor oil that brings a Roman due at this very
      collection, when the Castor oils it holds bring enough due to reach the target (the
      one paying most first, with the fewest markers that make it due). Collecting first
      would give that win away: the markers come off once a turn, and a card played after
      the collection pays nothing before the next.
    Only before the collection (``Phase.MARKERS``), on the seat's own turn. While a
    Reordering is placed (``PickNext``), which moves no seated Roman, any next card keeps a
    win that collecting would bring: the first is answered."""
    if view.phase != Phase.MARKERS or view.active != seat or len(legal) < 2:
        return None
    me = view.players[seat]
    missing = view.target - me.sesterces - due(me)
    oils = sum(1 for card in me.hand or () if card.kind is ActionKind.CASTOR_OIL)
    # Each Roman not yet due that one Castor oil (up to 2 markers) makes due, paying most first.
    oiled = sorted(
        ((seat_, slot) for seat_, stack in enumerate(me.latrine) for slot, r in enumerate(stack) if 1 < r.markers <= 3),
        key=lambda place: -me.latrine[place[0]][place[1]].card.sesterces,
    )[:oils]
    if missing > sum(me.latrine[s][slot].card.sesterces for s, slot in oiled):
        return None
    if view.reorder is not None:
        return legal[0]
    if missing <= 0:
        collect = RemoveMarkers()
        return collect if collect in legal else None
    seat_, slot = oiled[0]
    markers = me.latrine[seat_][slot].markers
    plays = [
        a for a in legal if type(a) is PlayCastorOil and (a.seat, a.slot) == (seat_, slot) and markers - a.amount <= 1
    ]
    return min(plays, key=lambda a: a.amount) if plays else None


def match(players: int, games: int, seed: int = 0) -> tuple[int, int]:
    """(games the heuristic won, games) against ``players - 1`` random bots on the engine,
    the heuristic's seat rotated game by game. A shared win (turn limit, P8) counts."""
    engine = GAME.engine
    wins = 0
    for game in range(games):
        rng = random.Random(seed + game)
        hero = game % players
        state, _ = engine.new_game(players, {}, seed + game)
        while deciders := engine.deciders(state):
            actor = deciders[0]
            legal = engine.legal_actions(state, actor)
            if actor == hero:
                action = pecunia_heuristic_policy(GAME, engine.view(state, actor), actor, legal, rng)
            else:
                action = legal[rng.randrange(len(legal))]
            state, _ = engine.apply(state, actor, action)
        outcome = engine.outcome(state)
        assert outcome is not None  # nobody decides: the game is over
        wins += hero in outcome.winners
    return wins, games


def main() -> None:
    parser = argparse.ArgumentParser(description="The Pecunia heuristic bot against random bots")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    wins, games = match(args.players, args.games, args.seed)
    share = wins / games
    print(
        f"{args.players} players: the heuristic won {wins}/{games} = {share:.0%} (a random bot: {1 / args.players:.0%})"
    )


if __name__ == "__main__":
    main()

"""House of Borgia: not ending a game one cannot win.

The game ends as soon as a player has no dice (B8), and then the cardinal with the most
influence, after the round's rally (B7) and the dice's end bonus (B9), is elected. So with a
player on its last die, the answer to a bid can end the game: a call of a false bid takes the
bidder's last die. Where the seat's own view shows that such an end elects a cardinal that is
not its puppet whatever it cannot see, the end is a certain loss, and anything that keeps the
game going is worth more:
- answering a bid of a player on its last die, it allows rather than calls (where a call is
  not forced, B12): the bidder performs, and the seat bids next;
- bidding to a player on its last die, it bids a count its own dice and every die it cannot
  see could not make true: a call then costs the seat a die (two points of end bonus), not
  the game, and an allow still lets it perform.

What the seat cannot see only adds to others: the end bonus of another player's dice goes to
a puppet it does not know, and a cardinal leaves the ladder only where a rumor in front of a
player may name that player's own puppet (B9). So the end is a certain loss when some
cardinal that no rumor can remove finishes ahead of the seat's every puppet (ties go to the
higher on the ladder), or when a rumor in front of the seat names its own puppet.
"""

from collections.abc import Sequence

from bots.borgia import odds as borgia_odds
from bots.borgia.odds import own_matching
from services.borgia.engine import DIE_BONUS, RALLY_GAINS
from services.borgia.model import Allow, Bid, BorgiaAction, BorgiaView, Phase
from services.engine.api import Game


def end_is_lost(view: BorgiaView, seat: int) -> bool:
    """Whether the game ending after this round's rally elects a cardinal that is not
    ``seat``'s puppet, whatever ``seat`` cannot see (the base game: a variant's penalties,
    B10, are left to the search)."""
    mine = view.seats[seat].puppets
    if not mine or view.flame_of_thy_tongue or view.poisoned_dice or view.shadow_puppets:
        return False
    if any(card in mine for card in view.seats[seat].rumors):
        return True  # B9: a rumor naming its own puppet eliminates the seat
    influence = list(view.influence)
    for cardinal, gain in zip(view.ladder, RALLY_GAINS[view.player_count], strict=False):
        if cardinal != view.antipope:  # B6, B7
            influence[cardinal] += gain
    bonus = DIE_BONUS * view.seats[seat].dice_count
    removable = {card for other in view.seats if other.seat != seat for card in other.rumors}
    place = {cardinal: index for index, cardinal in enumerate(view.ladder)}
    best = max(mine, key=lambda c: (influence[c] + (bonus if c != view.antipope else 0), -place[c]))
    own = influence[best] + (bonus if best != view.antipope else 0)
    return any(
        (influence[c], -place[c]) > (own, -place[best]) for c in view.ladder if c not in mine and c not in removable
    )


def keep_going(view: BorgiaView, seat: int, legal: Sequence[BorgiaAction]) -> BorgiaAction | None:
    """The move that keeps a game going whose end now would be a certain loss (see the
    module's docstring), or None where the game cannot end this round or its end is not lost."""
    if len(legal) < 2:
        return None
    if view.phase == Phase.RESPOND:
        return _allow_to_go_on(view, seat, legal)
    if view.phase != Phase.BID:
        return None
    me = view.seats[seat]
    responder = view.seats[(seat + 1) % view.player_count]
    if responder.dice_count != 1 or me.dice_count < 2 or me.dice is None or not end_is_lost(view, seat):
        return None
    unseen = sum(s.dice_count for s in view.seats) - me.dice_count
    own = own_matching(me.dice)
    false_bids = [a for a in legal if type(a) is Bid and own[a.action] + unseen < a.count]
    return min(false_bids, key=lambda a: (a.count, -own[a.action]), default=None)


def _allow_to_go_on(view: BorgiaView, seat: int, legal: Sequence[BorgiaAction]) -> BorgiaAction | None:
    """Allow, where a call might take the bidder's last die and so end a game the seat has
    lost (a call of a true bid costs the seat a die instead, and the game goes on)."""
    if view.seats[view.active].dice_count != 1 or not end_is_lost(view, seat):
        return None
    return next((action for action in legal if type(action) is Allow), None)


def settled_answer(game: Game, view: BorgiaView, seat: int, legal: Sequence[BorgiaAction]) -> BorgiaAction | None:
    """The answer to a bid the seat's own view settles (``bots.search.policy.Certain``): the allow
    that keeps going a game whose end now would be a certain loss (a call there either ends
    it lost or, of a true bid, costs a die for nothing), else ``borgia_odds.settled_answer`` (B4)."""
    if view.phase == Phase.RESPOND and len(legal) > 1 and (going_on := _allow_to_go_on(view, seat, legal)):
        return going_on
    return borgia_odds.settled_answer(game, view, seat, legal)

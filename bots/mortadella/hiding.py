"""Hiding one's role from a reader in two-player Il Trono di Mortadella (M19).

A reader guesses, among the roles it cannot rule out for a card, the one whose victory row
(M14) the card holder's tokens are nearest, as ``mortadella-heuristic`` does. Such a guess
on a hidden role misses for certain: the guesser loses its tokens and card, a role leaves
the undealt ones, and the right guess it was hoping for is the hidden player's to make.

- ``Exposure``: the chance a reader's next guess names our role, given our tokens; the
  hiding policy (``bots.mortadella.heuristic.mortadella_hiding_policy``, the sharp policy
  with it) takes it off what tokens are worth, while a guess may still come;
- ``holds_back``: a guess below even odds is not made when the reader can only name one of
  two roles for our card and a guess would still be left to us after its miss;
- the sharp policy's own move is compared beside the hiding one (``self_read=on``, level 8;
  ``bots.mortadella.heuristic.open_candidates``).
"""

from collections.abc import Sequence

from bots.mortadella.roles import _CACHE_SIZE, deals, distance, token_weights
from services.mortadella.model import ROLE_POOLS, Role, View

# What a guess of our role the reader is sure to make costs, in units of our distance to
# the row (M14): a lost game, against the heuristic's WIN of 20 for meeting the row.
EXPOSED = 30.0


def _ruled_out(view: View, seat: int) -> set[Role]:
    """The roles wrong guesses (M19) ruled out for ``seat``'s current card: public."""
    card = view.seats[seat].removed_role_count
    return {g.role for g in view.wrong_guesses if g.target == seat and g.target_card == card}


def reader_choices(view: View, seat: int) -> int:
    """How many roles the opponent cannot rule out for ``seat``'s card: the pool less the
    wrong guesses on it, the opponent's own card and the cards it has lost (M18, M19)."""
    opponent = view.seats[1 - seat]
    return len(ROLE_POOLS[2]) - len(_ruled_out(view, seat)) - 1 - opponent.removed_role_count


class Exposure:
    """``exposure(tokens)``: the chance the opponent's next guess names ``seat``'s role,
    were ``seat`` to hold ``tokens``. The reader rules out the cards it held and holds, which
    ``seat`` weighs over the deals its view allows (``deals``), the current one by the
    opponent's tokens (``token_weights``, as ``role_odds``). A tie of rows is named at random."""

    __slots__ = ("_known", "hands", "key", "role", "roles")

    def __init__(self, view: View, seat: int, role: Role):
        out = _ruled_out(view, seat)
        self.role = role
        self.roles = [r for r in ROLE_POOLS[2] if r not in out]
        opponent = 1 - seat
        weights = token_weights(view.seats[opponent].tokens, self.roles)
        hands: dict[frozenset[Role], float] = {}
        for cards in deals(view):
            held = frozenset(cards[opponent])
            hands[held] = hands.get(held, 0.0) + weights.get(cards[opponent][-1], 1.0)
        total = sum(hands.values()) or 1.0
        self.hands = {held: weight / total for held, weight in hands.items()}
        self.key = (tuple(sorted(out)), tuple(sorted((tuple(sorted(h)), w) for h, w in self.hands.items())))
        self._known: dict[tuple[int, ...], float] = {}

    def __call__(self, tokens: Sequence[int]) -> float:
        key = tuple(tokens)
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = self._exposure(key)
        return known

    def _exposure(self, tokens: tuple[int, ...]) -> float:
        gaps = {r: distance(r, tokens) for r in self.roles}
        share = 0.0
        for held, p in self.hands.items():
            named = [r for r in self.roles if r not in held]
            nearest = min(gaps[r] for r in named)
            near = [r for r in named if gaps[r] <= nearest]
            if self.role in near:
                share += p / len(near)
        return share


def exposure(view: View, seat: int) -> Exposure | None:
    """``seat``'s exposure while the opponent may still guess it (two players, an undealt
    role left, M19), else None."""
    role = view.seats[seat].role
    if view.player_count != 2 or not view.undealt_count or role is None or not view.seats[1 - seat].in_game:
        return None
    key = (
        seat,
        role,
        view.seats[1 - seat].tokens,
        tuple((sv.removed_roles, sv.removed_role_count) for sv in view.seats),
        view.wrong_guesses,
    )
    known = _EXPOSURES.get(key)
    if known is None:
        if len(_EXPOSURES) > _CACHE_SIZE // 4:
            _EXPOSURES.clear()
        known = _EXPOSURES[key] = Exposure(view, seat, role)
    return known


# A search asks again and again in the same few situations (small: see ``roles._CACHE_SIZE``).
_EXPOSURES: dict[tuple, Exposure] = {}


def holds_back(view: View, seat: int, odds: float) -> bool:
    """Whether to roll rather than guess at ``odds`` below one half: the opponent can only
    name one of two roles for our card (so hiding among them is in reach), and its miss
    would leave an undealt role for our own guess after it (M19)."""
    return odds < 0.5 and view.undealt_count >= 2 and reader_choices(view, seat) <= 2

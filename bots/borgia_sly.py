"""``borgia-sly``: a cheap House of Borgia bot that reads and hides. It plays the sharp
policy (``bots.borgia_puppets``: rumors aimed at the puppets the others' performs point
to), and in about half of its games opens with decoys: its first two performs back a
cardinal that is not its puppet, so a reader cannot take its opening for its puppet. It
keeps no memory: whether a game is a decoy game, and which decoy, follow from its deal.
"""

import random
from collections.abc import Sequence

from bots.borgia_puppets import borgia_sharp_policy
from bots.probes import borgia_decoy_policy
from services.borgia.model import BorgiaAction, BorgiaView
from services.engine.api import Game


def decoy_game(view: BorgiaView, seat: int) -> bool:
    """Whether this game is one it opens with decoys: from its puppet and the seat, so the
    same all game long and unreadable to the others, who see neither."""
    puppets = view.seats[seat].puppets or ()
    return (sum(puppets) * 7 + seat * 3 + view.player_count) % 2 == 0


def borgia_sly_policy(
    game: Game, view: BorgiaView, seat: int, legal: Sequence[BorgiaAction], rng: random.Random
) -> BorgiaAction:
    policy = borgia_decoy_policy if decoy_game(view, seat) else borgia_sharp_policy
    return policy(game, view, seat, legal, rng)

"""The platform's rating model applied to games played offline (the arena, the levels'
calibration): OpenSkill's Plackett-Luce as the rating task applies it (bots/worker/rating_tasks.py),
on the same 1500 scale (common/ratings.py), each game updating everyone at it at once.

A game's places are its winners first and everyone else level behind them (the arena keeps
no scores); a game nobody won places everyone level. A bot seated twice at one game would
play itself: its seats count for nobody, as at rated tables.

``rate_table`` is the one update of a table's ratings, here and in the rating task: OpenSkill's
update, each player's taken by its share (``common.ratings.shares``: bots count fully for
one another, so offline every update is whole).
"""

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from common import ratings


@dataclass(frozen=True)
class Rated:
    rating: float  # on the 1500 scale
    uncertainty: float
    games: int


def places(players: int, winners: Sequence[int]) -> list[float]:
    """Each seat's place, 1 the best: the winners first, the rest level behind them."""
    if not winners:
        return [1.0] * players
    return [1.0 if seat in winners else 2.0 for seat in range(players)]


def rate_table(
    model: PlackettLuce, player_ids: Sequence[str], before: Sequence[ratings.Standing], ranks: Sequence[float]
) -> list[tuple[float, float, bool]]:
    """Each player's (mu, sigma, whether the game qualifies for it) after one rated table,
    from its standing ``before`` and its place in ``ranks``."""
    teams = [[model.rating(mu=standing.mu, sigma=standing.sigma)] for standing in before]
    updated = model.rate(teams, ranks=list(ranks))
    shares = ratings.shares(player_ids, [standing.established for standing in before])
    return [
        (*ratings.damped(old.mu, old.sigma, team[0].mu, team[0].sigma, share), share.qualifies)
        for old, team, share in zip(before, updated, shares, strict=True)
    ]


def rate_games(games: Iterable[tuple[Sequence[str], Sequence[int]]]) -> dict[str, Rated]:
    """Every bot's rating after ``games`` in order, each given as (the bot at each seat,
    the winning seats); bots start where a new player does."""
    model = PlackettLuce()
    current: dict[str, ratings.Standing] = {}
    for seated, winners in games:
        count = Counter(seated)
        seats = [seat for seat, bot in enumerate(seated) if count[bot] == 1]
        if len(seats) < 2:
            continue
        players = [ratings.BOT_PREFIX + seated[seat] for seat in seats]
        before = [current.get(player, ratings.Standing()) for player in players]
        place = places(len(seated), winners)
        after = rate_table(model, players, before, [place[seat] for seat in seats])
        for player, old, (mu, sigma, qualifies) in zip(players, before, after, strict=True):
            current[player] = ratings.Standing(mu, sigma, old.games + 1, qualified=old.qualified + qualifies)
    return {
        player.removeprefix(ratings.BOT_PREFIX): Rated(standing.rating, standing.uncertainty, standing.games)
        for player, standing in current.items()
    }


def predicted_win(first: Rated, second: Rated) -> float:
    """The chance the ratings give ``first`` of beating ``second`` head to head, by the
    Plackett-Luce model's own formula (the one its updates follow: exp(mu/c) / sum of
    exp(mu/c), c**2 the sum of each side's sigma**2 + beta**2). openskill's ``predict_win``
    uses a normal curve instead, which puts two bots settled at 67% head to head at 77%."""
    beta = PlackettLuce().beta
    c = math.sqrt((first.uncertainty / ratings.SCALE) ** 2 + (second.uncertainty / ratings.SCALE) ** 2 + 2 * beta**2)
    return 1.0 / (1.0 + math.exp((second.rating - first.rating) / ratings.SCALE / c))

"""The levels' ratings fitted at once to every pair's results: the maximum-likelihood
ratings under the win curve the rating model predicts with (``predicted_win``), rather than
the model's game-by-game update, in which a level between two neighbours is pulled by both
and the gaps follow the order of the games.

Each pair's tally is the upper level's share of its games (a game nobody won counts half)
out of its games. The curve's width depends on the two ratings' uncertainties; a rating's
uncertainty here is its standard error, from the likelihood's curvature (the inverse of the
Fisher information), and the fit and its standard errors are repeated until they agree.
Ratings are found only up to a common shift: the fit sets their mean at the 1500 of a new
player, and the standard errors are relative to that mean. A chain of pairs (1-2, 2-3, ...)
has as many free gaps as pairs, so its fit predicts every pair's rate exactly.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bots.worker.rating_model import Rated, predicted_win
from common import ratings

ANCHOR = ratings.DEFAULT_MU * ratings.SCALE  # the levels' mean rating


@dataclass(frozen=True)
class Tally:
    upper_share: float  # the upper level's wins, a game nobody won counting half
    games: int


def _width(first: float, second: float) -> float:
    """The curve's scale on the 1500 scale for two uncertainties (``predicted_win``'s c)."""
    beta = ratings.DEFAULT_SIGMA / 2  # openskill's default beta
    return ratings.SCALE * math.sqrt((first / ratings.SCALE) ** 2 + (second / ratings.SCALE) ** 2 + 2 * beta**2)


def _newton(
    levels: Sequence[int], tallies: Mapping[tuple[int, int], Tally], errors: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The ratings that maximise the likelihood for fixed uncertainties, and their covariance."""
    index = {level: place for place, level in enumerate(levels)}
    size = len(levels)
    # sum-to-zero directions: the ratings are ANCHOR + basis @ theta
    basis = np.vstack([np.eye(size - 1), -np.ones(size - 1)])
    theta = np.zeros(size - 1)
    for _ in range(100):
        rated = ANCHOR + basis @ theta
        gradient, information = np.zeros(size), np.zeros((size, size))
        for (lower, upper), tally in tallies.items():
            low, high = index[lower], index[upper]
            width = _width(errors[low], errors[high])
            chance = 1.0 / (1.0 + math.exp(-(rated[high] - rated[low]) / width))
            step = np.zeros(size)
            step[high], step[low] = 1.0, -1.0
            gradient += (tally.upper_share - tally.games * chance) / width * step
            information += tally.games * chance * (1 - chance) / width**2 * np.outer(step, step)
        reduced = basis.T @ information @ basis
        move = np.linalg.solve(reduced, basis.T @ gradient)
        theta += move
        if np.max(np.abs(move)) < 1e-9:
            break
    return ANCHOR + basis @ theta, basis @ np.linalg.inv(reduced) @ basis.T


def fit(levels: Sequence[int], tallies: Mapping[tuple[int, int], Tally]) -> dict[int, Rated]:
    """Each level's rating and standard error (1500 scale) and games, from the pairs'
    tallies. Every level must be joined to the others by pairs, and no pair may be won or
    lost whole (its gap would be infinite)."""
    for pair, tally in tallies.items():
        if not 0 < tally.upper_share < tally.games:
            raise ValueError(f"pair {pair[0]}-{pair[1]}: a pair won or lost whole has no finite gap")
    errors = np.zeros(len(levels))
    for _ in range(50):
        rated, covariance = _newton(levels, tallies, errors)
        new = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
        done = np.max(np.abs(new - errors)) < 1e-9
        errors = new
        if done:
            break
    rated, _ = _newton(levels, tallies, errors)
    games = {level: sum(t.games for pair, t in tallies.items() if level in pair) for level in levels}
    return {level: Rated(float(rated[place]), float(errors[place]), games[level]) for place, level in enumerate(levels)}


def prediction(fitted: Mapping[int, Rated], lower: int, upper: int) -> float:
    """The upper level's chance against the lower one by the fit."""
    return predicted_win(fitted[upper], fitted[lower])

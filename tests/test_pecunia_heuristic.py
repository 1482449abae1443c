"""The Pecunia non olet heuristic bot: it always chooses a legal action, from its own view, and
beats random bots."""

from __future__ import annotations

import random

import pytest

from bots.lab.offline import play
from bots.pecunia.heuristic import pecunia_heuristic, pecunia_heuristic_policy
from bots.search.strategies import random_legal
from services.pecunia import GAME

ENGINE = GAME.engine


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_it_always_chooses_a_legal_action(players):
    """In random games (every seat's decisions, both decks) and in games it plays against itself."""
    chosen = 0
    for seed in range(12):
        rng = random.Random(seed)
        options = {"deck": ("default", "gentle")[seed % 2]}
        state, _ = ENGINE.new_game(players, options, seed)
        heuristic_everywhere = seed % 3 == 0
        while deciders := ENGINE.deciders(state):
            seat = deciders[0]
            legal = ENGINE.legal_actions(state, seat)
            action = pecunia_heuristic_policy(GAME, ENGINE.view(state, seat), seat, legal, rng)
            assert action in legal
            chosen += 1
            if not heuristic_everywhere:
                action = rng.choice(legal)
            state, _ = ENGINE.apply(state, seat, action)
        assert ENGINE.outcome(state) is not None
    assert chosen > 300


def test_it_beats_random_bots_through_the_worker_strategy():
    """A small offline match seen exactly as the gateway would show it (decoded views), the
    heuristic's seat rotated: far more wins than a random bot's half."""
    games = 40
    wins = 0
    for seed in range(games):
        strategies = [random_legal, random_legal]
        strategies[seed % 2] = pecunia_heuristic
        wins += seed % 2 in play(GAME, strategies, {}, seed).winners
    assert wins > games * 0.6

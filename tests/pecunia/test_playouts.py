"""Random-playout property tests for Pecunia non olet over 1,600 games.

Every player count (2-6) and every option combination (deck, target, turn limit) is played.
After every action: no crash, the 70 Roman and 40 action cards are all accounted for exactly
once across piles, queues, seats and hands (P5), seats hold one Roman or two women (P1), no
senator is newly seated beside a slave outside a Villa Dixius turn (P2), sesterces are never
negative, only the active player decides (P4). Every game ends, at the target (P7) or at the
turn limit (P8).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from services.pecunia import GAME
from services.pecunia.engine import PecuniaEngine
from services.pecunia.model import (
    ActionCardPlayed,
    ActionKind,
    EndReason,
    GameEnded,
    Pile,
    PileReshuffled,
    PlayVillaDixius,
    QueueDealt,
    RomanKind,
    RomanSeated,
    TurnStarted,
)
from tests.engine_harness import random_playout
from tests.pecunia.builders import assert_cards_accounted, assert_seats_well_formed, senator_slave_pairs

ENGINE = GAME.engine
PLAYER_COUNTS = (2, 3, 4, 5, 6)
OPTION_SETS = [
    {"deck": deck, "target": target, "turn_limit": limit}
    for deck, target, limit in itertools.product(("default", "gentle"), ("0", "12"), ("1000", "25"))
]
GAMES_PER_COMBINATION = 40  # 5 player counts x 8 option sets x 40 = 1600 games


class Checker:
    """The on_step hook: every invariant after every action, and what the games covered."""

    def __init__(self) -> None:
        self.seen: Counter = Counter()

    def __call__(self, before, after, seat, action, events) -> None:
        assert seat == before.active
        assert_cards_accounted(after)
        assert_seats_well_formed(after)
        assert all(c >= 0 for c in after.coins), after.coins
        assert after.turn >= before.turn
        deciders = ENGINE.deciders(after)
        assert deciders == (() if after.winners else (after.active,))
        # P2: a new senator/slave neighbourhood only by seating in a Villa Dixius turn of its owner.
        turn_end = next((i for i, e in enumerate(events) if isinstance(e, TurnStarted | GameEnded)), len(events))
        for player in range(after.player_count):
            new = senator_slave_pairs(after, player) - senator_slave_pairs(before, player)
            if not new:
                continue
            self.seen["villa pair"] += 1
            assert player == before.active
            assert before.villa or isinstance(action, PlayVillaDixius)
            cards = {card for pair in new for card in pair}
            seatings = [i for i, e in enumerate(events) if isinstance(e, RomanSeated) and e.card.id in cards]
            assert seatings and all(i < turn_end for i in seatings)
        for event in events:
            kind = type(event)
            if kind is ActionCardPlayed:
                self.seen[event.card.kind] += 1
            elif kind is PileReshuffled:
                self.seen[event.pile] += 1
            elif kind is QueueDealt and before.turn + after.turn > 0:
                self.seen["queue refilled"] += 1
            elif kind is RomanSeated and event.card.kind is RomanKind.WOMAN:
                stack = after.seats[event.player][event.seat]
                if len(stack) == 2:
                    self.seen["two women"] += 1


def _check_end(playout, options) -> None:
    state = playout.state
    outcome = playout.outcome
    assert outcome is not None, "every game ends"
    assert outcome.winners == state.winners and outcome.scores == state.coins
    if state.end_reason is EndReason.TARGET_REACHED:
        (winner,) = state.winners
        assert state.coins[winner] >= state.target
        assert all(c < state.target for p, c in enumerate(state.coins) if p != winner)
    else:
        assert state.end_reason is EndReason.TURN_LIMIT
        assert state.turn == int(options["turn_limit"])
        assert all(state.coins[w] == max(state.coins) for w in state.winners)


@pytest.mark.slow
def test_random_playouts_keep_every_invariant_and_end():
    checker = Checker()
    ends: Counter = Counter()
    longest = 0
    seed = 0
    for players in PLAYER_COUNTS:
        for options in OPTION_SETS:
            for _ in range(GAMES_PER_COMBINATION):
                seed += 1
                playout = random_playout(GAME, players, options, seed, on_step=checker)
                _check_end(playout, options)
                ends[playout.state.end_reason, options["turn_limit"]] += 1
                if options["turn_limit"] == "1000":
                    longest = max(longest, playout.state.turn)
    assert seed == len(PLAYER_COUNTS) * len(OPTION_SETS) * GAMES_PER_COMBINATION
    # P8: the default turn limit is never what ends a random game
    assert ends[EndReason.TURN_LIMIT, "1000"] == 0
    assert longest < 200
    assert ends[EndReason.TURN_LIMIT, "25"] > 0
    # the random games reach every rule and every action card
    for kind in ActionKind:
        assert checker.seen[kind] > 0, kind
    for what in ("villa pair", "two women", "queue refilled"):
        assert checker.seen[what] > 0, what
    assert checker.seen[Pile.ROMAN] > 0 and checker.seen[Pile.ACTION] > 0


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_playouts_views_and_codec_round_trip(players):
    """A slower pass: every view and projected event encodes; states and actions round-trip
    (three games per option set)."""
    for seed in range(3 * len(OPTION_SETS)):
        options = OPTION_SETS[seed % len(OPTION_SETS)]
        playout = random_playout(GAME, players, options, 10_000 + seed, check_views=True, check_codec=True)
        _check_end(playout, options)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_legal_actions_kept_from_apply_match_a_fresh_listing(players):
    """The engine keeps the turn actions its forced-decision check listed (P7) for the next
    legal_actions of that state: they must be what a fresh engine lists for it."""
    engine, fresh = PecuniaEngine(), PecuniaEngine()
    chooser = random.Random(players)
    for seed in range(15):
        state, _ = engine.new_game(players, {}, seed)
        while deciders := engine.deciders(state):
            seat = deciders[0]
            legal = engine.legal_actions(state, seat)
            assert legal == fresh.legal_actions(state, seat)
            state, _ = engine.apply(state, seat, chooser.choice(legal))

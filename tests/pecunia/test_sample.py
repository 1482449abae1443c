"""Determinization (``PecuniaEngine.sample``): a state drawn among those a seat cannot tell apart.

P7: sesterces, latrines, queues and both face-up discard piles are public, a hand is its
owner's secret (its size is public) and nobody sees the order of a draw pile. So a sample keeps
everything the seat's view shows and redeals only the cards the seat has not seen: the other
hands and both draw piles (P5: they may hold reshuffled discards). Checked on thousands of random
reachable states over 2-6 players, both decks and every option: (a) the seat's view of the sample
is the seat's view of the true state, byte for byte; (b) so are the seat's legal actions; (c)
games go on from samples to their end, all 70 + 40 cards accounted for; (d) over many samples,
every unseen card lands in every hidden place.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from services.engine.rng import Rng
from services.pecunia import GAME
from services.pecunia.model import PecuniaState
from tests.engine_harness import random_playout
from tests.pecunia.builders import assert_cards_accounted, assert_seats_well_formed

ENGINE, CODEC = GAME.engine, GAME.codec
PLAYER_COUNTS = (2, 3, 4, 5, 6)
OPTION_SETS = [
    {"deck": deck, "target": target, "turn_limit": limit}
    for deck, target, limit in itertools.product(("default", "gentle"), ("0", "12"), ("1000", "25"))
]


def reachable_states(games_per_combination: int, every: int, seed: int = 0):
    """(players, state) along random playouts of every player count and option set."""
    for players in PLAYER_COUNTS:
        for options in OPTION_SETS:
            for _ in range(games_per_combination):
                seed += 1
                state, _ = ENGINE.new_game(players, options, seed)
                yield players, state
                for step, (seat, action) in enumerate(random_playout(GAME, players, options, seed).actions):
                    state, _ = ENGINE.apply(state, seat, action)
                    if step % every == every - 1 or ENGINE.outcome(state) is not None:
                        yield players, state


def wire(state: PecuniaState, seat: int | None) -> bytes:
    return CODEC.view_to_proto(ENGINE.view(state, seat)).SerializeToString()


def check_sample(state: PecuniaState, seat: int | None, rng: Rng) -> PecuniaState:
    sample = ENGINE.sample(ENGINE.view(state, seat), seat, rng)
    assert wire(sample, seat) == wire(state, seat)  # (a)
    if seat is not None:
        assert ENGINE.legal_actions(sample, seat) == ENGINE.legal_actions(state, seat)  # (b)
    assert ENGINE.deciders(sample) == ENGINE.deciders(state)
    assert_cards_accounted(sample)  # (c) 70 + 40 cards, each once
    assert_seats_well_formed(sample)
    return sample


def play_to_the_end(state: PecuniaState, chooser: random.Random) -> PecuniaState:
    while deciders := ENGINE.deciders(state):
        seat = deciders[0]
        state, _ = ENGINE.apply(state, seat, chooser.choice(ENGINE.legal_actions(state, seat)))
    assert_cards_accounted(state)
    assert ENGINE.outcome(state) is not None
    return state


def run_properties(games_per_combination: int, every: int, playout_every: int, seed: int) -> Counter:
    rng = Rng.from_seed(seed)
    chooser = random.Random(seed)
    seen: Counter = Counter()
    for players, state in reachable_states(games_per_combination, every, seed * 1000):
        for seat in [None, *range(players)]:
            sample = check_sample(state, seat, rng)
            seen["samples"] += 1
            seen["hidden hands moved"] += sample.hands != state.hands
            seen["piles moved"] += sample.roman_pile != state.roman_pile
            if seat is not None and seen["samples"] % playout_every == 0:
                play_to_the_end(sample, chooser)
                seen["playouts"] += 1
        seen[f"states with {players} players"] += 1
    return seen


def test_samples_keep_the_view_and_legal_actions_and_play_on():
    """(a), (b), (c) on a few thousand views of random reachable states (P5, P7)."""
    seen = run_properties(games_per_combination=2, every=6, playout_every=40, seed=1)
    assert seen["samples"] > 4000
    assert seen["playouts"] > 80
    assert all(seen[f"states with {n} players"] > 100 for n in PLAYER_COUNTS)
    assert seen["hidden hands moved"] > seen["samples"] / 2
    assert seen["piles moved"] > seen["samples"] / 2


@pytest.mark.slow
def test_samples_keep_the_view_and_legal_actions_and_play_on_many_more():
    seen = run_properties(games_per_combination=3, every=4, playout_every=20, seed=2)
    assert seen["samples"] > 8_000


def test_a_sample_keeps_nothing_of_the_hidden_rng_and_depends_only_on_the_view():
    """The true RNG (future reshuffles, P5) is secret too: a sample draws a fresh one. Two
    states the seat cannot tell apart give the same sample for the same ``rng``."""
    state = next(s for n, s in reachable_states(1, 10, 77) if n == 3 and s.turn > 6)
    sample = ENGINE.sample(ENGINE.view(state, 1), 1, Rng(5))
    assert sample.rng != state.rng
    assert sample == ENGINE.sample(ENGINE.view(sample, 1), 1, Rng(5))
    assert sample != ENGINE.sample(ENGINE.view(state, 1), 1, Rng(6))
    with pytest.raises(ValueError):
        ENGINE.sample(ENGINE.view(state, 1), 2, Rng(5))


def assert_about(count: int, expected: float, what) -> None:
    """Present, and within 5 standard deviations of a uniform draw's expectation."""
    assert count > 0 and abs(count - expected) < 5 * expected**0.5, (what, count, expected)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_unseen_card_lands_in_every_hidden_place(players):
    """(d) Over many samples each card the seat has not seen turns up in each opponent's hand
    and on top of each draw pile, about as often as the place's share of the unseen cards."""
    state = next(
        s
        for n, s in reachable_states(1, 1, 500 + players)
        if n == players and s.turn >= 2 * players and s.action_discard and s.roman_discard and all(s.hands)
    )
    seat = state.active
    view = ENGINE.view(state, seat)
    seen_actions = set(state.action_discard) | set(state.hands[seat])
    unseen_actions = sorted(set(range(40)) - seen_actions)
    seen_romans = set(state.roman_discard) | {c for q in state.queues for c in q}
    seen_romans |= {r.card for latrine in state.seats for stack in latrine for r in stack}
    unseen_romans = sorted(set(range(70)) - seen_romans)
    opponents = [p for p in range(players) if p != seat]
    rng = Rng.from_seed(players)
    rounds = 1500
    places: Counter = Counter()
    for _ in range(rounds):
        sample = ENGINE.sample(view, seat, rng)
        for p in opponents:
            places.update((card, f"hand {p}") for card in sample.hands[p])
        places.update((card, "action pile") for card in sample.action_pile)
        places[sample.action_pile[-1], "top of the action pile"] += 1
        places[sample.roman_pile[-1], "top of the Roman pile"] += 1
    sizes = {f"hand {p}": len(state.hands[p]) for p in opponents}
    sizes |= {"action pile": len(state.action_pile), "top of the action pile": 1}
    for card in unseen_actions:
        for place, size in sizes.items():
            assert_about(places[card, place], rounds * size / len(unseen_actions), (card, place))
    for card in unseen_romans:
        assert_about(places[card, "top of the Roman pile"], rounds / len(unseen_romans), card)
    for card, place in places:
        pool = seen_romans if place == "top of the Roman pile" else seen_actions
        assert card not in pool, (card, place)

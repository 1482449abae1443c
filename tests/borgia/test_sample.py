"""Determinization (``BorgiaEngine.sample``): a full state drawn among those consistent with
one seat's view, over random reachable states of every player count and variant.

What a seat knows: its own dice and puppet(s) (B2), every die after a call (B4), everything at
the end (B9), the public position, and in Shadow Puppets that no rumor in front of it names an
opponent's puppet (B10). Everything else (other seats' dice and puppets, the RNG) is redrawn.
"""

import random
from collections import Counter
from dataclasses import replace

import pytest

from services.borgia import GAME
from services.borgia.engine import excluded_puppets
from services.borgia.model import CARDINALS, FACES, BorgiaState, Call, Phase
from services.engine.rng import Rng
from tests.borgia.test_playouts import CONFIGS, reachable_states
from tests.borgia.test_rules import BORGIA, COLONNA, DELLA_ROVERE, MEDICI, ORSINI, SFORZA, shadow_state
from tests.borgia.test_views import scramble

ENGINE, CODEC = GAME.engine, GAME.codec
IDS = [f"{p}p-{'-'.join(o) or 'base'}" for p, o in CONFIGS]


def encoded_view(state: BorgiaState, seat: int | None) -> bytes:
    return CODEC.view_to_proto(ENGINE.view(state, seat)).SerializeToString(deterministic=True)


def play_to_the_end(state: BorgiaState, chooser: random.Random) -> BorgiaState:
    for _ in range(20_000):
        deciders = ENGINE.deciders(state)
        if not deciders:
            return state
        seat = chooser.choice(deciders)
        state, _ = ENGINE.apply(state, seat, chooser.choice(ENGINE.legal_actions(state, seat)))
    raise AssertionError("a playout from a sample did not end")


def check_samples(players, options, seeds, every: int) -> int:
    """Properties (a) same view, (b) same legal actions, (c) playable to the end; returns the
    number of (state, viewer) pairs checked."""
    checked = 0
    chooser = random.Random(0)
    for seed in seeds:
        rng = Rng.from_seed(seed)
        for state in reachable_states(players, options, seed)[::every]:
            for seat in [None, *range(players)]:
                view = ENGINE.view(state, seat)
                sample = ENGINE.sample(view, seat, rng)
                assert encoded_view(sample, seat) == encoded_view(state, seat)
                assert ENGINE.deciders(sample) == ENGINE.deciders(state)
                if seat is not None:
                    assert ENGINE.legal_actions(sample, seat) == ENGINE.legal_actions(state, seat)
                    for opponent in range(players):
                        assert not set(sample.puppets[opponent]) & excluded_puppets(view, opponent), "B10"
                if chooser.random() < 0.05:
                    end = play_to_the_end(sample, chooser)
                    assert ENGINE.outcome(end) is not None
                checked += 1
    return checked


@pytest.mark.parametrize(("players", "options"), CONFIGS, ids=IDS)
def test_b2_b4_b10_a_sample_shows_the_seat_the_same_view_and_legal_actions(players, options):
    assert check_samples(players, options, seeds=range(6), every=2) > 200


@pytest.mark.slow
@pytest.mark.parametrize(("players", "options"), CONFIGS, ids=IDS)
def test_b2_b4_b10_samples_over_many_playouts(players, options):
    check_samples(players, options, seeds=range(100, 110), every=1)


def test_b4_revealed_dice_are_kept_after_a_call():
    """A true bid called: every die is public (B4) and the sample keeps them all, while the
    RNG of the next roll is redrawn."""
    found = 0
    for seed in range(60):
        state, _ = ENGINE.new_game(3, {}, seed)
        state, _ = ENGINE.apply(state, state.active, ENGINE.legal_actions(state, state.active)[0])
        state, _ = ENGINE.apply(state, state.responder, Call())
        if state.phase != Phase.PERFORM:
            continue
        for seat in range(3):
            sample = ENGINE.sample(ENGINE.view(state, seat), seat, Rng.from_seed(seed))
            assert sample.dice == state.dice
            assert sample.rng != state.rng
            assert sample.puppets[seat] == state.puppets[seat]
        found += 1
    assert found > 5


def test_a_sample_depends_only_on_the_view_and_the_rng():
    """Changing secrets the seat cannot see changes nothing in its samples: the true dice,
    puppets and RNG never leak into them."""
    for players, options in CONFIGS:
        for state in reachable_states(players, options, 9)[::7]:
            for seat in [None, *range(players)]:
                other = replace(scramble(state, seat), rng=state.rng ^ 1)
                first = ENGINE.sample(ENGINE.view(state, seat), seat, Rng(5))
                second = ENGINE.sample(ENGINE.view(other, seat), seat, Rng(5))
                assert first == second


def coverage(state: BorgiaState, seat: int, draws: int = 400):
    """(dice faces, puppets) seen per seat over many samples."""
    faces = {s: Counter() for s in range(state.player_count)}
    puppets = {s: Counter() for s in range(state.player_count)}
    rng = Rng.from_seed(17)
    view = ENGINE.view(state, seat)
    for _ in range(draws):
        sample = ENGINE.sample(view, seat, rng)
        for s in range(state.player_count):
            faces[s].update(set(sample.dice[s]))
            puppets[s].update(sample.puppets[s])
    return view, faces, puppets


@pytest.mark.parametrize(("players", "options"), CONFIGS, ids=IDS)
def test_b2_b10_every_hidden_value_reaches_every_hidden_slot(players, options):
    """Each face lands in each opponent's hidden dice; each cardinal the seat cannot exclude
    (its own puppets, B10's rumors) becomes each opponent's puppet, about equally often."""
    states = [s for s in reachable_states(players, options, 3) if s.phase != Phase.OVER and not s.called]
    for state in (states[0], states[len(states) // 2], states[-1]):
        for seat in (0, players - 1):
            view, faces, puppets = coverage(state, seat)
            for s in range(players):
                if s == seat:
                    assert set(faces[s]) == set(state.dice[s]) and set(puppets[s]) == set(state.puppets[s])
                    continue
                assert set(faces[s]) == set(FACES), f"seat {s} dice"
                possible = set(CARDINALS) - set(state.puppets[seat]) - excluded_puppets(view, s)
                assert set(puppets[s]) == possible, f"seat {s} puppets"
                expected = sum(puppets[s].values()) / len(possible)
                assert all(0.6 * expected < n < 1.4 * expected for n in puppets[s].values())


def test_b10_a_rumor_in_front_of_a_seat_names_no_puppet_of_the_opponent():
    """Shadow Puppets, two players: every rumor in front of seat 0 was placed by seat 1, which
    may not place its own puppets' rumors (B10), so none of them is seat 1's puppet."""
    state = shadow_state(rumors=((BORGIA, DELLA_ROVERE), ()), puppets=((MEDICI, ORSINI), (COLONNA, SFORZA)))
    view, _, puppets = coverage(state, 0, draws=50)
    assert excluded_puppets(view, 1) == {BORGIA, DELLA_ROVERE}
    assert set(puppets[1]) == {COLONNA, SFORZA}, "only one deal is left"
    state = shadow_state(rumors=((BORGIA,), ()), puppets=((MEDICI, ORSINI), (COLONNA, SFORZA)))
    view, _, puppets = coverage(state, 0, draws=300)
    assert set(puppets[1]) == {DELLA_ROVERE, COLONNA, SFORZA}
    for k in range(30):
        spectator = ENGINE.sample(ENGINE.view(state, None), None, Rng(k))
        assert BORGIA not in spectator.puppets[1]


def test_the_future_comes_from_the_sampling_rng():
    """Two samples drawn with different RNGs roll different dice in the next round."""
    state = reachable_states(3, {}, 4)[0]
    view = ENGINE.view(state, 0)
    rngs = {ENGINE.sample(view, 0, Rng.from_seed(k)).rng for k in range(20)}
    assert len(rngs) == 20 and state.rng not in rngs

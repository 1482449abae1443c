"""Determinization: ``ENGINE.sample(view, seat, rng)`` over random reachable states.

The sample keeps everything the seat sees (same view bytes, same legal actions), redraws
only the role cards the seat cannot see (other seats' current and removed cards, the
undealt ones, M18/M19; an eliminated player's role too, M8) and the RNG of future chance,
and respects what the seat knows about them: its own cards, the face-up Brigand (M18),
the roles a wrong guess showed to be wrong (M16, M19), and that with three or more players
only the Master guesses (M16). Every consistent deal must come up, and no other.
"""

import random
from collections import Counter
from itertools import permutations

import pytest

from services.engine.rng import Rng
from services.mortadella import CODEC, ENGINE
from services.mortadella.model import ROLE_INFO, ROLE_POOLS, Phase, Role, State, WrongGuess
from tests.mortadella.builders import make_state

# (player count, options) with the additional rules on and off and short turn limits, so
# that states from the whole game (and its end) come up.
CONFIGS = [
    (n, options)
    for n in range(2, 8)
    for options in ({}, {"additional_rules": "false", "max_turns": "150"}, {"max_turns": "40"})
]


def reachable_states(n: int, options: dict, seed: int, every: int):
    """States of one random game: roughly one in ``every``, plus the last one."""
    chooser = random.Random(seed)
    state, _ = ENGINE.new_game(n, options, seed)
    states = [state]
    while deciders := ENGINE.deciders(state):
        seat = chooser.choice(deciders)
        state, _ = ENGINE.apply(state, seat, chooser.choice(list(ENGINE.legal_actions(state, seat))))
        if chooser.randrange(every) == 0 or state.wrong_guesses:
            states.append(state)
    states.append(state)
    return states


def view_bytes(state: State, seat: int) -> bytes:
    return CODEC.view_to_proto(ENGINE.view(state, seat)).SerializeToString(deterministic=True)


def cards(state: State, seat: int) -> list[Role]:
    """A seat's cards in the order it held them: removed ones first, then its current one."""
    return [*state.removed_roles[seat], state.roles[seat]]


def consistent(state: State, seat: int) -> list[State]:
    """Every deal ``seat`` cannot rule out, by brute force over the hidden cards.

    Hidden: other seats' cards unless face up (M18) or the game is over, and the undealt
    roles. A wrong guess rules out the named role for the target's card and the guesser's
    (M16, M19); with three or more players the guesser was the Master, and so is the
    active seat of a MASTER_GUESS decision (M16)."""
    n = state.player_count
    over = state.phase is Phase.OVER
    slots = [
        (s, k)
        for s in range(n)
        if s != seat
        for k, role in enumerate(cards(state, s))
        if not (over or (k == len(state.removed_roles[s]) and ROLE_INFO[role].face_up))
    ]
    hidden = [cards(state, s)[k] for s, k in slots] + list(state.undealt)
    deals = []
    for order in set(permutations(hidden)):
        held = [cards(state, s) for s in range(n)]
        for (s, k), role in zip(slots, order, strict=False):
            held[s][k] = role
        ok = all(
            held[g.target][g.target_card] != g.role != held[g.guesser][g.guesser_card] for g in state.wrong_guesses
        )
        if n > 2:
            ok = ok and all(held[g.guesser][g.guesser_card] is Role.MASTER for g in state.wrong_guesses)
            ok = ok and (state.phase is not Phase.MASTER_GUESS or held[state.active][-1] is Role.MASTER)
        if ok:
            deals.append(
                (tuple(h[-1] for h in held), tuple(tuple(h[:-1]) for h in held), tuple(sorted(order[len(slots) :])))
            )
    return deals


def check_sample(state: State, seat: int, rng: Rng) -> State:
    sample = ENGINE.sample(ENGINE.view(state, seat), seat, rng)
    # (a) the seat sees exactly what it saw.
    assert view_bytes(sample, seat) == view_bytes(state, seat)
    # (b) the seat may do exactly what it could.
    assert list(ENGINE.legal_actions(sample, seat)) == list(ENGINE.legal_actions(state, seat))
    assert ENGINE.deciders(sample) == ENGINE.deciders(state)
    # The same cards are in play (M18), and what the seat knows holds.
    assert sorted([*sample.roles, *(r for rs in sample.removed_roles for r in rs), *sample.undealt]) == sorted(
        [*state.roles, *(r for rs in state.removed_roles for r in rs), *state.undealt]
    )
    assert cards(sample, seat) == cards(state, seat)
    for s in range(state.player_count):
        if ROLE_INFO[state.roles[s]].face_up:
            assert sample.roles[s] is state.roles[s]  # the Brigand (M18)
    for g in state.wrong_guesses:
        assert cards(sample, g.target)[g.target_card] is not g.role  # M16, M19
        if state.player_count > 2:
            assert cards(sample, g.guesser)[g.guesser_card] is Role.MASTER  # M16
    if state.phase is Phase.MASTER_GUESS:
        assert sample.roles[state.active] is Role.MASTER  # M16
    return sample


def random_playout(state: State, chooser: random.Random) -> State:
    while deciders := ENGINE.deciders(state):
        seat = chooser.choice(deciders)
        state, _ = ENGINE.apply(state, seat, chooser.choice(list(ENGINE.legal_actions(state, seat))))
    assert ENGINE.outcome(state) is not None
    return state


def run_properties(games_per_config: int, playouts_per_config: int, seed0: int) -> int:
    checked = 0
    rng = Rng.from_seed(seed0)
    chooser = random.Random(seed0)
    for n, options in CONFIGS:
        samples = []
        for game in range(games_per_config):
            for state in reachable_states(n, options, seed0 + game, every=25):
                for seat in range(n):
                    samples.append(check_sample(state, seat, rng))
                    checked += 1
        # (c) random playouts go on from samples to the end.
        for sample in chooser.sample(samples, min(playouts_per_config, len(samples))):
            random_playout(sample, chooser)
    return checked


def test_samples_keep_the_view_and_the_legal_actions_and_play_on():
    assert run_properties(games_per_config=5, playouts_per_config=10, seed0=1) > 5000


@pytest.mark.slow
def test_samples_keep_the_view_and_the_legal_actions_and_play_on_many_games():
    assert run_properties(games_per_config=6, playouts_per_config=40, seed0=10_000) > 12_000


def test_the_future_comes_from_the_samplers_rng():
    state = reachable_states(4, {}, 3, every=10)[5]
    first = ENGINE.sample(ENGINE.view(state, 0), 0, Rng(1))
    assert first.rng != state.rng
    assert ENGINE.sample(ENGINE.view(state, 0), 0, Rng(1)) == first  # a function of (view, rng)
    assert ENGINE.sample(ENGINE.view(state, 0), 0, Rng(2)).rng != first.rng


def coverage(state: State, seat: int, draws: int, seed: int) -> None:
    """(d) Over many samples every consistent (seat, card, role) comes up, no other does,
    each about as often as among the consistent deals (all equally likely, M18)."""
    deals = consistent(state, seat)
    assert deals, "the true deal is always consistent"
    truth = (state.roles, state.removed_roles, state.undealt)
    assert truth in deals
    expected = Counter()
    for roles, removed, undealt in deals:
        expected.update({("role", s, r) for s, r in enumerate(roles)})
        expected.update({("removed", s, k, r) for s, rs in enumerate(removed) for k, r in enumerate(rs)})
        expected.update({("undealt", r) for r in undealt})
    seen = Counter()
    rng = Rng.from_seed(seed)
    view = ENGINE.view(state, seat)
    for _ in range(draws):
        sample = ENGINE.sample(view, seat, rng)
        seen.update({("role", s, r) for s, r in enumerate(sample.roles)})
        seen.update({("removed", s, k, r) for s, rs in enumerate(sample.removed_roles) for k, r in enumerate(rs)})
        seen.update({("undealt", r) for r in sample.undealt})
    assert set(seen) == set(expected), "exactly the possible roles come up"
    for key, count in expected.items():
        p = count / len(deals)
        sigma = (draws * p * (1 - p)) ** 0.5
        assert abs(seen[key] - draws * p) <= 5 * sigma + 1, f"{key}: {seen[key]} of {draws}, expected p={p:.3f}"


def test_coverage_on_random_states():
    rng = random.Random(7)
    for n, options in CONFIGS[::2]:
        states = reachable_states(n, options, 40 + n, every=30)
        for state in rng.sample(states, 2):
            coverage(state, rng.randrange(n), draws=600, seed=rng.randrange(1 << 30))


def test_coverage_with_wrong_guesses_in_random_two_player_games():
    found = 0
    for seed in range(200):
        states = [s for s in reachable_states(2, {}, 900 + seed, every=1_000) if s.wrong_guesses]
        if states:
            state = states[len(states) // 2]
            coverage(state, seed % 2, draws=500, seed=seed)
            found += 1
        if found == 6:
            break
    assert found == 6


def test_coverage_after_wrong_two_player_guesses():
    """M19: seat 0 (now the Captain, its Prince card removed) guessed seat 1 is the Lord,
    wrongly; then seat 1 guessed seat 0 is the Cardinal, wrongly, and its card was removed:
    so seat 1's removed card was neither the Lord nor the Cardinal."""
    state = make_state(
        2,
        roles=(Role.CAPTAIN, Role.CARDINAL),
        removed_roles=((Role.PRINCE,), (Role.RECTOR,)),
        undealt=(Role.LORD,),
        wrong_guesses=(WrongGuess(0, 0, 1, 0, Role.LORD), WrongGuess(1, 0, 0, 1, Role.CARDINAL)),
    )
    coverage(state, 0, draws=400, seed=1)
    view = ENGINE.view(state, 0)
    for i in range(100):
        sample = ENGINE.sample(view, 0, Rng(i))
        assert sample.removed_roles[1][0] not in (Role.LORD, Role.CARDINAL)
        assert sample.roles[1] in (Role.LORD, Role.CARDINAL, Role.RECTOR)
    coverage(state, 1, draws=400, seed=2)


def test_coverage_after_the_masters_wrong_guess():
    """M16: seat 2 guessed seat 0 is the Prince, wrongly, and was eliminated: everybody now
    knows seat 2 was the Master (its role stays secret otherwise, M8) and seat 0 is no Prince."""
    state = make_state(
        4,
        roles=(Role.RECTOR, Role.PRINCE, Role.MASTER, Role.CAPTAIN),
        undealt=(Role.LORD, Role.CARDINAL),
        in_game=(True, True, False, True),
        wrong_guesses=(WrongGuess(2, 0, 0, 0, Role.PRINCE),),
    )
    for seat in (1, 3):
        coverage(state, seat, draws=600, seed=seat)
    view = ENGINE.view(state, 3)
    for i in range(100):
        sample = ENGINE.sample(view, 3, Rng(i))
        assert sample.roles[2] is Role.MASTER and sample.roles[0] is not Role.PRINCE


def test_the_master_deciding_his_guess_is_known_to_be_the_master():
    state = make_state(
        5,
        roles=(Role.PRINCE, Role.RECTOR, Role.MASTER, Role.CAPTAIN, Role.CARDINAL),
        undealt=(Role.LORD,),
        active=2,
        phase=Phase.MASTER_GUESS,
        tokens={2: (3, 0, 3, 3)},
    )
    for seat in (0, 4):
        check_sample(state, seat, Rng(seat))
        coverage(state, seat, draws=400, seed=seat)


def test_seven_players_keep_the_brigand_face_up():
    state = reachable_states(7, {}, 5, every=50)[3]
    brigand = state.roles.index(Role.BRIGAND)
    seat = (brigand + 1) % 7
    coverage(state, seat, draws=1200, seed=3)


def test_every_pool_role_can_land_with_every_opponent_at_the_start():
    for n in range(2, 8):
        state, _ = ENGINE.new_game(n, {}, n)
        coverage(state, 0, draws=300 * n, seed=n)
        roles = {r for s in range(1, n) for r in ROLE_POOLS[n] if r is not state.roles[0]}
        assert roles == set(ROLE_POOLS[n]) - {state.roles[0]}

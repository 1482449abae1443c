"""The engines' RNG: deterministic from its one-integer state, uniform enough for dice and
shuffles."""

from collections import Counter

from services.engine.rng import Rng


def test_the_same_state_draws_the_same_numbers():
    first, second = Rng.from_seed(42), Rng.from_seed(42)
    assert [first.next_u64() for _ in range(50)] == [second.next_u64() for _ in range(50)]
    resumed = Rng(first.state)  # the state alone resumes the stream, as the game state does
    assert [resumed.below(6) for _ in range(20)] == [first.below(6) for _ in range(20)]


def test_different_seeds_draw_different_numbers():
    assert Rng.from_seed(1).next_u64() != Rng.from_seed(2).next_u64()


def test_dice_are_in_range_and_near_uniform():
    rng = Rng.from_seed(7)
    counts = Counter(rng.below(6) for _ in range(60_000))
    assert set(counts) == set(range(6))
    assert all(9_000 < count < 11_000 for count in counts.values())  # deterministic seed: no flake


def test_shuffle_is_a_permutation_and_reaches_every_order():
    rng = Rng.from_seed(3)
    orders = set()
    for _ in range(2_000):
        items = [0, 1, 2, 3]
        rng.shuffle(items)
        assert sorted(items) == [0, 1, 2, 3]
        orders.add(tuple(items))
    assert len(orders) == 24


def test_permute_is_deterministic_and_reaches_every_order_about_equally():
    orders = Counter()
    rng = Rng(11)
    for _ in range(24_000):
        items = list("abcd")
        rng.permute(items)
        orders["".join(items)] += 1
    assert len(orders) == 24
    assert all(800 < count < 1200 for count in orders.values())  # 1000 expected each
    first, second = list(range(70)), list(range(70))
    Rng(5).permute(first)
    Rng(5).permute(second)
    assert first == second != list(range(70))
    assert sorted(first) == list(range(70))

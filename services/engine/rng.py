"""A deterministic RNG whose whole state is one 64-bit integer.

The state lives inside the game state, so a game replays exactly from (config, seed,
actions) and serialises as a single uint64. Engines copy the state, draw from an
``Rng(state.rng)``, and store ``rng.state`` back into the new state.

The state steps like SplitMix64's (add an odd constant); each output is BLAKE2b of the
state. Players see many outputs (every revealed die), so the outputs must not give the
state away: with a hash, finding the secret 63-bit seed from them means trying seeds one
by one, where SplitMix64's invertible mixing gives no such guarantee.
"""

import hashlib
import math
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_SPAN = 1 << 64
# Copying a keyed hasher is about twice as fast as building one per output; same digests.
_HASHER = hashlib.blake2b(digest_size=8, person=b"tavola-rng")


def _output(state: int) -> int:
    hasher = _HASHER.copy()
    hasher.update(state.to_bytes(8, "little"))
    return int.from_bytes(hasher.digest(), "little")


class Rng:
    __slots__ = ("state",)

    def __init__(self, state: int):
        self.state = state & _MASK

    @classmethod
    def from_seed(cls, seed: int) -> "Rng":
        rng = cls(seed)
        rng.next_u64()  # decorrelate small consecutive seeds
        return rng

    def next_u64(self) -> int:
        self.state = state = (self.state + _GOLDEN) & _MASK
        return _output(state)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n), without modulo bias."""
        if n <= 0:
            raise ValueError("n must be positive")
        if n == 1:  # every output is below 2**64 and the answer is 0: no need to hash one
            self.state = (self.state + _GOLDEN) & _MASK
            return 0
        limit = _SPAN - _SPAN % n
        state = self.state
        while True:
            state = (state + _GOLDEN) & _MASK
            hasher = _HASHER.copy()  # _output, inlined: below is most of a shuffle
            hasher.update(state.to_bytes(8, "little"))
            x = int.from_bytes(hasher.digest(), "little")
            if x < limit:
                self.state = state
                return x % n

    def roll(self, count: int, sides: int) -> list[int]:
        """``count`` dice with faces 0..sides-1 (the same draws as ``below(sides)`` each)."""
        if count <= 0:
            return []
        if sides <= 0:
            raise ValueError("n must be positive")
        limit = _SPAN - _SPAN % sides
        state = self.state
        faces: list[int] = []
        copy = _HASHER.copy
        while len(faces) < count:
            state = (state + _GOLDEN) & _MASK
            hasher = copy()  # _output, inlined: dice are most of what engines draw
            hasher.update(state.to_bytes(8, "little"))
            x = int.from_bytes(hasher.digest(), "little")
            if x < limit:
                faces.append(x % sides)
        self.state = state
        return faces

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates, in place."""
        below = self.below
        for i in range(len(items) - 1, 0, -1):
            j = below(i + 1)
            items[i], items[j] = items[j], items[i]

    def permute(self, items: MutableSequence[T]) -> None:
        """A uniformly random order of ``items``, in place, from few outputs: one big
        number below n! (rejection sampling: exactly uniform) read as the choices of a
        Fisher-Yates shuffle. Not the same draws as ``shuffle``, which the rules use and
        replays depend on; this is for determinizations, which shuffle dozens of unseen
        cards at every iteration of a search, one output per card with ``shuffle``."""
        n = len(items)
        if n < 2:
            return
        orders = math.factorial(n)
        words = (orders.bit_length() + 64 + 63) // 64  # 64 spare bits: a redraw is all but never needed
        span = 1 << (64 * words)
        limit = span - span % orders
        while True:
            x = 0
            for _ in range(words):
                x = (x << 64) | self.next_u64()
            if x < limit:
                break
        x %= orders
        for i in range(n - 1, 0, -1):
            x, j = divmod(x, i + 1)
            items[i], items[j] = items[j], items[i]

"""services/engine/values.py: a fast __init__ behaves as the generated one."""

import dataclasses
import inspect

import pytest

from services.engine.values import fast_init


@dataclasses.dataclass(frozen=True)
class Plain:
    a: int
    b: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Slotted:
    low: int
    high: int

    def __post_init__(self):
        if self.low > self.high:
            low, high = self.high, self.low
            object.__setattr__(self, "low", low)
            object.__setattr__(self, "high", high)


@dataclasses.dataclass(frozen=True)
class Defaulted:
    items: list[int] = dataclasses.field(default_factory=list)


def test_a_fast_init_keeps_signature_defaults_post_init_and_frozenness():
    signature = inspect.signature(Plain)
    slotted_signature = inspect.signature(Slotted)
    fast_init(Plain)
    fast_init(Slotted)
    assert inspect.signature(Plain) == signature
    assert inspect.signature(Slotted) == slotted_signature
    assert Plain(1) == Plain(a=1, b=()) and hash(Plain(1, (2,))) == hash(Plain(1, (2,)))
    assert repr(Plain(1, (2,))) == "Plain(a=1, b=(2,))"
    assert Slotted(5, 2) == Slotted(low=2, high=5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Plain(1).a = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Slotted(1, 2).low = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        Plain()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        fast_init(Defaulted)

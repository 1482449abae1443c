"""``apply`` checks an action without listing every legal action (``_is_legal``): on random
reachable states, for every deciding seat and a wide range of well-formed actions, the
check must agree with membership in the listed legal actions."""

import random
from itertools import combinations_with_replacement

from services.mortadella import ENGINE
from services.mortadella.engine import _is_legal, _legal
from services.mortadella.model import (
    TOKEN_SYMBOLS,
    ChooseDice,
    ChooseRevolution,
    ChooseStartToken,
    ChooseTarget,
    Effect,
    GuessRole,
    PayCancel,
    PlagueDiscard,
    ResolveEffect,
    Role,
    RollDice,
    StealFrom,
    Symbol,
    UseLombard,
)


def candidates(n: int) -> list:
    actions: list = [ChooseStartToken(s) for s in TOKEN_SYMBOLS]
    actions += [RollDice(False), RollDice(True), UseLombard(False), UseLombard(True), PayCancel(False), PayCancel(True)]
    actions += [GuessRole(t, r) for t in range(n + 1) for r in Role]
    actions += [ChooseDice(dice) for dice in combinations_with_replacement(tuple(Symbol), 3)]
    for size in (1, 2):
        for dice in combinations_with_replacement(tuple(Symbol), size):
            actions += [ResolveEffect(dice, effect) for effect in Effect]
    actions += [ChooseTarget(t) for t in range(n + 1)]
    actions += [ChooseRevolution(t, s) for t in range(n + 1) for s in (Symbol.TOWER, Symbol.BOOK)]
    actions += [PlagueDiscard(Symbol.PEOPLE), PlagueDiscard(Symbol.TOWER)]
    actions += [StealFrom(v) for v in range(n + 1)]
    return actions


def test_the_quick_check_agrees_with_the_listed_actions():
    checked = 0
    for n in range(2, 8):
        pool = candidates(n)
        for seed in range(4):
            chooser = random.Random(seed)
            options = {"additional_rules": "false"} if seed == 3 else {}
            state, _ = ENGINE.new_game(n, options, 60 + seed)
            step = 0
            while deciders := ENGINE.deciders(state):
                if step % 7 == 0:
                    for seat in deciders:
                        legal = set(_legal(state, seat))
                        for action in pool:
                            assert _is_legal(state, seat, action) == (action in legal), (state.phase, action)
                            checked += 1
                seat = chooser.choice(deciders)
                state, _ = ENGINE.apply(state, seat, chooser.choice(ENGINE.legal_actions(state, seat)))
                step += 1
    assert checked > 100_000

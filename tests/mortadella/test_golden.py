"""Golden replays: a fixed seed and recorded actions give the same final state and events.

The digests were generated once by this engine: sha256 of the serialized final GameState
proto, and of the length-prefixed serialized Event protos. A change here means the
engine's behaviour, its use of the RNG or the proto encoding changed: regenerate only on
purpose. The three games cover a 4-player game stopped by the turn limit, a 7-player game
with the setup choice and the Brigand (M20), and a 2-player game with wrong guesses and
redrawn roles (M19).
"""

import hashlib

import pytest

from services.mortadella import CODEC, GAME
from services.mortadella.model import (
    ChooseDice,
    ChooseRevolution,
    ChooseStartToken,
    ChooseTarget,
    EndReason,
    GuessRole,
    PayCancel,
    PlagueDiscard,
    ResolveEffect,
    Role,
    RollDice,
    StealFrom,
    UseLombard,
)
from services.mortadella.model import Effect as E
from tests.engine_harness import replay
from tests.mortadella.builders import B, M, P, R, T, W

GAME_4P = [
    (1, UseLombard(False)),
    (2, ChooseDice((T, B, M))),
    (2, ResolveEffect((B,), E.ACQUIRE_MORTADELLA)),
    (2, ResolveEffect((M,), E.ACQUIRE_MORTADELLA)),
    (3, RollDice(True)),
    (1, UseLombard(True)),
    (3, ChooseDice((B, W, R))),
    (3, ResolveEffect((B,), E.ACQUIRE_MORTADELLA)),
    (3, ResolveEffect((W,), E.DRUNKENNESS)),
    (3, ChooseTarget(2)),
    (0, RollDice(True)),
    (3, UseLombard(True)),
    (0, ChooseDice((P, T, W))),
    (0, ResolveEffect((T,), E.ACQUIRE_TOWER)),
    (0, ResolveEffect((W,), E.DRUNKENNESS)),
    (0, ChooseTarget(1)),
    (1, RollDice(True)),
    (0, UseLombard(True)),
    (1, ChooseDice((P, T, R))),
    (1, ResolveEffect((P,), E.ACQUIRE_PEOPLE)),
    (1, ResolveEffect((T,), E.ACQUIRE_TOWER)),
    (1, PlagueDiscard(T)),
    (0, PlagueDiscard(T)),
    (2, RollDice(True)),
    (1, UseLombard(False)),
    (2, ChooseDice((W, R, R))),
    (2, ResolveEffect((W,), E.DRUNKENNESS)),
    (2, ChooseTarget(1)),
    (2, ResolveEffect((R, R), E.BLACK_DEATH)),
    (3, RollDice(True)),
    (1, UseLombard(True)),
    (3, ChooseDice((M, R, R))),
    (3, ResolveEffect((R,), E.PLAGUE)),
    (3, ResolveEffect((M,), E.ACQUIRE_MORTADELLA)),
    (0, RollDice(False)),
    (3, UseLombard(False)),
    (0, ChooseDice((P, W, R))),
    (0, ResolveEffect((W,), E.DRUNKENNESS)),
    (0, ChooseTarget(0)),
    (0, ResolveEffect((R,), E.PLAGUE)),
    (1, RollDice(True)),
    (3, UseLombard(True)),
    (1, ChooseDice((P, T, W))),
    (1, ResolveEffect((P,), E.ACQUIRE_PEOPLE)),
    (1, ResolveEffect((W,), E.DRUNKENNESS)),
    (1, ChooseTarget(3)),
    (2, RollDice(True)),
    (1, UseLombard(True)),
    (2, ChooseDice((P, B, M))),
    (2, ResolveEffect((B,), E.ACQUIRE_PEOPLE)),
    (2, StealFrom(1)),
    (2, ResolveEffect((P,), E.ACQUIRE_PEOPLE)),
    (3, RollDice(False)),
    (2, UseLombard(False)),
    (3, ChooseDice((T, M, W))),
    (3, ResolveEffect((T,), E.ACQUIRE_TOWER)),
    (3, StealFrom(1)),
    (3, ResolveEffect((W,), E.DRUNKENNESS)),
    (3, ChooseTarget(0)),
    (0, RollDice(False)),
    (2, UseLombard(False)),
    (0, ChooseDice((W, R, R))),
    (0, ResolveEffect((R, R), E.BLACK_DEATH)),
    (2, PlagueDiscard(P)),
    (0, ChooseTarget(2)),
    (1, RollDice(False)),
    (2, UseLombard(False)),
    (1, ChooseDice((M, W, R))),
    (1, ResolveEffect((R,), E.PLAGUE)),
    (1, ResolveEffect((W,), E.DRUNKENNESS)),
    (1, ChooseTarget(0)),
]

GAME_7P = [
    (0, ChooseStartToken(B)),
    (3, ChooseStartToken(T)),
    (2, ChooseStartToken(T)),
    (1, ChooseStartToken(B)),
    (5, ChooseStartToken(T)),
    (4, ChooseStartToken(P)),
    (6, ChooseStartToken(P)),
    (0, UseLombard(False)),
    (1, ChooseDice((B, W, R))),
    (1, ResolveEffect((B,), E.ACQUIRE_TOWER)),
    (1, StealFrom(3)),
    (1, ResolveEffect((W,), E.DRUNKENNESS)),
    (1, ChooseTarget(5)),
    (2, PlagueDiscard(P)),
    (1, PlagueDiscard(P)),
    (5, PlagueDiscard(P)),
    (2, RollDice(True)),
    (0, UseLombard(False)),
    (2, ChooseDice((P, T, M))),
    (2, ResolveEffect((P,), E.ACQUIRE_PEOPLE)),
    (2, ResolveEffect((T,), E.ACQUIRE_TOWER)),
    (3, RollDice(True)),
    (0, UseLombard(False)),
    (3, ChooseDice((P, P, M))),
    (3, ResolveEffect((P, P), E.REVOLUTION)),
    (3, ChooseRevolution(4, B)),
    (4, RollDice(True)),
    (0, UseLombard(True)),
    (4, ChooseDice((P, B, M))),
    (4, ResolveEffect((M,), E.ACQUIRE_MORTADELLA)),
    (4, ResolveEffect((B,), E.DRUNKENNESS)),
    (4, ChooseTarget(4)),
    (4, PayCancel(True)),
    (5, RollDice(True)),
    (4, UseLombard(False)),
    (5, ChooseDice((R, R, R))),
    (5, ResolveEffect((R,), E.PLAGUE)),
    (2, PlagueDiscard(T)),
    (1, PlagueDiscard(P)),
    (5, ResolveEffect((R, R), E.BLACK_DEATH)),
    (2, PlagueDiscard(P)),
    (6, RollDice(False)),
    (4, UseLombard(True)),
    (6, ChooseDice((P, B, R))),
    (6, ResolveEffect((B,), E.ACQUIRE_BOOK)),
    (6, ResolveEffect((P,), E.ACQUIRE_PEOPLE)),
    (2, PlagueDiscard(P)),
    (0, RollDice(False)),
    (6, UseLombard(False)),
    (0, ChooseDice((P, P, T))),
    (0, ResolveEffect((P, P), E.REVOLUTION)),
    (0, ChooseRevolution(3, B)),
    (1, RollDice(False)),
    (6, UseLombard(True)),
    (1, ChooseDice((T, M, W))),
    (1, ResolveEffect((M,), E.ACQUIRE_MORTADELLA)),
    (1, ResolveEffect((T,), E.ACQUIRE_TOWER)),
    (1, StealFrom(0)),
    (1, ChooseTarget(1)),
    (2, RollDice(False)),
    (1, UseLombard(False)),
    (2, ChooseDice((T, T, T))),
    (3, RollDice(False)),
    (1, UseLombard(False)),
    (3, ChooseDice((W, W, W))),
    (3, ResolveEffect((W, W), E.INEBRIATION)),
    (3, ChooseTarget(6)),
    (3, ChooseTarget(4)),
]

GAME_2P = [
    (0, GuessRole(1, Role.CAPTAIN)),
    (1, GuessRole(0, Role.RECTOR)),
    (0, GuessRole(1, Role.PRINCE)),
    (1, UseLombard(False)),
    (1, ChooseDice((T, T, W))),
    (1, ResolveEffect((T,), E.ACQUIRE_TOWER)),
    (1, ResolveEffect((W,), E.DRUNKENNESS)),
    (1, ChooseTarget(0)),
    (0, RollDice(True)),
    (1, UseLombard(False)),
    (0, ChooseDice((T, T, M))),
    (0, ResolveEffect((T,), E.ACQUIRE_TOWER)),
    (0, ResolveEffect((M,), E.ACQUIRE_MORTADELLA)),
    (1, RollDice(False)),
    (1, UseLombard(True)),
    (1, ChooseDice((T, B, M))),
    (1, ResolveEffect((B,), E.DRUNKENNESS)),
    (1, ChooseTarget(0)),
    (1, ResolveEffect((M,), E.ACQUIRE_MORTADELLA)),
    (0, RollDice(True)),
    (0, UseLombard(False)),
    (0, ChooseDice((P, T, W))),
    (0, ResolveEffect((P,), E.ACQUIRE_PEOPLE)),
    (0, ResolveEffect((W,), E.DRUNKENNESS)),
    (0, ChooseTarget(1)),
    (1, RollDice(False)),
    (0, UseLombard(True)),
    (1, ChooseDice((T, W, R))),
    (1, ResolveEffect((T,), E.ACQUIRE_TOWER)),
    (1, ResolveEffect((W,), E.DRUNKENNESS)),
    (1, ChooseTarget(1)),
    (0, PlagueDiscard(P)),
    (0, RollDice(False)),
    (1, UseLombard(True)),
    (0, ChooseDice((B, B, M))),
    (0, ResolveEffect((B, B), E.BLACK_DEATH)),
    (1, RollDice(True)),
    (0, UseLombard(False)),
    (1, ChooseDice((T, T, M))),
    (1, ResolveEffect((T,), E.ACQUIRE_TOWER)),
    (1, ResolveEffect((T,), E.ACQUIRE_TOWER)),
    (0, RollDice(True)),
    (0, UseLombard(False)),
    (0, ChooseDice((T, T, B))),
    (0, ResolveEffect((B,), E.DRUNKENNESS)),
    (0, ChooseTarget(0)),
    (1, RollDice(False)),
    (0, UseLombard(False)),
    (1, ChooseDice((T, B, B))),
    (1, ResolveEffect((B,), E.ACQUIRE_MORTADELLA)),
    (1, ResolveEffect((B,), E.ACQUIRE_TOWER)),
]

GOLDEN = [
    # (players, options, seed, actions, end reason, event count, state digest, events digest)
    (
        4,
        {"max_turns": "12"},
        2024,
        GAME_4P,
        EndReason.TURN_LIMIT,
        140,
        "1f0d004d488203e3ed0e3e9bee6a6c0d4f03259b582aa96eff348e47d0b28dcb",
        "9b87feebc0d1d09064294248b5a3d19d2612d7ca2a148471122fc7b2a248f403",
    ),
    (
        7,
        {"max_turns": "10"},
        77,
        GAME_7P,
        EndReason.TURN_LIMIT,
        145,
        "3e31d3ee1fa3d9887069e45134bcdcf2d78b68b536c1a534ec41cf771d4fd532",
        "5528f2f8401445ee6d8b76920dfe4c709a3af0081d45cb61eac4b1601efe14b1",
    ),
    (
        2,
        {},
        16,
        GAME_2P,
        EndReason.LAST_STANDING,
        111,
        "1a80b5a8577d6254c28134eea0ded48578cc758ce2634b46143de0d7dcd75f9c",
        "9d66af8bf2aef42f1dd3c18875f4b316f005870727f15ad70a842080941cd1b2",
    ),
]


def digests(state, events):
    state_digest = hashlib.sha256(CODEC.state_to_proto(state).SerializeToString(deterministic=True)).hexdigest()
    h = hashlib.sha256()
    for event in events:
        data = CODEC.event_to_proto(event).SerializeToString(deterministic=True)
        h.update(len(data).to_bytes(4, "big"))
        h.update(data)
    return state_digest, h.hexdigest()


@pytest.mark.parametrize(("n", "options", "seed", "actions", "reason", "count", "state_sha", "events_sha"), GOLDEN)
def test_golden_replay(n, options, seed, actions, reason, count, state_sha, events_sha):
    state, events = replay(GAME, n, options, seed, actions)
    assert state.end_reason is reason
    assert GAME.engine.outcome(state) is not None
    assert len(events) == count
    assert digests(state, events) == (state_sha, events_sha)


@pytest.mark.parametrize(("n", "options", "seed", "actions"), [g[:4] for g in GOLDEN])
def test_replays_are_deterministic(n, options, seed, actions):
    first = replay(GAME, n, options, seed, actions)
    second = replay(GAME, n, options, seed, actions)
    assert first == second

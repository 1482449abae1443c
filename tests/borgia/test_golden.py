"""Golden replays: a fixed seed and recorded actions give the same final state and events.

The digests were generated once by this engine (sha256 of the serialized final GameState
proto, and of the length-prefixed serialized events). A change here means the engine's
behaviour, its RNG use or the proto encoding changed: regenerate only on purpose.
"""

import hashlib

import pytest

from services.borgia import GAME
from services.borgia.model import (
    Accuse,
    Allow,
    Bid,
    Bribe,
    Call,
    JudgementPair,
    JudgementSplit,
    Poison,
    Rumor,
)
from services.borgia.model import Cardinal as C
from services.borgia.model import Direction as D
from services.borgia.model import Face as F
from tests.engine_harness import replay

BASE_3P = [
    (2, Bid(5, F.ACCUSATION)),
    (0, Call()),
    (2, Bid(7, F.ACCUSATION)),
    (0, Allow()),
    (2, Accuse(C.ORSINI)),
    (0, Bid(11, F.RUMOR)),
    (1, Call()),
    (0, Bid(12, F.RUMOR)),
    (1, Call()),
    (0, Bid(1, F.ACCUSATION)),
    (1, Allow()),
    (0, Accuse(C.BORGIA)),
    (1, Bid(11, F.ACCUSATION)),
    (2, Allow()),
    (1, Accuse(C.ORSINI)),
    (2, Bid(12, F.JUDGEMENT)),
    (0, Call()),
    (2, Bid(8, F.POISON)),
    (0, Allow()),
    (2, Poison(C.BORGIA, C.COLONNA)),
    (0, Bid(11, F.POISON)),
    (1, Call()),
    (0, Bid(7, F.JUDGEMENT)),
    (1, Allow()),
    (0, JudgementSplit((C.BORGIA, C.MEDICI), (C.COLONNA, C.SFORZA))),
    (1, Bid(8, F.ACCUSATION)),
    (2, Allow()),
    (1, Accuse(C.DELLA_ROVERE)),
    (2, Bid(10, F.JUDGEMENT)),
    (0, Call()),
    (2, Bid(8, F.RUMOR)),
    (0, Allow()),
    (2, Rumor(C.DELLA_ROVERE, 0)),
    (0, Bid(9, F.JUDGEMENT)),
    (1, Call()),
    (0, Bid(3, F.POISON)),
    (1, Call()),
    (0, Poison(C.ORSINI, C.SFORZA)),
    (1, Bid(5, F.JUDGEMENT)),
    (2, Call()),
    (1, Bid(6, F.BRIBE)),
    (2, Call()),
    (1, Bid(4, F.RUMOR)),
    (2, Allow()),
    (1, Rumor(C.SFORZA, 2)),
    (2, Bid(5, F.POISON)),
    (0, Call()),
    (2, Bid(2, F.ACCUSATION)),
    (0, Allow()),
    (2, Accuse(C.COLONNA)),
    (0, Bid(3, F.ACCUSATION)),
    (1, Call()),
]

SHADOW_ALL_VARIANTS_2P = [
    (1, Bid(2, F.RUMOR)),
    (0, Call()),
    (1, Rumor(C.DELLA_ROVERE, 0)),
    (0, Bid(8, F.JUDGEMENT)),
    (1, Call()),
    (0, Bid(2, F.BRIBE)),
    (1, Allow()),
    (0, Bribe(C.MEDICI, D.TOP)),
    (1, Bid(10, F.BRIBE)),
    (0, Call()),
    (1, Bid(3, F.RUMOR)),
    (0, Allow()),
    (1, Rumor(C.MEDICI, 0)),
    (0, Bid(7, F.JUDGEMENT)),
    (1, Allow()),
    (0, JudgementPair(C.ORSINI, C.COLONNA)),
    (1, Bid(9, F.RUMOR)),
    (0, Call()),
    (1, Bid(8, F.JUDGEMENT)),
    (0, Call()),
    (1, Bid(1, F.RUMOR)),
    (0, Call()),
    (1, Rumor(C.SFORZA, 0, C.MEDICI)),
    (0, Bid(3, F.RUMOR)),
    (1, Allow()),
    (0, Rumor(C.BORGIA, 1)),
    (1, Bid(6, F.POISON)),
    (0, Call()),
    (1, Bid(4, F.POISON)),
    (0, Allow()),
    (1, Poison(C.DELLA_ROVERE, C.COLONNA)),
    (0, Bid(5, F.BRIBE)),
    (1, Call()),
    (0, Bid(1, F.RUMOR)),
    (1, Allow()),
    (0, Rumor(C.ORSINI, 1)),
    (1, Bid(3, F.BRIBE)),
    (0, Allow()),
    (1, Bribe(C.DELLA_ROVERE, D.TOP)),
    (0, Bid(4, F.JUDGEMENT)),
    (1, Call()),
    (0, Bid(3, F.POISON)),
    (1, Call()),
]


def digests(state, events):
    state_digest = hashlib.sha256(GAME.codec.state_to_proto(state).SerializeToString(deterministic=True)).hexdigest()
    events_digest = hashlib.sha256()
    for event in events:
        encoded = GAME.codec.event_to_proto(event).SerializeToString(deterministic=True)
        events_digest.update(len(encoded).to_bytes(4, "big"))
        events_digest.update(encoded)
    return state_digest, events_digest.hexdigest()


@pytest.mark.parametrize(
    ("players", "options", "seed", "actions", "summary", "state_digest", "events_digest"),
    [
        (
            3,
            {},
            2024,
            BASE_3P,
            "Medici elected pope; seat 1 wins",
            "b0154845971474dd63a824a95b133730e8cfb5d99e27aa02950abb2379d4d2d9",
            "b701457d0add109ac230fd7daa2fa553a8fd03f9f536168c9c7e4b9782e5cc37",
        ),
        (
            2,
            {"shadow_puppets": "true", "flame_of_thy_tongue": "true", "poisoned_dice": "true"},
            7,
            SHADOW_ALL_VARIANTS_2P,
            "Della Rovere elected pope; nobody wins",
            "7831b3adddb630e69c7edaeaaba5e0edc5adcb0e28fdd2a913004399e6bc90dc",
            "f4b5142c4543b7bd28bb898a2b59f34071c1950504eb6f347b79644218fdcb70",
        ),
    ],
    ids=["3p-base", "2p-shadow-flame-poisoned"],
)
def test_golden_replay(players, options, seed, actions, summary, state_digest, events_digest):
    state, events = replay(GAME, players, options, seed, actions)
    assert GAME.engine.outcome(state).summary == summary
    assert digests(state, events) == (state_digest, events_digest)

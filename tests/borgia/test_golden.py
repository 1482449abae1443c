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
    Poison,
    Rumor,
)
from services.borgia.model import Cardinal as C
from services.borgia.model import Direction as D
from services.borgia.model import Face as F
from tests.engine_harness import replay

BASE_3P = [
    (0, Bid(5, F.ACCUSATION)),
    (1, Call()),
    (0, Accuse(C.SFORZA)),
    (1, Bid(14, F.ACCUSATION)),
    (2, Call()),
    (1, Bid(11, F.ACCUSATION)),
    (2, Allow()),
    (1, Accuse(C.COLONNA)),
    (2, Bid(12, F.ACCUSATION)),
    (0, Call()),
    (2, Bid(12, F.BRIBE)),
    (0, Call()),
    (2, Bid(9, F.BRIBE)),
    (0, Allow()),
    (2, Bribe(C.DELLA_ROVERE, D.TOP)),
    (0, Bid(11, F.POISON)),
    (1, Call()),
    (0, Bid(5, F.BRIBE)),
    (1, Allow()),
    (0, Bribe(C.SFORZA, D.TOP)),
    (1, Bid(8, F.ACCUSATION)),
    (2, Call()),
    (1, Bid(3, F.RUMOR)),
    (2, Allow()),
    (1, Rumor(C.COLONNA, 2)),
    (2, Bid(7, F.RUMOR)),
    (0, Allow()),
    (2, Rumor(C.DELLA_ROVERE, 1)),
    (0, Bid(9, F.BRIBE)),
    (1, Call()),
    (0, Bid(7, F.POISON)),
    (1, Allow()),
    (0, Poison(C.MEDICI, C.MEDICI)),
    (1, Bid(8, F.JUDGEMENT)),
    (2, Call()),
    (1, Bid(5, F.POISON)),
    (2, Call()),
]

SHADOW_ALL_VARIANTS_2P = [
    (1, Bid(2, F.RUMOR)),
    (0, Call()),
    (1, Rumor(C.BORGIA, 0)),
    (0, Bid(8, F.JUDGEMENT)),
    (1, Call()),
    (0, Bid(2, F.BRIBE)),
    (1, Allow()),
    (0, Bribe(C.MEDICI, D.TOP)),
    (1, Bid(10, F.BRIBE)),
    (0, Call()),
    (1, Bid(3, F.RUMOR)),
    (0, Allow()),
    (1, Rumor(C.DELLA_ROVERE, 0)),
    (0, Bid(7, F.JUDGEMENT)),
    (1, Allow()),
    (0, JudgementPair(C.ORSINI, C.COLONNA)),
    (1, Bid(9, F.RUMOR)),
    (0, Call()),
    (1, Bid(8, F.JUDGEMENT)),
    (0, Call()),
    (1, Bid(1, F.RUMOR)),
    (0, Call()),
    (1, Rumor(C.SFORZA, 0, C.DELLA_ROVERE)),
    (0, Bid(3, F.RUMOR)),
    (1, Allow()),
    (0, Rumor(C.DELLA_ROVERE, 1)),
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
    (1, Bribe(C.BORGIA, D.BOTTOM)),
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
            "Sforza elected pope; seat 2 wins",
            "8aa6befe21af8c0ee02f31dd4c14b583e32adefc1e26ce8705d8d97a2877ea39",
            "b94a912753a33476f9246d0a1e26eac8fcb15172e5478ab1103a3b5c9de6d0d2",
        ),
        (
            2,
            {"shadow_puppets": "true", "flame_of_thy_tongue": "true", "poisoned_dice": "true"},
            7,
            SHADOW_ALL_VARIANTS_2P,
            "Medici elected pope; seat 0 wins",
            "5a7fcdde7d0a5d55e4ed291cbc906fa68a3b49f1d369da951c5f3655200e1fa4",
            "5777be7f38370d8db1ac29fc27c0555569474b0c70d59400e988b4441c532a30",
        ),
    ],
    ids=["3p-base", "2p-shadow-flame-poisoned"],
)
def test_golden_replay(players, options, seed, actions, summary, state_digest, events_digest):
    state, events = replay(GAME, players, options, seed, actions)
    assert GAME.engine.outcome(state).summary == summary
    assert digests(state, events) == (state_digest, events_digest)

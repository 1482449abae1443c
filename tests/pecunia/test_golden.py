"""Golden replay: a fixed seed and a recorded action list give exactly the same final state
and events. The recorded actions (tests/pecunia/golden_replay.json, Action protos as JSON) were
produced once by a random playout of this engine; the digests below were generated once from
that replay. A change to either digest is a change of the game's behaviour: review it, then
regenerate both deliberately.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from google.protobuf import json_format

from services.pecunia import GAME
from services.pecunia.model import EndReason
from tavola.pecunia.v1 import pecunia_pb2 as pb
from tests.engine_harness import random_playout, replay

RECORD = json.loads((Path(__file__).parent / "golden_replay.json").read_text())
STATE_SHA256 = "df6e63e2159029988ecbb49dc30db7a0325c065f7204f90263f167736754cf01"
EVENTS_SHA256 = "71766bd9f23ceb0630e10fa4a60e5ad92083527f5106b75d77439bfd7df258cf"


def _actions():
    return [
        (seat, GAME.codec.action_from_proto(json_format.ParseDict(message, pb.Action())))
        for seat, message in RECORD["actions"]
    ]


def _digests(state, events) -> tuple[str, str]:
    codec = GAME.codec
    state_digest = hashlib.sha256(codec.state_to_proto(state).SerializeToString(deterministic=True)).hexdigest()
    events_hash = hashlib.sha256()
    for event in events:
        data = codec.event_to_proto(event).SerializeToString(deterministic=True)
        events_hash.update(len(data).to_bytes(4, "big") + data)
    return state_digest, events_hash.hexdigest()


def test_golden_replay_gives_the_recorded_final_state_and_events():
    state, events = replay(GAME, RECORD["players"], RECORD["options"], RECORD["seed"], _actions())
    assert GAME.engine.outcome(state).winners == (1,)
    assert state.end_reason is EndReason.TARGET_REACHED and state.coins == (14, 20, 10, 13)
    assert _digests(state, events) == (STATE_SHA256, EVENTS_SHA256)


def test_golden_record_is_what_the_seeded_random_playout_plays():
    playout = random_playout(GAME, RECORD["players"], RECORD["options"], RECORD["seed"])
    assert playout.actions == _actions()
    assert _digests(playout.state, playout.events) == (STATE_SHA256, EVENTS_SHA256)

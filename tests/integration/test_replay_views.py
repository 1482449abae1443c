"""GetReplay with views: at every step a viewer gets exactly the view it was served then,
by GetView (a seat) or GetTable (a spectator), and never more; the same rules of who may
read which replay as without views; a log that does not replay is said so."""

import random
import time

import grpc
import pytest
import redis
from google.protobuf import any_pb2

from common import auth
from common.errors import reason_of
from gateway.log_record import LogEntry, StoredEntry
from gateway.replay import commands
from services.registry import player_counts
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2
from tests.integration.bot_tables import create_bot_table, spectate
from tests.integration.conftest import HumanTable
from tests.integration.games import CASES

Viewer = int | None


class Recorder:
    """What each viewer was served at each version of a table being played."""

    def __init__(self, table: HumanTable):
        self.table = table
        self.served: dict[Viewer, dict[int, bytes]] = {seat: {} for seat in table.tokens}
        self.served[None] = {}

    def look(self) -> None:
        for seat in self.table.tokens:
            reply = self.table.view(seat)
            self.served[seat][reply.table.version] = reply.view.SerializeToString()
        spectator = self.table.stub.GetTable(gw.GetTableRequest(table_id=self.table.table_id))
        self.served[None][spectator.table.version] = spectator.spectator_view.SerializeToString()

    def play(self, rng: random.Random, moves: int | None = None) -> gw.Table:
        """Random legal actions, looking at every version, until the end (or ``moves``)."""
        self.look()
        while (summary := self.table.table()).status == gw.TABLE_STATUS_IN_PROGRESS and moves != 0:
            seat = summary.deciding_seats[0]
            legal = list(self.table.view(seat).legal_actions)
            self.table.submit(seat, rng.choice(legal).action)
            self.look()
            moves = None if moves is None else moves - 1
        return summary


def versions_of(replays: list[gw.GetReplayResponse]) -> dict[int, int]:
    """Each step's version, from whichever replay shows the step's event."""
    return {step.seq: step.event.version for replay in replays for step in replay.steps if step.HasField("event")}


def get_replay(gateway, table_id: str, seat: Viewer, token: str | None = None) -> gw.GetReplayResponse:
    request = gw.GetReplayRequest(table_id=table_id, seat=seat, with_views=True)
    return gateway.GetReplay(request, metadata=auth.metadata(token) if token else None, timeout=60)


def assert_views_as_served(replay: gw.GetReplayResponse, served: dict[int, bytes], versions: dict[int, int]) -> int:
    """Every step's view equals, byte for byte, what was served at the step's version;
    no view before the start. Returns the number of steps compared."""
    compared = 0
    started = False
    for step in replay.steps:
        started |= step.event.HasField("table_started")
        if not started:
            assert not step.HasField("view"), step
            continue
        assert step.HasField("view"), step
        version = versions[step.seq]
        if version in served:
            assert step.view.SerializeToString() == served[version], f"seq {step.seq} version {version}"
            compared += 1
    assert replay.steps[-1].view == replay.view  # the last step's view is the view now
    return compared


def test_each_step_holds_the_view_each_viewer_was_served_then(gateway):
    table = HumanTable(gateway, players=3, seed=None)
    table.start()
    recorder = Recorder(table)
    final = recorder.play(random.Random(5))
    assert final.status == gw.TABLE_STATUS_FINISHED
    viewers: list[Viewer] = [None, 0, 1, 2]
    replays = {viewer: get_replay(gateway, table.table_id, viewer) for viewer in viewers}
    versions = versions_of(list(replays.values()))
    for viewer, replay in replays.items():
        compared = assert_views_as_served(replay, recorder.served[viewer], versions)
        # Every version but the start's (dealt with the seats' last arrival) was looked at.
        assert compared >= len(recorder.served[viewer]) - 1
        assert compared > 10
    case = CASES["borgia"]
    for viewer, replay in replays.items():  # nobody's view shows another seat's secrets
        for step in replay.steps:
            if step.HasField("view"):
                assert case.view_leaks(case.unpack(step.view, case.view_type), viewer) == []
    # Without with_views, no views at all, and the same steps.
    plain = gateway.GetReplay(gw.GetReplayRequest(table_id=table.table_id, seat=1))
    assert not any(step.HasField("view") for step in plain.steps)
    for step in replays[1].steps:
        step.ClearField("view")
    assert list(plain.steps) == list(replays[1].steps)


def test_while_the_game_runs_a_seat_replays_its_own_views_and_only_with_its_token(gateway):
    table = HumanTable(gateway, players=2, seed=None)
    table.start()
    recorder = Recorder(table)
    recorder.play(random.Random(6), moves=6)
    own = get_replay(gateway, table.table_id, 0, table.tokens[0])
    assert own.table.status == gw.TABLE_STATUS_IN_PROGRESS
    spectator = get_replay(gateway, table.table_id, None)
    versions = versions_of([own, spectator])
    assert assert_views_as_served(own, recorder.served[0], versions) >= 6
    assert assert_views_as_served(spectator, recorder.served[None], versions) >= 6
    assert own.view.value == table.view(0).view.value
    for token in (None, table.tokens[1]):
        with pytest.raises(grpc.RpcError) as caught:
            get_replay(gateway, table.table_id, 0, token)
        assert reason_of(caught.value) in ("TOKEN_MISSING", "TOKEN_NOT_FOR_TABLE")


def test_a_random_action_for_a_late_seat_shares_its_command_view(gateway):
    timer = gw.DecisionTimer(seconds=1, policy=gw.TIMEOUT_POLICY_RANDOM_ACTION)
    table = HumanTable(gateway, players=2, seed=None, decision_timer=timer)
    table.start()
    recorder = Recorder(table)
    recorder.look()
    expired_at = table.table().version + 1
    deadline = time.monotonic() + 30
    while table.table().version < expired_at:  # the timer plays for the late seat
        assert time.monotonic() < deadline
        time.sleep(0.05)
    recorder.look()
    final = recorder.play(random.Random(7))
    assert final.status == gw.TABLE_STATUS_FINISHED
    replays = [get_replay(gateway, table.table_id, viewer) for viewer in (None, 0, 1)]
    versions = versions_of(replays)
    expired = [step for step in replays[0].steps if step.event.HasField("decision_expired")]
    assert expired and expired[0].event.version == expired_at
    for viewer, replay in zip((None, 0, 1), replays, strict=True):
        assert assert_views_as_served(replay, recorder.served[viewer], versions) > 0
        at_expiry = [step.view for step in replay.steps if versions.get(step.seq) == expired_at]
        assert len(at_expiry) > 1 and all(view == at_expiry[0] for view in at_expiry)
        assert at_expiry[0].SerializeToString() == recorder.served[viewer][expired_at]


@pytest.mark.parametrize("game", list(CASES))
def test_bot_games_replay_with_views_that_hide_what_the_seat_did_not_know(gateway, game):
    case = CASES[game]
    counts = player_counts(game)
    players = min(max(3, counts[0]), counts[-1])
    table_id = create_bot_table(gateway, game, players=players)
    spectate(gateway, table_id)  # to the end
    for viewer in (None, 1):
        replay = get_replay(gateway, table_id, viewer)
        assert replay.table.status == gw.TABLE_STATUS_FINISHED
        views = [step.view for step in replay.steps if step.HasField("view")]
        assert len(views) > 2 and views[-1] == replay.view
        for packed in views:
            view = case.unpack(packed, case.view_type)
            assert case.view_leaks(view, viewer) == [], view


def test_a_log_that_does_not_replay_from_the_seed_is_refused_plainly(gateway, stack):
    table = HumanTable(gateway, players=2, seed=None)
    table.start()
    Recorder(table).play(random.Random(8))
    client = redis.Redis.from_url(stack.redis_url)
    key = f"{stack.key_prefix}:{{{table.table_id}}}:table"
    record = store_pb2.TableRecord.FromString(client.hget(key, "record"))
    record.seed ^= 1  # the stored seed no longer deals this game
    client.hset(key, "record", record.SerializeToString())
    client.close()
    with pytest.raises(grpc.RpcError) as caught:
        get_replay(gateway, table.table_id, 0)
    assert caught.value.code() == grpc.StatusCode.DATA_LOSS
    assert reason_of(caught.value) == "REPLAY_MISMATCH"
    assert gateway.GetReplay(gw.GetReplayRequest(table_id=table.table_id, seat=0)).steps  # the log itself reads


def test_an_open_table_replays_without_views(gateway):
    table = HumanTable(gateway, players=2, seed=None)
    replay = get_replay(gateway, table.table_id, None)
    assert replay.steps and not any(step.HasField("view") for step in replay.steps)
    assert not replay.HasField("view")


def _entry(seq: int, event: gw.TableEvent | None = None, action: int | None = None, seats=()) -> StoredEntry:
    data = event.SerializeToString() if event is not None else b""
    entry = LogEntry(spectator=b"" if seats else data, seats=dict.fromkeys(seats, data))
    if action is not None:
        taken = store_pb2.SeatAction(seat=action, action=any_pb2.Any(type_url="type.googleapis.com/game.v1.Action"))
        entry.action = taken.SerializeToString()
    version = event.version if event is not None else 0
    type_urls: list[str] = []
    return StoredEntry(seq=seq, data=entry.record(type_urls, version, 0).SerializeToString(), type_urls=type_urls)


def test_the_log_is_cut_into_commands_even_where_nobody_saw_an_entry():
    event = gw.TableEvent
    game = gw.TableEvent(game_event={})
    log = [
        _entry(1, event(version=1, seat_taken=gw.SeatTaken(seat=0))),
        _entry(2, event(version=2, seat_taken=gw.SeatTaken(seat=1))),
        _entry(3, event(version=2, table_started=gw.TableStarted())),
        _entry(4, event(version=2, game_event=game.game_event)),
        _entry(5, None, action=0),  # an action nobody saw anything of
        _entry(6, event(version=3, game_event=game.game_event), seats=(1,)),  # only seat 1 saw it
        _entry(7, event(version=4, game_event=game.game_event), action=1),
        _entry(
            8, event(version=5, decision_expired=gw.DecisionExpired(seat=0, policy=gw.TIMEOUT_POLICY_RANDOM_ACTION))
        ),
        _entry(9, None, action=0),  # the random action, in the expiry's command
        _entry(
            10, event(version=6, decision_expired=gw.DecisionExpired(seat=1, policy=gw.TIMEOUT_POLICY_BOT_TAKES_SEAT))
        ),
        _entry(11, None, action=0),  # a bot took seat 1; this is the next command
        _entry(12, None),  # an event nobody saw, of the same command
    ]
    cut = commands(log)
    assert [c.size for c in cut] == [1, 3, 2, 1, 2, 1, 2]
    assert [c.starts_game for c in cut] == [False, True, False, False, False, False, False]
    assert [[a.seat for a in c.actions] for c in cut] == [[], [], [0], [1], [0], [], [0]]
    assert [c.version for c in cut] == [1, 2, 3, 4, 5, 6, None]

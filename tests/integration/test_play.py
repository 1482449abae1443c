"""Whole games of every hosted game through the gateway: every seat played by the test
as a client, watched live by each seat and a spectator; the log resumes from any
sequence number; no seat ever sees another seat's secrets before the end, and
spectators see none."""

import random
import threading

import grpc
import pytest

from common import auth
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.conftest import HumanTable
from tests.integration.games import CASES, GameCase

PLAYS = [(case, players, options) for case in CASES.values() for players, options in case.tables]


def collect(stream, into: list, errors: list) -> None:
    try:
        for message in stream:
            into.append(message.event)
    except grpc.RpcError as error:  # reported by the test
        errors.append(error)


def play_to_end(table: HumanTable, chooser: random.Random, case: GameCase | None = None) -> int:
    """Random legal actions for whichever seat must decide, checking every seat's view."""
    actions = 0
    while True:
        summary = table.table()
        if summary.status == gw.TABLE_STATUS_FINISHED:
            return actions
        seat = chooser.choice(list(summary.deciding_seats))
        response = table.view(seat)
        assert response.must_decide and response.legal_actions
        if case is not None and actions % 3 == 0:
            for viewer in table.tokens:
                view = case.unpack(table.view(viewer).view, case.view_type)
                assert not case.view_leaks(view, viewer), f"leak to seat {viewer}"
        choice = chooser.choice(list(response.legal_actions))
        table.submit(seat, choice.action, expected_version=response.table.version, request_id=f"a{actions}")
        actions += 1


def watch(gateway, table: HumanTable, viewer: int | None):
    if viewer is None:
        return gateway.SpectateTable(gw.SpectateTableRequest(table_id=table.table_id), timeout=300)
    return gateway.WatchTable(
        gw.WatchTableRequest(table_id=table.table_id), metadata=auth.metadata(table.tokens[viewer]), timeout=300
    )


@pytest.mark.parametrize(
    ("case", "players", "options"), PLAYS, ids=[f"{c.game}-{p}p-{'-'.join(o) or 'base'}" for c, p, o in PLAYS]
)
def test_a_whole_game_streams_to_every_seat_and_spectator(gateway, case: GameCase, players, options):
    table = HumanTable(gateway, players=players, options=options, seed=100 + players, game=case.game)
    collected, errors, threads = {}, [], []
    for viewer in [None, *table.tokens]:
        collected[viewer] = []
        thread = threading.Thread(
            target=collect, args=(watch(gateway, table, viewer), collected[viewer], errors), daemon=True
        )
        thread.start()
        threads.append(thread)

    table.start()
    actions = play_to_end(table, random.Random(players), case)
    for thread in threads:
        thread.join(timeout=60)
    assert not errors

    final = table.table()
    assert final.status == gw.TABLE_STATUS_FINISHED and final.outcome.summary
    assert final.version == 1 + players + 1 + actions  # created, seats taken, started, actions

    for viewer, events in collected.items():
        seqs = [event.seq for event in events]
        assert seqs == sorted(set(seqs)), "strictly increasing sequence numbers"
        assert events[-1].HasField("game_finished")
        assert events[-1].game_finished.outcome == final.outcome
        game_events = [case.unpack(e.game_event, case.event_type) for e in events if e.HasField("game_event")]
        # The last game event is the game's end, which may reveal; everything before must not.
        for event in game_events[:-1]:
            assert not case.event_leaks(event, viewer), f"leak to {viewer}: {event}"


def test_watch_resumes_from_any_sequence_number(gateway):
    table = HumanTable(gateway, players=3, seed=9)
    table.start()
    play_to_end(table, random.Random(3))
    token = auth.metadata(table.tokens[1])
    whole = [m.event for m in gateway.WatchTable(gw.WatchTableRequest(table_id=table.table_id), metadata=token)]
    middle = whole[len(whole) // 2].seq
    rest = [
        m.event
        for m in gateway.WatchTable(gw.WatchTableRequest(table_id=table.table_id, after_seq=middle), metadata=token)
    ]
    assert rest == [event for event in whole if event.seq > middle]
    spectated = [m.event for m in gateway.SpectateTable(gw.SpectateTableRequest(table_id=table.table_id))]
    # The game's end is public; only its text names the watching player "(you)".
    player_end, spectator_end = whole[-1], spectated[-1]
    assert spectator_end.text == player_end.text.replace(" (you)", "")
    player_end.ClearField("text")
    spectator_end.ClearField("text")
    assert spectator_end == player_end


def test_the_end_reveals_every_puppet_to_everyone(gateway):
    """B9: all puppets are revealed at the end, spectators included."""
    table = HumanTable(gateway, players=4, seed=21)
    table.start()
    play_to_end(table, random.Random(4))
    response = gateway.GetTable(gw.GetTableRequest(table_id=table.table_id))
    view = CASES["borgia"].unpack(response.spectator_view, CASES["borgia"].view_type)
    assert {puppets.seat for puppets in view.result.puppets} == set(range(4))
    assert all(p.puppets and not p.hidden for p in view.result.puppets)


def test_batched_streams_bring_the_same_events_a_command_at_a_time(gateway):
    """With ``batched``, a response holds every event the gateway has for the stream at
    once (in ``events``, ``event`` unset): the backlog, then each command's entries;
    flattened, the very events of a stream of one event a response, seat and spectator."""
    table = HumanTable(gateway, players=3, seed=12)
    token = auth.metadata(table.tokens[1])
    streams = {
        "seat": gateway.WatchTable(gw.WatchTableRequest(table_id=table.table_id, batched=True), metadata=token),
        "spectator": gateway.SpectateTable(gw.SpectateTableRequest(table_id=table.table_id, batched=True)),
    }
    received: dict[str, list] = {name: [] for name in streams}
    errors: list = []

    def read(name: str) -> None:
        try:
            received[name].extend(streams[name])
        except grpc.RpcError as error:
            errors.append(error)

    threads = [threading.Thread(target=read, args=(name,)) for name in streams]
    for thread in threads:
        thread.start()
    table.start()
    play_to_end(table, random.Random(5))
    for thread in threads:
        thread.join(timeout=60)
    assert not errors
    one_each = {
        "seat": [m.event for m in gateway.WatchTable(gw.WatchTableRequest(table_id=table.table_id), metadata=token)],
        "spectator": [m.event for m in gateway.SpectateTable(gw.SpectateTableRequest(table_id=table.table_id))],
    }
    for name, responses in received.items():
        assert all(not response.HasField("event") and response.events for response in responses)
        assert [event for response in responses for event in response.events] == one_each[name]
        assert len(responses) < len(one_each[name])  # some response held several
    # The whole log of a finished table, batched too.
    after = gateway.SpectateTable(gw.SpectateTableRequest(table_id=table.table_id, after_seq=2, batched=True))
    assert [event for response in after for event in response.events] == [
        event for event in one_each["spectator"] if event.seq > 2
    ]

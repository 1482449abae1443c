"""The event log's stored format (gateway/log_record.py): every viewer reads back exactly the
bytes it was given, and each part the viewers share is stored once."""

from google.protobuf import any_pb2, timestamp_pb2

from gateway.log_record import LogEntry, StoredEntry
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2

STAMP = timestamp_pb2.Timestamp(seconds=1_796_054_459, nanos=53_512_439)
EVENT_TYPE = "type.tavola.dev/tavola.borgia.v1.Event"
ACTION_TYPE = "type.tavola.dev/tavola.borgia.v1.Action"
VIEWERS = [None, 0, 1, 2, 3]


def _event(seq: int, **body) -> bytes:
    return gw.TableEvent(seq=seq, version=7, time=STAMP, **body).SerializeToString()


def _game(seq: int, value: bytes, type_url: str = EVENT_TYPE) -> bytes:
    return _event(seq, game_event=any_pb2.Any(type_url=type_url, value=value))


def _whole_events(entry: LogEntry) -> int:
    """The bytes of every viewer's event whole, each kept apart."""
    return len(entry.spectator) + sum(map(len, entry.seats.values()))


def _entries() -> list[tuple[int, LogEntry]]:
    taken = store_pb2.SeatAction(seat=1, action=any_pb2.Any(type_url=ACTION_TYPE, value=b"\x08\x02"))
    action = taken.SerializeToString()
    return [
        (1, LogEntry(spectator=_event(1, seat_taken=gw.SeatTaken(seat=0, kind=gw.SEAT_KIND_BOT, display_name="b")))),
        (2, LogEntry(spectator=_event(2, table_started=gw.TableStarted(deciding_seats=[1], seed_commitment=b"c")))),
        (3, LogEntry(spectator=_game(3, b"\x0a\x03pub"))),
        # Private cards: every seat its own, the spectators another.
        (4, LogEntry(spectator=_game(4, b"spec"), seats={0: _game(4, b"zero"), 1: _game(4, b"one"), 2: b""})),
        # Seen by one seat only.
        (5, LogEntry(spectator=b"", seats={2: _game(5, b"two")})),
        # Nobody sees the action's own entry.
        (6, LogEntry(spectator=b"", action=action)),
        (7, LogEntry(spectator=_game(7, b"", type_url="type.example/other.Event"), action=action)),
        (8, LogEntry(spectator=_event(8, decision_expired=gw.DecisionExpired(seat=3)), revoked_seat=3)),
        (9, LogEntry(spectator=_event(9, game_finished=gw.GameFinished()), end=True)),
        (10, LogEntry(spectator=_game(10, b"x"), seats={0: b""})),
    ]


def test_every_viewer_reads_back_what_it_was_given() -> None:
    type_urls: list[str] = []
    for seq, entry in _entries():
        stored = StoredEntry(
            seq=seq, data=entry.record(type_urls, 7, STAMP.ToNanoseconds()).SerializeToString(), type_urls=type_urls
        )
        for viewer in VIEWERS:
            expected = entry.seats.get(viewer, entry.spectator) if viewer is not None else entry.spectator
            assert stored.for_viewer(viewer) == expected, (seq, viewer)
            assert stored.revokes(viewer) == (viewer is not None and viewer == entry.revoked_seat)
        assert stored.action == entry.action
        assert stored.is_end == entry.end
        assert stored.seen() == next((data for data in (entry.spectator, *entry.seats.values()) if data), b"")
        assert stored.time_ns == STAMP.ToNanoseconds()
    assert type_urls == [EVENT_TYPE, ACTION_TYPE, "type.example/other.Event"]


def test_each_shared_part_is_stored_once() -> None:
    for seq, entry in _entries():
        type_urls: list[str] = []
        stored = len(entry.record(type_urls, 7, STAMP.ToNanoseconds()).SerializeToString())
        marks = 2 * (entry.end + (entry.revoked_seat is not None))  # a field each: a tag and a value
        assert stored <= _whole_events(entry) + len(entry.action) + marks, seq
    private = _entries()[3][1]
    assert len(private.record([], 7, STAMP.ToNanoseconds()).SerializeToString()) * 2 < _whole_events(private)

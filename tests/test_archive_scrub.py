"""A deleted account's names leave an archived table (gateway/archive.py ``scrub``): its
seats' names everywhere the record, the names list and the log write them, and nothing of
the other seats or of the game itself."""

from common.phrase_wire import to_proto
from common.phrases import Seat, Term, phrase
from gateway.archive import DELETED_NAME, scrub
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2


def _table() -> tuple[bytes, bytes, list[tuple[int, bytes]]]:
    record = store_pb2.TableRecord(seed=42)
    record.table.seats.add(seat=0, display_name="Ottoline", player_id="p1", kind=gw.SEAT_KIND_HUMAN, taken=True)
    record.table.seats.add(seat=1, display_name="bea", player_id="p2", kind=gw.SEAT_KIND_HUMAN, taken=True)
    types = store_pb2.TypeUrls(type_urls=["type.example/Event"])
    types.seat_names.add(from_seq=3, names=["Ottoline", "bea"])
    joined = gw.TableEvent(text="Ottoline sits down.", seat_taken=gw.SeatTaken(seat=0, display_name="Ottoline"))
    other = gw.TableEvent(text="bea sits down.", seat_taken=gw.SeatTaken(seat=1, display_name="bea"))
    entries = []
    for seq, event in ((1, joined), (2, other)):
        log = store_pb2.LogRecord(version=seq)
        log.public.table_event = event.SerializeToString()
        entries.append((seq, log.SerializeToString()))
    told = store_pb2.LogRecord(version=3)  # a game event: its phrase names seats by number only
    told.public.game_event = b"\x08\x01"
    told.public.phrase = to_proto(
        phrase("borgia.bid-made", Seat(0), phrase("borgia.bid", 3, Term("borgia.face.bribe")))
    ).SerializeToString()
    entries.append((3, told.SerializeToString()))
    return record.SerializeToString(), types.SerializeToString(), entries


def test_the_players_names_go_and_nothing_else_changes():
    data, types, entries = _table()
    new_data, new_types, changed = scrub(data, types, entries, "p1")
    record = store_pb2.TableRecord.FromString(new_data)
    assert [(s.display_name, s.player_id) for s in record.table.seats] == [(DELETED_NAME, ""), ("bea", "p2")]
    assert record.seed == 42
    assert list(store_pb2.TypeUrls.FromString(new_types).seat_names[0].names) == [DELETED_NAME, "bea"]
    # The other seat's entry is untouched, and so is the game event: its phrase names the
    # seat by number, and the names it is told with are the scrubbed list's.
    assert [seq for seq, _ in changed] == [1]
    joined = gw.TableEvent.FromString(store_pb2.LogRecord.FromString(changed[0][1]).public.table_event)
    assert (joined.text, joined.seat_taken.display_name) == (f"{DELETED_NAME} sits down.", DELETED_NAME)
    assert "Ottoline" not in repr((new_data, new_types, changed))


def test_a_table_without_the_player_is_left_as_it_is():
    data, types, entries = _table()
    new_data, new_types, changed = scrub(data, types, entries, "someone-else")
    assert (new_data, new_types, changed) == (data, types, [])

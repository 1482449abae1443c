"""The log keeps a phrase with its ids and terms by index in the table's list of strings
(gateway/phrase_store.py): read back, it is the phrase the rules service sent, and each
string is written once however often the log uses it."""

from common.phrase_wire import to_proto
from common.phrases import Seat, Term, items, phrase
from gateway import phrase_store


def test_a_logged_phrase_reads_back_as_sent_each_string_once():
    bid = phrase("borgia.bid", 3, Term("borgia.face.bribe"))
    said = phrase("borgia.dice-revealed", 2, Term("borgia.face.bribe"), items([Seat(0), -4, "{0}"], "unit"), bid)
    strings: list[str] = ["type.googleapis.com/tavola.borgia.v1.Event"]
    kept = phrase_store.stored(to_proto(said).SerializeToString(), strings)
    again = phrase_store.stored(to_proto(said).SerializeToString(), strings)
    assert kept == again
    assert strings == [
        "type.googleapis.com/tavola.borgia.v1.Event",
        "borgia.dice-revealed",
        "borgia.face.bribe",
        "borgia.bid",
    ]
    assert phrase_store.read(kept, strings) == said
    assert len(kept) < len(to_proto(said).SerializeToString()) / 2


def test_a_damaged_phrase_is_none():
    assert phrase_store.read(b"\x08\x63", ["a"]) is None  # index 99 of a list of one
    assert phrase_store.read(b"\xff\xff", ["a"]) is None

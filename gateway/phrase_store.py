"""Phrases as the log keeps them (``StoredPhrase``): a phrase's message ids and terms by
their index in the table's list of strings (``TableRecord.type_urls``), each written once a
table, which makes a finished table's phrases about half their size."""

from collections.abc import MutableSequence, Sequence

from google.protobuf.message import DecodeError

from common.phrases import Arg, Items, Phrase, Seat, Term
from tavola.rules.v1 import rules_pb2
from tavola.store.v1 import store_pb2


def string_index(strings: MutableSequence[str], string: str) -> int:
    """``string``'s index in the table's list, added at its first use."""
    for index, known in enumerate(strings):
        if known == string:
            return index
    strings.append(string)
    return len(strings) - 1


def stored(data: bytes, strings: MutableSequence[str]) -> bytes:
    """A rules service's Phrase (serialized) as the log keeps it."""
    return _stored(rules_pb2.Phrase.FromString(data), strings).SerializeToString()


def _stored(said: rules_pb2.Phrase, strings: MutableSequence[str]) -> store_pb2.StoredPhrase:
    kept = store_pb2.StoredPhrase(id=string_index(strings, said.id))
    for arg in said.args:
        _stored_arg(arg, kept.args.add(), strings)
    return kept


def _stored_arg(arg: rules_pb2.PhraseArg, kept: store_pb2.StoredPhraseArg, strings: MutableSequence[str]) -> None:
    kind = arg.WhichOneof("value")
    if kind == "term":
        kept.term = string_index(strings, arg.term)
    elif kind == "phrase":
        kept.phrase.CopyFrom(_stored(arg.phrase, strings))
    elif kind == "list":
        kept.list.style = arg.list.style
        for item in arg.list.items:
            _stored_arg(item, kept.list.items.add(), strings)
    elif kind is not None:
        setattr(kept, kind, getattr(arg, kind))  # a seat, a number or text: as it is


def read(data: bytes, strings: Sequence[str]) -> Phrase | None:
    """A logged phrase; None when it cannot be read (a damaged entry)."""
    try:
        return _read(store_pb2.StoredPhrase.FromString(data), strings)
    except (DecodeError, IndexError):
        return None


def _read(kept: store_pb2.StoredPhrase, strings: Sequence[str]) -> Phrase:
    return Phrase(strings[kept.id], tuple(_read_arg(arg, strings) for arg in kept.args))


def _read_arg(kept: store_pb2.StoredPhraseArg, strings: Sequence[str]) -> Arg:
    kind = kept.WhichOneof("value")
    if kind == "seat":
        return Seat(kept.seat)
    if kind == "number":
        return kept.number
    if kind == "term":
        return Term(strings[kept.term])
    if kind == "phrase":
        return _read(kept.phrase, strings)
    if kind == "list":
        return Items(tuple(_read_arg(item, strings) for item in kept.list.items), kept.list.style)
    return kept.text

"""Phrases (``common.phrases``) as the rules protocol carries them (``tavola.rules.v1.Phrase``)."""

from common.phrases import Arg, Items, Phrase, Seat, Term
from tavola.rules.v1 import rules_pb2


def to_proto(said: Phrase) -> rules_pb2.Phrase:
    message = rules_pb2.Phrase(id=said.id)
    for arg in said.args:
        _put(message.args.add(), arg)
    return message


def _put(message: rules_pb2.PhraseArg, arg: Arg) -> None:
    if isinstance(arg, Seat):
        message.seat = arg.number
    elif isinstance(arg, bool):
        raise TypeError("a truth value is no phrase argument")
    elif isinstance(arg, int):
        message.number = arg
    elif isinstance(arg, Term):
        message.term = arg.id
    elif isinstance(arg, str):
        message.text = arg
    elif isinstance(arg, Phrase):
        message.phrase.CopyFrom(to_proto(arg))
    elif isinstance(arg, Items):
        message.list.style = arg.style
        for value in arg.values:
            _put(message.list.items.add(), value)
    else:
        raise TypeError(f"no phrase argument {arg!r}")


def from_proto(message: rules_pb2.Phrase) -> Phrase:
    return Phrase(message.id, tuple(_get(arg) for arg in message.args))


def _get(message: rules_pb2.PhraseArg) -> Arg:
    kind = message.WhichOneof("value")
    if kind == "seat":
        return Seat(message.seat)
    if kind == "number":
        return message.number
    if kind == "term":
        return Term(message.term)
    if kind == "phrase":
        return from_proto(message.phrase)
    if kind == "list":
        return Items(tuple(_get(item) for item in message.list.items), message.list.style)
    return message.text

"""A codec derived from the engine's types: dataclasses <-> proto messages by field name.

A game describes only where its proto shape differs from its dataclasses (a ``Shape``);
every other field maps to the message field of the same name, converted by its type:

- ``int``/``bool``/``str`` <-> scalars; ``tuple[X, ...]`` <-> ``repeated``.
- an ``IntEnum`` <-> a proto enum, member by member name (``Cardinal.MEDICI`` <->
  ``CARDINAL_MEDICI``), so the numbers may differ; ``E | None`` <-> UNSPECIFIED (0) for None.
- a dataclass or named tuple <-> a message, by field name again; a fixed-length tuple of
  scalars <-> a message's fields in order; ``tuple[X, ...]`` <-> a message of one repeated field.
- ``X | None`` <-> a message or ``optional`` field that is set or not.
- a union of dataclasses <-> a message with one oneof: the member named like the class
  (``JudgementPair`` <-> ``judgement_pair``).

Decoding a value the engine cannot hold (an unknown or UNSPECIFIED enum where one is
required, a fixed-length tuple of the wrong length) raises ValueError.

Everything is worked out once, when a game's codec is built: decoding into small functions
per field, encoding into one generated function per message type that writes the message's
bytes as protobuf's own serializer would (``_encoder``); building the same messages through
protobuf's Python constructors cost several times as much.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections import namedtuple
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from functools import partial
from operator import attrgetter, itemgetter
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from services.engine.errors import MalformedAction

# engine value -> what a message's encoder takes for a field: a scalar, an iterable of them,
# or a nested message (its bytes, or a message)
Encoder = Callable[[Any], Any]
Decoder = Callable[[Any], Any]  # the whole parent message -> the engine value
Writer = Callable[[Any], bytes]  # a field's value -> the field's bytes (none when unset)
# Where a field's value comes from: an engine field by name, a named tuple's by position, or
# a function of the whole engine value.
Source = str | int | Callable[[Any], Any]


@dataclass(frozen=True)
class Columns:
    """Per-seat tuples of the engine (``dice[s]``, ``puppets[s]``...) <-> one repeated message
    with an element per seat. ``index``: an element field that carries the seat's position."""

    fields: tuple[str, ...]
    index: str | None = None
    shape: Shape | None = None  # how an element differs from the columns' names


@dataclass(frozen=True)
class Shape:
    """Where one engine type differs from its message. Keys are engine field names unless
    said otherwise; the message side of ``encode`` and ``decode`` is in proto form."""

    rename: Mapping[str, str] = field(default_factory=dict)
    # ``tuple | None`` field -> (bool message field, the flag value that means None)
    flags: Mapping[str, tuple[str, bool]] = field(default_factory=dict)
    # message field -> engine fields gathered, by name, into that nested message
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # message field -> per-seat engine columns
    columns: Mapping[str, Columns] = field(default_factory=dict)
    # message field -> its value computed from the whole engine value
    encode: Mapping[str, Encoder] = field(default_factory=dict)
    # engine field -> its value computed from the whole message
    decode: Mapping[str, Decoder] = field(default_factory=dict)


@dataclass(frozen=True)
class _Plan:
    """One field's conversion, worked out once."""

    encode: Encoder | None  # None: the engine value is the field's as it is
    decode: Decoder
    scalar: bool = False  # ``decode`` reads the message attribute as it is
    table: dict[int, Any] | None = None  # an enum: ``decode`` reads a number to look up here
    convert: Callable[[Any], Any] | None = None  # ``decode`` is this of the message attribute


class Schema:
    """Builds and caches the mappers of one game. ``shapes``: the overrides per engine type.
    ``enum_aliases``: engine enum members with no proto value of their name -> proto number."""

    def __init__(self, shapes: Mapping[type, Shape] | None = None, enum_aliases: Mapping[IntEnum, int] | None = None):
        self.shapes = dict(shapes or {})
        # by (enum, name): members of different IntEnums with one number are equal keys
        self.enum_aliases = {(type(member), member.name): number for member, number in (enum_aliases or {}).items()}
        self._mappers: dict[tuple[Any, str], Mapper] = {}
        self._unions: dict[tuple[Any, str], UnionMapper] = {}

    def mapper(self, cls: type, message: type[Message]) -> Mapper:
        key = (cls, message.DESCRIPTOR.full_name)
        if key not in self._mappers:
            self._mappers[key] = Mapper(self, cls, _hints(cls), message, self.shapes.get(cls, Shape()))
        return self._mappers[key]

    def enum(self, engine: type[IntEnum], proto: Any) -> tuple[dict[Any, Any], Callable[[int], Any]]:
        """For a game's own overrides: engine member -> proto number, and number -> member
        (ValueError for a number with no member)."""
        to_pb, from_pb = self._enum_tables(engine, proto.DESCRIPTOR, engine.__name__)
        return to_pb, lambda number: _lookup(from_pb, number, engine.__name__)

    def union(self, members: Any, message: type[Message]) -> UnionMapper:
        """``members``: a union of dataclasses (``Bid | Call``), or the one dataclass of a
        game with a single kind of action (or event); ``message`` holds one oneof of them."""
        key = (members, message.DESCRIPTOR.full_name)
        if key not in self._unions:
            classes = typing.get_args(members) if _is_union(members) else (members,)
            self._unions[key] = UnionMapper(self, classes, message)
        return self._unions[key]

    # ------------------------------------------------------------- one field

    def field(self, hint: Any, fd: FieldDescriptor, what: str) -> _Plan:
        """How one engine value of type ``hint`` and message field ``fd`` convert."""
        name = fd.name
        get = attrgetter(name)
        inner, optional = _strip_none(hint)
        if fd.is_repeated:
            return self._repeated(inner, fd, what)
        if fd.enum_type is not None:
            to_pb, from_pb = self._enum_tables(hint, fd.enum_type, what)
            identical = all(member is None or int(member) == number for member, number in to_pb.items())
            # Engine numbers equal to the proto's go in as they are; None leaves the field unset.
            return _Plan(None if identical else to_pb.__getitem__, get, table=from_pb)
        if optional and not fd.has_presence:
            raise TypeError(f"{what}: {hint} needs a field with presence, {fd.full_name} has none")
        if fd.message_type is None:
            if optional:
                return _Plan(None, lambda message: get(message) if message.HasField(name) else None)
            return _Plan(None, get, scalar=True)
        enc, dec = self._value(inner, fd, what)
        if optional:

            def dec_optional(message: Any) -> Any:
                return dec(get(message)) if message.HasField(name) else None

            return _Plan(lambda value: None if value is None else enc(value), dec_optional)
        if dataclasses.is_dataclass(inner):
            # A nested record is often the very same from one state to the next (a deck).
            enc, dec = _reusing(enc), _reusing_decoded(dec)
        return _Plan(enc, lambda message: dec(get(message)), convert=dec)

    def _repeated(self, hint: Any, fd: FieldDescriptor, what: str) -> _Plan:
        get = attrgetter(fd.name)
        element, length = _tuple_element(hint, what)
        enc: Encoder | None
        dec_items: Callable[[Any], Any]
        if fd.enum_type is not None:
            to_pb, from_pb = self._enum_tables(element, fd.enum_type, what)
            # An optional element (``tuple[E | None, ...]``) is written as UNSPECIFIED (0): a
            # repeated field has no presence per element, so None always needs the lookup.
            identical = all(member is not None and int(member) == number for member, number in to_pb.items())
            enc = None if identical else partial(map, to_pb.__getitem__)
            lookup = from_pb.__getitem__

            def dec_items(items: Any) -> Any:
                try:
                    return tuple(map(lookup, items))
                except KeyError as error:
                    raise ValueError(f"corrupt message: bad {what} value {error.args[0]}") from None

        elif fd.message_type is not None:
            enc_one, dec_one = self._value(element, fd, what)
            enc = partial(map, enc_one)
            dec_items = partial(_map_tuple, dec_one)
        else:
            enc, dec_items = None, tuple
        if length is None:
            return _Plan(enc, lambda message: dec_items(get(message)), convert=dec_items)

        def dec_fixed(message: Any) -> Any:
            values = dec_items(get(message))
            if len(values) != length:
                raise ValueError(f"corrupt message: {what} takes {length} entries, not {len(values)}")
            return values

        return _Plan(enc, dec_fixed)

    def _value(self, hint: Any, fd: FieldDescriptor, what: str) -> tuple[Encoder, Callable[[Any], Any]]:
        """A nested message: engine value -> message, message -> engine value."""
        descriptor = _nested(fd)
        message = GetMessageClass(descriptor)
        if _is_union(hint):
            union = self.union(hint, message)
            return union.to_nested_bytes, union.from_proto
        if isinstance(hint, type) and (dataclasses.is_dataclass(hint) or _is_namedtuple(hint)):
            mapper = self.mapper(hint, message)
            return mapper.to_bytes, mapper.from_proto
        _, length = _tuple_element(hint, what)
        fields = descriptor.fields
        if length is None and len(fields) == 1 and fields[0].is_repeated:
            # tuple[X, ...] <-> a message whose one field is repeated
            plan = self._repeated(hint, fields[0], what)
            return _encoder(descriptor.full_name, [(fields[0], _itself, plan.encode)]), plan.decode
        # tuple[int, int, ...] <-> the message's fields in order
        if length != len(fields):
            raise TypeError(f"{what}: {hint} does not fit {descriptor.full_name}")
        encode = _encoder(descriptor.full_name, [(f, i, None) for i, f in enumerate(fields)])
        return encode, _getters(None, [f.name for f in fields], False)

    def _enum_tables(self, hint: Any, enum: EnumDescriptor, what: str) -> tuple[dict[Any, int], dict[int, Any]]:
        """Engine member <-> proto number, matched by name; None <-> 0 for an optional enum."""
        inner, optional = _strip_none(hint)
        if not (isinstance(inner, type) and issubclass(inner, IntEnum)):
            raise TypeError(f"{what}: {enum.full_name} is an enum but the engine type is {hint}")
        numbers = {}
        prefix = enum.values_by_number[0].name.removesuffix("UNSPECIFIED")
        for value in enum.values:
            numbers[value.name.removeprefix(prefix)] = value.number
        to_pb: dict[Any, int] = {}
        for member in inner:
            if (inner, member.name) in self.enum_aliases:
                to_pb[member] = self.enum_aliases[inner, member.name]
            elif member.name in numbers:
                to_pb[member] = numbers[member.name]
        from_pb: dict[int, Any] = {number: member for member, number in to_pb.items()}
        if optional:
            to_pb[None] = 0
            from_pb[0] = None
        return to_pb, from_pb


class Mapper:
    """One record type (dataclass, named tuple) <-> one message type."""

    def __init__(
        self,
        schema: Schema,
        cls: type,
        hints: dict[str, Any],
        message: type[Message],
        shape: Shape,
        positional: bool | None = None,
    ):
        self.cls = cls
        self.message = message
        descriptor = typing.cast(Descriptor, message.DESCRIPTOR)
        what = cls.__name__
        self._positional = positional = _is_namedtuple(cls) if positional is None else positional
        self._fields_by_name = descriptor.fields_by_name
        # Encoding: per message field, where its value comes from (see _encoder).
        self._encoding: list[tuple[FieldDescriptor, Source, Encoder | None]] = []
        for pb_name, compute in shape.encode.items():
            self._encode_field(pb_name, compute)
        # Decoding: scalars read as they are, all at once; enums looked up; then the rest.
        scalars: list[tuple[str, str]] = []
        enums: list[tuple[str, str, dict[int, Any]]] = []
        self._reads: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any]]] = []
        self._decoders: list[tuple[str, Decoder]] = []
        self._spreads: list[Callable[[Any], dict[str, Any]]] = []  # several engine fields at once
        covered = set(shape.encode)
        grouped = {name for names in shape.groups.values() for name in names}
        grouped |= {name for columns in shape.columns.values() for name in columns.fields}
        for name, hint in hints.items():
            if name in shape.decode or name in grouped:
                continue
            pb_name = shape.rename.get(name, name)
            fd = descriptor.fields_by_name.get(pb_name)
            if fd is None:
                raise TypeError(f"{descriptor.full_name} has no field {pb_name} for {what}.{name}")
            covered.add(pb_name)
            if name in shape.flags:
                flag, none_value = shape.flags[name]
                covered.add(flag)
                self._flagged(schema, name, hint, fd, flag, none_value, _getter(hints, name, positional))
                continue
            plan = schema.field(hint, fd, f"{what}.{name}")
            self._encode_field(pb_name, list(hints).index(name) if positional else name, plan.encode)
            if plan.table is not None:
                enums.append((name, pb_name, plan.table))
            elif plan.scalar:
                scalars.append((name, pb_name))
            elif plan.convert is not None:
                self._reads.append((name, attrgetter(pb_name), plan.convert))
            else:
                self._decoders.append((name, plan.decode))
        self._decoders.extend(shape.decode.items())
        self._scalar_names = tuple(name for name, _ in scalars)
        self._scalar_get = _getters(None, [pb_name for _, pb_name in scalars], False)
        self._enum_names = tuple(name for name, _, _ in enums)
        self._enum_get = _getters(None, [pb_name for _, pb_name, _ in enums], False)
        self._enum_tables = tuple(table for _, _, table in enums)
        for pb_name, names in shape.groups.items():
            covered.add(pb_name)
            self._group(schema, hints, descriptor.fields_by_name[pb_name], names)
        for pb_name, columns in shape.columns.items():
            covered.add(pb_name)
            self._columns(schema, hints, descriptor.fields_by_name[pb_name], columns)
        missing = set(descriptor.fields_by_name) - covered
        if missing:
            raise TypeError(f"{descriptor.full_name}: no engine value for {', '.join(sorted(missing))}")
        self.to_bytes = _encoder(descriptor.full_name, self._encoding)
        """The serialized message of an engine value."""

    def _encode_field(self, pb_name: str, source: Source, convert: Encoder | None = None) -> None:
        self._encoding.append((self._fields_by_name[pb_name], source, convert))

    def _flagged(
        self, schema: Schema, name: str, hint: Any, fd: FieldDescriptor, flag: str, none_value: bool, getter: Any
    ) -> None:
        inner, _ = _strip_none(hint)
        plan = schema.field(inner, fd, name)
        enc, dec = plan.encode, plan.decode

        def encode_flag(value: Any) -> bool:
            return none_value if getter(value) is None else not none_value

        def encode_items(value: Any) -> Any:
            items = getter(value)
            return items if items is None or enc is None else enc(items)

        def decode(message: Any) -> Any:
            return None if getattr(message, flag) == none_value else dec(message)

        self._encode_field(flag, encode_flag)
        self._encode_field(fd.name, encode_items)
        self._decoders.append((name, decode))

    def _group(self, schema: Schema, hints: dict[str, Any], fd: FieldDescriptor, names: tuple[str, ...]) -> None:
        # The nested message reads its fields straight from this record.
        group_hints = {name: hints[name] for name in names}
        mapper = Mapper(schema, self.cls, group_hints, GetMessageClass(_nested(fd)), Shape(), self._positional)
        get = attrgetter(fd.name)
        self._encode_field(fd.name, mapper.to_bytes)
        self._spreads.append(lambda message: mapper.decode_fields(get(message)))

    def _columns(self, schema: Schema, hints: dict[str, Any], fd: FieldDescriptor, columns: Columns) -> None:
        names = columns.fields
        element_hints = {name: _tuple_element(hints[name], name)[0] for name in names}
        index = columns.index
        if index is not None:  # a row's last value: its seat
            element_hints[index] = int
        record = _record(tuple(element_hints))
        shape = columns.shape or Shape()
        mapper = Mapper(schema, record, element_hints, GetMessageClass(_nested(fd)), shape)
        get_all = _getters(hints, names, self._positional)
        get = attrgetter(fd.name)
        # Rows are plain tuples unless the element's own overrides read them by name.
        named = bool(shape.encode)

        def encode(value: Any) -> list[bytes]:
            values = get_all(value)
            if index is not None:
                values = (*values, range(len(values[0])))
            rows: Any = zip(*values, strict=True)
            if named:
                rows = [record(*row) for row in rows]
            return [mapper.to_bytes(row) for row in rows]

        def decode(message: Any) -> dict[str, Any]:
            rows = [mapper.decode_fields(element) for element in get(message)]
            return {name: tuple([row[name] for row in rows]) for name in names}

        self._encode_field(fd.name, encode)
        self._spreads.append(decode)

    def to_proto(self, value: Any) -> Any:
        return self.message.FromString(self.to_bytes(value))

    def decode_fields(self, message: Any) -> dict[str, Any]:
        """The engine fields read from ``message``, by name."""
        kwargs = dict(zip(self._scalar_names, self._scalar_get(message), strict=True))
        if self._enum_names:
            numbers = self._enum_get(message)
            try:
                kwargs.update(zip(self._enum_names, map(dict.__getitem__, self._enum_tables, numbers), strict=True))
            except KeyError:
                for name, table, number in zip(self._enum_names, self._enum_tables, numbers, strict=True):
                    if number not in table:
                        raise ValueError(f"corrupt message: bad {self.cls.__name__}.{name} value {number}") from None
        for name, get, convert in self._reads:
            kwargs[name] = convert(get(message))
        for name, dec in self._decoders:
            kwargs[name] = dec(message)
        for spread in self._spreads:
            kwargs.update(spread(message))
        return kwargs

    def from_proto(self, message: Any) -> Any:
        return self.cls(**self.decode_fields(message))


_NESTED_CACHE_SIZE = 4096  # union values kept encoded, per union type


class UnionMapper:
    """A union of dataclasses <-> a message with one oneof, member ``snake_case(class name)``."""

    def __init__(self, schema: Schema, members: tuple[type, ...], message: type[Message]):
        self.message = message
        descriptor = typing.cast(Descriptor, message.DESCRIPTOR)
        (oneof,) = descriptor.oneofs
        self._by_type: dict[type, tuple[bytes, Mapper]] = {}  # the member's tag, its mapper
        self._by_name: dict[str, Mapper] = {}
        for cls in members:
            name = _snake(cls.__name__)
            fd = next((f for f in oneof.fields if f.name == name), None)
            if fd is None:
                raise TypeError(f"{descriptor.full_name}.{oneof.name} has no member {name} for {cls.__name__}")
            mapper = schema.mapper(cls, GetMessageClass(_nested(fd)))
            self._by_type[cls] = (_tag(fd.number, _LENGTH_DELIMITED), mapper)
            self._by_name[name] = mapper
        self._oneof = oneof.name
        self._nested: dict[Any, Any] = {}

    def to_nested_bytes(self, value: Any) -> bytes:
        """``to_bytes`` for a field of another message: each value's bytes are written once
        and kept (a bounded cache). A history of actions repeated in every state and view
        (Borgia's performs) costs a lookup per action, not an encoding."""
        try:
            data = self._nested.get(value)
        except TypeError:  # an unhashable value: encoded every time
            return self.to_bytes(value)
        if data is None:
            if len(self._nested) >= _NESTED_CACHE_SIZE:
                self._nested.clear()
            data = self._nested[value] = self.to_bytes(value)
        return data

    def to_bytes(self, value: Any) -> bytes:
        entry = self._by_type.get(type(value))
        if entry is None:
            raise TypeError(f"not a {self.message.DESCRIPTOR.full_name}: {type(value).__name__}")
        tag, mapper = entry
        data = mapper.to_bytes(value)
        return tag + _varint(len(data)) + data

    def to_proto(self, value: Any) -> Any:
        return self.message.FromString(self.to_bytes(value))

    def from_proto(self, message: Any) -> Any:
        """Raises ValueError for a message whose oneof is unset."""
        name = message.WhichOneof(self._oneof)
        if name is None:
            raise ValueError(f"the {self.message.DESCRIPTOR.name} names no {self._oneof}")
        return self._by_name[name].from_proto(getattr(message, name))


class DerivedCodec:
    """The Codec protocol (services.engine.api) for a game whose values map through ``schema``.
    Beside each ``*_to_proto``, a ``*_to_bytes`` gives the serialized message itself, which a
    rules service packs into its Any without building the message.

    ``check_action``: the game's own checks of a decoded action (a seat is not negative...),
    raising MalformedAction."""

    def __init__(
        self,
        schema: Schema,
        *,
        state: tuple[type, type[Message]],
        view: tuple[type, type[Message]],
        action: tuple[Any, type[Message]],
        event: tuple[Any, type[Message]],
        check_action: Callable[[Any], None] | None = None,
    ):
        self._state = schema.mapper(*state)
        self._view = schema.mapper(*view)
        self._action = schema.union(*action)
        self._event = schema.union(*event)
        self._check_action = check_action

    def state_to_proto(self, state: Any) -> Any:
        return self._state.to_proto(state)

    def state_to_bytes(self, state: Any) -> bytes:
        return self._state.to_bytes(state)

    def state_from_proto(self, message: Any) -> Any:
        """Raises TypeError for another message type, ValueError for a corrupt one."""
        return self._state.from_proto(_expect(message, self._state.message, TypeError))

    def action_type(self) -> type[Message]:
        return self._action.message

    def action_to_proto(self, action: Any) -> Any:
        return self._action.message.FromString(self.action_to_bytes(action))

    def action_to_bytes(self, action: Any) -> bytes:
        try:
            return self._action.to_bytes(action)
        except TypeError:
            raise MalformedAction(f"not an action of this game: {type(action).__name__}") from None

    def action_from_proto(self, message: Any) -> Any:
        """Raises MalformedAction for a message that is no action of this game."""
        _expect(message, self._action.message, MalformedAction)
        try:
            action = self._action.from_proto(message)
        except ValueError as error:
            raise MalformedAction(str(error).removeprefix("corrupt message: ")) from None
        if self._check_action is not None:
            self._check_action(action)
        return action

    def view_to_proto(self, view: Any) -> Any:
        return self._view.to_proto(view)

    def view_to_bytes(self, view: Any) -> bytes:
        return self._view.to_bytes(view)

    def view_type(self) -> type[Message]:
        return self._view.message

    def view_from_proto(self, message: Any) -> Any:
        """The inverse of ``view_to_proto``: bots decode the view the gateway sends them."""
        return self._view.from_proto(_expect(message, self._view.message, TypeError))

    def event_to_proto(self, event: Any) -> Any:
        return self._event.to_proto(event)

    def event_to_bytes(self, event: Any) -> bytes:
        return self._event.to_bytes(event)

    def event_type(self) -> type[Message]:
        return self._event.message

    def event_from_bytes(self, data: bytes) -> Any:
        """The inverse of ``event_to_bytes``: the gateway tells a logged event in the game's
        words from it. Raises ValueError for a corrupt message."""
        return self._event.from_proto(self._event.message.FromString(data))


# --------------------------------------------------------------------------- helpers


def _nested(fd: FieldDescriptor) -> Descriptor:
    if fd.message_type is None:
        raise TypeError(f"{fd.full_name} is no message field")
    return fd.message_type


def _expect(message: Any, cls: type[Message], error: type[Exception]) -> Any:
    if not isinstance(message, cls):
        raise error(f"expected a {cls.DESCRIPTOR.full_name}, not {type(message).__name__}")
    return message


def _reusing(encode: Encoder) -> Encoder:
    """``encode`` that reuses its last bytes when given the very same value again.

    Engine values are immutable and successive states share what an action left unchanged
    (a table's deck...), so this skips encoding it again."""
    last: tuple[Any, Any] = (None, None)

    def encode_again(value: Any) -> Any:
        nonlocal last
        seen, data = last
        if value is seen:
            return data
        data = encode(value)
        last = (value, data)
        return data

    return encode_again


def _reusing_decoded(decode: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``decode`` that gives back its last value for a message equal to the last one: a table's
    deck comes in with every state, and the same value then encodes at no cost (``_reusing``).
    Comparing two messages is native code, far quicker than decoding one."""
    last: tuple[Any, Any] = (None, None)

    def decode_again(message: Any) -> Any:
        nonlocal last
        seen, value = last
        if seen is not None and message == seen:
            return value
        value = decode(message)
        kept = type(message)()
        kept.CopyFrom(message)  # the caller may change its message later
        last = (kept, value)
        return value

    return decode_again


def _map_tuple(function: Callable[[Any], Any], items: Any) -> tuple[Any, ...]:
    return tuple(map(function, items))


def _lookup(table: dict[int, Any], number: int, what: str) -> Any:
    try:
        return table[number]
    except KeyError:
        raise ValueError(f"corrupt message: bad {what} value {number}") from None


def _hints(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    if dataclasses.is_dataclass(cls):
        return {f.name: hints[f.name] for f in dataclasses.fields(cls)}
    return {name: hints[name] for name in cls._fields}  # type: ignore[attr-defined]


def _record(names: tuple[str, ...]) -> Any:
    return namedtuple("_Record", names)


def _getter(hints: dict[str, Any], name: str, positional: bool) -> Callable[[Any], Any]:
    return itemgetter(list(hints).index(name)) if positional else attrgetter(name)


def _getters(hints: dict[str, Any] | None, names: Any, positional: bool) -> Callable[[Any], tuple[Any, ...]]:
    """Reads several fields at once, always as a tuple (by position in a named tuple)."""
    names = list(names)
    if not names:
        return lambda value: ()
    keys = [list(hints or {}).index(name) for name in names] if positional else []
    getter: Callable[[Any], Any] = itemgetter(*keys) if positional else attrgetter(*names)
    if len(names) == 1:
        return lambda value: (getter(value),)
    return getter


def _is_namedtuple(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def _is_union(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) not in typing.get_args(hint)


def _strip_none(hint: Any) -> tuple[Any, bool]:
    """(X, True) for ``X | None``; (hint, False) otherwise."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        if type(None) in args:
            rest = tuple(arg for arg in args if arg is not type(None))
            return (rest[0] if len(rest) == 1 else typing.Union[rest]), True  # noqa: UP007
    return hint, False


def _tuple_element(hint: Any, what: str) -> tuple[Any, int | None]:
    """(X, None) for ``tuple[X, ...]``; (X, n) for a fixed tuple of n X."""
    inner, _ = _strip_none(hint)
    if typing.get_origin(inner) is not tuple:
        raise TypeError(f"{what}: a repeated field needs a tuple, not {hint}")
    args = typing.get_args(inner)
    if len(args) == 2 and args[1] is Ellipsis:
        return args[0], None
    if len(set(args)) != 1:
        return args, len(args)
    return args[0], len(args)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


# --------------------------------------------------------------------------- wire format
# Written as protobuf's serializer writes a message (tests/test_codec_encodings.py holds the
# digests of what the codec made when it built messages through protobuf's constructors):
# fields in number order, a proto3 default left out unless the field has presence, repeated
# numbers packed, a set message field written even when empty.

_VARINT, _LENGTH_DELIMITED = 0, 2
_ONE_BYTE = [bytes((number,)) for number in range(0x80)]
_RANGES = {  # the numbers each varint type holds, as protobuf checks them
    FieldDescriptor.TYPE_INT32: (-(1 << 31), 1 << 31),
    FieldDescriptor.TYPE_ENUM: (-(1 << 31), 1 << 31),
    FieldDescriptor.TYPE_INT64: (-(1 << 63), 1 << 63),
    FieldDescriptor.TYPE_UINT32: (0, 1 << 32),
    FieldDescriptor.TYPE_UINT64: (0, 1 << 64),
    FieldDescriptor.TYPE_BOOL: (0, 2),
}


def _varint(number: int) -> bytes:
    if 0 <= number < 0x80:
        return _ONE_BYTE[number]
    number &= (1 << 64) - 1  # a negative number as its 64-bit two's complement: ten bytes
    out = bytearray()
    while number >= 0x80:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def _tag(number: int, wire_type: int) -> bytes:
    return _varint(number << 3 | wire_type)


def _itself(value: Any) -> Any:
    return value


def _checked_varint(fd: FieldDescriptor) -> Callable[[int], bytes]:
    """A number of field ``fd``'s type as a varint; ValueError out of its range, as protobuf."""
    if fd.type not in _RANGES:
        raise TypeError(f"{fd.full_name}: the codec writes no field of type {fd.type} (see _RANGES)")
    low, high = _RANGES[fd.type]

    def varint(number: int) -> bytes:
        if 0 <= number < 0x80:
            return _ONE_BYTE[number]
        if not low <= number < high:
            raise ValueError(f"{fd.full_name}: {number} is out of range")
        return _varint(number)

    return varint


def _string_writer(fd: FieldDescriptor) -> Writer:
    """Writes string field ``fd`` (None: unset; so is "" without presence)."""
    tag = _tag(fd.number, _LENGTH_DELIMITED)

    def string(text: str) -> bytes:
        data = text.encode()
        return tag + _varint(len(data)) + data

    if fd.is_repeated:
        return lambda values: b"" if values is None else b"".join(map(string, values))
    if fd.has_presence:
        return lambda text: b"" if text is None else string(text)
    return lambda text: string(text) if text else b""


def _encoder(name: str, fields: list[tuple[FieldDescriptor, Source, Encoder | None]]) -> Callable[[Any], bytes]:
    """One function writing a whole message, made once from its fields' sources and optional
    conversions: encoding then costs no call per field and no dictionary, and a small number
    costs a list lookup (its tag and byte made beforehand). A nested message's value is its
    bytes (from the mappers) or a message (from a game's own encoders)."""
    namespace: dict[str, Any] = {"_varint": _varint, "one_byte": _ONE_BYTE}
    lines = ["def to_bytes(value):", "    parts = []", "    append = parts.append"]
    for k, (fd, source, convert) in enumerate(sorted(fields, key=lambda field: field[0].number)):
        if isinstance(source, str):
            read = f"value.{source}"
        elif isinstance(source, int):
            read = f"value[{source}]"
        else:
            namespace[f"read{k}"] = source
            read = f"read{k}(value)"
        if convert is not None:
            namespace[f"convert{k}"] = convert
            read = f"convert{k}({read})"
        lines.append(f"    v = {read}  # {fd.name}")
        # Each kind of field: what the message constructor took for it, written as protobuf does.
        length_delimited = [  # ``data`` after its tag and length
            "n = len(data)",
            f"append(tag{k} + (one_byte[n] if n < 0x80 else _varint(n)) + data)",
        ]
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            namespace[f"tag{k}"] = _tag(fd.number, _LENGTH_DELIMITED)
            item = "item" if fd.is_repeated else "v"
            lines.append("    for item in () if v is None else v:" if fd.is_repeated else "    if v is not None:")
            lines.append(f"        data = {item} if type({item}) is bytes else {item}.SerializeToString()")
            lines.extend("        " + line for line in length_delimited)
        elif fd.type == FieldDescriptor.TYPE_STRING:
            namespace[f"write{k}"] = _string_writer(fd)
            lines.append(f"    append(write{k}(v))")
        elif fd.is_repeated:  # packed
            namespace[f"tag{k}"] = _tag(fd.number, _LENGTH_DELIMITED)
            namespace[f"varint{k}"] = _checked_varint(fd)
            lines.append("    if v is not None:")
            lines.append("        v = v if type(v) is tuple else tuple(v)")
            lines.append("        if v:")
            lines.append("            try:")
            lines.append("                data = bytes(v)  # numbers below 0x80 are a byte each")
            lines.append("            except (TypeError, ValueError):")
            lines.append('                data = b"\\x80"')
            lines.append("            if not data.isascii():")
            lines.append(f'                data = b"".join(map(varint{k}, v))')
            lines.extend("            " + line for line in length_delimited)
        else:
            namespace[f"varint{k}"] = _checked_varint(fd)
            namespace[f"small{k}"] = [_tag(fd.number, _VARINT) + byte for byte in _ONE_BYTE]
            namespace[f"tag{k}"] = _tag(fd.number, _VARINT)
            lines.append("    if v is not None:" if fd.has_presence else "    if v:")
            lines.append(f"        append(small{k}[v] if 0 <= v < 0x80 else tag{k} + varint{k}(v))")
    lines.append('    return b"".join(parts)')
    exec(compile("\n".join(lines), f"<encoder of {name}>", "exec"), namespace)
    return namespace["to_bytes"]

"""A game's help as words of its catalog: the rules in short, and what each kind of
action, card, die face and role does, so that the web page, the terminal and the docs say
the same (``GetGameHelp``; docs/players.md).

Its message ids: ``help.rules`` and ``help.goal``; ``help.action.<kind>`` for each field
of the game's Action oneof (``bid``, ``pay_cancel``, ``play_castor_oil``); for a
``play_<card>`` action, ``help.card.<card>``; for an action's field of an enum named
below, ``help.<section>.<value>`` (a Borgia bid's face, a Mortadella effect); and, read
by the rules panel, ``help.face.*``, ``help.effect.*``, ``help.special.*``,
``help.role.*`` (with ``help.role.<role>.goal``), ``help.roman.*``, ``help.variant.*``.
An enum value's key is its name without the enum's prefix, in lower case
(``FACE_BRIBE`` -> ``bribe``). clients/web/src/help.ts reads an action the same way.
"""

from collections.abc import Iterable

from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from common.phrases import FALLBACK, Catalogs, Teller, phrase

PREFIX = "help."
# The enums whose value in an action explains it further, by their name: the section of
# the help that explains each value.
ENUM_SECTIONS = {"Face": "face", "ActionKind": "face", "Effect": "effect", "ActionCardKind": "card"}


def enum_key(enum: EnumDescriptor, number: int) -> str | None:
    """``FACE_BRIBE`` -> ``bribe``; None for the unspecified value (0) or an unknown one."""
    value = enum.values_by_number.get(number)
    if value is None or number == 0:
        return None
    prefix = "".join(f"_{c}" if c.isupper() else c for c in enum.name).lstrip("_").upper() + "_"
    return value.name.removeprefix(prefix).lower()


def help_ids(action: Message) -> list[str]:
    """The help ids that explain one action of a game's Action message, most general
    first (a catalog may lack some: the reader shows those it has)."""
    oneof = action.DESCRIPTOR.oneofs[0] if action.DESCRIPTOR.oneofs else None
    kind = action.WhichOneof(oneof.name) if oneof else None
    if kind is None:
        return []
    ids = [f"{PREFIX}action.{kind}"]
    if kind.startswith("play_"):
        ids.append(f"{PREFIX}card.{kind.removeprefix('play_')}")
    body = getattr(action, kind)
    for field in body.DESCRIPTOR.fields:
        section = ENUM_SECTIONS.get(field.enum_type.name) if field.type == FieldDescriptor.TYPE_ENUM else None
        if section is None:
            continue
        values = getattr(body, field.name)
        numbers = [values] if isinstance(values, int) else list(values)
        for number in numbers:
            key = enum_key(field.enum_type, number)
            if key is not None:
                ids.append(f"{PREFIX}{section}.{key}")
    return list(dict.fromkeys(ids))


def help_messages(catalogs: Catalogs) -> list[str]:
    """Every help id of a game's English catalog, in the catalog's order."""
    return [key for context, key in catalogs.messages() if context is None and key.startswith(PREFIX)]


def help_entries(catalogs: Catalogs, locale: str = FALLBACK) -> list[tuple[str, str]]:
    """(id, words) of every help message, told in ``locale`` (English where it has none)."""
    teller = Teller(locale, catalogs)
    return [(key, teller.tell(phrase(key), {}, None)) for key in help_messages(catalogs)]


def entries_text(entries: Iterable[tuple[str, str]], prefix: str) -> list[str]:
    """The words of the entries whose id starts with ``prefix`` (a section: "help.action.")."""
    return [text for key, text in entries if key.startswith(prefix) and not key.endswith(".goal")]

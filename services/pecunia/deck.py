"""Loading and checking deck data files (``services/pecunia/decks/<name>.json``).

The default deck of ``pecunia-deck.md`` is ``decks/default.json``. A table option names a
deck by its file name without ``.json`` (never a path). A file looks like::

    {
      "name": "default",                     # must equal the file name
      "description": "...",                  # optional
      "romans": [{"kind": "senator", "rounds": 1, "sesterces": 3, "copies": 3}, ...],
      "actions": [{"kind": "villa_dixius", "copies": 4}, ...]
    }

Card ids are given in file order (Romans 0..69, action cards 0..39). Every problem raises
InvalidConfig with a message naming the deck and the fault.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from services.engine.errors import InvalidConfig
from services.pecunia.model import ActionCard, ActionKind, Deck, RomanCard, RomanKind

DECKS_DIR = Path(__file__).resolve().parent / "decks"
DEFAULT_DECK = "default"
DECK_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")

# Rulebook "Components": 70 Roman cards (15 senators, 20 citizens, 20 slaves, 15 women) and
# 40 action cards. Project decision: a deck file must keep these counts exactly; it may change
# the numbers printed on the cards and the mix of action cards.
ROMAN_COUNTS = {RomanKind.SENATOR: 15, RomanKind.CITIZEN: 20, RomanKind.SLAVE: 20, RomanKind.WOMAN: 15}
ROMAN_TOTAL = 70
ACTION_TOTAL = 40
# Project decision: the printed numbers stay single digits, and every Roman sits at least one
# round and pays at least one sesterce (a Roman paying nothing could stall the game).
ROUNDS_RANGE = (1, 9)
SESTERCES_RANGE = (1, 9)

_ROMAN_KINDS = {kind.name.lower(): kind for kind in RomanKind}
_ACTION_KINDS = {kind.name.lower(): kind for kind in ActionKind}


def available_decks(directory: Path = DECKS_DIR) -> tuple[str, ...]:
    """Deck names found in ``directory``, the default first."""
    names = sorted(path.stem for path in directory.glob("*.json") if DECK_NAME.match(path.stem))
    if DEFAULT_DECK in names:
        names.remove(DEFAULT_DECK)
        names.insert(0, DEFAULT_DECK)
    return tuple(names)


def load_deck(name: str, directory: Path = DECKS_DIR) -> Deck:
    """Reads and checks ``<directory>/<name>.json``; raises InvalidConfig for a bad one."""
    if not isinstance(name, str) or not DECK_NAME.match(name):
        raise InvalidConfig(f"deck {name!r}: a deck is named by lower-case letters, digits, '-' and '_'")
    path = directory / f"{name}.json"
    if not path.is_file():
        raise InvalidConfig(f"deck {name!r}: no such deck (known: {', '.join(available_decks(directory))})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InvalidConfig(f"deck {name!r}: not readable JSON ({error})") from None
    return parse_deck(name, data)


def _fail(name: str, message: str) -> InvalidConfig:
    return InvalidConfig(f"deck {name!r}: {message}")


def _int_field(name: str, where: str, entry: dict[str, Any], key: str, low: int, high: int) -> int:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(name, f"{where}: {key!r} must be an integer, not {value!r}")
    if not low <= value <= high:
        raise _fail(name, f"{where}: {key!r} must be between {low} and {high}, not {value}")
    return value


def _entries(name: str, data: dict[str, Any], key: str, fields: set[str]) -> list[dict[str, Any]]:
    entries = data.get(key)
    if not isinstance(entries, list) or not entries:
        raise _fail(name, f"{key!r} must be a non-empty list")
    for number, entry in enumerate(entries, start=1):
        where = f"{key} entry {number}"
        if not isinstance(entry, dict):
            raise _fail(name, f"{where} must be an object")
        unknown = sorted(set(entry) - fields)
        missing = sorted(fields - set(entry))
        if unknown:
            raise _fail(name, f"{where}: unknown field(s) {', '.join(unknown)}")
        if missing:
            raise _fail(name, f"{where}: missing field(s) {', '.join(missing)}")
    return entries


def parse_deck(name: str, data: Any) -> Deck:
    """Checks a decoded deck file and builds the Deck; raises InvalidConfig."""
    if not isinstance(data, dict):
        raise _fail(name, "the file must hold a JSON object")
    unknown = sorted(set(data) - {"name", "description", "romans", "actions"})
    if unknown:
        raise _fail(name, f"unknown top-level field(s) {', '.join(unknown)}")
    if data.get("name") != name:
        raise _fail(name, f"'name' must be {name!r} (the file name), not {data.get('name')!r}")
    if not isinstance(data.get("description", ""), str):
        raise _fail(name, "'description' must be a string")

    romans: list[RomanCard] = []
    for number, entry in enumerate(_entries(name, data, "romans", {"kind", "rounds", "sesterces", "copies"}), 1):
        where = f"romans entry {number}"
        kind = _ROMAN_KINDS.get(entry["kind"]) if isinstance(entry["kind"], str) else None
        if kind is None:
            raise _fail(name, f"{where}: unknown Roman kind {entry['kind']!r} (known: {', '.join(_ROMAN_KINDS)})")
        rounds = _int_field(name, where, entry, "rounds", *ROUNDS_RANGE)
        sesterces = _int_field(name, where, entry, "sesterces", *SESTERCES_RANGE)
        copies = _int_field(name, where, entry, "copies", 1, ROMAN_TOTAL)
        base = len(romans)
        romans.extend([RomanCard(base + i, kind, rounds, sesterces) for i in range(copies)])
    for kind, wanted in ROMAN_COUNTS.items():
        have = sum(1 for card in romans if card.kind == kind)
        if have != wanted:
            raise _fail(name, f"needs {wanted} {kind.name.lower()} cards, has {have}")
    if len(romans) != ROMAN_TOTAL:  # pragma: no cover - implied by the per-kind counts
        raise _fail(name, f"needs {ROMAN_TOTAL} Roman cards, has {len(romans)}")

    actions: list[ActionCard] = []
    for number, entry in enumerate(_entries(name, data, "actions", {"kind", "copies"}), 1):
        where = f"actions entry {number}"
        action_kind = _ACTION_KINDS.get(entry["kind"]) if isinstance(entry["kind"], str) else None
        if action_kind is None:
            raise _fail(name, f"{where}: unknown action card {entry['kind']!r} (known: {', '.join(_ACTION_KINDS)})")
        copies = _int_field(name, where, entry, "copies", 1, ACTION_TOTAL)
        base = len(actions)
        actions.extend([ActionCard(base + i, action_kind) for i in range(copies)])
    if len(actions) != ACTION_TOTAL:
        raise _fail(name, f"needs {ACTION_TOTAL} action cards, has {len(actions)}")
    return Deck(name=name, romans=tuple(romans), actions=tuple(actions))

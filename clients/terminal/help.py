"""The help panel and the choices' explanations, from the game's own catalog
(``GatewayService.GetGameHelp``; common/help.py names its ids): the terminal states no rule
of its own, so it says what the web page and the docs say."""

from collections.abc import Sequence

import grpc
from google.protobuf.message import Message

from clients.terminal import choices, language, words
from clients.terminal.words import N_
from common.help import entries_text, help_ids
from tavola.gateway.v1 import gateway_pb2 as gw

KEYS = N_(
    "Keys\n"
    "  ↑ ↓ Enter   choose an action      1-9  choose by number\n"
    "  Esc         back out of a submenu\n"
    "  Tab         move between the menu and the history (↑ ↓ PgUp PgDn scroll it)\n"
    "  v           the replay: each step as you saw it, the board then\n"
    "  ?  F1       this help             q    leave the table\n"
)
# The panel's sections: the ids each lists.
SECTIONS = ("help.action.", "help.card.", "help.roman.", "help.face.", "help.effect.", "help.special.", "help.variant.")
# The panel's headings in the run's language (--lang, language.py); the help itself is the
# game's, told by the gateway in that language; the keys are the client's own words (words.py).
HEADINGS = {
    "en": (
        "Roles and their goals",
        "Goal",
        ("Actions", "Action cards", "Romans", "Die faces", "Effects", "Special rolls", "Variants"),
    ),
    "it": (
        "I ruoli e i loro obiettivi",
        "Obiettivo",
        ("Azioni", "Carte azione", "Romani", "Facce dei dadi", "Effetti", "Tiri speciali", "Varianti"),
    ),
    "de": (
        "Die Rollen und ihre Ziele",
        "Ziel",
        ("Aktionen", "Aktionskarten", "Römer", "Würfelseiten", "Effekte", "Sonderwürfe", "Varianten"),
    ),
}


def headings(locale: str | None = None) -> tuple[str, str, tuple[str, ...]]:
    """The headings for ``locale`` ("de_DE", "it"; this run's language when None), else English."""
    tag = (locale or language.LANGUAGE).lower().replace("-", "_").split("_")[0]
    return HEADINGS.get(tag, HEADINGS["en"])


Entries = list[tuple[str, str]]


async def load(session, game_id: str) -> Entries:
    """The game's help in the reader's language; none from a gateway that has none."""
    try:
        reply = await session._call(session.stub.GetGameHelp, gw.GetGameHelpRequest(game_id=game_id), timeout=10)
    except grpc.RpcError:
        return []
    return [(entry.id, entry.text) for entry in reply.entries]


def roles(entries: Entries, locale: str | None = None) -> list[str]:
    """Each role with its goal, "Role: what it does. Goal: ..." (Mortadella's table)."""
    found = dict(entries)
    goal = headings(locale)[1]
    return [f"{text}\n    {goal}: {found[f'{key}.goal']}" for key, text in entries if f"{key}.goal" in found]


def panel(display_name: str, summary: str, entries: Entries, rejoin: str = "", locale: str | None = None) -> str:
    """The help panel: the keys, the game in short, its goal, every role with its goal,
    and what each action, card, face and effect does; headed in ``locale`` (headings)."""
    found = dict(entries)
    roles_title, _, titles = headings(locale)
    parts = [display_name, summary, words._(KEYS, locale).rstrip("\n") + rejoin.rstrip("\n")]
    parts += [found[key] for key in ("help.rules", "help.goal") if key in found]
    with_goal = {key for key, _ in entries if f"{key}.goal" in found}
    if with_goal:
        parts.append(roles_title + "\n" + "\n".join(f"  • {line}" for line in roles(entries, locale)))
    other_roles = [
        text
        for key, text in entries
        if key.startswith("help.role.") and not key.endswith(".goal") and key not in with_goal
    ]
    if other_roles:
        parts.append("\n".join(other_roles))
    for prefix, heading in zip(SECTIONS, titles, strict=True):
        texts = entries_text(entries, prefix)
        if prefix == "help.action.":  # a card's action is told with its card
            played = (key.removeprefix("help.action.play_") for key, _ in entries)
            texts = [
                t
                for (key, t), card in zip(entries, played, strict=True)
                if key.startswith(prefix) and f"help.card.{card}" not in found
            ]
        if texts:
            parts.append(heading + "\n" + "\n".join(f"  • {text}" for text in texts))
    return "\n\n".join(part for part in parts if part) + "\n"


def level(entries: Entries, current: Sequence[choices.Choice], actions: Sequence[Message | None]) -> list[str]:
    """What the choices of the menu shown do, each explanation once, in their order."""
    found = dict(entries)
    said: dict[str, None] = {}
    stack = list(current)
    indexes: list[int] = []
    while stack:
        choice = stack.pop(0)
        if choice.index is not None:
            indexes.append(choice.index)
        stack[:0] = choice.children
    for index in indexes:
        action = actions[index] if index < len(actions) else None
        for key in help_ids(action) if action is not None else ():
            if key in found:
                said[found[key]] = None
    return list(said)

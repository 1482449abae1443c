"""Which bots get a worker of their own: the search bots.

A bot with a thinking budget (a ``budget_ms`` option) searches: CPU-bound, it wants a
process per core (a prefork pool). The others wait on the gateway more than they compute
and share a threads pool with the timers and the rating updates. ``make run``
(deploy/stack.py), the generated container files (deploy/generate.py) and the ladder's
benchmark (bench/ladder.py) all split the bots here.
"""

from collections.abc import Iterable
from importlib.metadata import entry_points

from services.bot_specs import GROUP


def search_bots(names: Iterable[str]) -> list[str]:
    """Of these registered bots (by name, in the ``tavola.bots`` registry), the search bots,
    in their order. Reads each one's declaration, whether or not it can run here."""
    entries = {entry.name: entry for entry in entry_points(group=GROUP)}
    return [name for name in names if name in entries and entries[name].load().searches]


def split_bots(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """(the light bots, the search bots) of these registered bots, each in their order."""
    names = list(names)
    search = search_bots(names)
    return [name for name in names if name not in search], search

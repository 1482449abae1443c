"""What a game teaches the search bot: its playbook, one per game, registered like the game
itself with one line in its distribution's metadata, the entry-point group
``tavola.playbooks``: ``<game_id> = "<module>:PLAYBOOK"``. tavola's own games register
theirs in ``pyproject.toml`` (``bots/<game>/playbook.py``); a game from another package
registers its own the same way, with no tavola file changed, and the search bot
(``ismcts``) plays it at full strength. A game without a playbook is still played: by the
game-agnostic bots, and by the search with random playouts and a uniform belief.

A playbook is light: its module names the code it stands for (``"module:attribute"``, as a
bot's spec names its factory) and holds its level schedule as plain data, so the bots'
declarations (``ismcts``'s presets per game) read it without importing any heuristic; the
code is imported where a search plays the game. Each field may equally be the object itself.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # the types only: importing a playbook imports no bot code
    from bots.search.policy import Belief, Certain, Policy

GROUP = "tavola.playbooks"

T = TypeVar("T")


def code(target: "T | str") -> T:
    """The object a playbook's field names: itself, or its ``"module:attribute"`` imported."""
    if not isinstance(target, str):
        return target
    module, _, attribute = target.partition(":")
    loaded: T = getattr(import_module(module), attribute)
    return loaded


@dataclass(frozen=True)
class SelfRead:
    """What ``self_read=on`` plays by: the search's playouts model the others by ``reader``
    (a policy that reads every seat's hidden information from its public play), so they read
    the bot as it reads them; the bot's own seat plays out, and ranks its candidates, by
    ``hider`` (a policy that keeps its secret from such readers), and ``candidates`` (extra
    root moves, (game, view, seat, legal) -> actions, e.g. decoys) are compared too, so it
    gives its secret away only where the playouts say that pays."""

    reader: "Policy | str"
    candidates: "Any | str"
    hider: "Policy | str"


# Two schedules of shares, levels 1 to 8 (docs/bots.md, "Bot strength and levels"): even,
# for a game whose strength falls about evenly with the share (Mortadella; Borgia); and
# spaced geometrically toward 0, for one whose strength lies in the last shares (Pecunia:
# evenly spaced, its bottom four levels were within 40 points, 7-8 some 337).
EVEN_SLIPS = ("1", "0.86", "0.71", "0.57", "0.43", "0.29", "0.14", "0")
GEOMETRIC_SLIPS = ("1", "0.6", "0.4", "0.25", "0.15", "0.08", "0.03", "0")


@dataclass(frozen=True)
class Levels:
    """The game's schedule of the search bot's levels (``ismcts:level=N``, 1 to 8): the
    share of decisions level N plays at random, ``slips[N - 1]`` (level 8's is "0"), and
    what level 8 alone adds in the game (``top``: its options, how its note says what it
    adds, and how the levels below say they do without it), and where the levels' shipped
    calibration is (``calibration``: ``"package:file"``, read by ``bots/search/calibration.py``)."""

    slips: tuple[str, ...]
    top: tuple[Mapping[str, str], str, str] | None = None
    calibration: str | None = None


@dataclass(frozen=True)
class Playbook:
    """A game's knowledge for the search bot (the types: ``bots/search/policy.py``). Each
    code field is the object itself or its ``"module:attribute"``, imported when first used."""

    game_id: str
    # How a seat plays from its own view, fast: the others' model in the playouts, the
    # order the bot's own candidates are tried in (``guide=heuristic``), and the bot
    # ``<game>-heuristic`` where the game's bots name one.
    heuristic: "Policy | str | None" = None
    # A sharper variant for the bot's own seat (``rollout=sharp``); else the heuristic.
    sharp: "Policy | str | None" = None
    # How likely each determinization is from the others' play (``belief=inferred``).
    belief: "Belief | str | None" = None
    # A belief that expects deception (``belief=wary``); else ``belief``.
    wary_belief: "Belief | str | None" = None
    self_read: SelfRead | None = None  # ``self_read=on``; without it the option changes nothing
    # The answers the seat's own view settles, played without searching.
    settled: "Certain | str | None" = None
    # Whether a settled answer is a certain win: then another move is as right where it wins
    # too or keeps the certain win (``python -m bots.lab.settled`` checks bots so).
    settled_wins: bool = False
    levels: Levels | None = None  # without it, the even schedule (``bots/search/specs.py``)


@cache
def load_playbooks() -> dict[str, Playbook]:
    """Every registered playbook by game id (not yet the code it names), sorted by id."""
    books: dict[str, Playbook] = {}
    for entry in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        book = entry.load()
        if not isinstance(book, Playbook):
            raise TypeError(
                f"entry point {entry.name} = {entry.value} in {GROUP} is not a bots.search.playbooks.Playbook"
            )
        if book.game_id != entry.name:
            raise ValueError(f"entry point {entry.name} in {GROUP} names game {book.game_id!r}")
        books[entry.name] = book
    return books


def playbook(game_id: str) -> Playbook:
    """The game's playbook; an empty one for a game that registers none."""
    return load_playbooks().get(game_id) or Playbook(game_id)


def level_schedules() -> dict[str, Levels]:
    """Each game's own level schedule, where its playbook has one."""
    return {game_id: book.levels for game_id, book in load_playbooks().items() if book.levels is not None}

"""The search bot's levels as calibrated, per game: a JSON file beside the game's playbook
(``Levels.calibration``, e.g. ``bots/mortadella/calibration.json``) that
``python -m bots.lab.calibrate --game <game> --write`` writes. Per level it holds the rating
(1500 scale), its uncertainty, the games measured and the digest of the level's settings
(``services.bot_specs.settings_digest``): a level whose settings changed since has no
calibration until it is calibrated again. Read without importing any bot code (the gateway
lists the levels' ratings from it, the rating task starts a level's first rated game there).
"""

import json
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from bots.search.playbooks import load_playbooks
from services.bot_specs import Calibration


def source(game_id: str) -> Traversable | None:
    """Where the game's calibration is kept; None for a game whose playbook names none."""
    book = load_playbooks().get(game_id)
    if book is None or book.levels is None or book.levels.calibration is None:
        return None
    package, _, name = book.levels.calibration.partition(":")
    return files(package) / name


@cache
def read(game_id: str) -> dict[str, Any] | None:
    """The game's calibration file as written, or None where it has none yet."""
    where = source(game_id)
    if where is None or not where.is_file():
        return None
    data: dict[str, Any] = json.loads(where.read_text())
    return data


def levels(game_id: str) -> dict[str, Calibration]:
    """Each calibrated level of the game (the level as written, "1" to "8")."""
    data = read(game_id) or {}
    return {
        level: Calibration(float(entry["rating"]), float(entry["uncertainty"]), int(entry["games"]), entry["digest"])
        for level, entry in data.get("levels", {}).items()
    }


def write(game_id: str, data: dict[str, Any]) -> Path:
    """Writes the game's calibration (in a source checkout: the file beside its playbook)."""
    where = source(game_id)
    if where is None:
        raise ValueError(f"the playbook of {game_id!r} names no calibration file (Levels.calibration)")
    path = Path(str(where))
    path.write_text(json.dumps(data, indent=2) + "\n")
    read.cache_clear()
    return path

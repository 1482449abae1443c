"""Where the terminal client keeps its player: ``player.json``, whose token is the player."""

import json
import os
from pathlib import Path

from clients.terminal.session import state_dir
from clients.terminal.words import _
from common import settings


def token_path() -> Path:
    """player.json: in TAVOLA_CLIENT_DIR when it is set (each such directory one player), else
    beside the default seats directory (~/.local/state/tavola/player.json)."""
    seats = state_dir()
    return seats / "player.json" if settings.text("TAVOLA_CLIENT_DIR") else seats.parent / "player.json"


def saved_token() -> str:
    try:
        return json.loads(token_path().read_text())["player_token"]
    except FileNotFoundError:
        raise SystemExit(_("no player yet: python -m clients.terminal.players create NAME")) from None


def save_token(token: str) -> Path:
    """Writes the token readable by its owner only from the first byte (the token is the
    player), to a new file put in place at once: a crash mid-write leaves the old one whole."""
    path = token_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = path.with_name(f".{path.name}.{os.getpid()}")
    descriptor = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(json.dumps({"player_token": token}))
    os.replace(fresh, path)
    return path

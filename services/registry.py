"""The one list of hosted games. Everything that names games (the stack, rules-service
ports and routes, the demo, the bench, the tests' parametrisations, the deploy files, bot
workers) reads it here.

A game registers itself with one line in its distribution's metadata, the entry-point
group ``tavola.games``: ``<game_id> = "<package>:GAME"``. tavola's own games are in
``pyproject.toml``; a game from another package registers the same way, with no tavola
file changed.
"""

from functools import cache
from importlib.metadata import entry_points

from services.engine.api import Game

GROUP = "tavola.games"
FIRST_RULES_PORT = 50061  # rules services listen on consecutive ports, in game-id order


@cache
def load_games() -> dict[str, Game]:
    """Every registered game by id, sorted by id."""
    games: dict[str, Game] = {}
    for entry in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        game = entry.load()
        if not isinstance(game, Game):
            raise TypeError(f"entry point {entry.name} = {entry.value} in {GROUP} is not a services.engine.api.Game")
        if game.engine.info.game_id != entry.name:
            raise ValueError(f"entry point {entry.name} names game {game.engine.info.game_id!r}")
        games[entry.name] = game
    return games


def game_ids() -> tuple[str, ...]:
    return tuple(load_games())


def get_game(game_id: str) -> Game:
    """Raises KeyError for a game no entry point registers."""
    return load_games()[game_id]


def player_counts(game_id: str) -> range:
    info = get_game(game_id).engine.info
    return range(info.min_players, info.max_players + 1)


def rules_port(game_id: str) -> int:
    """The default port of a game's rules service (deploy files use the same)."""
    return FIRST_RULES_PORT + game_ids().index(game_id)

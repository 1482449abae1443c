"""The one list of hosted games. Everything that names games (the stack, rules-service
ports and routes, the demo, the bench, the tests' parametrisations, the deploy files, bot
workers) reads it here.

A game registers itself with one line in its distribution's metadata, the entry-point
group ``tavola.games``: ``<game_id> = "<package>:GAME"``. tavola's own games are in
``pyproject.toml``; a game from another package registers the same way, with no tavola
file changed.

What deployment needs of a game is its rules service's port. A game declares it
(``Game(..., rules_port=50070)``), or the registry derives one from the game id alone, in
``DERIVED_PORTS``: either way a game's port never depends on which other games are
installed, so adding one moves no other. Two games on one port are refused when the
registry loads, naming both. The deploy files (``python -m deploy.generate``) take every
game's Deployment, Service, route and scrape target from here.
"""

import zlib
from functools import cache
from importlib.metadata import entry_points
from typing import cast

from google.protobuf.descriptor import FileDescriptor

from services.engine.api import Game

GROUP = "tavola.games"
# Ports a game's rules service may not take: the gateway's public and timer ports.
RESERVED_PORTS = frozenset({50051, 50052})
# A game that declares no port gets one of these, from a checksum of its id.
DERIVED_PORTS = range(50100, 51000)


# The distribution that registers each game, filled as load_games runs.
_distributions: dict[str, str] = {}


@cache
def load_games() -> dict[str, Game]:
    """Every registered game by id, sorted by id."""
    games: dict[str, Game] = {}
    _distributions.clear()
    for entry in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        game = entry.load()
        if not isinstance(game, Game):
            raise TypeError(f"entry point {entry.name} = {entry.value} in {GROUP} is not a services.engine.api.Game")
        if game.engine.info.game_id != entry.name:
            raise ValueError(f"entry point {entry.name} names game {game.engine.info.game_id!r}")
        games[entry.name] = game
        _distributions[entry.name] = entry.dist.name if entry.dist is not None else ""
    _check_ports({game_id: _port_of(game_id, game) for game_id, game in games.items()})
    return games


def game_ids() -> tuple[str, ...]:
    return tuple(load_games())


def game_ids_of(distribution: str) -> tuple[str, ...]:
    """The games one distribution registers (``tavola``: the games this project ships)."""

    def normal(name: str) -> str:
        return name.replace("_", "-").lower()

    return tuple(game_id for game_id in load_games() if normal(_distributions[game_id]) == normal(distribution))


def get_game(game_id: str) -> Game:
    """Raises KeyError for a game no entry point registers."""
    return load_games()[game_id]


def game_proto_files() -> list[FileDescriptor]:
    """The proto files of every registered game's messages: the gateway carries them in Any
    fields, and reflection clients (grpcurl, generic clients) decode them from these."""
    files: dict[str, FileDescriptor] = {}
    for game in load_games().values():
        for message_type in (game.codec.view_type(), game.codec.action_type()):
            # The stubs type it as the pure-Python or the upb descriptor; either backend's is
            # an instance of descriptor.FileDescriptor.
            file = cast(FileDescriptor, message_type.DESCRIPTOR.file)
            files[file.name] = file
    return list(files.values())


def player_counts(game_id: str) -> range:
    info = get_game(game_id).engine.info
    return range(info.min_players, info.max_players + 1)


def rules_port(game_id: str) -> int:
    """The port of a game's rules service, locally and in the deploy files: the one the
    game declares, else derived from its id alone."""
    return _port_of(game_id, get_game(game_id))


def derived_port(game_id: str) -> int:
    return DERIVED_PORTS[zlib.crc32(game_id.encode()) % len(DERIVED_PORTS)]


def _port_of(game_id: str, game: Game) -> int:
    return game.rules_port if game.rules_port is not None else derived_port(game_id)


def _check_ports(ports: dict[str, int]) -> None:
    owners: dict[int, str] = {}
    for game_id, port in ports.items():
        if not 1024 <= port <= 65535 or port in RESERVED_PORTS:
            raise ValueError(
                f"game {game_id!r}: rules port {port} is reserved or out of range "
                f"(1024-65535, not {sorted(RESERVED_PORTS)})"
            )
        if port in owners:
            raise ValueError(
                f"games {owners[port]!r} and {game_id!r} both take rules port {port}: declare another "
                f"with Game(..., rules_port=N) in one of them"
            )
        owners[port] = game_id


def local_routes() -> str:
    """Every registered game's rules service at its default local port, as TAVOLA_RULES
    names them ("borgia=127.0.0.1:50061,...")."""
    return ",".join(f"{game}=127.0.0.1:{rules_port(game)}" for game in game_ids())


if __name__ == "__main__":  # the gateway's default routes, asked without loading a game into it
    print(local_routes())

"""No source file over 500 lines outside the game engines: a room that big holds more than
one purpose."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 500
# The game engines and their rule models, and the engine toolkit's codec: a game's rules
# read best in one place.
ENGINES = {
    "services/borgia/engine.py",
    "services/mortadella/engine.py",
    "services/mortadella/model.py",
    "services/pecunia/engine.py",
    "services/engine/codec.py",
}
SOURCES = ("bench", "bots", "clients", "common", "deploy", "gateway", "services", "sdk/python/tavola_bot_sdk")


def source_files() -> dict[str, int]:
    found = {}
    for top in SOURCES:
        for path in (ROOT / top).rglob("*"):
            parts = set(path.relative_to(ROOT).parts)
            if path.suffix not in (".py", ".ts", ".js") or parts & {"node_modules", "gen", "dist", "migrations"}:
                continue
            found[str(path.relative_to(ROOT))] = len(path.read_text().splitlines())
    return found


def test_no_source_file_outside_the_engines_is_over_the_limit():
    sizes = source_files()
    assert len(sizes) > 100
    over = {path: lines for path, lines in sizes.items() if lines > LIMIT and path not in ENGINES}
    assert not over, f"split these by purpose (at most {LIMIT} lines a file): {over}"

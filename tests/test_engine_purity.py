"""Every engine is a pure library (DESIGN: no grpc, protobuf, redis, celery, clock or global
random): its modules import only the standard library, the engine kit and each other.
The codec and the package's __init__ are the proto side and are not part of the engine;
a game's words are, where its engine labels its actions with them (every game's)."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SERVICES = Path(__file__).resolve().parents[1] / "services"
FORBIDDEN_STDLIB = {"random", "time", "datetime", "secrets", "threading", "asyncio", "socket"}
ENGINE_MODULES = {
    "borgia": ("engine", "model", "words"),
    "mortadella": ("engine", "model", "words"),
    "pecunia": ("engine", "model", "deck", "words"),
}


def imported(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            modules.add(node.module or "")
    return modules


def allowed(module: str, game: str) -> bool:
    if module == "services.engine" or module.startswith("services.engine."):
        return True
    if module == "common.phrases":  # words as data (pure Python and Babel), which labels read
        return True
    if module in {f"services.{game}.{own}" for own in ENGINE_MODULES[game]}:
        return True
    top = module.split(".")[0]
    return top in sys.stdlib_module_names and top not in FORBIDDEN_STDLIB


@pytest.mark.parametrize("game", sorted(ENGINE_MODULES))
def test_engine_modules_import_only_the_standard_library_and_the_engine_kit(game):
    for name in ENGINE_MODULES[game]:
        bad = sorted(m for m in imported(SERVICES / game / f"{name}.py") if not allowed(m, game))
        assert not bad, f"services/{game}/{name}.py imports {bad}"


def test_importing_an_engine_loads_no_platform_library():
    """Imported in a fresh interpreter, an engine package (engine and codec) pulls in no grpc,
    redis or celery: bots and tools can simulate games without the platform."""
    probe = (
        "import sys; import services.borgia.engine, services.mortadella.engine, services.pecunia.engine; "
        "print(sorted(m for m in ('grpc', 'redis', 'celery') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

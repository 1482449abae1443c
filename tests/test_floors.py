"""The floors of the house hold: each package imports only what stands below it.

- ``common/`` is the ground: it imports no other tavola package (the generated contracts,
  ``tavola.*``, are no package of ours above it).
- ``gateway/`` and ``deploy/`` import nothing from ``bots/`` and no OpenSpiel: they learn the bots from
  their specs (``services/bot_specs.py``), which the ``tavola.bots`` entry points load
  without any bot's code. Loading the search bot and OpenSpiel took the gateway seconds.
- The floors, bottom up: ``common/``; ``services/`` (the rules services, the game and bot
  registries); ``gateway/`` and ``bots/`` side by side, neither importing the other (they
  meet only on the wire and in ``common/``: the seed commitment a rating update carries is
  ``common/commitment.py``); ``deploy/``, which starts them all; ``clients/``, ``bench/`` and
  ``tests/`` on top. No package imports one on a floor above its own, nor its neighbour:
  a bot worker once imported ``deploy.workers`` to split the bots, and the deploy files'
  generator imported ``bots.search.levels`` (bot code) for the levels the ladder rates, which the
  bot's spec declares.

Read statically, every import of every file (inside functions too), as the engines' purity
test does; and checked in a fresh interpreter, where what an import pulls in shows.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# tavola's own packages, each above common/.
ABOVE_COMMON = {"services", "gateway", "bots", "clients", "deploy", "bench", "tests"}
NEVER_IN_GATEWAY = {"bots", "open_spiel", "pyspiel"}
# Each package's floor: it may import its own and those on lower floors only.
FLOORS = {"common": 0, "services": 1, "gateway": 2, "bots": 2, "deploy": 3, "clients": 4, "bench": 4, "tests": 5}
# The wings of bots/ (each a folder) and what each may import of bots/ beside itself;
# every other folder of bots/ is a game's wing, which may import bots.search alone.
WINGS = {"search": set(), "worker": {"search"}, "lab": {"search", "worker"}}


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute (``from . import x`` does not occur here)."""
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: a relative import"
            modules.add(node.module or "")
    return modules


def top_levels(package: str) -> dict[str, set[str]]:
    """Each file of ``package`` (relative path) and the top-level packages it imports."""
    return {
        str(path.relative_to(ROOT)): {module.split(".")[0] for module in imported(path)}
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def test_common_imports_no_tavola_package_above_it():
    bad = {path: sorted(tops & ABOVE_COMMON) for path, tops in top_levels("common").items() if tops & ABOVE_COMMON}
    assert not bad, f"common/ imports packages above it: {bad}"


@pytest.mark.parametrize("package", sorted(FLOORS))
def test_no_package_imports_one_on_a_floor_above_or_beside_it(package):
    bad = {
        path: sorted(top for top in tops if top in FLOORS and top != package and FLOORS[top] >= FLOORS[package])
        for path, tops in top_levels(package).items()
    }
    bad = {path: tops for path, tops in bad.items() if tops}
    assert not bad, f"{package}/ imports packages on its floor or above: {bad}"


def test_the_wings_of_bots_import_only_the_wings_below_them():
    """bots.search imports no game, worker or lab; a game's wing imports bots.search only;
    the worker imports no game's wing (it plays each through the registries); the lab
    imports any (its tools name games' code, e.g. the probes)."""
    wings = sorted(path.name for path in (ROOT / "bots").iterdir() if (path / "__init__.py").exists())
    games = set(wings) - set(WINGS)
    assert {"search", "worker", "lab", "borgia", "mortadella", "pecunia"} <= set(wings)
    bad = {}
    for wing in wings:
        allowed = WINGS.get(wing, {"search"}) | ({"search", "worker"} | games if wing == "lab" else set())
        for path in sorted((ROOT / "bots" / wing).rglob("*.py")):
            parts = {module.split(".")[1] for module in imported(path) if module.startswith("bots.")}
            wrong = sorted(parts - allowed - {wing})
            if wrong:
                bad[str(path.relative_to(ROOT))] = wrong
    assert not bad, f"bots/ wings import wings above or beside them: {bad}"
    loose = sorted(path.name for path in (ROOT / "bots").glob("*.py") if path.name != "__init__.py")
    assert not loose, f"every bots/ module stands in a wing: {loose}"


def test_the_floors_hold_every_package_of_ours():
    ours = {path.name for path in ROOT.iterdir() if path.is_dir() and (path / "__init__.py").exists()}
    assert ours <= set(FLOORS), sorted(ours - set(FLOORS))


@pytest.mark.parametrize("package", ["gateway", "deploy"])
def test_the_gateway_and_the_deploy_files_import_no_bot_code_and_no_openspiel(package):
    """Both learn the bots from the registry's declarations (services/bot_specs.py)."""
    bad = {
        path: sorted(tops & NEVER_IN_GATEWAY) for path, tops in top_levels(package).items() if tops & NEVER_IN_GATEWAY
    }
    assert not bad, f"{package}/ imports bots' code: {bad}"


def _run(probe: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.strip()


@pytest.mark.parametrize("package", ["common", "gateway"])
def test_importing_every_module_of_a_package_loads_no_bot_code(package):
    names = sorted(f"{package}.{path.stem}" for path in (ROOT / package).glob("*.py") if path.stem not in ("__init__",))
    probe = (
        f"import importlib, sys\nfor name in {names!r}: importlib.import_module(name)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(NEVER_IN_GATEWAY)!r}))"
    )
    assert _run(probe) == "[]"


def test_the_gateway_s_bot_catalogue_loads_only_the_bots_declarations():
    """Every registered bot is listed and checked, from the modules its entry point names
    (``bots.search.specs`` for tavola's own), the playbooks' data and the levels'
    calibration (JSON read by ``bots.search.calibration``), and none of the code that plays it."""
    probe = (
        "import sys\n"
        "from importlib.metadata import entry_points\n"
        "from gateway.bots import BotCatalog\n"
        "catalog = BotCatalog()\n"
        "assert 'ismcts' in catalog.names() and catalog.check('borgia', 'ismcts:budget_ms=50')\n"
        "declared = {e.module for g in ('tavola.bots', 'tavola.playbooks') for e in entry_points(group=g)}\n"
        "declared |= {'bots.search.playbooks', 'bots.search.calibration'}\n"
        "declared |= {m.rsplit('.', n)[0] for m in declared for n in range(1, m.count('.') + 1)}\n"
        "loaded = {m for m in sys.modules if m.split('.')[0] in ('bots', 'open_spiel', 'pyspiel')}\n"
        "print(sorted(loaded - declared))"
    )
    assert _run(probe) == "[]"

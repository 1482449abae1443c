"""A bot from a package of its own (bots/examples/tavola_lazy_bot) registers through the
tavola.bots entry point with no tavola file changed, and plays in the arena."""

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bots.lab import arena
from bots.worker import registry
from services import bot_specs

EXAMPLE = Path(__file__).resolve().parents[2] / "bots" / "examples" / "tavola_lazy_bot"


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """pip-installs the example into a directory of its own, offline, and puts it on sys.path."""
    source = tmp_path / "src"
    shutil.copytree(EXAMPLE, source)  # builds leave files next to the sources
    target = tmp_path / "site"
    offline = ["--quiet", "--no-deps", "--no-index", "--no-build-isolation"]
    subprocess.run(
        [sys.executable, "-m", "pip", "install", *offline, "--target", str(target), str(source)],
        check=True,
        capture_output=True,
    )
    monkeypatch.syspath_prepend(str(target))
    importlib.invalidate_caches()
    bot_specs.load_bots.cache_clear()
    registry.make_strategy.cache_clear()
    yield
    bot_specs.load_bots.cache_clear()
    registry.make_strategy.cache_clear()
    sys.modules.pop("tavola_lazy_bot", None)


def test_the_example_bot_is_found_and_plays_in_the_arena(installed, capsys):
    spec = bot_specs.load_bots()["lazy"]
    assert spec.plays("borgia") and bot_specs.canonical("lazy:pick=last") == "lazy:pick=last"
    assert arena.main(["--game", "borgia", "--bots", "lazy:pick=last,random", "--games", "4", "--jobs", "1"]) == 0
    assert "lazy:pick=last" in capsys.readouterr().out


def test_without_the_package_there_is_no_such_bot():
    bot_specs.load_bots.cache_clear()
    assert "lazy" not in bot_specs.load_bots()

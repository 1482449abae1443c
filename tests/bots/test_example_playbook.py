"""A game from its own distribution gives tavola's search bot its playbook: the example
game (tests/example_game) registers ``coin_playbook:PLAYBOOK`` under ``tavola.playbooks``
beside the game itself, and with that distribution installed the search bot (``ismcts`` at
its default, level 8: full strength) plays Coin guess by it. The playbook's belief reads
the tell its heuristic's players give (they guess their own coin), so the search guesses
their coin every time, where a uniform belief guesses blind; its level schedule is the
game's own. No file of this project changes."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "tests" / "example_game"
SEEDS = 24

PLAY = f"""
import json
from coin_game import GAME
from coin_playbook import tell
from bots.lab.offline import play
from bots.search.playbooks import playbook
from bots.search.policy import policy_strategy
from bots.worker.registry import make_strategy
from services import bot_specs

teller = policy_strategy(GAME, tell)
found = {{
    "belief": playbook("coin").belief,
    "level_2_slips": bot_specs.resolve("ismcts:level=2", "coin")[1]["slips"],
}}
for bot in ("ismcts", "ismcts:belief=uniform"):
    searcher = make_strategy(bot, "coin")
    found[bot] = [list(play(GAME, [teller, searcher], {{}}, seed).winners) for seed in range({SEEDS})]
print(json.dumps(found))
"""


def _status() -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout


def test_the_search_bot_plays_a_game_of_another_distribution_by_its_playbook(tmp_path):
    source, site = tmp_path / "coin", tmp_path / "site"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("__pycache__"))
    before = _status()
    install = ["install", "--quiet", "--no-build-isolation", "--no-deps", "--no-index", "--target", str(site)]
    subprocess.run([sys.executable, "-m", "pip", *install, str(source)], check=True, timeout=180)
    played = subprocess.run(
        [sys.executable, "-c", PLAY],
        cwd=ROOT,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert played.returncode == 0, played.stderr[-3000:]
    found = json.loads(played.stdout.splitlines()[-1])
    assert found["belief"] == "coin_playbook:reads_tells"
    assert found["level_2_slips"] == 0.5  # the game's own schedule (the even one's is 0.86)
    # Reading the tell, seat 1 always guesses seat 0's coin: seat 0 never wins, and seat 1
    # wins every game where the coins differ (seat 0, guessing its own, is wrong there).
    assert all(0 not in winners for winners in found["ismcts"]), found["ismcts"]
    read = sum(winners == [1] for winners in found["ismcts"])
    assert read >= SEEDS // 4
    # Without the belief the same search has no reason to overrule the heuristic, which
    # guesses its own coin: it wins no game (both right or both wrong), fewer than read.
    blind = sum(winners == [1] for winners in found["ismcts:belief=uniform"])
    assert blind < read, found
    assert _status() == before, "installing a game's playbook changed a file of the project"

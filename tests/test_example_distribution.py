"""Adding a game is installing its distribution: the example game (tests/example_game,
with its own pyproject.toml) is pip-installed into a folder of its own, and with it on
the path the deploy, codec and registry checks pass, with no file of this project
changed: the generated deploy files cover it, its codec is checked, and no other game's
port moves. (The codec check runs the example game's cases: the others do not depend on
what else is installed.)"""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "tests" / "example_game"


def _status() -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout


def test_the_example_game_from_its_own_distribution_passes_the_checks(tmp_path):
    source, site = tmp_path / "coin", tmp_path / "site"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("__pycache__"))
    before = _status()
    install = ["install", "--quiet", "--no-build-isolation", "--no-deps", "--no-index", "--target", str(site)]
    subprocess.run(
        [sys.executable, "-m", "pip", *install, str(source)],
        check=True,
        timeout=180,
    )
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}
    listed = subprocess.run(
        [sys.executable, "-c", "from services.registry import game_ids; print(*game_ids())"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert "coin" in listed.stdout.split()
    files = ["tests/test_deploy_files.py", "tests/test_registry.py", "tests/test_codec_encodings.py"]
    checks = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-n", "0", "-p", "no:cacheprovider", *files, "-k", "not codec or coin"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert checks.returncode == 0, checks.stdout[-4000:] + checks.stderr[-2000:]
    assert "test_encodings_are_unchanged[coin-2-0] PASSED" in checks.stdout
    assert _status() == before, "installing a game changed a file of the project"

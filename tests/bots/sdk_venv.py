"""A fresh virtual environment with the bot SDK installed from its folder, as a bot author
outside the project installs it: none of the platform's packages in it."""

import shutil
import subprocess
import sys
import venv
from pathlib import Path

from common import generated

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sdk" / "python"


def sdk_venv(where: Path) -> Path:
    """Copies the SDK's folder under ``where``, writes its generated package by the one
    generation path, installs it into a new virtual environment there (at the versions
    constraints.txt pins); that environment's python."""
    source = where / "tavola-bot-sdk"
    shutil.copytree(SDK, source, ignore=shutil.ignore_patterns("tavola", "tavola.tmp", "build", "*.egg-info"))
    generated.generate(where / "generated", sdk=True)
    shutil.move(where / "generated" / "tavola", source / "tavola")
    environment = where / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    python = environment / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "-c", ROOT / "constraints.txt", source],
        cwd=where,
        check=True,
        timeout=600,
    )
    assert python.exists() and sys.executable != str(python)
    return python

"""The bot SDK (sdk/python) is a distribution of its own: pip installs it from its folder
into a clean environment, where it imports without any of the platform's packages."""

import subprocess
from pathlib import Path

import pytest

from tests.bots.sdk_venv import sdk_venv


@pytest.fixture(scope="module")
def sdk_python(tmp_path_factory) -> Path:
    return sdk_venv(tmp_path_factory.mktemp("sdk"))


CHECK = """
import importlib.util
import tavola_bot_sdk
from tavola_bot_sdk import arena, client
from tavola.gateway.v1 import gateway_pb2_grpc
from tavola.borgia.v1 import borgia_pb2
for platform in ("gateway", "services", "bots", "common", "deploy"):
    assert importlib.util.find_spec(platform) is None, platform
assert importlib.util.find_spec("tavola.store") is None  # the platform's records are no API
print(tavola_bot_sdk.__file__)
"""


def test_the_sdk_installs_and_imports_without_the_platform(sdk_python: Path, tmp_path: Path):
    ran = subprocess.run([sdk_python, "-c", CHECK], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert "site-packages" in ran.stdout


def test_the_sdk_arena_explains_itself(sdk_python: Path, tmp_path: Path):
    ran = subprocess.run(
        [sdk_python, "-m", "tavola_bot_sdk.arena", "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    assert "--probes" in ran.stdout

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


def test_the_sdk_gets_the_public_api_by_the_one_generation_path(tmp_path: Path):
    from common import generated

    generated.generate(tmp_path, sdk=True)
    written = {path.relative_to(tmp_path).as_posix() for path in tmp_path.rglob("*.py*")}
    assert "tavola/gateway/v1/gateway_pb2_grpc.py" in written
    assert "tavola/gateway/v1/gateway_pb2.pyi" in written
    assert {"tavola/borgia/v1/borgia_pb2.py", "tavola/rules/v1/rules_pb2.py"} <= written
    assert not [path for path in written if path.startswith("tavola/store/")]  # the platform's records
    assert not [path for path in written if path.endswith("_connect.py")]  # the gateway's web routes
    assert not (tmp_path / generated.RECORD).exists()

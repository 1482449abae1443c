"""gen/ against proto/: make proto (and the image's build, through the same path) records a
digest of proto/ in gen/, and every tavola process refuses to start, with one line saying
to run `make proto`, when proto/ no longer matches it (a .proto changed without make
proto), instead of failing its calls with a bare INTERNAL."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from common import generated
from deploy.stack import Stack

ROOT = Path(__file__).resolve().parents[1]
ENTRY_POINTS = [
    ("gateway", []),
    ("services.rules_server", ["borgia"]),
    ("bots.worker", []),
    ("bots.worker.ladder", []),
    ("clients.terminal", []),
]

# Runs an entry point as `python -m` does, with common.generated looking at another tree.
RUN = """
import runpy, sys
from pathlib import Path
import common.generated
common.generated.ROOT = Path(sys.argv[1])
module = sys.argv[2]
sys.argv = [module, *sys.argv[3:]]
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def test_the_checkouts_generated_code_matches_its_proto_files():
    record = ROOT / "gen" / generated.RECORD
    assert record.is_file(), "make proto (make setup) records proto/'s digest in gen/"
    assert record.read_text().strip() == generated.digest(ROOT / "proto")
    assert generated.stale(ROOT) is None


def _generated_files(gen: Path) -> set[Path]:
    """The files under ``gen``, without the bytecode Python caches there once it is imported."""
    return {path.relative_to(gen) for path in gen.rglob("*") if path.is_file() and "__pycache__" not in path.parts}


def test_the_generation_path_in_a_clean_tree_makes_the_checkouts_gen(tmp_path: Path):
    """common.generated run on its own, as the image's build runs it, writes what make proto
    wrote into gen/, file for file and byte for byte (its record too)."""
    generated.generate(tmp_path / "gen")
    made = _generated_files(tmp_path / "gen")
    kept = _generated_files(ROOT / "gen")
    kept.discard(Path(".stamp"))  # make's own mark of when it last ran
    assert made == kept
    assert any(path.name.endswith("_connect.py") for path in made) and Path(generated.RECORD) in made
    for path in sorted(made):
        assert (tmp_path / "gen" / path).read_bytes() == (ROOT / "gen" / path).read_bytes(), path


def test_make_and_the_image_generate_through_the_one_path():
    makefile = (ROOT / "Makefile").read_text()
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "$(PY) -m common.generated gen.tmp" in makefile
    assert "python -m common.generated gen " in dockerfile
    for text in (makefile, dockerfile):
        assert "grpc_tools.protoc" not in text and "protoc-gen-connectrpc=" not in text


@pytest.fixture
def stale_tree(tmp_path: Path) -> Path:
    """A tree whose gen/ records proto/ as it was before store.proto changed."""
    shutil.copytree(ROOT / "proto", tmp_path / "proto")
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / generated.RECORD).write_text(generated.digest(tmp_path / "proto") + "\n")
    assert generated.stale(tmp_path) is None
    (store,) = (tmp_path / "proto").rglob("store.proto")
    store.write_text(store.read_text() + "\nmessage AddedWithoutMakeProto {\n  string note = 1;\n}\n")
    return tmp_path


def test_a_proto_change_without_make_proto_is_named(stale_tree: Path):
    problem = generated.stale(stale_tree)
    assert problem is not None and "make proto" in problem and "\n" not in problem
    (stale_tree / "gen" / generated.RECORD).unlink()
    assert generated.stale(stale_tree) is None, "no record (a gen/ made before records were kept): nothing to compare"


@pytest.mark.parametrize(("module", "args"), ENTRY_POINTS, ids=[module for module, _ in ENTRY_POINTS])
def test_every_process_refuses_to_start_on_stale_generated_code(stale_tree: Path, module: str, args: list[str]):
    result = subprocess.run(
        [sys.executable, "-c", RUN, str(stale_tree), module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr[-2000:]
    assert result.stderr.strip().splitlines() == [generated.stale(stale_tree)]


def test_a_local_stack_refuses_to_start_on_stale_generated_code(stale_tree: Path, monkeypatch):
    monkeypatch.setattr(generated, "ROOT", stale_tree)
    stack = Stack(games=("borgia",), with_worker=False)
    with pytest.raises(SystemExit, match="make proto"):
        stack.start()
    assert not stack.processes

"""The generated code in gen/: how it is made from proto/, and whether it was made from the
.proto files proto/ holds now.

``python -m common.generated GEN_DIR`` is the one generation path: ``make proto`` (the
Makefile's gen/.stamp) and the image's build (deploy/Dockerfile) both run it. It writes the
Python messages, gRPC stubs and type stubs, the Connect services (``*_connect.py``: the
browser protocol's routes and a Python client), an ``__init__.py`` in every package, and a
digest of proto/ in ``GEN_DIR/proto.sha256``. Every tavola process checks that record as it
starts (``check``). A checkout whose .proto files changed without ``make proto`` would
otherwise run code of the old messages and fail its calls with a bare INTERNAL; it refuses
to start instead, with one line that says to run ``make proto``. Where there is no record
(a gen/ made before records were kept) there is nothing to compare and nothing is checked.

    python -m common.generated GEN_DIR    # generate proto/'s code, and its record, into GEN_DIR
    python -m common.generated --sdk DIR  # the public API's messages and stubs, for the bot SDK

The bot SDK (sdk/python, a distribution of its own) ships the public API's messages and
gRPC stubs (``SDK_PROTOS``: the gateway's, the rules' it uses and every game's, not the
store's), made by the same call into its ``tavola`` package (``make proto``).

It needs grpcio-tools and protoc-gen-connectrpc (the dev extra) beside this Python.
"""

import hashlib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = "proto.sha256"


def digest(proto: Path) -> str:
    """A digest of every .proto file below ``proto``: their paths and their bytes."""
    hashed = hashlib.sha256()
    for path in sorted(proto.rglob("*.proto")):
        hashed.update(path.relative_to(proto).as_posix().encode() + b"\0")
        hashed.update(path.read_bytes() + b"\0")
    return hashed.hexdigest()


def generate(out: Path, root: Path = ROOT, sdk: bool = False) -> None:
    """Generates the code of ``root``'s proto/ into ``out`` (created if need be), with the
    record of the .proto files it was made from; with ``sdk``, the public API's messages,
    gRPC stubs and type stubs only (no Connect services, no record)."""
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    protos = sorted(path.relative_to(root).as_posix() for path in (root / "proto").rglob("*.proto"))
    if sdk:
        protos = [path for path in protos if not path.startswith(SDK_LEFT_OUT)]
    # The Connect plugin is a console script installed beside this Python (a virtualenv's
    # bin/, or the image's /usr/local/bin).
    plugin = Path(sys.executable).parent / "protoc-gen-connectrpc"
    connect = [
        f"--plugin=protoc-gen-connectrpc={plugin}",
        f"--connectrpc_out={out}",
        "--connectrpc_opt=protobuf=google",
    ]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            "-Iproto",
            f"--python_out={out}",
            f"--grpc_python_out={out}",
            f"--pyi_out={out}",
            *([] if sdk else connect),
            *protos,
        ],
        cwd=root,
        check=True,
    )
    for package in sorted(path for path in out.rglob("*") if path.is_dir()):
        (package / "__init__.py").touch()
    if not sdk:
        (out / RECORD).write_text(digest(root / "proto") + "\n")


# What the bot SDK leaves out: the store's records are the platform's own, not its API.
SDK_LEFT_OUT = ("proto/tavola/store/",)


def stale(root: Path = ROOT) -> str | None:
    """What is wrong, in one line, when gen/ was made from other .proto files than proto/'s."""
    record, proto = root / "gen" / RECORD, root / "proto"
    if not record.is_file() or not proto.is_dir():
        return None
    if record.read_text().strip() == digest(proto):
        return None
    return "the generated code in gen/ is older than the .proto files in proto/: run `make proto`"


def check() -> None:
    """Refuses to start (exit status 1, the line on stderr) when gen/ is stale."""
    problem = stale(ROOT)
    if problem:
        raise SystemExit(problem)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    sdk = arguments[:1] == ["--sdk"]
    if len(arguments) != 1 + sdk:
        raise SystemExit("usage: python -m common.generated GEN_DIR | --sdk DIR")
    try:
        generate(Path(arguments[-1]), sdk=sdk)
    except subprocess.CalledProcessError as error:
        raise SystemExit(error.returncode) from None

"""Whether the generated code in gen/ was made from the .proto files proto/ holds now.

``make proto`` (the one generation path) records a digest of proto/ in gen/proto.sha256 as
it generates; every tavola process checks it as it starts (``check``). A checkout whose
.proto files changed without ``make proto`` would otherwise run code of the old messages
and fail its calls with a bare INTERNAL; it refuses to start instead, with one line that
says to run ``make proto``. Where there is no record (an image, whose gen/ its build made,
or a gen/ made before records were kept) there is nothing to compare and nothing is checked.

    python -m common.generated GEN_DIR    # write the record of proto/ into GEN_DIR
"""

import hashlib
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
    (Path(sys.argv[1]) / RECORD).write_text(digest(ROOT / "proto") + "\n")

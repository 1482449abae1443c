"""The image's build context: the secrets a running platform writes under deploy/ stay out
of it (the image copies deploy/ whole), and nothing the Dockerfile copies is left out."""

import re
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ignored_patterns() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def is_ignored(path: str) -> bool:
    """Whether ``path`` (or a folder above it) matches a pattern (Docker's ** and * alike)."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    for pattern in ignored_patterns():
        plain = pattern.replace("**/", "")
        for prefix in prefixes:
            if fnmatch(prefix, pattern) or fnmatch(prefix.rsplit("/", 1)[-1], plain):
                return True
    return False


def test_the_platforms_secrets_stay_out_of_the_image():
    assert (ROOT / "deploy" / "Dockerfile").read_text().count("COPY deploy ./deploy") == 1
    for secret in ("deploy/.env", "deploy/redis-users.acl"):
        assert is_ignored(secret), secret


def test_local_state_stays_out():
    for local in (".venv/bin/python", "gen/tavola/__init__.py", "clients/web/node_modules/x", "bots/__pycache__/a.pyc"):
        assert is_ignored(local), local


def test_nothing_the_dockerfile_copies_is_left_out():
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    sources = []
    for line in dockerfile.splitlines():
        if line.startswith("COPY") and "--from=" not in line:
            sources += line.split()[1:-1]
    assert "clients/web/src" in sources and "gateway" in sources
    for source in sources:
        assert not is_ignored(source), source
        for path in (ROOT / source).rglob("*") if (ROOT / source).is_dir() else [ROOT / source]:
            relative = path.relative_to(ROOT).as_posix()
            if re.search(r"__pycache__|\.pyc$|(^|/)gen(/|$)|node_modules|\.env$|\.acl$", relative):
                continue
            assert not is_ignored(relative), relative

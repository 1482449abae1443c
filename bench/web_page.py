"""The web client's first figure: time from opening the page to a playable table on
localhost, and the bundle's size gzipped:  python -m bench.web_page [--runs 5] [--json]

Needs the built client (make web) and Chromium at /usr/bin/chromium (make browser); it
drives headless Chromium with Playwright against a private stack, 127.0.0.1 only.

- ``seat_link``: a seat's page opened cold (a fresh browser profile holding only the seat
  token, as after following one's own link or a reload) on a table where that seat must
  decide: from navigation start to the first move button on screen. Beside it, in the
  same run, the same table's reads by a native gRPC client (GetTable and GetView, what
  the page asks before it draws).
- ``lobby_to_table``: the lobby opened cold, a Borgia table against a random bot created
  through the form by scripted clicks, to the first move button: includes the create and
  seat calls, the deal and any bot turns before the seat's own.
- ``bundle``: every file the page loads (HTML, script, style), each gzipped at level 9
  (what a server's gzip sends), against the aim of 300 KB.
"""

import argparse
import gzip
import json
import statistics
import time
from pathlib import Path

import grpc

from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "clients" / "web" / "dist"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
MOVE = ".actions .choices button"
loaded: list[float] = []  # each page's DOMContentLoaded, from navigation start (ms)
BUNDLE_AIM_KB = 300


def bundle_sizes() -> dict:
    files = [DIST / "index.html", *sorted((DIST / "assets").iterdir())]
    raw = sum(path.stat().st_size for path in files)
    gzipped = sum(len(gzip.compress(path.read_bytes(), 9)) for path in files)
    return {"files": len(files), "raw_kb": round(raw / 1024, 1), "gzip_kb": round(gzipped / 1024, 1)}


def table_where_seat_0_decides(stub) -> tuple[str, str]:
    """A Pecunia table against a random bot where seat 0 must decide now."""
    while True:
        created = stub.CreateTable(
            gw.CreateTableRequest(
                game_id="pecunia", player_count=2, bot_seats=[gw.BotSeat(seat=1, bot="random")], auto_start=True
            )
        )
        table_id = created.table.table_id
        token = stub.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=0, display_name="bench")).seat_token
        auth = (("authorization", f"Bearer {token}"),)
        for _ in range(100):
            view = stub.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth)
            if view.must_decide:
                return table_id, token
            time.sleep(0.05)


def grpc_reads_ms(stub, table_id: str, token: str) -> float:
    started = time.perf_counter()
    stub.GetTable(gw.GetTableRequest(table_id=table_id))
    stub.GetView(gw.GetViewRequest(table_id=table_id), metadata=(("authorization", f"Bearer {token}"),))
    return (time.perf_counter() - started) * 1000


def page_ms(browser, url: str, init_script: str | None = None, steps=None, until: str = MOVE) -> float:
    """Milliseconds from the page's navigation start to ``until`` on screen."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    try:
        if init_script:
            context.add_init_script(init_script)
        page = context.new_page()
        page.goto(url)
        if steps:
            steps(page)
        page.wait_for_selector(until, timeout=60_000)
        now = float(page.evaluate("performance.now()"))
        loaded.append(float(page.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")))
        return now
    finally:
        context.close()


def create_by_clicks(page) -> None:
    page.click("[data-testid=new-borgia]")
    page.select_option("#player-count", "2")
    page.select_option("#seat-1", "bot:random")
    page.click("[data-testid=create]")


def summary(values: list[float]) -> dict:
    ordered = sorted(values)
    return {
        "runs": len(ordered),
        "median_ms": round(statistics.median(ordered), 1),
        "max_ms": round(ordered[-1], 1),
        "min_ms": round(ordered[0], 1),
    }


def measure(runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    figures: dict = {"bundle": bundle_sizes()}
    with Stack(bots=("random",), gateway_env={**NO_QUOTAS, "TAVOLA_WEB_STATIC": str(DIST)}) as stack:
        base = f"http://{stack.web_addresses[0]}/"
        channel = grpc.insecure_channel(stack.gateway_address)
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            # Once first: the server's file cache and the browser's binary warm.
            page_ms(browser, f"{base}#/", until="[data-testid=new-borgia]")
            seat, reference, lobby, seat_loaded = [], [], [], []
            for _ in range(runs):
                table_id, token = table_where_seat_0_decides(stub)
                key = json.dumps(json.dumps({"seat": 0, "token": token}))
                script = f"localStorage.setItem('tavola.seat.{table_id}', {key})"
                seat.append(page_ms(browser, f"{base}#/table/{table_id}", init_script=script))
                seat_loaded.append(loaded[-1])
                reference.append(grpc_reads_ms(stub, table_id, token))
                lobby.append(page_ms(browser, f"{base}#/", steps=create_by_clicks))
            browser.close()
        channel.close()
    figures["seat_link"] = summary(seat)
    figures["seat_link_page_loaded"] = summary(seat_loaded)
    figures["seat_link_grpc_reads"] = summary(reference)
    figures["lobby_to_table"] = summary(lobby)
    return figures


def report(figures: dict) -> str:
    bundle = figures["bundle"]
    seat, ref, lobby = figures["seat_link"], figures["seat_link_grpc_reads"], figures["lobby_to_table"]
    page = figures["seat_link_page_loaded"]
    aim = "within" if bundle["gzip_kb"] < BUNDLE_AIM_KB else "OVER"
    return "\n".join(
        [
            f"web client, {seat['runs']} runs each, localhost, headless Chromium",
            f"  bundle: {bundle['files']} files, {bundle['raw_kb']} KB, {bundle['gzip_kb']} KB gzipped"
            f" ({aim} the {BUNDLE_AIM_KB} KB aim)",
            f"  seat link opened cold -> move buttons: median {seat['median_ms']} ms"
            f" (min {seat['min_ms']}, max {seat['max_ms']})",
            f"    of which the page itself loaded (DOMContentLoaded): median {page['median_ms']} ms",
            f"    beside: the same reads by a native gRPC client: median {ref['median_ms']} ms",
            f"  lobby opened cold -> table created by clicks -> move buttons: median {lobby['median_ms']} ms"
            f" (min {lobby['min_ms']}, max {lobby['max_ms']}; includes any bot turns first)",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not (DIST / "index.html").exists():
        raise SystemExit("the web client is not built: make web")
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"no Chromium at {CHROMIUM}: make browser")
    figures = measure(args.runs)
    print(json.dumps(figures, indent=2) if args.json else report(figures))


if __name__ == "__main__":
    main()

"""The web client in a real browser (headless Chromium) against a real stack: whole
tables of each game played by clicks against bots, secrets shown to their owner only,
a rejected action's message, a reload that resumes the stream with no gap, a spectator
page that follows live, the phone-width layout, a hostile display name shown as text,
the replay-mode warning and the seed check. Every page fails its test on a console error, and
on any serious or critical accessibility violation axe-core finds where a test checks it.
"""

import re
import time

import grpc
import pytest

from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc
from tavola.gateway.v1 import sessions_pb2 as ss

HOSTILE = "<img src=x onerror=alert(1)>"
# Short games: Mortadella to a turn limit, Pecunia to a low target. Pecunia's is 12, not less:
# at 5, random playouts ended 90 games in 2,000 before one seat's first decision (a page
# waiting for its turn then waits for good); at 12, 0 in 20,000.
PECUNIA_SHORT = {"target": "12"}
GAMES = {"borgia": {}, "mortadella": {"max_turns": "6"}, "pecunia": PECUNIA_SHORT}
MOVE_SELECTOR = ".actions .choices button:not(.secondary)"


def create_table(
    page, base_url: str, game: str, name: str, seats: list[str], options=None, query: str = "", timer: str = "0"
) -> str:
    """Through the lobby's form: a table of len(seats) + 1 players, seat 0 for this page;
    untimed unless asked (the form suggests the platform's timer: 0 takes it away)."""
    page.page.goto(f"{base_url}{query}#/")
    page.page.fill("#player-name", name)
    page.page.click(f"[data-testid=new-{game}]")
    page.page.select_option("#player-count", str(len(seats) + 1))
    for index, choice in enumerate(seats, start=1):
        page.page.select_option(f"#seat-{index}", choice)
    for option, value in (options or {}).items():
        page.page.fill(f"#opt-{option}", value)
    page.page.fill("#timer", timer)
    page.page.click("[data-testid=create]")
    page.page.wait_for_url("**#/table/*")
    page.page.wait_for_selector("[data-testid=history] li")
    return page.page.url.rsplit("/", 1)[1]


# Waits are long: on two cores, the other test process may be running search bots flat out,
# and a bot's turn then waits for the CPU (these are no timing figures).
def my_turn(page, timeout: float = 60.0) -> None:
    page.page.wait_for_selector(MOVE_SELECTOR, timeout=timeout * 1000)


def click_a_move(page, by_keyboard: bool = False) -> bool:
    """One step through the move menus (a submenu or an action); False when none is shown."""
    buttons = page.page.locator(MOVE_SELECTOR)
    if not buttons.count():
        return False
    try:
        if by_keyboard:
            buttons.first.focus(timeout=1000)
            page.page.keyboard.press("Enter")
        else:
            buttons.first.click(timeout=1000)
    except Exception:  # redrawn under the pointer by a new event: the next pass retries
        return True
    return True


def play_to_end(page, limit_seconds: float = 240.0) -> None:
    deadline = time.monotonic() + limit_seconds
    while not page.page.locator("[data-testid=ending]").count():
        if time.monotonic() > deadline:
            shot = page.shot("stuck")
            shown = page.page.locator("main").inner_text()
            raise AssertionError(f"the game did not end in time; the page is in {shot}:\n{shown}")
        if not click_a_move(page):
            time.sleep(0.1)


def seqs(page) -> list[int]:
    items = page.page.locator("[data-testid=history] li")
    return [int(seq) for seq in items.evaluate_all("items => items.map(item => item.dataset.seq)")]


def check_history_by_keyboard(page) -> None:
    """The history is a log named History that Tab reaches and the keyboard scrolls (from its
    end, where the page keeps it, Home goes to its start), and its list has room for its widest
    number ("100." and on) on the left of the box."""
    assert page.page.get_by_role("log", name="History").count() == 1
    for _ in range(100):
        page.page.keyboard.press("Tab")
        if page.page.evaluate("document.activeElement.dataset.testid") == "history":
            break
    else:
        raise AssertionError("Tab never reached the history")
    log = page.page.locator("[data-testid=history]")
    if log.evaluate("log => log.scrollHeight > log.clientHeight"):
        assert log.evaluate("log => log.scrollTop") > 0, "the history is shown from its end"
        page.page.keyboard.press("Home")
        page.page.wait_for_function("document.querySelector('[data-testid=history]').scrollTop === 0")
    marker, room = log.evaluate(
        """log => {
          const list = log.querySelector("ol");
          const pen = document.createElement("canvas").getContext("2d");
          pen.font = getComputedStyle(list).font;
          return [pen.measureText(`${list.children.length}. `).width, parseFloat(getComputedStyle(list).paddingLeft)];
        }"""
    )
    count = log.locator("li").count()
    assert marker <= room, f"the number {count}. is {marker:.1f} px wide, in {room:.1f} px of room"


def seat_token(page, table_id: str) -> str:
    return page.page.evaluate(f"JSON.parse(localStorage.getItem('tavola.seat.{table_id}')).token")


@pytest.fixture(scope="module")
def stub(web_stack):
    with grpc.insecure_channel(web_stack.gateway_address) as channel:
        yield gateway_pb2_grpc.GatewayServiceStub(channel)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_table_is_played_by_clicks_with_secrets_kept(open_page, base_url, game):
    page = open_page(name=f"play-{game}")
    table_id = create_table(page, base_url, game, HOSTILE, ["bot:random"], GAMES[game])
    # (A Mortadella bot may guess your role before your first turn, which ends the game.)
    page.page.wait_for_selector(f"{MOVE_SELECTOR}, [data-testid=ending]")
    page.shot("start")
    page.axe("playing")
    # The hostile name is text in the page, never markup.
    assert HOSTILE in page.page.locator(".seat-strip").inner_text()
    assert page.page.locator("img").count() == 0
    assert page.page.locator(".seat-strip .who.me").inner_text().endswith("(you)")
    assert page.page.locator("[data-testid=commitment]").is_visible()
    if page.page.locator("[data-testid=ending]").count():
        pass  # over before a secret could be kept: the end's checks below still hold
    elif game == "borgia":  # own dice faces; the bot's only as hidden dice (no call yet this round)
        assert page.page.locator("[data-testid=dice-0] .die:not(.hidden)").count() > 0
        assert page.page.locator("[data-testid=dice-1] .die:not(.hidden)").count() == 0
    elif game == "mortadella":
        assert page.page.locator("[data-testid=role-0]").inner_text() != "role hidden"
        assert page.page.locator("[data-testid=role-1]").inner_text() in ("role hidden", "Brigand")
    else:
        assert "hidden" not in page.page.locator("[data-testid=hand-0]").inner_text()
        assert "hidden" in page.page.locator("[data-testid=hand-1]").inner_text()
        # The turn in play, as the board and the history count it (from 1, as the rulebook).
        turn = re.search(r"Turn (\d+)", page.page.locator(".board .status").inner_text())
        assert turn and int(turn.group(1)) >= 1
        history = page.page.locator("[data-testid=history]").inner_text()
        assert re.findall(r"Turn (\d+):", history)[-1] == turn.group(1), history
    if not page.page.locator("[data-testid=ending]").count():
        # Labels in the game's words: no enum spelled in capitals ("choose PEOPLE TOWER").
        moves = page.page.locator("[data-testid=actions]").inner_text()
        assert not re.search(r"\b[A-Z]{4,}\b", moves), moves
    play_to_end(page)
    page.shot("end")
    verdict = page.page.locator("[data-testid=seed-verdict]")
    page.page.wait_for_selector("[data-testid=seed-verdict]:not(.pending)")
    page.axe("end")
    check_history_by_keyboard(page)
    assert "verified" in verdict.get_attribute("class"), verdict.inner_text()
    ending = page.page.locator("[data-testid=ending]").inner_text()
    assert "win" in ending.lower()
    assert "Seed verified" in ending
    if game == "borgia":  # puppets revealed
        assert ending.count(" held ") == 2
    elif game == "mortadella":  # roles revealed
        assert page.page.locator("[data-testid=role-1]").inner_text() != "role hidden"
    history = page.page.locator("[data-testid=history]").inner_text()
    assert not re.search(r"\bseat \d", history), "seats are named in the history's words"
    # The game's end in the history names this page's seat "(you)" exactly when it won.
    over = next(line for line in history.splitlines() if line.startswith("Game over: "))
    won = page.page.locator("[data-testid=headline]").inner_text().startswith("You win")
    assert ("(you)" in over) == won, (over, ending)
    assert "Quick play again" in ending
    # A spectator at the end: offered nothing that only a seat's player has.
    watcher = open_page(name=f"watch-{game}-end")
    watcher.page.goto(f"{base_url}#/watch/{table_id}")
    watcher.page.wait_for_selector("[data-testid=seed-verdict]:not(.pending)")
    watched = watcher.page.locator("[data-testid=ending]").inner_text()
    assert "Quick play again" not in watched and "Back to the lobby" in watched, watched
    watcher.shot("end")
    watcher.axe("end")


def test_an_unknown_game_plays_through_the_generic_renderer(open_page, base_url):
    page = open_page(name="generic-pecunia")
    create_table(page, base_url, "pecunia", "Gen", ["bot:random"], GAMES["pecunia"], query="?renderer=generic")
    my_turn(page)
    assert page.page.locator(".board.generic > dl.tree").count() == 1
    play_to_end(page)
    page.shot("end")


def test_a_rejected_action_says_why(open_page, base_url, stub):
    page = open_page(name="rejected")
    table_id = create_table(page, base_url, "borgia", "Rex", ["bot:random"])
    token = seat_token(page, table_id)
    my_turn(page)  # (without its stream the page would not see the bot's turns)
    # Reopen without its live stream, so the page keeps the decision it was shown...
    page.page.route("**/tavola.gateway.v1.SessionService/Follow", lambda route: route.abort())
    page.page.reload()
    my_turn(page)
    # ...while the same seat decides elsewhere (another tab, another device).
    auth = (("authorization", f"Bearer {token}"),)
    view = stub.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth)
    stub.SubmitAction(
        gw.SubmitActionRequest(table_id=table_id, action=view.legal_actions[0].action, request_id="elsewhere"),
        metadata=auth,
    )
    while page.page.locator(".actions button[data-action]").count() == 0:
        page.page.locator(MOVE_SELECTOR).first.click()
    page.page.locator(".actions button[data-action]").first.click()
    error = page.page.wait_for_selector("[data-testid=error]")
    assert error.inner_text().startswith("Not accepted:")
    assert "version" in error.inner_text() or "decide" in error.inner_text()
    page.shot("rejected")
    page.page.goto("about:blank")  # stops the page's retries of its stream
    page.errors.clear()  # the aborted stream's network errors are this test's own doing


# Every table version the page shows, in order, in window.shownVersions.
WATCH_VERSIONS = """() => {
  const root = document.querySelector("main.table-page");
  window.shownVersions = [];
  new MutationObserver(() => window.shownVersions.push(Number(root.dataset.version)))
    .observe(root, { attributes: true, attributeFilter: ["data-version"] });
}"""


def shown_version(page) -> int:
    return int(page.page.locator("main.table-page").get_attribute("data-version") or -1)


def test_an_answer_that_comes_back_late_does_not_show_an_older_table(open_page, base_url):
    # A submit's answer (with the seat's new view) and the session's updates overlap, and
    # may come back in either order; when the older came last, the page showed a turn that
    # was over and waited for good. Here a later SubmitAction is answered with an earlier
    # one's answer, as such a late answer arrives.
    page = open_page(name="late-answer")
    create_table(page, base_url, "pecunia", "Lia", ["bot:random"], GAMES["pecunia"])
    my_turn(page)
    kept: list = []  # the first answer seen, with its table's version
    served_late: list[int] = []  # the version the page showed when the old answer came
    shown = {"version": -1}  # read by the loop below: a route handler makes no page calls

    def answer(route) -> None:
        try:
            fetched = route.fetch()
            if not kept:
                kept.append((fetched, gw.SubmitActionResponse.FromString(fetched.body()).view.table.version))
            elif shown["version"] > kept[0][1] and not served_late:
                served_late.append(shown["version"])
                fetched = kept[0][0]
            route.fulfill(response=fetched)
        except Exception:  # unrouted or closed meanwhile: the request goes on without it
            pass

    page.page.evaluate(WATCH_VERSIONS)
    page.page.route("**/tavola.gateway.v1.GatewayService/SubmitAction", answer)
    deadline = time.monotonic() + 120
    while not served_late:
        assert time.monotonic() < deadline, "no SubmitAction came after the table moved on"
        if page.page.locator("[data-testid=ending]").count():
            pytest.skip("the game ended before a late answer could be served")  # 5 sesterces: rare
        shown["version"] = shown_version(page)
        if not click_a_move(page):
            page.page.wait_for_timeout(100)
    page.page.unroute("**/tavola.gateway.v1.GatewayService/SubmitAction")
    play_to_end(page)  # and the game goes on to its end
    versions = page.page.evaluate("window.shownVersions")
    assert served_late[0] > kept[0][1]
    assert versions == sorted(versions), f"the page went back to an older table: {versions}"


def test_a_reload_resumes_the_stream_after_the_last_event(open_page, base_url, stub):
    page = open_page(name="reload")
    table_id = create_table(page, base_url, "borgia", "Rey", ["bot:random"])
    for _ in range(3):
        my_turn(page)
        click_a_move(page, by_keyboard=True)
        time.sleep(0.3)
    my_turn(page)
    before = seqs(page)
    asked: list[bytes] = []
    page.page.on(
        "request",
        lambda request: (
            request.url.endswith(".SessionService/Follow") and asked.append(request.post_data_buffer or b"")
        ),
    )
    page.page.reload()
    page.page.wait_for_selector("[data-testid=history] li")
    my_turn(page)
    # The stream was asked from the last event this browser had seen, not from the start.
    request = ss.FollowRequest.FromString(asked[0][5:])  # a Connect stream's envelope
    assert request.after_seq >= before[-1]
    click_a_move(page)
    time.sleep(0.5)
    after = seqs(page)
    assert after[: len(before)] == before
    token = seat_token(page, table_id)
    auth = (("authorization", f"Bearer {token}"),)
    replay = stub.GetReplay(gw.GetReplayRequest(table_id=table_id, seat=0), metadata=auth)
    seen = [step.seq for step in replay.steps if step.HasField("event") and step.seq <= after[-1]]
    assert after == seen, "the page's history is the seat's log, nothing missing, nothing twice"
    page.shot("resumed")


def test_a_spectator_page_follows_live_and_sees_no_secret(open_page, base_url):
    player = open_page(name="watched-player")
    table_id = create_table(player, base_url, "borgia", "Pia", ["bot:random"])
    my_turn(player)
    spectator = open_page(name="spectator")
    spectator.page.goto(f"{base_url}#/watch/{table_id}")
    spectator.page.wait_for_selector("[data-testid=spectator]")
    count = len(seqs(spectator))
    assert spectator.page.locator("[data-testid=my-secrets]").count() == 0
    assert spectator.page.locator("[data-testid=dice-0] .die:not(.hidden)").count() == 0
    assert spectator.page.locator(".actions").count() == 0
    while player.page.locator(MOVE_SELECTOR).count():  # a whole move: through its menus
        click_a_move(player)
        time.sleep(0.2)
    spectator.page.wait_for_function(
        f"document.querySelectorAll('[data-testid=history] li').length > {count}", timeout=10_000
    )
    spectator.shot("live")
    spectator.axe("live")


def test_a_replay_mode_table_is_marked_before_a_seat_is_taken(open_page, base_url):
    host = open_page(name="replay-host")
    host.page.goto(f"{base_url}#/")
    host.page.click("[data-testid=new-borgia]")
    host.page.select_option("#player-count", "2")
    host.page.select_option("#seat-1", "human")
    host.page.click("summary")
    host.page.check("#replay")
    host.page.fill("#seed", "7")
    host.page.click("[data-testid=create]")
    host.page.wait_for_url("**#/table/*")
    table_id = host.page.url.rsplit("/", 1)[1]
    guest = open_page(name="replay-guest")
    guest.page.goto(f"{base_url}#/")
    row = guest.page.locator(f"[data-table='{table_id}']")
    assert "its creator knows every secret" in row.inner_text()
    guest.page.goto(f"{base_url}#/table/{table_id}")
    warning = guest.page.wait_for_selector("[data-testid=replay-warning]")
    assert "knows every secret" in warning.inner_text()
    assert guest.page.locator(".take-seat").inner_text().count("knows every secret") == 1
    guest.shot("before-seat")


def test_the_phone_width_layout_has_no_sideways_scroll(open_page, base_url, stub):
    page = open_page(width=375, height=800, name="phone")
    page.page.goto(f"{base_url}#/")
    page.page.wait_for_selector("[data-testid=new-mortadella]")
    page.shot("lobby")
    page.axe("lobby")
    table_id = create_table(page, base_url, "mortadella", "Pip", ["bot:random", "bot:random"], GAMES["mortadella"])
    my_turn(page)
    page.shot("table")
    page.axe("table")
    # The seed commitment whole (a phone has no hover to show the rest), wrapped in the page.
    commitment = stub.GetTable(gw.GetTableRequest(table_id=table_id)).table.seed_commitment.hex()
    shown = page.page.locator("[data-testid=commitment] code")
    assert shown.inner_text().replace("\n", "") == commitment
    box = shown.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 375
    strip = page.page.locator("ul.seat-strip").inner_text()
    assert "random 2" in strip and "random 3" in strip, strip  # seats 1 and 2, counted from 1
    width = page.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page is {width} px wide at 375 px"
    box = page.page.locator(MOVE_SELECTOR).first.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 375


def test_a_seat_plays_on_its_session_with_no_get_view_a_move(open_page, base_url):
    """The page follows its seat with SessionService.Follow on the web port: each update
    carries the seat's new view, and its own moves' answers do too, so moves ask for no
    GetView (44: one message in and one out a move)."""
    page = open_page(name="session")
    create_table(page, base_url, "borgia", "Ines", ["bot:random"])
    my_turn(page)
    calls: list[str] = []
    page.page.on("request", lambda request: calls.append(request.url.rpartition("/")[2]))
    moves = 0
    while moves < 4 and not page.page.locator("[data-testid=ending]").count():
        my_turn(page)
        before = shown_version(page)
        while shown_version(page) == before and click_a_move(page):
            page.page.wait_for_timeout(50)  # through the move's menus to the action
        moves += 1
    page.page.wait_for_timeout(500)
    assert moves >= 1 and "SubmitAction" in calls, calls
    if page.page.locator("[data-testid=ending]").count():
        calls = calls[: calls.index("GetView")] if "GetView" in calls else calls  # one at the end
    assert "GetView" not in calls and "WatchTable" not in calls, calls

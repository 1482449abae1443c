"""Players who come back, in a real browser against a real stack: a player made in the page
(its token shown once, kept, renamed, signed out everywhere, forgotten and pasted back), quick play
against bot fill straight to the table, a rated game played to its end, then the player's
page and the leaderboard showing its result, the ratings beside the seats' names at the next
table, the player's tables with rejoin from another browser, and Cancel, which takes the
player out of the queue, "Around me" for a player not on the board, and dates and numbers in
the browser's locale. Every page fails its test on a console error, and each page a test
checks with axe-core on any serious or critical accessibility violation.

The stack fills quick-play seats with bots after 3 s (TAVOLA_QUICKPLAY_BOT_FILL_SECONDS)
and has no provisional period (TAVOLA_PROVISIONAL_GAMES=0, read by the gateway and the
rating worker: every player is established from the start, the random bot too), so one
short Pecunia game against the bot reaches the leaderboard.
"""

import re
import time
from collections.abc import Iterator

import grpc
import pytest

from common import auth
from common.errors import reason_of
from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl
from tests.web.test_browser import HOSTILE, MOVE_SELECTOR, PECUNIA_SHORT, click_a_move

BOT_FILL_SECONDS = "3"


@pytest.fixture(scope="module")
def web_stack(redis_url: str, key_prefix: str, tmp_path_factory, web_bundle) -> Iterator[Stack]:
    if "web_addresses" not in Stack.__dataclass_fields__:
        pytest.skip("this gateway has no web port (the browser protocol): the browser tests skip")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TAVOLA_PROVISIONAL_GAMES", "0")  # the rating worker reads it from its environment
        with Stack(
            redis_url=redis_url,
            key_prefix=f"{key_prefix}-webplayers",
            bots=("random",),
            log_dir=tmp_path_factory.mktemp("web-players-stack"),
            gateway_env={
                **NO_QUOTAS,
                "TAVOLA_QUICKPLAY_BOT_FILL_SECONDS": BOT_FILL_SECONDS,
                "TAVOLA_PROVISIONAL_GAMES": "1",
                "TAVOLA_WEB_STATIC": str(web_bundle),
            },
        ) as running:
            yield running


@pytest.fixture(scope="module")
def player_stub(web_stack):
    with grpc.insecure_channel(web_stack.gateway_address) as channel:
        yield players_pb2_grpc.PlayerServiceStub(channel)


def make_player(page, base_url: str, name: str) -> str:
    """Through #/me: a new player; returns its token (as the page showed it once)."""
    page.page.goto(f"{base_url}#/me")
    page.page.fill("#new-player-name", name)
    page.page.click("[data-testid=create-player-button]")
    token = page.page.locator("[data-testid=player-token]").inner_text()
    assert token.startswith("p.")
    return token


def stored_player(page) -> dict:
    return page.page.evaluate("JSON.parse(localStorage.getItem('tavola.player'))")


def quick_play(page, base_url: str, rated: bool = True, bots: bool = True) -> None:
    """Through #/quick: a two-player Pecunia search for a short game (PECUNIA_SHORT)."""
    page.page.goto(f"{base_url}#/quick")
    page.page.select_option("#qp-game", "pecunia")
    page.page.select_option("#qp-min", "2")
    page.page.select_option("#qp-max", "2")
    page.page.set_checked("#qp-rated", rated)
    page.page.set_checked("#qp-bots", bots)
    page.page.click("details summary")
    page.page.fill("#qp-opt-target", PECUNIA_SHORT["target"])
    page.page.click("[data-testid=find-game]")


def play_to_end(page, limit_seconds: float = 120.0) -> None:
    deadline = time.monotonic() + limit_seconds
    while not page.page.locator("[data-testid=ending]").count():
        assert time.monotonic() < deadline, "the game did not end in time"
        if not click_a_move(page):
            time.sleep(0.1)


def test_a_player_is_made_renamed_signed_out_everywhere_forgotten_and_pasted_back(
    open_page, base_url, player_stub, web_stack
):
    page = open_page(name="player-identity")
    token = make_player(page, base_url, HOSTILE)
    page.shot("token-shown")
    notice = page.page.locator("[data-testid=token-notice]").inner_text()
    assert "shown this once" in notice and "no password" in notice
    # The hostile name is text, in the page and in the header.
    assert page.page.locator("[data-testid=me-name]").inner_text() == HOSTILE
    assert HOSTILE in page.page.locator("header.site").inner_text()
    assert page.page.locator("img").count() == 0
    kept = stored_player(page)
    assert kept["token"] == token
    # Shown once: gone from the page once dismissed, and not shown on the next visit.
    page.page.click("[data-testid=token-saved]")
    assert page.page.locator("[data-testid=player-token]").count() == 0
    page.page.reload()
    page.page.wait_for_selector("[data-testid=me-name]")
    assert page.page.locator("[data-testid=player-token]").count() == 0
    page.shot("me")
    page.axe("me")

    page.page.fill("#rename", "Renata")
    page.page.click("[data-testid=rename-button]")
    page.page.wait_for_selector("[data-testid=status]:has-text('Renamed')")
    assert page.page.locator("[data-testid=me-name]").inner_text() == "Renata"
    assert player_stub.GetPlayer(pl.GetPlayerRequest(player_id=kept["playerId"])).player.display_name == "Renata"

    # A seat this browser holds, taken with the player's token: signing out everywhere
    # revokes its token and takes it back here with the new player token.
    with grpc.insecure_channel(web_stack.gateway_address) as channel:
        tables = gateway_pb2_grpc.GatewayServiceStub(channel)
        table_id = tables.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
        held = tables.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(token))
        page.page.evaluate(
            "([key, seat]) => localStorage.setItem(key, JSON.stringify(seat))",
            [f"tavola.seat.{table_id}", {"seat": held.seat, "token": held.seat_token}],
        )
        page.page.click("[data-testid=sign-out-everywhere]")
        page.page.click("[data-testid=sign-out-everywhere-yes]")
        page.page.wait_for_selector("[data-testid=status]:has-text('1 of them taken back in this browser')")
        page.shot("signed-out-everywhere")
        fresh = page.page.locator("[data-testid=player-token]").inner_text()
        assert fresh != token and stored_player(page)["token"] == fresh
        taken_back = page.page.evaluate(f"JSON.parse(localStorage.getItem('tavola.seat.{table_id}'))")
        assert taken_back["seat"] == held.seat and taken_back["token"] != held.seat_token
        for seat_token, reason in (
            (held.seat_token, "TOKEN_NOT_FOR_TABLE"),
            (taken_back["token"], "TABLE_NOT_STARTED"),
        ):
            # The old seat token holds nothing; the one taken back holds the (waiting) seat.
            with pytest.raises(grpc.RpcError) as view:
                tables.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(seat_token))
            assert reason_of(view.value) == reason
    with pytest.raises(grpc.RpcError) as refused:  # the old token stopped working
        player_stub.ListMyTables(pl.ListMyTablesRequest(), metadata=(("authorization", f"Bearer {token}"),))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    page.page.click("[data-testid=token-saved]")

    page.page.click("[data-testid=forget]")
    page.shot("forget-confirm")
    page.page.click("[data-testid=forget-yes]")
    page.page.wait_for_selector("[data-testid=create-player]")
    assert stored_player(page) is None

    # A token from another device: refused when it is not one, kept when it works.
    page.page.fill("#paste-token", token)  # the revoked one
    page.page.click("[data-testid=paste-token-form] button")
    error = page.page.wait_for_selector("[data-testid=error]:has-text('does not work')")
    assert "not valid" in error.inner_text()
    page.errors.clear()  # the browser logs the refused call (HTTP 401): this test's own doing
    page.page.fill("#paste-token", "not a token")
    page.page.click("[data-testid=paste-token-form] button")
    page.page.wait_for_selector("[data-testid=error]:has-text('not a player token')")
    page.shot("paste-refused")
    page.page.fill("#paste-token", fresh)
    page.page.click("[data-testid=paste-token-form] button")
    page.page.wait_for_selector("[data-testid=me-name]:has-text('Renata')")
    assert stored_player(page)["playerId"] == kept["playerId"]


def test_quick_play_seats_against_bots_and_a_rated_result_reaches_the_pages(open_page, base_url):
    page = open_page(name="quick-rated")
    make_player(page, base_url, "Quinn")
    player_id = stored_player(page)["playerId"]
    quick_play(page, base_url)
    # The waiting screen says when bots fill the empty seats, as the gateway tells it.
    page.page.wait_for_selector(
        f"[data-testid=bot-fill]:has-text('bots fill the empty seats at 0:0{BOT_FILL_SECONDS}')"
    )
    assert "Finding a Pecunia" in page.page.locator("[data-testid=waiting]").inner_text()
    page.shot("waiting-bots")
    page.axe("waiting")
    page.page.wait_for_url("**#/table/*", timeout=30_000)  # seated, straight to the table
    table_id = page.page.url.rsplit("/", 1)[1]
    page.page.wait_for_selector(f"{MOVE_SELECTOR}, [data-testid=ending]")
    assert page.page.locator("[data-testid=rated]").is_visible()
    assert "Quinn" in page.page.locator(".seat-strip").inner_text()
    assert "random" in page.page.locator(".seat-strip").inner_text()
    # A first rated game: neither seat has a rating at Pecunia yet, so none is shown.
    assert page.page.locator(".seat-strip a.rating").count() == 0
    page.shot("first-table")
    page.axe("table")
    play_to_end(page)
    page.shot("first-end")
    page.page.wait_for_selector("[data-testid=seed-verdict]:not(.pending)")
    page.axe("end")
    ending = page.page.locator("[data-testid=ending]").inner_text()
    assert "your player" in ending and "Quick play again" in ending
    # A spectator of the same rated end is pointed to the leaderboard, not to a player of theirs.
    watcher = open_page(name="quick-rated-watcher")
    watcher.page.goto(f"{base_url}#/watch/{table_id}")
    watcher.page.wait_for_selector("[data-testid=seed-verdict]:not(.pending)")
    watched = watcher.page.locator("[data-testid=ending]").inner_text()
    assert "leaderboard" in watched, watched
    assert "your player" not in watched and "Quick play again" not in watched, watched
    watcher.shot("end")
    watcher.axe("end")

    # The player's page: one rated game, its table linked.
    page.page.goto(f"{base_url}#/player/{player_id}")
    deadline = time.monotonic() + 30
    while not page.page.locator("[data-testid=ratings] tr[data-game=pecunia]").count():
        assert time.monotonic() < deadline, "the rating was not counted"
        time.sleep(0.5)
        page.page.reload()
        page.page.wait_for_selector("[data-testid=player-name]")
    row = page.page.locator("[data-testid=ratings] tr[data-game=pecunia]").inner_text()
    assert "±" in row
    recent = page.page.locator("[data-testid=recent]")
    assert recent.locator(f"a[href='#/watch/{table_id}']").count() == 1
    assert " of 2" in recent.inner_text()
    page.shot("player-page")
    page.axe("player-page")

    # The leaderboard lists the player (no provisional period here), and the
    # page around the player puts them in it, marked.
    page.page.goto(f"{base_url}#/leaderboard/pecunia")
    page.page.wait_for_selector(f"[data-testid=leaderboard] tr[data-player='{player_id}']")
    assert page.page.locator("[data-testid=leaderboard] tr[data-player='bot:random']").count() == 1
    page.shot("leaderboard")
    page.axe("leaderboard")
    page.page.click("[data-testid=around-me]")
    page.page.wait_for_selector(f"[data-testid=leaderboard] tr.me[data-player='{player_id}']")
    assert page.page.locator("[data-testid=around-me]").get_attribute("aria-pressed") == "true"
    page.axe("around-me")

    # The next table shows both seats' ratings beside their names, as the player's page has them.
    quick_play(page, base_url)
    page.page.wait_for_url("**#/table/*", timeout=30_000)
    second = page.page.url.rsplit("/", 1)[1]
    page.page.wait_for_selector(".seat-strip a.rating")
    page.page.wait_for_function("document.querySelectorAll('.seat-strip a.rating').length === 2")
    mine = page.page.locator("[data-testid=rating-0]").inner_text()
    assert "±" in mine and mine.split(" ±")[0] in row
    assert page.page.locator("[data-testid=rating-1]").get_attribute("href") == "#/player/bot%3Arandom"
    page.shot("table-with-ratings")

    # My tables lists both; another browser with the same token rejoins the running one.
    page.page.goto(f"{base_url}#/me")
    page.page.wait_for_selector(f"[data-testid=my-tables] [data-table='{second}']")
    assert page.page.locator(f"[data-testid=my-tables] [data-table='{table_id}']").count() == 1
    page.shot("my-tables")
    token = stored_player(page)["token"]
    page.page.goto(f"{base_url}#/table/{second}")
    page.page.wait_for_selector(f"{MOVE_SELECTOR}, [data-testid=ending]")
    other = open_page(name="quick-rejoin")
    other.page.goto(f"{base_url}#/me")
    other.page.fill("#paste-token", token)
    other.page.click("[data-testid=paste-token-form] button")
    other.page.click(f"[data-testid=rejoin-{second}]")
    other.page.wait_for_url(f"**#/table/{second}")
    other.page.wait_for_selector(f"{MOVE_SELECTOR}, [data-testid=ending], .actions.waiting-turn")
    assert other.page.locator(".seat-strip .who.me").inner_text().startswith("Quinn")
    other.shot("rejoined")
    # The first browser's seat token stopped working: its page says so and watches on.
    page.page.wait_for_selector("[data-testid=spectator]")
    assert "another device" in page.page.locator("[data-testid=seat-lost]").inner_text()
    assert page.page.locator(".actions").count() == 0
    page.shot("seat-rejoined-elsewhere")


def test_around_me_for_a_player_not_on_the_board_says_so_in_words(open_page, base_url):
    """NOT_ON_LEADERBOARD is an answer, not a failure: a player with no rating at the game is
    told they are not on its board yet, with no gateway message and no console error."""
    page = open_page(name="around-me-unlisted")
    make_player(page, base_url, "Nova")
    page.page.click("[data-testid=token-saved]")
    page.page.goto(f"{base_url}#/leaderboard/pecunia")
    page.page.wait_for_selector("[data-testid=around-me]")
    page.page.click("[data-testid=around-me]")
    said = page.page.wait_for_selector("[data-testid=not-listed]").inner_text()
    assert re.match(r"You are not on the Pecunia\b.* leaderboard yet: ", said), said
    assert "gateway" not in said and "NOT_ON_LEADERBOARD" not in said and "not found" not in said.lower()
    assert page.page.locator("[data-testid=error]").count() == 0
    page.shot("around-me")
    page.axe("around-me")


def test_dates_and_numbers_follow_the_browsers_locale(open_page, base_url):
    """The bot's page (it has played the rated games above) in German: its tables' dates as
    Germany writes them, and rating changes rounded to whole numbers, as ratings are."""
    page = open_page(name="locale-de", locale="de-DE", timezone="UTC")
    page.page.goto(f"{base_url}#/player/bot%3Arandom")
    page.page.wait_for_selector("[data-testid=recent] tbody tr")
    rows = page.page.locator("[data-testid=recent] tbody tr")
    for index in range(rows.count()):
        cells = rows.nth(index).locator("td")
        when, delta = cells.nth(0).inner_text(), cells.nth(3).inner_text()
        assert re.fullmatch(r"\d\d\.\d\d\.\d{4}, \d\d:\d\d", when), when  # 07.12.2026, 14:44
        assert cells.nth(0).locator("time").get_attribute("datetime"), when
        assert re.fullmatch(r"[+-]\d{1,3}(\.\d{3})*|±0", delta), delta  # +12, -144: no decimals
    rating = page.page.locator("[data-testid=ratings] tr[data-game=pecunia] td").nth(1).inner_text()
    assert re.fullmatch(r"\d{1,3}(\.\d{3})* ± \d{1,3}(\.\d{3})*", rating), rating
    page.shot("player")


def test_cancel_takes_the_player_out_of_the_queue(open_page, base_url, player_stub):
    page = open_page(name="quick-cancel")
    make_player(page, base_url, "Cass")
    page.shot("quick-token")
    token = stored_player(page)["token"]
    quick_play(page, base_url, rated=False, bots=False)
    page.page.wait_for_selector("[data-testid=bot-fill]:has-text('No bots')")
    page.page.wait_for_selector("[data-testid=elapsed]:has-text('Waiting 0:0')")
    assert page.page.evaluate("document.activeElement.dataset.testid") == "cancel-search"
    page.shot("waiting")
    page.axe("waiting")
    page.page.keyboard.press("Enter")  # Cancel, by keyboard
    page.page.wait_for_selector("[data-testid=cancelled]")
    page.page.wait_for_selector("[data-testid=quick-form]")
    page.shot("cancelled")
    # Out of the queue: a new search by the same player is accepted (one search at a time,
    # so it would be ALREADY_SEARCHING while the first one ran).
    auth = (("authorization", f"Bearer {token}"),)
    request = pl.FindGameRequest(game_id="pecunia", min_players=2, options=PECUNIA_SHORT, bot_fill=False)
    deadline = time.monotonic() + 15
    while True:
        stream = player_stub.FindGame(request, metadata=auth)
        try:
            first = next(stream)
            break
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
            assert time.monotonic() < deadline, "the cancelled search stayed in the queue"
            time.sleep(0.3)
    assert first.search_id and first.bot_fill_seconds == 0 and first.timeout_seconds > 0
    stream.cancel()


def test_the_player_pages_fit_a_phone(open_page, base_url):
    """At 375 px wide, no page of players scrolls sideways (runs after the rated game above,
    so the leaderboard and the bot's page have lines)."""
    page = open_page(width=375, height=800, name="phone-players")
    make_player(page, base_url, "Pia Phone")
    page.shot("me")
    for route, ready in (
        ("#/quick", "[data-testid=quick-form]"),
        ("#/leaderboard/pecunia", "[data-testid=leaderboard] table, [data-testid=leaderboard] p"),
        ("#/player/bot%3Arandom", "[data-testid=player-name]"),
    ):
        page.page.goto(f"{base_url}{route}")
        page.page.wait_for_selector(ready)
        page.shot(route.split("/")[1])
        page.axe(route.split("/")[1])
        width = page.page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"{route} is {width} px wide at 375 px"


# The longest name there is: 64 characters, of the widest letter, and no space to wrap at.
LONG_NAME = "W" * 64


def page_width(page) -> int:
    return page.page.evaluate("document.documentElement.scrollWidth")


def shown_within(page, selector: str, seconds: float) -> bool:
    try:
        page.page.wait_for_selector(selector, timeout=seconds * 1000)
    except Exception as error:  # playwright's TimeoutError
        if type(error).__name__ != "TimeoutError":
            raise
        return False
    return True


def test_a_name_of_64_characters_without_a_space_wraps_on_every_page(open_page, base_url):
    """The longest name there is, in the header (on every page, the lobby's too), the player's
    own page, the table (seat strip, seats, history, ending), the player's public page and
    the leaderboard, at a desktop's width and a phone's: none of them scrolls sideways."""
    page = open_page(width=1280, height=900, name="long-name")
    make_player(page, base_url, LONG_NAME)
    page.page.click("[data-testid=token-saved]")
    player_id = stored_player(page)["playerId"]
    quick_play(page, base_url)
    page.page.wait_for_url("**#/table/*", timeout=30_000)
    table_id = page.page.url.rsplit("/", 1)[1]
    page.page.wait_for_selector(f"{MOVE_SELECTOR}, [data-testid=ending]")
    play_to_end(page)
    routes = (
        ("#/", "[data-testid=new-pecunia]"),  # the header names the player
        ("#/me", "[data-testid=me-name]"),
        (f"#/table/{table_id}", "[data-testid=ending]"),
        (f"#/watch/{table_id}", ".seat-strip"),
        (f"#/player/{player_id}", "[data-testid=ratings] tr[data-game=pecunia]"),
        ("#/leaderboard/pecunia", f"[data-testid=leaderboard] tr[data-player='{player_id}']"),
    )
    too_wide = []
    for width in (1280, 375):
        page.page.set_viewport_size({"width": width, "height": 900})
        for route, ready in routes:
            page.page.goto(f"{base_url}{route}")
            deadline = time.monotonic() + 30
            # The rating worker may still be counting: look again until it shows, giving each
            # load its time to draw (reloading every half second, a page drawn in more than
            # that never showed).
            while not shown_within(page, ready, seconds=5):
                assert time.monotonic() < deadline, f"{route}: {ready} never showed"
                page.page.reload()
            if route != "#/":
                assert LONG_NAME in page.page.locator("main").inner_text().replace("\n", ""), route
            page.shot(f"{width}-{route.split('/')[1] or 'lobby'}")
            if page_width(page) > width:
                too_wide.append(f"{route} is {page_width(page)} px wide at {width} px")
    assert not too_wide, too_wide

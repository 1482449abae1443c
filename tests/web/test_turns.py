"""Turns in the browser: the lobby's "Your seats" lists your-turn tables first, by the
game's and the players' names, with the seat's clock; and the service worker turns a push
(delivered through DevTools' ServiceWorker.deliverPushMessage, since headless Chromium has
no push service to subscribe to) into a notification and a line on the open page."""

import json
import secrets
from collections.abc import Iterator

import grpc
import pytest

from common import auth
from tavola.gateway.v1 import clocks_pb2 as ck
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl


@pytest.fixture(scope="module")
def stubs(web_stack) -> Iterator[tuple]:
    with grpc.insecure_channel(web_stack.gateway_address) as channel:
        yield gateway_pb2_grpc.GatewayServiceStub(channel), players_pb2_grpc.PlayerServiceStub(channel)


def new_player(players, stem: str) -> tuple[str, str, str]:
    name = f"{stem} {secrets.token_hex(3)}"
    created = players.CreatePlayer(pl.CreatePlayerRequest(display_name=name))
    return created.player.player_id, created.player_token, name


def duel(gateway, token0: str, token1: str, seed: int, clock=None) -> tuple[str, dict[int, str], gw.Table]:
    clock = clock or ck.TableClock(mode=ck.CLOCK_MODE_CORRESPONDENCE, move_seconds=2 * 86400)
    request = gw.CreateTableRequest(
        game_id="borgia",
        player_count=2,
        seed=seed,
        clock=clock,
        decision_timer=gw.DecisionTimer(policy=gw.TIMEOUT_POLICY_RANDOM_ACTION),
    )
    created = gateway.CreateTable(request)
    table_id = created.table.table_id
    tokens = {}
    for seat, token in enumerate((token0, token1)):
        taken = gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=seat), metadata=auth.metadata(token))
        tokens[seat] = taken.seat_token
    start = gw.StartTableRequest(table_id=table_id)
    table = gateway.StartTable(start, metadata=auth.metadata(created.host_token)).table
    return table_id, tokens, table


def play_until_turn_of(gateway, table_id: str, tokens: dict[int, str], table: gw.Table, seat: int, mine: bool):
    """Plays until ``seat`` decides (``mine``) or does not."""
    while (seat in table.deciding_seats) != mine:
        actor = table.deciding_seats[0] if mine else seat
        view = gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(tokens[actor]))
        request = gw.SubmitActionRequest(table_id=table_id, action=view.legal_actions[0].action)
        table = gateway.SubmitAction(request, metadata=auth.metadata(tokens[actor])).table
    return table


def test_your_seats_lists_your_turn_first_by_names(open_page, base_url, stubs):
    gateway, players = stubs
    ada_id, ada_token, ada_name = new_player(players, "Seatada")
    _, bea_token, bea_name = new_player(players, "Seatbea")
    waiting_id, waiting_tokens, waiting = duel(gateway, ada_token, bea_token, seed=51)
    play_until_turn_of(gateway, waiting_id, waiting_tokens, waiting, 0, mine=False)
    turn_id, turn_tokens, turn = duel(gateway, ada_token, bea_token, seed=52)
    play_until_turn_of(gateway, turn_id, turn_tokens, turn, 0, mine=True)
    page = open_page()
    page.page.goto(base_url)
    key = json.dumps({"token": ada_token, "playerId": ada_id, "name": ada_name})
    page.page.evaluate(f"localStorage.setItem('tavola.player', {json.dumps(key)})")
    page.page.reload()
    rows = page.page.locator("[data-testid=your-seats] li")
    rows.first.wait_for()
    assert rows.count() == 2
    first, second = rows.nth(0), rows.nth(1)
    assert first.get_attribute("data-table") == turn_id and first.get_attribute("data-your-turn") == "true"
    assert second.get_attribute("data-table") == waiting_id and second.get_attribute("data-your-turn") == "false"
    text = first.inner_text()
    assert "Your turn" in text and "House of Borgia" in text and bea_name in text and "⏱ 1d 23h" in text
    assert "Table " not in page.page.locator("[data-testid=your-seats]").inner_text()
    page.page.get_by_test_id("push-subscribe").wait_for()
    page.shot("your-seats")
    page.axe("your-seats")


def test_the_service_worker_shows_a_pushed_turn(open_page, base_url):
    page = open_page()
    origin = base_url.rstrip("/")
    page.page.context.grant_permissions(["notifications"], origin=origin)
    cdp = page.page.context.new_cdp_session(page.page)
    registrations: list[dict] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda event: registrations.extend(event["registrations"]))
    cdp.send("ServiceWorker.enable")
    page.page.goto(base_url)
    scope = page.page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == base_url
    registration = next(r for r in registrations if r["scopeURL"] == scope and not r["isDeleted"])
    payload = {
        "kind": "your_turn",
        "title": "Your turn",
        "body": "Your turn at House of Borgia with Bea.",
        "table_id": "t123",
        "game": "House of Borgia",
        "url": "#/table/t123",
    }
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": origin, "registrationId": registration["registrationId"], "data": json.dumps(payload)},
    )
    told = page.page.get_by_test_id("turn-told")
    told.get_by_role("link").wait_for()
    assert told.inner_text() == "Your turn at House of Borgia with Bea."
    assert told.get_by_role("link").get_attribute("href") == "#/table/t123"
    page.page.wait_for_function(
        "navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((n) => n.length > 0)"
    )
    shown = page.page.evaluate(
        "navigator.serviceWorker.ready.then((r) => r.getNotifications())"
        ".then((n) => n.map((x) => ({ title: x.title, body: x.body, tag: x.tag, url: x.data.url })))"
    )
    assert shown == [
        {
            "title": "Your turn",
            "body": "Your turn at House of Borgia with Bea.",
            "tag": "turn-t123",
            "url": f"{base_url}#/table/t123",
        }
    ]


def test_an_open_page_is_told_of_a_turn_by_the_stream(open_page, base_url, stubs):
    gateway, players = stubs
    ada_id, ada_token, ada_name = new_player(players, "Liveada")
    _, bea_token, bea_name = new_player(players, "Livebea")
    table_id, tokens, table = duel(gateway, ada_token, bea_token, seed=61)
    table = play_until_turn_of(gateway, table_id, tokens, table, 0, mine=False)
    page = open_page()
    page.page.goto(base_url)
    key = json.dumps({"token": ada_token, "playerId": ada_id, "name": ada_name})
    page.page.evaluate(f"localStorage.setItem('tavola.player', {json.dumps(key)})")
    page.page.goto(f"{base_url}#/leaderboard")
    page.page.reload()
    page.page.get_by_test_id("nav-me").wait_for()
    play_until_turn_of(gateway, table_id, tokens, table, 0, mine=True)
    told = page.page.get_by_test_id("turn-told").get_by_role("link")
    told.wait_for()
    assert told.inner_text() == f"Your turn at House of Borgia with {bea_name}."
    assert told.get_attribute("href") == f"#/table/{table_id}"


def test_a_tables_seats_show_their_clocks_and_a_running_one_counts_down(open_page, base_url, stubs):
    gateway, players = stubs
    _, ada_token, _ = new_player(players, "Clockada")
    _, bea_token, _ = new_player(players, "Clockbea")
    table_id, _, table = duel(gateway, ada_token, bea_token, seed=71)
    page = open_page()
    page.page.goto(f"{base_url}#/watch/{table_id}")
    deciding = table.deciding_seats[0]
    running = page.page.get_by_test_id(f"clock-{deciding}")
    running.wait_for()
    assert running.inner_text().strip().startswith("⏱ 1d 23h")
    waiting = [seat for seat in range(2) if seat not in table.deciding_seats]
    for seat in waiting:
        assert page.page.get_by_test_id(f"clock-{seat}").inner_text().strip() == "⏱ 2d 0h"
    page.axe("clocks")
    # A real-time bank counts down on the page, second by second.
    bank = ck.TableClock(mode=ck.CLOCK_MODE_REAL_TIME, bank_seconds=600, increment_seconds=10)
    quick_id, _, quick = duel(gateway, ada_token, bea_token, seed=72, clock=bank)
    page.page.goto(f"{base_url}#/watch/{quick_id}")
    ticking = page.page.get_by_test_id(f"clock-{quick.deciding_seats[0]}")
    ticking.wait_for()
    shown = ticking.inner_text()
    assert shown.strip().startswith("⏱ 9:") or shown.strip() == "⏱ 10:00"
    page.page.wait_for_function(
        "([id, before]) => document.querySelector(`[data-testid=${id}]`).textContent !== before",
        arg=[f"clock-{quick.deciding_seats[0]}", shown],
    )


def test_the_player_page_turns_the_daily_digest_on_and_off(open_page, base_url, stubs):
    _, players = stubs
    ada_id, ada_token, ada_name = new_player(players, "Mailada")
    page = open_page()
    page.page.goto(base_url)
    key = json.dumps({"token": ada_token, "playerId": ada_id, "name": ada_name})
    page.page.evaluate(f"localStorage.setItem('tavola.player', {json.dumps(key)})")
    page.page.goto(f"{base_url}#/me")
    said = page.page.get_by_test_id("digest-status")
    page.page.get_by_label("Email").fill("ada@example.org")
    page.page.get_by_test_id("digest-save").click()
    page.page.wait_for_function("document.querySelector('[data-testid=digest-status]').textContent !== ''")
    assert said.inner_text() == "A digest goes to ada@example.org once a day when tables wait for you."
    page.page.get_by_label("Email").fill("")
    page.page.get_by_test_id("digest-save").click()
    page.page.wait_for_function("document.querySelector('[data-testid=digest-status]').textContent === 'No digest.'")
    page.axe("digest")


def test_a_correspondence_table_is_made_in_the_lobby(open_page, base_url, stubs):
    """The lobby's form makes a table played over days: a fixed time a move (clocks.proto,
    CLOCK_MODE_CORRESPONDENCE), each seat's clock shown at the table."""
    gateway, _ = stubs
    page = open_page()
    page.page.goto(f"{base_url}#/")
    page.page.fill("#player-name", "Lettera")
    page.page.click("[data-testid=new-borgia]")
    page.page.select_option("#player-count", "2")
    page.page.select_option("#seat-1", "bot:random")
    assert not page.page.is_visible("#days")
    page.page.select_option("#pace", "correspondence")
    assert not page.page.is_visible("#timer")
    page.page.fill("#days", "2")
    page.axe("correspondence-form")
    page.page.click("[data-testid=create]")
    page.page.wait_for_url("**#/table/*")
    table_id = page.page.url.rsplit("/", 1)[1]
    table = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
    assert (table.clock.mode, table.clock.move_seconds) == (ck.CLOCK_MODE_CORRESPONDENCE, 2 * 86400)
    page.page.get_by_test_id("clock-0").wait_for()

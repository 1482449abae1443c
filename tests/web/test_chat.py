"""The table's chat panel in a real browser against a real stack: another seat's HTML and
links arrive as text (no element made of them, no script run), the panel is labelled,
a live region and usable from the keyboard, axe finds nothing serious, and a spectator
gets the spectators' channel."""

import secrets

import grpc
import pytest

from common import auth
from tavola.gateway.v1 import chat_pb2 as chat
from tavola.gateway.v1 import chat_pb2_grpc, gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl

HOSTILE_HTML = (
    '<img src=x onerror="window.pwned=1"><b>bold</b> <script>window.pwned=2</script> https://example.org/?q=<i>'
)


@pytest.fixture(scope="module")
def stubs(web_stack):
    with grpc.insecure_channel(web_stack.gateway_address) as channel:
        yield (
            gateway_pb2_grpc.GatewayServiceStub(channel),
            players_pb2_grpc.PlayerServiceStub(channel),
            chat_pb2_grpc.ChatServiceStub(channel),
        )


def player(players, stem: str) -> dict:
    name = f"{stem} {secrets.token_hex(3)}"
    made = players.CreatePlayer(pl.CreatePlayerRequest(display_name=name))
    return {"token": made.player_token, "playerId": made.player.player_id, "name": name}


def as_player(page, base_url: str, who: dict, seat: dict | None = None, table_id: str = "") -> None:
    page.page.goto(base_url)
    page.page.evaluate("(who) => localStorage.setItem('tavola.player', JSON.stringify(who))", who)
    if seat is not None:
        page.page.evaluate(
            "([key, seat]) => localStorage.setItem(key, JSON.stringify(seat))", [f"tavola.seat.{table_id}", seat]
        )


def test_chat_at_the_table_is_text_labelled_live_and_keyboard_usable(open_page, base_url, stubs):
    gateway, players, chat_stub = stubs
    me, other = player(players, "Web Chatter"), player(players, "Other Chatter")
    table_id = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
    mine = gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=0), metadata=auth.metadata(me["token"]))
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=1), metadata=auth.metadata(other["token"]))
    page = open_page(name="chat")
    as_player(page, base_url, me, {"seat": 0, "token": mine.seat_token}, table_id)
    page.page.goto(f"{base_url}#/table/{table_id}")
    page.page.wait_for_selector("[data-testid=chat] h2:has-text('players only')")
    sent = chat.SendChatRequest(table_id=table_id, channel=chat.CHAT_CHANNEL_PLAYERS, text=HOSTILE_HTML)
    chat_stub.SendChat(sent, metadata=auth.metadata(other["token"]))
    line = page.page.locator("[data-testid=chat-log] li").first
    line.wait_for()
    assert line.locator(".chat-text").inner_text() == HOSTILE_HTML
    assert (
        page.page.locator("[data-testid=chat-log] img, [data-testid=chat-log] b, [data-testid=chat-log] a").count() == 0
    )
    assert page.page.evaluate("window.pwned") is None
    # Labelled, a live region, and the keyboard alone sends a message.
    log = page.page.get_by_role("log", name="Chat messages")
    assert log.get_attribute("aria-live") == "polite"
    page.page.get_by_label("Message", exact=True).focus()
    page.page.keyboard.type("gg <3")
    page.page.keyboard.press("Enter")
    page.page.wait_for_selector("[data-testid=chat-log] li:nth-child(2):has-text('gg <3')")
    assert page.page.get_by_label("Message", exact=True).input_value() == ""
    listed = chat_stub.ListChat(
        chat.ListChatRequest(table_id=table_id, channel=chat.CHAT_CHANNEL_PLAYERS),
        metadata=auth.metadata(other["token"]),
    )
    assert [message.text for message in listed.messages] == [HOSTILE_HTML, "gg <3"]
    # A refused message is said in the panel, and stays in the box to be fixed.
    page.page.get_by_label("Message", exact=True).fill("evil \u202e txt")
    page.page.keyboard.press("Enter")
    page.page.wait_for_selector("[data-testid=chat-error]:has-text('U+202E RIGHT-TO-LEFT OVERRIDE')")
    assert page.page.get_by_label("Message", exact=True).input_value() == "evil \u202e txt"
    assert page.errors == ["Failed to load resource: the server responded with a status of 400 (Bad Request)"]
    page.errors.clear()  # the browser logs the refused call (HTTP 400): this test's own doing
    page.shot("chat")
    page.axe("chat")


def test_a_spectator_gets_the_spectators_channel(open_page, base_url, stubs):
    gateway, players, _ = stubs
    table_id = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
    watcher = player(players, "Web Watcher")
    page = open_page(name="chat-spectator")
    as_player(page, base_url, watcher)
    page.page.goto(f"{base_url}#/watch/{table_id}")
    page.page.wait_for_selector("[data-testid=chat] h2:has-text('Spectators')")
    page.page.get_by_label("Message", exact=True).fill("who wins?")
    page.page.keyboard.press("Enter")
    page.page.wait_for_selector("[data-testid=chat-log] li:has-text('who wins?')")
    page.axe("chat-spectator")


def test_a_channel_off_at_the_table_is_a_quiet_note_not_an_alert(open_page, base_url, stubs):
    """At a rated Borgia table the players' channel is off by default (TAVOLA_CHAT_TABLES:
    hints outside a hidden-role game): the panel says so in a plain note in the page's
    language where the box was, and raises no alert."""
    gateway, players, _ = stubs
    me, other = player(players, "Quiet Chatter"), player(players, "Rated Rival")
    made = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2, rated=True))
    table_id = made.table.table_id
    mine = gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=0), metadata=auth.metadata(me["token"]))
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=1), metadata=auth.metadata(other["token"]))
    page = open_page(name="chat-off")
    as_player(page, base_url, me, {"seat": 0, "token": mine.seat_token}, table_id)
    page.page.goto(f"{base_url}#/table/{table_id}")
    note = page.page.locator("[data-testid=chat-off]")
    note.wait_for()
    assert note.inner_text() == "Chat is off at this table."
    assert page.page.locator("[data-testid=chat-input]").count() == 0
    assert page.page.locator("[data-testid=chat-error]").inner_text() == ""
    assert note.get_attribute("role") is None

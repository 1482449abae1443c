"""Friends in a real browser against a real stack: following from a player's page, a friend's
presence on #/friends, an invitation shown on whatever page is open as it comes, accepted
into the seat; names shown as text, never markup; axe clean."""

import json
import secrets

import grpc
import pytest

from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc, social_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import social_pb2 as so


class Remote:
    """A player acting over gRPC (the other side of the browser's)."""

    def __init__(self, channel: grpc.Channel, name: str):
        self.players = players_pb2_grpc.PlayerServiceStub(channel)
        self.gateway = gateway_pb2_grpc.GatewayServiceStub(channel)
        self.social = social_pb2_grpc.SocialServiceStub(channel)
        made = self.players.CreatePlayer(pl.CreatePlayerRequest(display_name=f"{name} {secrets.token_hex(3)}"))
        self.id, self.token, self.name = made.player.player_id, made.player_token, made.player.display_name
        self.auth = (("authorization", f"Bearer {self.token}"),)


@pytest.fixture
def channel(web_stack):
    with grpc.insecure_channel(web_stack.gateway_address) as opened:
        yield opened


def sign_in(page, base_url: str, who: Remote) -> None:
    page.page.goto(base_url)
    key = {"token": who.token, "playerId": who.id, "name": who.name}
    page.page.evaluate(f"localStorage.setItem('tavola.player', {json.dumps(json.dumps(key))})")
    page.page.reload()  # as a browser that held the player when it opened the site


def test_follow_presence_and_an_invitation_accepted_in_the_page(open_page, base_url, channel):
    ada = Remote(channel, "Ada")
    bea = Remote(channel, "<b>Bea</b>")  # markup in a name is text
    page = open_page()
    sign_in(page, base_url, ada)
    page.page.goto(f"{base_url}#/player/{bea.id}")
    page.page.get_by_role("button", name="Follow").click()
    page.page.get_by_text("Followed: once they follow you back").wait_for()
    bea.social.FollowPlayer(so.FollowPlayerRequest(player_id=ada.id), metadata=bea.auth)
    bea.social.SetPresence(so.SetPresenceRequest(state=so.PRESENCE_STATE_AWAY), metadata=bea.auth)

    page.page.goto(f"{base_url}#/friends")
    friend = page.page.locator("[data-testid=friend]")
    friend.wait_for()
    assert "(away)" in friend.inner_text()
    assert bea.name in friend.inner_text()  # the markup shown as typed, not rendered
    assert page.page.locator("[data-testid=friend] b").count() == 0
    page.axe("friends")
    page.shot("friends")

    table = bea.gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table
    bea.gateway.TakeSeat(gw.TakeSeatRequest(table_id=table.table_id), metadata=bea.auth)
    ada_follows = page.page.locator("[data-testid=invitation]")
    bea.social.Invite(so.InviteRequest(player_id=ada.id, table_id=table.table_id), metadata=bea.auth)
    ada_follows.first.wait_for()  # told on the open page, as it came
    assert "invites you to a table of House of Borgia" in ada_follows.first.inner_text()
    ada_follows.first.get_by_role("button", name="Accept").click()
    page.page.wait_for_url(f"**#/table/{table.table_id}")
    seats = bea.gateway.GetTable(gw.GetTableRequest(table_id=table.table_id)).table.seats
    assert {seat.player_id for seat in seats} == {ada.id, bea.id}
    stored = page.page.evaluate(f"localStorage.getItem('tavola.seat.{table.table_id}')")
    assert stored and json.loads(stored)["token"]


def test_the_friends_page_fits_a_phone(open_page, base_url, channel):
    """At 375 px, with long names (no spaces to break at), a friend at a live table, an open
    table of one's own to invite to and a blocked player: nothing is wider than the screen,
    and every control is reachable."""
    long = "Wolfeschlegelsteinhausenbergerdorff"
    ada, bea, cid = (Remote(channel, f"{n}{long}") for n in ("Ada", "Bea", "Cid"))
    for one, other in ((ada, bea), (bea, ada)):
        one.social.FollowPlayer(so.FollowPlayerRequest(player_id=other.id), metadata=one.auth)
    ada.social.BlockPlayer(so.BlockPlayerRequest(player_id=cid.id), metadata=ada.auth)
    bea.social.SetPresence(so.SetPresenceRequest(state=so.PRESENCE_STATE_ONLINE), metadata=bea.auth)
    for who in (ada, bea):
        table = who.gateway.CreateTable(gw.CreateTableRequest(game_id="pecunia", player_count=3)).table
        who.gateway.TakeSeat(gw.TakeSeatRequest(table_id=table.table_id), metadata=who.auth)

    page = open_page(width=375, height=800, name="friends-phone")
    sign_in(page, base_url, ada)
    page.page.goto(f"{base_url}#/friends")
    page.page.locator("[data-testid=friend]").wait_for()
    page.page.get_by_role("button", name="Unblock").wait_for()
    page.page.wait_for_timeout(300)  # the friend's tables and the invite choices load after
    width = page.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page is {width} px wide at 375 px"
    for control in page.page.locator("main button, main select, main a").all():
        box = control.bounding_box()
        assert box is None or box["x"] + box["width"] <= 375, (control.inner_text(), box)
    page.axe("friends-phone")
    page.shot("friends-phone")

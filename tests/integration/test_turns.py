"""Turn-based play that brings players back (gateway/turns.py, push.py, digest.py): your
turn first in ListMyTables, by name; a stream of turns; one Web Push per turn to a player
away from the table, posted to a local push endpoint that decrypts it; a daily digest."""

import email
import os
import queue
import secrets
import threading
import time
from pathlib import Path

import grpc
import pytest

from bench.turn_doubles import Browser, Duel, PushService, b64url, new_player
from common import auth
from common.errors import reason_of
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import players_pb2_grpc, sessions_pb2_grpc, turns_pb2_grpc
from tavola.gateway.v1 import sessions_pb2 as ss
from tavola.gateway.v1 import turns_pb2 as tn

pytestmark = pytest.mark.integration
WAIT = 30.0


@pytest.fixture(scope="module")
def players(channel):
    return players_pb2_grpc.PlayerServiceStub(channel)


@pytest.fixture(scope="module")
def turns(channel):
    return turns_pb2_grpc.TurnServiceStub(channel)


@pytest.fixture
def push_service():
    service = PushService()
    yield service
    service.close()


def test_your_turn_comes_first_by_name_and_alone_with_the_filter(gateway, players):
    _, ada_token = new_player(players, "Turnada")
    _, bea_token = new_player(players, "Turnbea")
    duels = [Duel(gateway, ada_token, bea_token, seed) for seed in (3, 4, 5)]
    duels[0].until_turn_of(1)  # Bea's turn there, Ada's perhaps elsewhere
    if 0 in duels[0].table.deciding_seats:
        duels[0].act(0)
    listed = players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(ada_token)).tables
    assert {mine.table.table_id for mine in listed} >= {duel.table_id for duel in duels}
    flags = [mine.your_turn for mine in listed]
    assert flags == sorted(flags, reverse=True)  # your turn first
    assert all(mine.game_name == "House of Borgia" for mine in listed)
    assert all(mine.your_turn == (mine.seat in mine.table.deciding_seats) for mine in listed)
    mine_only = players.ListMyTables(pl.ListMyTablesRequest(your_turn_only=True), metadata=auth.metadata(ada_token))
    assert [m.table.table_id for m in mine_only.tables] == [m.table.table_id for m in listed if m.your_turn]
    assert duels[0].table_id not in {m.table.table_id for m in mine_only.tables}


def test_a_stream_tells_each_table_that_becomes_your_turn(gateway, players, turns):
    _, ada_token = new_player(players, "Streamada")
    _, bea_token = new_player(players, "Streambea")
    duel = Duel(gateway, ada_token, bea_token, seed=21)
    if 1 in duel.table.deciding_seats:
        duel.act(1)
    duel.until_turn_of(1)
    if 0 in duel.table.deciding_seats:
        duel.act(0)
    assert 0 not in duel.table.deciding_seats
    stream = turns.WatchMyTurns(tn.WatchMyTurnsRequest(), metadata=auth.metadata(ada_token), timeout=WAIT)
    got: queue.Queue = queue.Queue()

    def read() -> None:
        try:
            for message in stream:
                got.put(message)
        except grpc.RpcError as error:  # cancelled at the test's end
            assert error.code() == grpc.StatusCode.CANCELLED

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(0.5)  # let the stream subscribe before the turn (it lists the turns it missed anyway)
    table = duel.until_turn_of(0)
    message = got.get(timeout=WAIT)
    while message.table.table.table_id != duel.table_id:
        message = got.get(timeout=WAIT)
    assert message.table.your_turn and message.table.seat == 0 and message.table.game_name == "House of Borgia"
    assert message.table.table.version >= table.version - 1
    stream.cancel()


def test_a_turn_is_pushed_once_to_a_player_away_and_not_while_at_the_table(gateway, players, turns, push_service):
    _, ada_token = new_player(players, "Pushada")
    _, bea_token = new_player(players, "Pushbea")
    ada = auth.metadata(ada_token)
    duel = Duel(gateway, ada_token, bea_token, seed=31)
    # At the table: a stream of Ada's seat open while her turn comes; it is not pushed.
    watch = gateway.WatchTable(
        gw.WatchTableRequest(table_id=duel.table_id), metadata=auth.metadata(duel.tokens[0]), timeout=WAIT
    )
    next(watch)  # the stream is open (its first event read)
    browser = Browser(push_service.url("/push/ada"))
    gone = Browser(push_service.url("/gone/ada"))
    assert turns.GetPushKey(tn.GetPushKeyRequest()).public_key
    assert turns.AddPushSubscription(browser.request, metadata=ada).subscriptions == 1
    assert turns.AddPushSubscription(gone.request, metadata=ada).subscriptions == 2
    watched = duel.until_turn_of(0)
    watch.cancel()
    time.sleep(0.5)  # the gateway sees the stream close
    away = duel.until_turn_of(0)
    posts = [push_service.received.get(timeout=WAIT)]
    while {path for path, _, _ in posts} != {"/push/ada", "/gone/ada"}:
        posts.append(push_service.received.get(timeout=WAIT))
    assert len(posts) == 2  # one turn told, to each subscription, once
    _, headers, body = next(post for post in posts if post[0] == "/push/ada")
    assert headers["content-encoding"] == "aes128gcm" and headers["authorization"].startswith("vapid t=")
    told = browser.decrypt(body)
    assert told["kind"] == "your_turn" and told["title"] == "Your turn"
    assert told["table_id"] == duel.table_id and told["game"] == "House of Borgia"
    assert told["body"].startswith("Your turn at House of Borgia with Pushbea")
    assert told["url"] == f"#/table/{duel.table_id}"
    # The 410 endpoint was forgotten; the next turn goes to the live one only, once.
    third = duel.until_turn_of(0)
    path, _, body = push_service.received.get(timeout=WAIT)
    assert path == "/push/ada" and browser.decrypt(body)["table_id"] == duel.table_id
    assert push_service.received.empty()
    assert not turns.RemovePushSubscription(
        tn.RemovePushSubscriptionRequest(endpoint=gone.endpoint), metadata=ada
    ).removed
    assert turns.RemovePushSubscription(
        tn.RemovePushSubscriptionRequest(endpoint=browser.endpoint), metadata=ada
    ).removed
    assert watched.version < away.version < third.version


def test_no_turn_is_pushed_while_the_players_session_follows_the_table(gateway, channel, players, turns, push_service):
    """The web client follows its seat with SessionService.Follow: that is being at the
    table, as a WatchTable stream is; once the session ends, the next turn is pushed."""
    _, ada_token = new_player(players, "Followada")
    _, bea_token = new_player(players, "Followbea")
    duel = Duel(gateway, ada_token, bea_token, seed=33)
    follow = sessions_pb2_grpc.SessionServiceStub(channel).Follow(
        ss.FollowRequest(table_id=duel.table_id), metadata=auth.metadata(duel.tokens[0]), timeout=WAIT
    )
    next(follow)  # the session is open (its first update read)
    browser = Browser(push_service.url("/push/followada"))
    assert turns.AddPushSubscription(browser.request, metadata=auth.metadata(ada_token)).subscriptions == 1
    duel.until_turn_of(0)
    duel.until_turn_of(1)
    duel.until_turn_of(0)
    time.sleep(1.0)  # a push, had one been sent, would have come by now
    assert push_service.received.empty()
    follow.cancel()
    time.sleep(0.5)  # the gateway sees the session close
    away = duel.until_turn_of(1) and duel.until_turn_of(0)
    path, _, body = push_service.received.get(timeout=WAIT)
    assert path == "/push/followada" and browser.decrypt(body)["table_id"] == duel.table_id == away.table_id


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("endpoint", "ftp://127.0.0.1/push", "BAD_PUSH_ENDPOINT"),
        ("endpoint", "https://user:pw@127.0.0.1/push", "BAD_PUSH_ENDPOINT"),
        ("endpoint", "https://push.example/" + "x" * 2100, "BAD_PUSH_ENDPOINT"),
        ("p256dh", b64url(b"\x04" + b"\x01" * 64), "BAD_PUSH_KEYS"),
        ("auth", b64url(b"short"), "BAD_PUSH_KEYS"),
    ],
)
def test_a_bad_subscription_is_refused_and_kept_nowhere(players, turns, field, value, reason):
    _, token = new_player(players, "Badpush")
    request = Browser("http://127.0.0.1:9/push").request
    setattr(request, field, value)
    with pytest.raises(grpc.RpcError) as caught:
        turns.AddPushSubscription(request, metadata=auth.metadata(token))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT and reason_of(caught.value) == reason
    remove = tn.RemovePushSubscriptionRequest(endpoint=request.endpoint)
    assert not turns.RemovePushSubscription(remove, metadata=auth.metadata(token)).removed


def digests_to(directory: Path, address: str) -> list[email.message.Message]:
    mails = [email.message_from_bytes(path.read_bytes()) for path in directory.glob("*.eml")]
    return [mail for mail in mails if mail["To"] == address]


def wait_for_digest(directory: Path, address: str) -> email.message.Message:
    deadline = time.monotonic() + WAIT
    while not (found := digests_to(directory, address)):
        assert time.monotonic() < deadline, f"no digest to {address}"
        time.sleep(0.2)
    return found[0]


def test_the_daily_digest_lists_the_tables_waiting_once_a_day(gateway, players, turns, stack):
    directory = Path(stack.gateway_env["TAVOLA_DIGEST_DIR"])
    _, ada_token = new_player(players, "Digestada")
    _, bea_token = new_player(players, "Digestbea")
    ada = auth.metadata(ada_token)
    for bad in ("not an address", "ada@example.org\r\nBcc: all@example.org", "a" * 250 + "@example.org"):
        with pytest.raises(grpc.RpcError) as caught:
            turns.SetDigest(tn.SetDigestRequest(email=bad), metadata=ada)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT and reason_of(caught.value) == "BAD_EMAIL"
    address = f"ada.{secrets.token_hex(4)}@example.org"
    assert turns.SetDigest(tn.SetDigestRequest(email=address), metadata=ada).enabled
    duel = Duel(gateway, ada_token, bea_token, seed=41)
    duel.until_turn_of(0)
    mail = wait_for_digest(directory, address)
    assert mail["Subject"] == "tavola: 1 table waiting for you"
    text = mail.get_payload(decode=True).decode()
    assert "House of Borgia with Digestbea" in text and f"#/table/{duel.table_id}" in text and "Digestada" in text
    # More turns: no more mail today. A later opt-in's first digest shows a round ran since.
    duel.until_turn_of(0)
    _, cai_token = new_player(players, "Digestcai")
    _, dee_token = new_player(players, "Digestdee")
    sentinel = f"cai.{secrets.token_hex(4)}@example.org"
    turns.SetDigest(tn.SetDigestRequest(email=sentinel), metadata=auth.metadata(cai_token))
    Duel(gateway, cai_token, dee_token, seed=42).until_turn_of(0)
    wait_for_digest(directory, sentinel)
    assert len(digests_to(directory, address)) == 1
    assert not turns.SetDigest(tn.SetDigestRequest(email=""), metadata=ada).enabled
    assert os.access(directory, os.R_OK)

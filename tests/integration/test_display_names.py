"""One name policy at every door (common/name_rules.py): CreatePlayer, RenamePlayer and
TakeSeat refuse what draws nothing or moves the text, saying which character; nobody signs
up, renames or sits down under a name that looks like a registered player's or another
seat's; and a name is read as itself by every viewer, never as the text's markup."""

import grpc
import pytest

from common import auth
from common.errors import reason_of
from common.name_rules import skeletons
from common.redis_client import connect
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import players_pb2_grpc

pytestmark = pytest.mark.integration

CYRILLIC_O = "\u043e"


@pytest.fixture(scope="module")
def players(channel) -> players_pb2_grpc.PlayerServiceStub:
    return players_pb2_grpc.PlayerServiceStub(channel)


def refused(call, code: grpc.StatusCode, reason: str) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    assert reason_of(caught.value) == reason, caught.value.details()
    return caught.value.details() or ""


def create(players, name: str) -> pl.CreatePlayerResponse:
    return players.CreatePlayer(pl.CreatePlayerRequest(display_name=name))


def open_table(gateway, seats: int = 3, **fields) -> str:
    return gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=seats, **fields)).table.table_id


def sit(gateway, table_id: str, name: str, token: str | None = None) -> gw.TakeSeatResponse:
    request = gw.TakeSeatRequest(table_id=table_id, display_name=name)
    return gateway.TakeSeat(request, metadata=auth.metadata(token) if token else None)


def test_every_door_refuses_what_draws_nothing_or_moves_the_text_and_says_which(players, gateway):
    table_id = open_table(gateway)
    hostile = {
        "\u202egnp.exe": "U+202E RIGHT-TO-LEFT OVERRIDE (a format character)",
        "Nora\u200b Newcomer": "U+200B ZERO WIDTH SPACE (a format character)",
        "\u200d": "U+200D ZERO WIDTH JOINER (a format character)",
        "Eve\x1b[2J": "U+001B ESCAPE (a control character)",
        "\x1b]0;title\x07": "U+001B ESCAPE (a control character)",
        "Eve\nMallory": "U+000A LINE FEED (a control character)",
        "Eve\x07": "U+0007 BELL (a control character)",
    }
    made = create(players, "Door Keeper")
    token = made.player_token
    for name, why in hostile.items():
        for call in (
            lambda name=name: create(players, name),
            lambda name=name: players.RenamePlayer(
                pl.RenamePlayerRequest(display_name=name), metadata=auth.metadata(token)
            ),
            lambda name=name: sit(gateway, table_id, name),
        ):
            assert why in refused(call, grpc.StatusCode.INVALID_ARGUMENT, "BAD_DISPLAY_NAME"), name
    # The same bound at every door: 64 characters.
    for call in (lambda: create(players, "x" * 65), lambda: sit(gateway, table_id, "x" * 65)):
        assert "at most 64 characters" in refused(call, grpc.StatusCode.INVALID_ARGUMENT, "BAD_DISPLAY_NAME")
    # What is kept is normalized: full-width letters are plain ones, spaces collapsed.
    assert sit(gateway, table_id, " \uff27\uff55\uff45\uff53\uff54   Gina ").table.seats[0].display_name == "Guest Gina"


def test_nobody_signs_up_renames_or_sits_down_under_a_registered_players_look_alike(players, gateway, stack):
    nora = create(players, "Nora Newcomer")
    look_alikes = (f"N{CYRILLIC_O}ra Newcomer", "NORA NEWCOMER", "N0ra  Newcomer", "\uff2eora Newcomer")
    for name in look_alikes:
        refused(lambda name=name: create(players, name), grpc.StatusCode.ALREADY_EXISTS, "DISPLAY_NAME_TAKEN")
    other = create(players, "Olga Other")
    rename = pl.RenamePlayerRequest(display_name=f"N{CYRILLIC_O}ra Newcomer")
    refused(
        lambda: players.RenamePlayer(rename, metadata=auth.metadata(other.player_token)),
        grpc.StatusCode.ALREADY_EXISTS,
        "DISPLAY_NAME_TAKEN",
    )
    table_id = open_table(gateway)
    for name in look_alikes:
        refused(lambda name=name: sit(gateway, table_id, name), grpc.StatusCode.ALREADY_EXISTS, "DISPLAY_NAME_TAKEN")
    # The player sits under their own name, by default or sent.
    seated = sit(gateway, table_id, "Nora Newcomer", nora.player_token)
    assert seated.table.seats[seated.seat].display_name == "Nora Newcomer"

    # Held in Redis under the gateway's prefix, and kept in step by a rename: the old name is
    # free again, the new one held.
    client = connect(stack.redis_url)
    try:
        index = client.hgetall(f"{stack.key_prefix}:player-names")
        held = {key.decode(): owner.decode() for key, owner in index.items()}
    finally:
        client.close()
    assert all(held[key] == nora.player.player_id for key in skeletons("Nora Newcomer"))
    renamed = players.RenamePlayer(
        pl.RenamePlayerRequest(display_name="Nora Oldtimer"), metadata=auth.metadata(nora.player_token)
    )
    assert renamed.player.display_name == "Nora Oldtimer"
    taken_now = create(players, "Nora Newcomer")
    assert taken_now.player.display_name == "Nora Newcomer"
    refused(lambda: create(players, "nora oldtimer"), grpc.StatusCode.ALREADY_EXISTS, "DISPLAY_NAME_TAKEN")
    # A player's own name in another case is still theirs.
    recased = players.RenamePlayer(
        pl.RenamePlayerRequest(display_name="NORA OLDTIMER"), metadata=auth.metadata(nora.player_token)
    )
    assert recased.player.display_name == "NORA OLDTIMER"


def test_a_seat_may_not_look_like_another_seat_a_seat_label_or_a_bot(gateway):
    table_id = open_table(gateway, seats=4, bot_seats=[gw.BotSeat(seat=3, bot="random")])
    sit(gateway, table_id, "Tessa")
    for name in ("TESSA", "tessa", "T\u0435ssa"):  # the same, in capitals, with a Cyrillic e
        refused(lambda name=name: sit(gateway, table_id, name), grpc.StatusCode.ALREADY_EXISTS, "DISPLAY_NAME_AT_TABLE")
    for name in ("Seat 2", "seat 4", "Player 1", "random", "Random 2", "ismcts L8", "You"):
        refused(
            lambda name=name: sit(gateway, table_id, name), grpc.StatusCode.INVALID_ARGUMENT, "RESERVED_DISPLAY_NAME"
        )
    assert sit(gateway, table_id, "").table.seats[1].display_name == "Player 2"  # no name: the platform's


def test_a_name_is_read_as_itself_by_every_viewer_never_as_markup(gateway):
    """The issue's case: a seat named "{1|YOU WON THE GAME|Eve}" read "YOU WON THE GAME sits
    down." to seat 1 and "Eve sits down." to the others."""
    forged = "{1|YOU WON THE GAME|Eve}"
    table_id = open_table(gateway, seats=2)
    first = sit(gateway, table_id, "Hana Host")
    second = sit(gateway, table_id, forged)
    assert second.seat == 1
    texts = {}
    for viewer, token in (("seat 0", first.seat_token), ("seat 1", second.seat_token), ("spectator", None)):
        if token is None:
            stream = gateway.SpectateTable(gw.SpectateTableRequest(table_id=table_id, batched=True), timeout=10)
        else:
            request = gw.WatchTableRequest(table_id=table_id, batched=True)
            stream = gateway.WatchTable(request, metadata=auth.metadata(token), timeout=10)
        events = []
        for message in stream:
            events.extend(message.events)
            if len(events) >= 2:
                stream.cancel()
                break
        texts[viewer] = [event.text for event in events[:2]]
    expected = ["Hana Host sits down.", f"{forged} sits down."]
    assert texts == {"seat 0": expected, "seat 1": expected, "spectator": expected}

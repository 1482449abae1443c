"""Signing out everywhere, on two gateways: ReissuePlayerToken and SignOutEverywhere end,
within a second, every stream that the old player token or a seat token obtained with it
opened, on either gateway; the old seat tokens read and act no more; the seats stay the
player's, and RejoinSeat with the new token hands them back."""

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from clients.terminal import players as cli
from common import auth
from common.errors import reason_of
from deploy.stack import Stack
from tavola.gateway.v1 import actions_pb2, actions_pb2_grpc, gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tests.integration.bot_tables import stub_for

pytestmark = pytest.mark.integration

# What the sign-out promises: every old session ends within this many seconds of its answer.
WITHIN_SECONDS = 1.0


@dataclass
class Door:
    """One gateway, as a client reaches it."""

    address: str
    gateway: gateway_pb2_grpc.GatewayServiceStub
    players: players_pb2_grpc.PlayerServiceStub
    actions: actions_pb2_grpc.ActionServiceStub


@pytest.fixture(scope="module")
def doors(redis_url, key_prefix, tmp_path_factory) -> Iterator[list[Door]]:
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-sign-out",
        gateways=2,
        games=("borgia",),
        with_worker=False,
        log_dir=tmp_path_factory.mktemp("sign-out"),
    ) as stack:
        opened = [stub_for(address) for address in stack.gateway_addresses]
        yield [
            Door(
                address,
                stub,
                players_pb2_grpc.PlayerServiceStub(channel),
                actions_pb2_grpc.ActionServiceStub(channel),
            )
            for address, (channel, stub) in zip(stack.gateway_addresses, opened, strict=True)
        ]
        for channel, _ in opened:
            channel.close()
        stack.delete_keys()


@dataclass
class Watched:
    """A stream read on its own thread until it ends: how and when it ended."""

    name: str
    call: grpc.Future
    messages: int = 0
    ended_at: float | None = None
    error: grpc.RpcError | None = None
    first: threading.Event = field(default_factory=threading.Event)

    def read(self) -> None:
        try:
            for _ in self.call:
                self.messages += 1
                self.first.set()
        except grpc.RpcError as error:
            self.error = error
        finally:
            self.ended_at = time.monotonic()
            self.first.set()


def watch(name: str, call) -> tuple[Watched, threading.Thread]:
    watched = Watched(name, call)
    thread = threading.Thread(target=watched.read, name=name, daemon=True)
    thread.start()
    assert watched.first.wait(10), f"{name} sent nothing"
    assert watched.ended_at is None, f"{name} ended before the sign-out: {watched.error}"
    return watched, thread


def refused(call, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    assert reason_of(caught.value) == reason


def seated_table(door: Door, player_token: str) -> tuple[str, str, str]:
    """A started two-seat Borgia table: the player's seat (taken with its token) and a guest's.
    Returns (table id, the player's seat token, the guest's)."""
    table_id = door.gateway.CreateTable(
        gw.CreateTableRequest(game_id="borgia", player_count=2, auto_start=True)
    ).table.table_id
    mine = door.gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(player_token))
    guest = door.gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, display_name="guest"))
    assert guest.table.status == gw.TABLE_STATUS_IN_PROGRESS
    return table_id, mine.seat_token, guest.seat_token


def decision_of(door: Door, table_id: str, seat_token: str, guest_token: str) -> any_pb2.Any:
    """A legal action of the seat (its guest opponent plays until the seat must decide)."""
    for _ in range(20):
        view = door.gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(seat_token))
        if view.must_decide:
            return view.legal_actions[0].action
        guest = door.gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(guest_token))
        door.gateway.SubmitAction(
            gw.SubmitActionRequest(table_id=table_id, action=guest.legal_actions[0].action),
            metadata=auth.metadata(guest_token),
        )
    raise AssertionError("the seat never had to decide")


def sign_out(door: Door, how: str, token: str) -> tuple[str, list[str]]:
    metadata = auth.metadata(token)
    if how == "reissue":
        reissued = door.players.ReissuePlayerToken(pl.ReissuePlayerTokenRequest(), metadata=metadata)
        return reissued.player_token, list(reissued.signed_out_table_ids)
    signed_out = door.players.SignOutEverywhere(pl.SignOutEverywhereRequest(), metadata=metadata)
    return signed_out.player_token, list(signed_out.signed_out_table_ids)


@pytest.mark.parametrize("how", ["reissue", "sign_out"])
def test_a_new_player_token_ends_every_old_session_on_every_gateway(doors: list[Door], how: str):
    player = doors[0].players.CreatePlayer(pl.CreatePlayerRequest(display_name=f"ada-{how}"))
    old = player.player_token
    # Two tables; the seat token of each, obtained with the old player token, watched on
    # both gateways (one of them with a seat token from RejoinSeat: a second device).
    table_a, seat_a, guest_a = seated_table(doors[0], old)
    table_b, _, guest_b = seated_table(doors[1], old)
    seat_b = doors[1].players.RejoinSeat(pl.RejoinSeatRequest(table_id=table_b), metadata=auth.metadata(old))
    seat_tokens = {table_a: seat_a, table_b: seat_b.seat_token}
    guests = {table_a: guest_a, table_b: guest_b}
    streams = []
    for index, door in enumerate(doors):
        for table_id, token in seat_tokens.items():
            call = door.gateway.WatchTable(gw.WatchTableRequest(table_id=table_id), metadata=auth.metadata(token))
            streams.append(watch(f"WatchTable {table_id[:6]} on gateway {index}", call))
    # And a search on the second gateway, which no one else joins: it waits for people only.
    search = doors[1].players.FindGame(
        pl.FindGameRequest(game_id="borgia", min_players=2, max_players=2, bot_fill=False),
        metadata=auth.metadata(old),
    )
    streams.append(watch("FindGame on gateway 1", search))
    # At each table, an action of the player's seat that the gateway would apply now.
    actions = {
        table_id: decision_of(doors[0], table_id, token, guests[table_id]) for table_id, token in seat_tokens.items()
    }
    versions = {
        table_id: doors[0].gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.version
        for table_id in seat_tokens
    }

    sent = time.monotonic()
    new, signed_out_tables = sign_out(doors[0], how, old)
    answered = time.monotonic()

    for watched, thread in streams:
        thread.join(WITHIN_SECONDS + 1)
        assert watched.ended_at is not None, f"{watched.name} still open after the sign-out"
        took = watched.ended_at - answered
        print(
            f"{how}: {watched.name} ended {(watched.ended_at - sent) * 1000:.0f} ms after the call was sent,"
            f" {took * 1000:+.0f} ms from its answer ({(answered - sent) * 1000:.0f} ms after the call)"
        )
        assert took < WITHIN_SECONDS, f"{watched.name} ended {took:.2f} s after the answer"
        assert watched.error is not None, f"{watched.name} ended without an error"
        if watched.name.startswith("FindGame"):
            assert watched.error.code() == grpc.StatusCode.UNAUTHENTICATED, watched.error.details()
            assert reason_of(watched.error) == "PLAYER_TOKEN_REVOKED"
        else:
            assert watched.error.code() == grpc.StatusCode.PERMISSION_DENIED, watched.error.details()
            assert reason_of(watched.error) == "SEAT_SIGNED_OUT"

    assert sorted(signed_out_tables) == sorted(seat_tokens)
    # The old seat tokens read and act no more, on either gateway; nothing is applied.
    for door in doors:
        for table_id, token in seat_tokens.items():
            refused(
                lambda door=door, table_id=table_id, token=token: door.gateway.GetView(
                    gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(token)
                ),
                grpc.StatusCode.PERMISSION_DENIED,
                "TOKEN_NOT_FOR_TABLE",
            )
    for table_id, token in seat_tokens.items():
        table = doors[1].gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
        # The sign-out's own commit (the revocation) is the only change since.
        assert table.version == versions[table_id] + 1
        for door in doors:
            refused(
                lambda door=door, table_id=table_id, token=token: door.gateway.SubmitAction(
                    gw.SubmitActionRequest(table_id=table_id, action=actions[table_id]),
                    metadata=auth.metadata(token),
                ),
                grpc.StatusCode.PERMISSION_DENIED,
                "TOKEN_NOT_FOR_TABLE",
            )
        # Nor on ActionService's stream, where each message carries its seat token.
        answers = doors[1].actions.SubmitActions(
            iter(
                [
                    actions_pb2.SubmitActionsRequest(
                        id=1,
                        seat_token=token,
                        request=gw.SubmitActionRequest(table_id=table_id, action=actions[table_id]),
                    )
                ]
            )
        )
        (answer,) = list(answers)
        status = status_pb2.Status.FromString(answer.error)
        info = error_details_pb2.ErrorInfo()
        next(detail for detail in status.details if detail.Is(info.DESCRIPTOR)).Unpack(info)
        assert (status.code, info.reason) == (grpc.StatusCode.PERMISSION_DENIED.value[0], "TOKEN_NOT_FOR_TABLE")
        assert doors[0].gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.version == table.version

    # The old player token is refused; the new one gets each seat back, with a working token.
    refused(
        lambda: doors[1].players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(old)),
        grpc.StatusCode.UNAUTHENTICATED,
        "PLAYER_TOKEN_INVALID",
    )
    for table_id in seat_tokens:
        back = doors[1].players.RejoinSeat(pl.RejoinSeatRequest(table_id=table_id), metadata=auth.metadata(new))
        view = doors[0].gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(back.seat_token))
        assert view.seat == back.seat and view.table.seats[back.seat].player_id == player.player.player_id


def test_seats_taken_while_signing_out_do_not_outlive_it(doors: list[Door]):
    """Seats taken with the old token while the sign-out runs, on the other gateway: every
    seat token that such a TakeSeat hands out is revoked by the time the sign-out answers
    (the sign-out sweeps the player's tables again once the token is revoked, and a seating
    call that finds its token revoked once seated signs that seat out and is refused)."""
    player = doors[0].players.CreatePlayer(pl.CreatePlayerRequest(display_name="grace"))
    old = player.player_token
    tables = [
        doors[0].gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
        for _ in range(12)
    ]
    start = threading.Barrier(len(tables) + 1)
    handed: dict[str, str] = {}

    def take(table_id: str) -> None:
        start.wait()
        try:
            taken = doors[1].gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(old))
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.UNAUTHENTICATED, error.details()
            assert reason_of(error) == "PLAYER_TOKEN_INVALID"
            return
        handed[table_id] = taken.seat_token

    threads = [threading.Thread(target=take, args=(table_id,)) for table_id in tables]
    for thread in threads:
        thread.start()
    start.wait()
    time.sleep(0.005)  # some seats before the sign-out, some during it, some after
    new, _ = sign_out(doors[0], "sign_out", old)
    for thread in threads:
        thread.join(10)
    for table_id, token in handed.items():
        refused(
            lambda table_id=table_id, token=token: doors[0].gateway.GetView(
                gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(token)
            ),
            grpc.StatusCode.PERMISSION_DENIED,
            "TOKEN_NOT_FOR_TABLE",
        )
    # The seats that were taken are the player's still: the new token rejoins them.
    mine = doors[1].players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(new))
    print(f"{len(handed)} seat tokens handed out, {len(mine.tables)} seats taken, of {len(tables)} tries")
    assert len(mine.tables) >= len(handed)
    for listed in mine.tables:
        back = doors[0].players.RejoinSeat(
            pl.RejoinSeatRequest(table_id=listed.table.table_id), metadata=auth.metadata(new)
        )
        refused(
            lambda back=back: doors[1].gateway.GetView(
                gw.GetViewRequest(table_id=back.table.table_id), metadata=auth.metadata(back.seat_token)
            ),
            grpc.StatusCode.FAILED_PRECONDITION,
            "TABLE_NOT_STARTED",
        )
    # A second sign-out revokes exactly the seats rejoined since.
    assert sorted(sign_out(doors[1], "reissue", new)[1]) == sorted(t.table.table_id for t in mine.tables)


def test_an_open_tables_seat_is_signed_out_too(doors: list[Door]):
    player = doors[0].players.CreatePlayer(pl.CreatePlayerRequest(display_name="hedy"))
    table_id = doors[0].gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
    seat = doors[0].gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(player.player_token))
    watched, thread = watch(
        "WatchTable of an open table",
        doors[1].gateway.WatchTable(gw.WatchTableRequest(table_id=table_id), metadata=auth.metadata(seat.seat_token)),
    )
    new, signed_out = sign_out(doors[0], "sign_out", player.player_token)
    assert signed_out == [table_id]
    thread.join(WITHIN_SECONDS + 1)
    assert watched.error is not None and reason_of(watched.error) == "SEAT_SIGNED_OUT"
    refused(
        lambda: doors[1].gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(seat.seat_token)),
        grpc.StatusCode.PERMISSION_DENIED,
        "TOKEN_NOT_FOR_TABLE",
    )
    # The seat is still the player's: the new token rejoins it.
    back = doors[1].players.RejoinSeat(pl.RejoinSeatRequest(table_id=table_id), metadata=auth.metadata(new))
    assert back.seat == seat.seat


def test_the_terminal_signs_out_everywhere(doors: list[Door], tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TAVOLA_CLIENT_DIR", str(tmp_path / "seats"))
    address = ["--gateway", doors[0].address]
    assert cli.main([*address, "create", "Terminal Tom"]) == 0
    old = cli.saved_token()
    table_id, seat_token, _ = seated_table(doors[1], old)
    capsys.readouterr()
    assert cli.main([*address, "sign-out-everywhere"]) == 0
    said = capsys.readouterr().out
    assert "signed out everywhere" in said and f"rejoin {table_id}" in said
    new = cli.saved_token()
    assert new != old and (tmp_path / "seats" / "player.json").stat().st_mode & 0o077 == 0
    refused(
        lambda: doors[1].gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(seat_token)),
        grpc.StatusCode.PERMISSION_DENIED,
        "TOKEN_NOT_FOR_TABLE",
    )
    # The saved token is the new one: the player's tables are listed with it.
    assert cli.main([*address, "tables"]) == 0
    assert table_id in capsys.readouterr().out

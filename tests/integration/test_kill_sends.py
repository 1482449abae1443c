"""A gateway killed (SIGKILL) in the middle of a send, with a second gateway on the same
Redis carrying on: a Web Push in flight is not sent again (a turn is told at most once,
docs/clients.md), and invitations sent while it dies each exist whole or not at all, a
client's retry at the other gateway making the missing ones and finding the others."""

import asyncio
import queue
import secrets
import threading
import time
from collections import Counter
from collections.abc import Iterator

import grpc
import pytest

from bench.turn_doubles import Browser, Duel, PushService, new_player
from common import auth
from common.errors import reason_of
from common.redis_client import connect
from deploy.stack import NO_QUOTAS, Stack
from gateway.push import new_vapid_keys
from gateway.social import social_key
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc, social_pb2_grpc, turns_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import social_pb2 as so

pytestmark = pytest.mark.integration
INVITEES = 120


@pytest.fixture
def two_doors(redis_url: str, key_prefix: str, tmp_path) -> Iterator[Stack]:
    env = {**NO_QUOTAS, "TAVOLA_PUSH_VAPID_PRIVATE_KEY": new_vapid_keys()[0], "TAVOLA_PUSH_ALLOW_PRIVATE": "true"}
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-kill-{secrets.token_hex(2)}",
        games=("borgia",),
        gateways=2,
        bots=("random",),
        with_worker=False,
        gateway_env=env,
        log_dir=tmp_path,
    ) as stack:
        yield stack
        stack.delete_keys()


def kill_first(stack: Stack) -> None:
    doomed = next(process for process in stack.processes if process.name == "gateway-0")
    doomed.popen.kill()  # SIGKILL: no drain, whatever it was sending cut
    doomed.popen.wait(10)


def pushes_within(service: PushService, seconds: float) -> list:
    deadline, got = time.monotonic() + seconds, []
    while (left := deadline - time.monotonic()) > 0:
        try:
            got.append(service.received.get(timeout=left))
        except queue.Empty:
            break
    return got


def test_a_push_cut_by_a_killed_gateway_is_not_sent_again(two_doors: Stack):
    hold = threading.Event()  # the push service answers nothing until the gateway is dead
    service = PushService(hold)
    try:
        with (
            grpc.insecure_channel(two_doors.gateway_addresses[0]) as first,
            grpc.insecure_channel(two_doors.gateway_addresses[1]) as second,
        ):
            pushed_once_then_next_turn(two_doors, service, hold, first, second)
    finally:
        hold.set()
        service.close()


def pushed_once_then_next_turn(stack: Stack, service: PushService, hold, first, second) -> None:
    players = players_pb2_grpc.PlayerServiceStub(second)
    _, ada = new_player(players, "Killpushada")
    _, bea = new_player(players, "Killpushbea")
    duel = Duel(gateway_pb2_grpc.GatewayServiceStub(first), ada, bea, seed=13)
    while 0 in duel.table.deciding_seats:
        duel.act(0)
    browser = Browser(service.url("/push/ada"))
    turns_pb2_grpc.TurnServiceStub(second).AddPushSubscription(browser.request, metadata=auth.metadata(ada))
    duel.until_turn_of(0)  # on gateway-0: its commit begins Ada's turn, and it pushes
    _, _, body = service.received.get(timeout=15)
    assert browser.decrypt(body)["table_id"] == duel.table_id
    kill_first(stack)  # its POST waits for an answer meanwhile
    hold.set()
    duel.gateway = gateway_pb2_grpc.GatewayServiceStub(second)
    table = duel.gateway.GetTable(gw.GetTableRequest(table_id=duel.table_id)).table
    assert table.version == duel.table.version and 0 in table.deciding_seats  # the commit stands
    waiting = players.ListMyTables(pl.ListMyTablesRequest(your_turn_only=True), metadata=auth.metadata(ada))
    assert [mine.table.table_id for mine in waiting.tables] == [duel.table_id]
    assert pushes_within(service, 3.0) == []  # that turn is not told again
    duel.act(0)
    duel.until_turn_of(0)  # the next turn, through gateway-1: told once
    told = pushes_within(service, 5.0)
    assert [browser.decrypt(body)["table_id"] for _, _, body in told] == [duel.table_id]


def invitees_following(second, count: int) -> tuple[str, str, str, list[tuple[str, str]]]:
    """Ada, her open table (her seat taken, one free) and ``count`` players who follow her."""
    players = players_pb2_grpc.PlayerServiceStub(second)
    social = social_pb2_grpc.SocialServiceStub(second)
    tables = gateway_pb2_grpc.GatewayServiceStub(second)
    ada_id, ada = new_player(players, "Killinviteada")
    table_id = tables.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
    tables.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=0), metadata=auth.metadata(ada))
    invitees = [new_player(players, f"Killinvitee{index}") for index in range(count)]
    for _, token in invitees:
        social.FollowPlayer(so.FollowPlayerRequest(player_id=ada_id), metadata=auth.metadata(token))
    return ada_id, ada, table_id, invitees


async def invite_through_a_kill(stack: Stack, ada: str, table_id: str, invitees: list) -> tuple[dict, Counter]:
    """Every invitation sent at once through gateway-0, which is killed once a few have
    been answered; a call it cut is sent again at gateway-1, as a client would. Returns the
    invitation id each invitee was answered with (first or on retry) and how calls ended."""
    channels = [grpc.aio.insecure_channel(address) for address in stack.gateway_addresses]
    doors = [social_pb2_grpc.SocialServiceStub(channel) for channel in channels]
    answered: dict[str, str] = {}
    ends: Counter = Counter()
    enough = asyncio.Event()

    async def one(invitee: str) -> None:
        request = so.InviteRequest(player_id=invitee, table_id=table_id)
        try:
            answered[invitee] = (await doors[0].Invite(request, metadata=auth.metadata(ada))).invitation.invitation_id
            ends["first"] += 1
            if ends["first"] >= 10:
                enough.set()
            return
        except grpc.aio.AioRpcError:
            ends["cut"] += 1
        try:
            answered[invitee] = (await doors[1].Invite(request, metadata=auth.metadata(ada))).invitation.invitation_id
            ends["retried"] += 1
        except grpc.aio.AioRpcError as error:
            ends[reason_of(error) or error.code().name] += 1

    async def kill() -> None:
        await asyncio.wait_for(enough.wait(), 30)
        await asyncio.to_thread(kill_first, stack)

    try:
        await asyncio.gather(kill(), *(one(invitee) for invitee, _ in invitees))
    finally:
        for channel in channels:
            await channel.close()
    return answered, ends


def test_invitations_cut_by_a_killed_gateway_are_whole_or_absent(two_doors: Stack):
    with grpc.insecure_channel(two_doors.gateway_addresses[1]) as second:
        ada_id, ada, table_id, invitees = invitees_following(second, INVITEES)
        answered, ends = asyncio.run(invite_through_a_kill(two_doors, ada, table_id, invitees))
        print(f"\ninvitations through a kill: {dict(ends)}")
        assert ends["cut"] > 0, "the kill came after every invitation was answered: it tested nothing"
        social = social_pb2_grpc.SocialServiceStub(second)
        redis = connect(two_doors.redis_url)
        try:
            for invitee, token in invitees:
                pending = social.ListInvitations(so.ListInvitationsRequest(), metadata=auth.metadata(token))
                assert len(pending.invitations) == 1, invitee  # none lost, none twice
                invitation = pending.invitations[0]
                assert invitation.inviter.player_id == ada_id and invitation.table.table_id == table_id
                assert invitation.create_time.seconds > 0 and len(invitation.invitation_id) == 16
                if invitee in answered:  # the id a caller was given is the one kept
                    assert invitation.invitation_id == answered[invitee]
                key = social_key(two_doors.key_prefix, invitee, "invitations")
                assert redis.ttl(key) > 0  # expires as every invitation does
        finally:
            redis.close()
        # A call cut after its write is retried into ALREADY_EXISTS: invited, id untold.
        assert ends["first"] + ends["retried"] + ends["ALREADY_INVITED"] == INVITEES

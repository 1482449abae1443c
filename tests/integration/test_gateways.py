"""Several gateway processes on one Redis (and two replicas of every rules service):
commands for one table that arrive at different gateways race correctly, a watcher on one
gateway sees what is committed through another, and killing a gateway loses nothing."""

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

from common import auth
from common.errors import reason_of
from deploy.stack import Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl
from tests.integration.bot_tables import assert_complete, create_bot_table, play_every_game, spectator_log, stub_for
from tests.integration.conftest import HumanTable


@pytest.fixture(scope="module")
def gateways(redis_url, key_prefix, tmp_path_factory) -> Iterator[Stack]:
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-gateways",
        gateways=2,
        rules_replicas=2,
        bots=("random",),
        worker_bots=("random",),
        # A task lost with a killed gateway is enqueued again within seconds.
        gateway_env={"TAVOLA_SWEEP_SECONDS": "1"},
        log_dir=tmp_path_factory.mktemp("gateways"),
    ) as stack:
        yield stack
        stack.delete_keys()


@pytest.fixture(scope="module")
def stubs(gateways: Stack):
    opened = [stub_for(address) for address in gateways.gateway_addresses]
    yield [stub for _, stub in opened]
    for channel, _ in opened:
        channel.close()


def test_the_stack_runs_two_gateways_and_two_replicas_of_each_rules_service(gateways: Stack):
    assert len(gateways.gateway_addresses) == 2
    assert gateways.gateway_address.startswith("ipv4:")
    assert all(address.startswith("ipv4:") for address in gateways.rules_addresses.values())


def test_racing_commands_through_two_gateways_apply_once(stubs):
    table = HumanTable(stubs[0], 2, seed=11)
    table.start()
    for round_ in range(3):
        seat = table.decider()
        view = table.view(seat)
        version = view.table.version
        action = view.legal_actions[0].action
        barrier = threading.Barrier(4)

        def submit(index: int, request_id: str, action=action, version=version, barrier=barrier, seat=seat):
            request = gw.SubmitActionRequest(
                table_id=table.table_id, action=action, expected_version=version, request_id=request_id
            )
            barrier.wait()
            try:
                return stubs[index % 2].SubmitAction(request, metadata=auth.metadata(table.tokens[seat]))
            except grpc.RpcError as error:
                return error

        # Four copies at once, over both gateways: two retries of one request, two other requests.
        ids = [f"r{round_}-same", f"r{round_}-same", f"r{round_}-a", f"r{round_}-b"]
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(submit, range(4), ids))
        won = [a for a in answers if isinstance(a, gw.SubmitActionResponse) and not a.replayed]
        assert len(won) == 1, answers
        assert table.table().version == version + 1
        for request_id, answer in zip(ids, answers, strict=True):
            if isinstance(answer, grpc.RpcError):
                assert answer.code() == grpc.StatusCode.ABORTED and reason_of(answer) == "VERSION_MISMATCH"
            elif answer.replayed:
                assert request_id.endswith("same") and answer.table.version == version + 1


def test_watchers_on_one_gateway_see_commits_made_through_the_other(stubs):
    # Tables created through each gateway in turn, watched from both, played by bots that
    # reach the gateways through the balanced address.
    play_every_game(stubs, tables_per_game=1, watchers=2)


def _at(stub, table: HumanTable) -> HumanTable:
    """The same table and seats, reached through another gateway."""
    other = HumanTable.__new__(HumanTable)
    other.__dict__.update(table.__dict__, stub=stub)
    return other


def test_a_gateway_s_outdated_record_of_a_table_costs_nothing_but_a_fresh_load(stubs):
    # Each gateway keeps the record it last loaded or committed, and a SubmitAction starts
    # from it; the other gateway's commits make it outdated every other action.
    table = HumanTable(stubs[0], 3, seed=5)
    started = table.start().version
    through = [table, _at(stubs[1], table)]
    answers = []
    for turn in range(12):
        here = through[turn % 2]
        deciding = here.table().deciding_seats
        if not deciding:
            break
        seat = deciding[0]
        action = here.view(seat).legal_actions[0].action
        answer = here.submit(seat, action, request_id=f"turn-{turn}")
        assert not answer.replayed and answer.table.version == started + turn + 1
        answers.append((seat, action, answer))
    # Every request id retried through the other gateway answers exactly as the first time.
    for turn, (seat, action, answer) in enumerate(answers):
        again = through[(turn + 1) % 2].submit(seat, action, request_id=f"turn-{turn}")
        assert again.replayed
        assert again.table == answer.table and list(again.events) == list(answer.events)
    assert len(answers) >= 6 and table.table().version == started + len(answers)


def test_a_view_kept_from_the_applied_action_is_the_view_the_rules_service_gives(stubs):
    # The gateway that commits an action keeps the views of the people who must decide
    # next, for their GetView; the other gateway asks the rules service for them.
    for game, players in (("borgia", 3), ("mortadella", 3), ("pecunia", 3)):
        table = HumanTable(stubs[0], players, seed=9, game=game)
        table.start()
        elsewhere = _at(stubs[1], table)
        for _ in range(15):
            seats = list(table.table().deciding_seats)
            if not seats:
                break
            for seat in range(players):  # every seat: those who decide and those who wait
                kept, computed = table.view(seat), elsewhere.view(seat)
                assert kept == computed, (game, seat)
                assert kept.must_decide == (seat in seats)
            table.submit(seats[0], table.view(seats[0]).legal_actions[0].action)


# Before test_killing_a_gateway_loses_nothing, which leaves one gateway dead.
def _watch(stub, table_id: str, token: str, batched: bool) -> tuple[threading.Thread, list, list]:
    """A seat's WatchTable read in a thread: (the thread, the events so far, how it ended)."""
    events: list[gw.TableEvent] = []
    ended: list[grpc.RpcError | None] = []
    stream = stub.WatchTable(
        gw.WatchTableRequest(table_id=table_id, batched=batched), metadata=auth.metadata(token), timeout=120
    )

    def read() -> None:
        try:
            for response in stream:
                events.extend(response.events if batched else [response.event])
            ended.append(None)
        except grpc.RpcError as error:
            ended.append(error)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.stream = stream  # type: ignore[attr-defined]
    return thread, events, ended


def test_rejoining_a_seat_through_one_gateway_ends_the_old_devices_streams_on_the_other(gateways: Stack):
    """RejoinSeat on gateway 1: the streams the old device holds on the seat at gateway 0
    end (PERMISSION_DENIED, SEAT_REJOINED) and its seat token stops working; the new
    device's stream, reading the log from before the rejoin, goes on."""
    channels = [grpc.insecure_channel(address) for address in gateways.gateway_addresses]
    try:
        stubs = [gateway_pb2_grpc.GatewayServiceStub(channel) for channel in channels]
        players = [players_pb2_grpc.PlayerServiceStub(channel) for channel in channels]
        token = players[0].CreatePlayer(pl.CreatePlayerRequest(display_name="lin")).player_token
        table_id = stubs[0].CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2, auto_start=True))
        table_id = table_id.table.table_id
        old = stubs[0].TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(token))
        guest = stubs[0].TakeSeat(gw.TakeSeatRequest(table_id=table_id, display_name="guest"))
        assert guest.table.status == gw.TABLE_STATUS_IN_PROGRESS
        watches = [_watch(stubs[0], table_id, old.seat_token, batched) for batched in (False, True)]
        for _, events, _ in watches:  # both streams have read the log so far: they are live
            deadline = time.monotonic() + 30
            while not any(event.HasField("table_started") for event in events):
                assert time.monotonic() < deadline, "the old device's stream read nothing"
                time.sleep(0.05)

        rejoined = players[1].RejoinSeat(pl.RejoinSeatRequest(table_id=table_id), metadata=auth.metadata(token))
        assert rejoined.seat == old.seat
        for thread, _, ended in watches:
            thread.join(60)
            assert ended and ended[0] is not None, "the old device's stream did not end"
            assert ended[0].code() == grpc.StatusCode.PERMISSION_DENIED, ended[0].details()
            assert reason_of(ended[0]) == "SEAT_REJOINED"
        for stub in stubs:  # the old seat token no longer works, on either gateway
            with pytest.raises(grpc.RpcError) as caught:
                stub.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(old.seat_token))
            assert reason_of(caught.value) == "TOKEN_NOT_FOR_TABLE"
            with pytest.raises(grpc.RpcError) as caught:
                list(stub.WatchTable(gw.WatchTableRequest(table_id=table_id), metadata=auth.metadata(old.seat_token)))
            assert reason_of(caught.value) == "TOKEN_NOT_FOR_TABLE"

        # The new device's stream reads past the rejoin and sees the next action live.
        thread, events, ended = _watch(stubs[1], table_id, rejoined.seat_token, batched=False)
        tokens = {old.seat: rejoined.seat_token, guest.seat: guest.seat_token}
        decider = stubs[1].GetTable(gw.GetTableRequest(table_id=table_id)).table.deciding_seats[0]
        view = stubs[1].GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(tokens[decider]))
        submitted = stubs[0].SubmitAction(
            gw.SubmitActionRequest(table_id=table_id, action=view.legal_actions[0].action),
            metadata=auth.metadata(tokens[decider]),
        )
        assert submitted.table.last_seq > rejoined.table.last_seq
        deadline = time.monotonic() + 30
        while not any(event.seq > rejoined.table.last_seq for event in events) and not ended:
            assert time.monotonic() < deadline, "the new device's stream did not see the action"
            time.sleep(0.05)
        assert not ended, ended
        thread.stream.cancel()  # type: ignore[attr-defined]
        thread.join(10)
    finally:
        for channel in channels:
            channel.close()


def test_each_gateway_serves_a_share_of_the_calls(gateways: Stack):
    """Client-side balancing: the bot worker's channel and a client's balanced channel
    (common/channels.py, round_robin) each send every gateway 30-70% of their calls, as
    each gateway's own metrics count them. With pick_first, one gateway took them all."""
    from common.channels import balanced_channel
    from tavola.gateway.v1 import gateway_pb2_grpc
    from tests.integration.bot_tables import create_bot_table, spectate
    from tests.integration.test_metrics import scrape, total

    names = [name for name in gateways.metrics_addresses if name.startswith("gateway")]
    assert len(names) == 2

    def counts(method: str) -> list[float]:
        return [
            total(scrape(gateways.metrics_addresses[name]), "tavola_gateway_requests_total", method=method)
            for name in names
        ]

    before = {method: counts(method) for method in ("ListGames", "SubmitAction")}
    with balanced_channel(gateways.gateway_address) as channel:
        client = gateway_pb2_grpc.GatewayServiceStub(channel)
        for _ in range(40):
            client.ListGames(gw.ListGamesRequest(), timeout=10)
        tables = [create_bot_table(client, "borgia", players=3) for _ in range(3)]
        for table_id in tables:
            spectate(client, table_id)
    for method, first in before.items():
        served = [after - start for after, start in zip(counts(method), first, strict=True)]
        assert sum(served) >= 20, (method, served)
        for share in served:
            assert 0.3 <= share / sum(served) <= 0.7, (method, served)


def test_killing_a_gateway_loses_nothing(gateways: Stack, stubs):
    doomed, survivor = stubs
    tables = [create_bot_table(doomed, game) for game in ("borgia", "mortadella", "pecunia")]
    seen: dict[str, list[gw.TableEvent]] = {table_id: [] for table_id in tables}
    failures: list[BaseException] = []

    def watch(table_id: str) -> None:
        try:
            stream = doomed.SpectateTable(gw.SpectateTableRequest(table_id=table_id), timeout=120)
            for message in stream:
                seen[table_id].append(message.event)
        except grpc.RpcError as error:  # the gateway died under the stream: resume elsewhere
            assert error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED), error
            after = seen[table_id][-1].seq if seen[table_id] else 0
            request = gw.SpectateTableRequest(table_id=table_id, after_seq=after)
            seen[table_id] += [message.event for message in survivor.SpectateTable(request, timeout=120)]
        except BaseException as error:
            failures.append(error)

    watchers = [threading.Thread(target=watch, args=(table_id,)) for table_id in tables]
    for thread in watchers:
        thread.start()
    time.sleep(0.5)
    first = next(p for p in gateways.processes if p.name == "gateway-0")
    first.popen.kill()  # SIGKILL: no drain, streams and in-flight commands cut
    first.popen.wait()
    for thread in watchers:
        thread.join(timeout=150)
    assert not failures, failures
    for table_id in tables:
        assert_complete(seen[table_id], spectator_log(survivor, table_id))

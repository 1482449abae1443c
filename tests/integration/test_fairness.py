"""Randomness no one can predict and everyone can verify: the server draws every seed, a
chosen seed counts only in replay mode (shown to all), the table commits to its seed
before the deal and reveals it at the end, and the verifier replays every deal and roll.
Per-seat replays (GetReplay) show a seat its own actions while the game runs, everyone's
after."""

import random

import grpc
import pytest
import redis

from common import auth
from common.commitment import commitment
from common.errors import reason_of
from services import verify
from services.verify import verify_table
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2
from tests.integration.conftest import HumanTable


def create(gateway, seed: int, replay_mode: bool) -> HumanTable:
    table = HumanTable(gateway, players=3, seed=seed, replay_mode=replay_mode)
    table.start()
    return table


def secrets_of(table: HumanTable) -> list[bytes]:
    """What each seat alone sees at the deal (its dice and puppet)."""
    return [table.view(seat).view.value for seat in sorted(table.tokens)]


def play_out(table: HumanTable, rng: random.Random) -> gw.Table:
    while (summary := table.table()).status == gw.TABLE_STATUS_IN_PROGRESS:
        seat = summary.deciding_seats[0]
        table.submit(seat, rng.choice(list(table.view(seat).legal_actions)).action)
    return summary


def test_a_chosen_seed_predicts_no_secret_of_an_ordinary_table(gateway):
    # What the seed's owner would compute: the deal of that seed, played as given.
    predicted = secrets_of(create(gateway, seed=1234, replay_mode=True))
    assert secrets_of(create(gateway, seed=1234, replay_mode=True)) == predicted  # replay mode replays
    ordinary = [create(gateway, seed=1234, replay_mode=False) for _ in range(2)]
    for table in ordinary:
        assert not table.table().replay_mode
        assert all(a != b for a, b in zip(secrets_of(table), predicted, strict=True))
    assert secrets_of(ordinary[0]) != secrets_of(ordinary[1])


def test_replay_mode_is_shown_before_anyone_sits(gateway):
    created = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2, seed=5, replay_mode=True))
    assert created.table.replay_mode
    assert gateway.GetTable(gw.GetTableRequest(table_id=created.table.table_id)).table.replay_mode
    lobby = gateway.ListTables(gw.ListTablesRequest(page_size=100)).tables
    assert [t.replay_mode for t in lobby if t.table_id == created.table.table_id] == [True]
    with pytest.raises(grpc.RpcError) as caught:
        gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2, replay_mode=True))
    assert reason_of(caught.value) == "SEED_REQUIRED"


def test_the_seed_is_committed_before_the_deal_and_revealed_at_the_end(gateway, stack):
    table = HumanTable(gateway, players=2, seed=None)
    committed = table.table().seed_commitment
    assert len(committed) == 32
    table.start()
    play_out(table, random.Random(1))
    events = [m.event for m in gateway.SpectateTable(gw.SpectateTableRequest(table_id=table.table_id), timeout=30)]
    started = next(e.table_started for e in events if e.HasField("table_started"))
    reveal = events[-1].game_finished.seed_reveal
    assert started.seed_commitment == committed == commitment(reveal.seed, reveal.salt)
    verdict = verify_table(stack.gateway_address, table.table_id)
    assert verdict.ok, verdict.problems
    assert verdict.actions > 0 and verdict.events > 0


@pytest.mark.parametrize(("game", "players", "options"), [("pecunia", 3, {}), ("mortadella", 4, {"max_turns": "30"})])
def test_the_verifier_confirms_bot_games(gateway, stack, game, players, options):
    created = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id=game,
            player_count=players,
            options=options,
            bot_seats=[gw.BotSeat(seat=seat, bot="random") for seat in range(players)],
            auto_start=True,
        )
    )
    for _ in gateway.SpectateTable(gw.SpectateTableRequest(table_id=created.table.table_id), timeout=120):
        pass
    verdict = verify_table(stack.gateway_address, created.table.table_id)
    assert verdict.ok, verdict.problems


def test_the_verifier_catches_a_seed_changed_after_the_commitment(gateway, stack):
    table = HumanTable(gateway, players=2, seed=None)
    client = redis.Redis.from_url(stack.redis_url)
    key = f"{stack.key_prefix}:{{{table.table_id}}}:table"
    record = store_pb2.TableRecord.FromString(client.hget(key, "record"))
    record.seed ^= 1  # a dishonest server swaps the seed before the deal
    client.hset(key, "record", record.SerializeToString())
    client.close()
    table.start()
    play_out(table, random.Random(2))
    verdict = verify_table(stack.gateway_address, table.table_id)
    assert not verdict.ok
    assert any("commitment" in problem for problem in verdict.problems)


def test_replays_show_a_seat_its_own_actions_while_playing_and_everything_after(gateway):
    table = HumanTable(gateway, players=2, seed=None)
    table.start()
    rng = random.Random(3)
    for _ in range(4):
        seat = table.decider()
        table.submit(seat, rng.choice(list(table.view(seat).legal_actions)).action)
    own = gateway.GetReplay(
        gw.GetReplayRequest(table_id=table.table_id, seat=0), metadata=auth.metadata(table.tokens[0])
    )
    assert {step.actor for step in own.steps if step.HasField("actor")} == {0}
    assert own.view.value == table.view(0).view.value
    spectator = gateway.GetReplay(gw.GetReplayRequest(table_id=table.table_id))
    assert not any(step.HasField("actor") for step in spectator.steps)
    for metadata in ((), auth.metadata(table.tokens[1])):
        with pytest.raises(grpc.RpcError) as caught:
            gateway.GetReplay(gw.GetReplayRequest(table_id=table.table_id, seat=0), metadata=metadata)
        assert reason_of(caught.value) in ("TOKEN_MISSING", "TOKEN_NOT_FOR_TABLE")
    final = play_out(table, rng)
    after = gateway.GetReplay(gw.GetReplayRequest(table_id=table.table_id, seat=1))  # anyone, any seat
    assert {step.actor for step in after.steps if step.HasField("actor")} == {0, 1}
    assert after.steps[-1].seq == final.last_seq


def test_the_verifier_checks_a_commitment_recorded_at_the_deal(gateway, stack, capsys):
    table = HumanTable(gateway, players=2, seed=None)
    recorded = table.table().seed_commitment.hex()
    table.start()
    play_out(table, random.Random(4))
    assert verify.main([table.table_id, "--gateway", stack.gateway_address, "--commitment", recorded]) == 0
    assert f"{recorded} (the one you recorded)" in capsys.readouterr().out
    other = "00" * 32
    assert verify.main([table.table_id, "--gateway", stack.gateway_address, "--commitment", other]) == 1
    assert f"is not the one you recorded ({other})" in capsys.readouterr().out

"""All-bot tables for the scale-out tests: quick options per game, spectators that read a
table's whole log through a gateway, and the checks that a log is complete."""

from concurrent.futures import ThreadPoolExecutor

import grpc

from services.registry import game_ids
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc

# Short games: a turn limit for Mortadella, a low target for Pecunia.
QUICK_OPTIONS = {"mortadella": {"max_turns": "30"}, "pecunia": {"target": "12"}}

# Clients of a balanced target (several gateways) spread their calls over every address.
ROUND_ROBIN = [("grpc.lb_policy_name", "round_robin")]


def stub_for(address: str) -> tuple[grpc.Channel, gateway_pb2_grpc.GatewayServiceStub]:
    channel = grpc.insecure_channel(address, options=ROUND_ROBIN)
    return channel, gateway_pb2_grpc.GatewayServiceStub(channel)


def create_bot_table(stub, game: str, players: int = 2, bot: str = "random", auto_start: bool = True) -> str:
    created = stub.CreateTable(
        gw.CreateTableRequest(
            game_id=game,
            player_count=players,
            options=QUICK_OPTIONS.get(game, {}),
            bot_seats=[gw.BotSeat(seat=seat, bot=bot) for seat in range(players)],
            auto_start=auto_start,
        )
    )
    return created.table.table_id


def spectate(stub, table_id: str, after_seq: int = 0, timeout: float = 120) -> list[gw.TableEvent]:
    request = gw.SpectateTableRequest(table_id=table_id, after_seq=after_seq)
    return [message.event for message in stub.SpectateTable(request, timeout=timeout)]


def spectator_log(stub, table_id: str) -> list[gw.TableEvent]:
    """The spectator's events of a finished table, from its replay (the reference a stream
    must match: entries a spectator sees nothing of are not streamed)."""
    replay = stub.GetReplay(gw.GetReplayRequest(table_id=table_id))
    return [step.event for step in replay.steps if step.HasField("event")]


def assert_complete(events: list[gw.TableEvent], reference: list[gw.TableEvent], after_seq: int = 0) -> None:
    """Every event of ``reference`` after ``after_seq``, once and in order, to the game's end."""
    expected = [event for event in reference if event.seq > after_seq]
    assert [e.seq for e in events] == [e.seq for e in expected], "a gap or a repeat in the stream"
    assert events == expected
    assert events and events[-1].HasField("game_finished"), "the stream ended before the game did"


def play_every_game(stubs: list, tables_per_game: int = 1, watchers: int = 2) -> dict[str, list[gw.TableEvent]]:
    """Plays ``tables_per_game`` all-bot tables of every registered game, created through
    the stubs in turn, each watched to the end by ``watchers`` spectators (spread over the
    stubs); returns each table's log as the first spectator saw it, after checking that
    every spectator saw the same complete log."""
    tables = [
        create_bot_table(stubs[index % len(stubs)], game)
        for index, game in enumerate(game for game in game_ids() for _ in range(tables_per_game))
    ]
    jobs = [(table_id, stubs[(i + w) % len(stubs)]) for i, table_id in enumerate(tables) for w in range(watchers)]
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        logs = list(pool.map(lambda job: spectate(job[1], job[0]), jobs))
    seen = {table_id: spectator_log(stubs[0], table_id) for table_id in tables}
    for (table_id, _), events in zip(jobs, logs, strict=True):
        assert_complete(events, seen[table_id])
    for table_id in tables:
        table = stubs[0].GetTable(gw.GetTableRequest(table_id=table_id)).table
        assert table.status == gw.TABLE_STATUS_FINISHED and table.last_seq == seen[table_id][-1].seq
    return seen

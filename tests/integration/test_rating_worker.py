"""Rated tables through real processes: a rated table that ends updates its players'
ratings once, through the Celery rating task, even when the worker applying it is killed
(kill -9) mid-update; GetPlayer and ListLeaderboard show the result."""

import os
import signal
import threading
import time
from collections.abc import Iterator

import grpc
import pytest

from common import ratings
from common.redis_client import connect
from deploy.stack import Process, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl
from tavola.store.v1 import ratings_pb2, store_pb2

pytestmark = pytest.mark.integration

BOTS = ("random", "borgia-heuristic")


@pytest.fixture(scope="module")
def rated_stack(redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[Stack]:
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-rated",
        games=("borgia",),
        bots=BOTS,
        with_worker=False,
        gateway_env={"TAVOLA_RATING_RESEND_SECONDS": "1", "TAVOLA_PROVISIONAL_GAMES": "2"},
        log_dir=tmp_path_factory.mktemp("rated"),
    ) as stack:
        start_worker(stack, "bot-worker", list(BOTS), TAVOLA_WORKER_RATINGS="false")
        yield stack


def start_worker(stack: Stack, name: str, bots: list[str], **env: str) -> Process:
    """A worker process of this test's own, started as the stack starts its workers but with
    a solo pool: one process, which kill -9 kills whole."""
    return stack._spawn_worker(name, bots, "solo", 1, timers=True, TAVOLA_PROVISIONAL_GAMES="2", **env)


def wait_for(check, timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def kill_9_at(process, line: bytes, timeout: float, what: str) -> None:
    """Kills ``process`` with SIGKILL (no cleanup of any kind) once its log holds ``line``,
    and reaps it."""
    wait_for(lambda: line in process.log_path.read_bytes(), timeout, what)
    os.kill(process.popen.pid, signal.SIGKILL)
    process.popen.wait()


def assert_rated_once(redis, keys: ratings.Keys, table_id: str, timeout: float) -> None:
    """The table's update is applied, and each bot's rating counts it once, also after the
    time at which a pending update is sent again (TAVOLA_RATING_RESEND_SECONDS=1)."""
    wait_for(lambda: redis.exists(keys.done(table_id)), timeout, "the update to be sent again and applied")
    for bot in BOTS:
        assert int(redis.hget(keys.rating("borgia", f"bot:{bot}"), "games")) == 1
    time.sleep(2.5)  # past the resend time: the sweep sends nothing more, and nothing doubles
    for bot in BOTS:
        assert int(redis.hget(keys.rating("borgia", f"bot:{bot}"), "games")) == 1


def play_rated_bot_table(gateway) -> str:
    created = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="borgia",
            player_count=2,
            rated=True,
            auto_start=True,
            bot_seats=[gw.BotSeat(seat=0, bot=BOTS[0]), gw.BotSeat(seat=1, bot=BOTS[1])],
        )
    )
    table_id = created.table.table_id
    wait_for(
        lambda: gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.status == gw.TABLE_STATUS_FINISHED,
        120,
        "the bots to finish",
    )
    return table_id


def test_a_rating_update_survives_kill_9_of_its_worker_and_counts_once(rated_stack: Stack):
    keys = ratings.Keys(rated_stack.key_prefix)
    redis = connect(rated_stack.redis_url)
    paused = start_worker(rated_stack, "rating-worker-paused", ["none"], TAVOLA_RATING_PAUSE_SECONDS="120")
    with grpc.insecure_channel(rated_stack.gateway_address) as channel:
        gateway = gateway_pb2_grpc.GatewayServiceStub(channel)
        players = players_pb2_grpc.PlayerServiceStub(channel)
        table_id = play_rated_bot_table(gateway)
        kill_9_at(paused, b"rating_paused", 30, "the worker to hold the update")
        # Killed mid-update: nothing written, the job still pending.
        assert redis.hget(keys.rating("borgia", f"bot:{BOTS[0]}"), "v") is None
        assert redis.hexists(keys.jobs, table_id)

        start_worker(rated_stack, "rating-worker", ["none"])
        assert_rated_once(redis, keys, table_id, 30)

        page = players.GetPlayer(pl.GetPlayerRequest(player_id=f"bot:{BOTS[1]}"))
        assert page.player.bot and len(page.ratings) == 1
        rating = page.ratings[0]
        assert rating.game_id == "borgia" and rating.games == 1 and rating.provisional
        assert 0 < rating.uncertainty < 500
        assert [line.table_id for line in page.recent_tables] == [table_id]
        listed = {bot.name: bot for bot in gateway.ListBots(gw.ListBotsRequest(game_id="borgia")).bots}
        assert [(r.bot, r.games) for r in listed[BOTS[0]].ratings] == [(BOTS[0], 1)]
        assert listed[BOTS[0]].ratings[0].uncertainty > 0 and not listed[BOTS[0]].ratings[0].calibrated
        # Still provisional (2 games here): listed, and marked so.
        board = players.ListLeaderboard(pl.ListLeaderboardRequest(game_id="borgia"))
        assert board.total == 2 and all(entry.rating.provisional and entry.player.bot for entry in board.entries)

        play_rated_bot_table(gateway)
        established = ratings.PROVISIONAL_BELOW / 2
        wait_for(lambda: redis.zcount(keys.board("borgia"), -established, "+inf") == 2, 30, "the second update")
        board = players.ListLeaderboard(pl.ListLeaderboardRequest(game_id="borgia"))
        assert board.total == 2 and [entry.rank for entry in board.entries] == [1, 2]
        assert board.entries[0].rating.conservative >= board.entries[1].rating.conservative
        around = players.ListLeaderboard(
            pl.ListLeaderboardRequest(game_id="borgia", page_size=1, around_player_id=board.entries[1].player.player_id)
        )
        assert [entry.rank for entry in around.entries] == [2]
        with pytest.raises(grpc.RpcError) as caught:
            players.ListLeaderboard(pl.ListLeaderboardRequest(game_id="borgia", around_player_id="0123456789abcdef"))
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    redis.close()


def test_the_ladder_plays_rated_bot_tables_that_rate_each_setting(rated_stack: Stack):
    """Runs after the test above, whose second rating worker is still up."""
    from bots.worker.ladder import Ladder

    keys = ratings.Keys(rated_stack.key_prefix)
    redis = connect(rated_stack.redis_url)
    with grpc.insecure_channel(rated_stack.gateway_address) as channel:
        gateway = gateway_pb2_grpc.GatewayServiceStub(channel)
        before = {bot: int(redis.hget(keys.rating("borgia", f"bot:{bot}"), "games") or 0) for bot in BOTS}
        ladder = Ladder(gateway, ["borgia"], list(BOTS), tables=2)
        runner = threading.Thread(target=ladder.run)
        runner.start()
        try:
            wait_for(lambda: ladder.finished >= 3, 120, "three ladder tables")
        finally:
            ladder.stopping.set()
            runner.join()
        played = ladder.finished
        wait_for(
            lambda: (
                sum(int(redis.hget(keys.rating("borgia", f"bot:{bot}"), "games") or 0) for bot in BOTS)
                >= sum(before.values()) + 2 * played
            ),
            30,
            "the ladder's tables to be rated",
        )
    redis.close()


def test_a_gateway_killed_right_after_a_rated_finishing_commit_leaves_the_table_rated_once(
    redis_url: str, key_prefix: str, tmp_path_factory
):
    """The finishing commit writes the rating job in its own script: a gateway killed -9
    right after it (before it sends the task, or files the table) loses nothing, and
    another gateway's sweep sends the task that a real worker applies, once."""
    killed_after_a_rated_finish(
        redis_url, "", f"{key_prefix}-rated-gateway-death", tmp_path_factory.mktemp("rated-gateway-death")
    )


def killed_after_a_rated_finish(store_url: str, broker_url: str, prefix: str, log_dir) -> None:
    """A rated bot table played through a gateway that hangs right after its finishing
    commit, killed -9 there; another gateway started; the table must end rated once. On a
    Redis Cluster (``broker_url`` set) the commit cannot write the job (another slot): the
    table, still in the in-progress index, is found by the new gateway's walk, which writes
    the job (gateway/ratings.py)."""
    cluster = bool(broker_url)
    with Stack(
        redis_url=store_url,
        broker_url=broker_url,
        key_prefix=prefix,
        games=("borgia",),
        bots=BOTS,
        with_worker=False,
        gateway_env={"TAVOLA_RATING_RESEND_SECONDS": "1", "TAVOLA_RATING_FINISH_PAUSE_SECONDS": "300"},
        log_dir=log_dir,
    ) as stack:
        start_worker(stack, "worker", list(BOTS))
        keys = ratings.Keys(stack.key_prefix)
        redis = connect(stack.redis_url)
        (gateway_process,) = [process for process in stack.processes if process.name == "gateway"]
        with grpc.insecure_channel(stack.gateway_address) as channel:
            created = gateway_pb2_grpc.GatewayServiceStub(channel).CreateTable(
                gw.CreateTableRequest(
                    game_id="borgia",
                    player_count=2,
                    rated=True,
                    auto_start=True,
                    bot_seats=[gw.BotSeat(seat=0, bot=BOTS[0]), gw.BotSeat(seat=1, bot=BOTS[1])],
                )
            )
        table_id = created.table.table_id
        kill_9_at(gateway_process, b"rating_finish_paused", 120, "the finishing commit (the gateway then hangs)")
        # The commit landed; no task was sent, nothing is rated yet.
        record = store_pb2.TableRecord.FromString(redis.hget(f"{prefix}:{{{table_id}}}:table", "record"))
        assert record.table.status == gw.TABLE_STATUS_FINISHED and record.table.rated
        assert not redis.exists(keys.done(table_id))
        assert redis.hget(keys.rating("borgia", f"bot:{BOTS[0]}"), "games") is None
        if cluster:  # the job not written: the table, still in the in-progress index, stands for it
            assert not redis.hexists(keys.jobs, table_id)
            assert redis.zscore(f"{prefix}:index:in-progress", table_id) is not None
        else:  # the job written by the commit itself
            job = ratings_pb2.RatingJob.FromString(redis.hget(keys.jobs, table_id))
            assert job.table.status == gw.TABLE_STATUS_FINISHED and job.table.rated
            assert redis.zscore(keys.pending, table_id) is not None

        # Another gateway (no pause): its sweeps write the job if need be and send the task.
        stack._spawn_server(
            "gateway-b",
            ["-m", "gateway"],
            0,
            TAVOLA_RULES=f"borgia={stack.rules_addresses['borgia']}",
            TAVOLA_BOTS=",".join(BOTS),
            TAVOLA_TIMER_PORT="0",
            TAVOLA_WEB_PORT="0",
            TAVOLA_RATING_RESEND_SECONDS="1",
            TAVOLA_SWEEP_SECONDS="1",
        )
        assert_rated_once(redis, keys, table_id, 60)
        assert not redis.hexists(keys.jobs, table_id) and redis.zscore(keys.pending, table_id) is None
        redis.close()
        stack.delete_keys()


def test_a_rating_worker_starting_restarts_the_bot_ratings_earned_with_other_settings(rated_stack: Stack):
    """``ismcts:level=2`` keeps its string when its level's preset moves: a worker that
    applies ratings starts, before anything else, every bot rating whose settings digest is
    not the bot's now again (from its settings' calibration, provisional on the leaderboard), so
    neither quick play nor ListBots goes on with it. Its Pecunia keys are this test's alone."""
    from services.bot_specs import calibration, settings_digest

    keys = ratings.Keys(rated_stack.key_prefix)
    redis = connect(rated_stack.redis_url)
    stale, current = "bot:ismcts:level=2", "bot:ismcts:level=3"
    for who, settings in ((stale, "0" * 16), (current, settings_digest("ismcts:level=3", "pecunia"))):
        redis.hset(
            keys.rating("pecunia", who), mapping={"mu": 30, "sigma": 2, "games": 40, "wins": 30, "v": 40, "d": settings}
        )
        redis.zadd(keys.board("pecunia"), {who: 1380.0})
        redis.sadd(keys.bots("pecunia"), who.removeprefix("bot:"))
    worker = start_worker(rated_stack, "rating-worker-starting", ["none"])
    try:
        restarted = ratings.Standing.of(redis.hmget(keys.rating("pecunia", stale), ratings.FIELDS))
        assert restarted.settings == settings_digest("ismcts:level=2", "pecunia")
        calibrated = calibration("ismcts:level=2", "pecunia")
        assert calibrated is not None
        assert (restarted.games, restarted.wins, restarted.version) == (0, 0, 41)
        assert restarted.rating == pytest.approx(calibrated.rating)
        score = redis.zscore(keys.board("pecunia"), stale)
        assert score == pytest.approx(restarted.conservative - ratings.PROVISIONAL_BELOW)
        kept = ratings.Standing.of(redis.hmget(keys.rating("pecunia", current), ratings.FIELDS))
        assert (kept.mu, kept.games, kept.version) == (30.0, 40, 40)
        assert redis.zscore(keys.board("pecunia"), current) == 1380.0
        assert b"bot_rating_restarted" in worker.log_path.read_bytes()
    finally:
        worker.popen.terminate()
        worker.popen.wait(30)
        redis.delete(keys.rating("pecunia", stale), keys.rating("pecunia", current), keys.board("pecunia"))
        redis.delete(keys.bots("pecunia"))
        redis.close()

"""The archive of finished tables (gateway/archive.py, gateway/archiver.py): each finished
table is copied to PostgreSQL exactly once, trimmed from Redis after the retry window,
and read from the archive exactly as it was from Redis.

A stack of its own whose gateway reads through to a database of the suite's own, and
whose archiver rounds the tests run as their own processes (``python -m gateway.archiver``),
so that they can kill one mid-copy."""

import json
import os
import random
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import grpc
import psycopg
import pytest
import redis

from common import auth
from common.redis_client import connect
from deploy.postgres_local import ensure_database, start_private_postgres
from deploy.redis_local import start_private_cluster, start_private_redis
from deploy.stack import ROOT, Stack
from services.verify import verify_table
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl
from tests.integration.bot_tables import play_every_game, stub_for

pytestmark = pytest.mark.integration

RETRY_SECONDS = 10
# As long as the archive's PostgreSQL is stopped in the outage test.
POSTGRES_AWAY_SECONDS = 60


@pytest.fixture(scope="module")
def archive_stack(redis_url: str, key_prefix: str, database_url: str, tmp_path_factory) -> Iterator[Stack]:
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-archive",
        games=("borgia",),
        bots=("random",),
        worker_bots=("random",),
        worker_concurrency=2,
        log_dir=tmp_path_factory.mktemp("archive-stack"),
        gateway_env={
            "TAVOLA_DATABASE_URL": database_url,
            "TAVOLA_ARCHIVE_SECONDS": "0",  # the tests run the rounds
            "TAVOLA_RETRY_WINDOW_SECONDS": str(RETRY_SECONDS),
            "TAVOLA_QUOTA_CREATE_PER_MINUTE": "0",
            "TAVOLA_QUOTA_SEATS_PER_MINUTE": "0",
            "TAVOLA_QUOTA_REPLAYS_PER_MINUTE": "0",
            "TAVOLA_QUOTA_PLAYERS_PER_MINUTE": "0",
        },
    ) as running:
        yield running


@pytest.fixture(scope="module")
def stubs(archive_stack: Stack):
    with grpc.insecure_channel(archive_stack.gateway_address) as channel:
        yield gateway_pb2_grpc.GatewayServiceStub(channel), players_pb2_grpc.PlayerServiceStub(channel)


@pytest.fixture(scope="module")
def keys(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


def archiver_env(stack: Stack, database_url: str, **extra: str) -> dict[str, str]:
    return stack.env(
        TAVOLA_DATABASE_URL=database_url, TAVOLA_RETRY_WINDOW_SECONDS=str(RETRY_SECONDS), TAVOLA_RULES="", **extra
    )


def archiver_round(stack: Stack, database_url: str, **extra: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "gateway.archiver", "once"],
        cwd=ROOT,
        env=archiver_env(stack, database_url, **extra),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[-1]  # its summary (its log lines come first)


def play_rated_table(
    gateway, players, rng: random.Random, names=("ada", "bea"), tokens_of: dict[str, str] | None = None
) -> tuple[str, dict[int, str]]:
    """A rated 2-seat Borgia table of two players (new ones, or those of ``tokens_of`` by
    name), played to its end: its id and each seat's player token."""
    table_id = gateway.CreateTable(
        gw.CreateTableRequest(game_id="borgia", player_count=2, rated=True, auto_start=True)
    ).table.table_id
    tokens, seat_tokens = {}, {}
    for name in names:
        # A name of its own (no two players may look alike): the name and a short suffix.
        token = (tokens_of or {}).get(name) or players.CreatePlayer(
            pl.CreatePlayerRequest(display_name=f"{name} {secrets.token_hex(3)}")
        ).player_token
        taken = gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(token))
        tokens[taken.seat], seat_tokens[taken.seat] = token, taken.seat_token
    table = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
    while table.status != gw.TABLE_STATUS_FINISHED:
        assert table.status == gw.TABLE_STATUS_IN_PROGRESS
        seat = table.deciding_seats[0]
        view = gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(seat_tokens[seat]))
        request = gw.SubmitActionRequest(table_id=table_id, action=rng.choice(list(view.legal_actions)).action)
        gateway.SubmitAction(request, metadata=auth.metadata(seat_tokens[seat]))
        table = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
    return table_id, tokens


def answers(gateway, players, stack: Stack, table_id: str, tokens: dict[int, str]) -> list[bytes]:
    """Every read of a finished table, serialized: GetTable, GetReplay as every viewer
    (with views), each player's ListMyTables and GetPlayer, and the verifier's verdict."""
    out = [gateway.GetTable(gw.GetTableRequest(table_id=table_id)).SerializeToString()]
    for seat in (None, *sorted(tokens)):
        request = gw.GetReplayRequest(table_id=table_id, seat=seat, with_views=True)
        out.append(gateway.GetReplay(request).SerializeToString())
    for token in tokens.values():
        mine = players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(token))
        out.append(mine.SerializeToString())
        page = players.GetPlayer(pl.GetPlayerRequest(recent_tables=10), metadata=auth.metadata(token))
        out.append(page.SerializeToString())
    verdict = verify_table(stack.gateway_address, table_id)
    assert verdict.ok, verdict.problems
    out.append(repr((verdict.problems, verdict.actions, verdict.events, verdict.commitment)).encode())
    return out


def table_keys(keys: redis.Redis, stack: Stack, table_id: str) -> list[bytes]:
    return list(keys.scan_iter(match=f"{stack.key_prefix}:{{{table_id}}}:*"))


def wait_rated(players, token: str, table_id: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        page = players.GetPlayer(pl.GetPlayerRequest(recent_tables=10), metadata=auth.metadata(token))
        if any(line.table_id == table_id for line in page.recent_tables):
            return
        time.sleep(0.2)
    raise AssertionError("the rating update was never applied")


def archived(database_url: str, table_id: str) -> tuple[int, int, int]:
    """How many rows the archive holds for the table: itself, its seats, its log."""
    with psycopg.connect(database_url) as connection:
        return tuple(
            connection.execute(f"SELECT count(*) FROM {name} WHERE table_id = %s", (table_id,)).fetchone()[0]
            for name in ("archived_tables", "archived_seats", "archived_log")
        )


def test_an_archived_table_answers_every_read_byte_for_byte_as_from_redis(archive_stack, stubs, keys, database_url):
    gateway, players = stubs
    table_id, tokens = play_rated_table(gateway, players, random.Random(1))
    for token in tokens.values():
        wait_rated(players, token, table_id)
    before = answers(gateway, players, archive_stack, table_id, tokens)

    finished = gw.GetTableResponse.FromString(before[0]).table.update_time.seconds
    copied = archiver_round(archive_stack, database_url)
    assert copied.startswith("archived 1 tables")
    if "trimmed 0 " in copied:  # within the retry window (unless this machine was that slow)
        assert keys.zscore(f"{archive_stack.key_prefix}:archive:trim", table_id) == finished + RETRY_SECONDS
        assert table_keys(keys, archive_stack, table_id)  # kept through the retry window
        time.sleep(max(finished + RETRY_SECONDS + 1 - time.time(), 0))
        assert "trimmed 1 " in archiver_round(archive_stack, database_url)
    assert table_keys(keys, archive_stack, table_id) == []  # Redis holds nothing of it

    after = answers(gateway, players, archive_stack, table_id, tokens)
    assert after == before
    last_seq = gw.GetTableResponse.FromString(before[0]).table.last_seq
    assert archived(database_url, table_id) == (1, 2, last_seq)
    with psycopg.connect(database_url) as connection:
        changes = connection.execute(
            "SELECT rating_change FROM archived_seats WHERE table_id = %s ORDER BY seat", (table_id,)
        ).fetchall()
    assert all(change is not None for (change,) in changes)  # the rating update went with it


def test_a_copy_repeated_after_a_lost_acknowledgement_writes_nothing_twice(archive_stack, stubs, keys, database_url):
    gateway, players = stubs
    table_id, _ = play_rated_table(gateway, players, random.Random(2))
    deadline = time.monotonic() + 60
    while "archived 1 tables" not in archiver_round(archive_stack, database_url):  # after its rating update
        assert time.monotonic() < deadline
        time.sleep(0.5)
    counts = archived(database_url, table_id)
    # As if the archiver died after PostgreSQL committed and before Redis heard of it.
    keys.zadd(f"{archive_stack.key_prefix}:archive:outbox", {table_id: 0})
    assert "archived 0 tables" in archiver_round(archive_stack, database_url)
    assert archived(database_url, table_id) == counts


def test_an_archiver_killed_mid_copy_loses_and_doubles_nothing(archive_stack, stubs, keys, database_url):
    gateway, players = stubs
    with psycopg.connect(database_url) as blocker:
        # The copy of the log waits on this lock, inside the copy's transaction.
        blocker.execute("LOCK TABLE archived_log IN ACCESS EXCLUSIVE MODE")
        running = subprocess.Popen(
            [sys.executable, "-m", "gateway.archiver", "run"],
            cwd=ROOT,
            env=archiver_env(archive_stack, database_url, TAVOLA_ARCHIVE_LEASE_SECONDS="1"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            table_id, _ = play_rated_table(gateway, players, random.Random(3))
            with psycopg.connect(database_url, autocommit=True) as watcher:
                deadline = time.monotonic() + 90
                while not watcher.execute(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE wait_event_type = 'Lock' AND query LIKE '%%archived_log%%'"
                ).fetchone()[0]:
                    assert time.monotonic() < deadline, "the archiver never reached the copy"
                    time.sleep(0.1)
            os.kill(running.pid, signal.SIGKILL)
            running.wait()
        finally:
            if running.poll() is None:
                running.kill()
                running.wait()
        blocker.rollback()
    assert archived(database_url, table_id) == (0, 0, 0)  # the cut copy rolled back whole
    time.sleep(1.5)  # its lease runs out
    assert "archived 1 tables" in archiver_round(archive_stack, database_url)
    last_seq = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.last_seq
    assert archived(database_url, table_id) == (1, 2, last_seq)


def copy_key(source: redis.Redis, target: redis.Redis, key: bytes) -> None:
    """One key from one Redis to another (DUMP's format differs between their versions)."""
    kind = source.type(key)
    if kind == b"hash":
        target.hset(key, mapping=source.hgetall(key))
    elif kind == b"string":
        target.set(key, source.get(key))
    elif kind == b"stream":
        for entry_id, fields in source.xrange(key):
            target.xadd(key, fields, id=entry_id)
    else:
        raise AssertionError(f"a table key of type {kind!r}")


def test_a_backfill_files_the_tables_finished_before_the_archive(archive_stack, stubs, keys, database_url):
    gateway, players = stubs
    table_id, tokens = play_rated_table(gateway, players, random.Random(9))
    wait_rated(players, tokens[0], table_id)
    outbox = f"{archive_stack.key_prefix}:archive:outbox"
    keys.zrem(outbox, table_id)  # as if it finished while the site ran without an archive
    assert "archived 0 tables" in archiver_round(archive_stack, database_url)
    done = subprocess.run(
        [sys.executable, "-m", "gateway.archiver", "backfill"],
        cwd=ROOT,
        env=archiver_env(archive_stack, database_url),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "filed 1 finished tables in the outbox"
    assert "archived 1 tables" in archiver_round(archive_stack, database_url)
    last_seq = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.last_seq
    assert archived(database_url, table_id) == (1, 2, last_seq)


def test_a_redis_restarted_between_the_steps_loses_and_doubles_nothing(archive_stack, stubs, keys, database_url):
    """The table's keys copied into a private Redis that keeps every write (AOF), killed
    and restarted before the copy and again before the trim."""
    gateway, players = stubs
    table_id, tokens = play_rated_table(gateway, players, random.Random(4))
    wait_rated(players, tokens[0], table_id)
    own = start_private_redis(appendonly=True)
    try:
        restarted = redis.Redis.from_url(own.url)
        for key in table_keys(keys, archive_stack, table_id):
            copy_key(keys, restarted, key)
        restarted.zadd(f"{archive_stack.key_prefix}:archive:outbox", {table_id: time.time()})
        server = own.servers[0]
        for step in ("copy", "trim"):
            server.kill()  # SIGKILL: what AOF holds survives
            server.start()
            if step == "trim":
                finished = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.update_time.seconds
                time.sleep(max(finished + RETRY_SECONDS + 1 - time.time(), 0))
            done = archiver_round(archive_stack, database_url, REDIS_URL=own.url)
            assert done.startswith("archived 1 tables" if step == "copy" else "archived 0 tables, trimmed 1")
        restarted = redis.Redis.from_url(own.url)
        assert list(restarted.scan_iter(match=f"{archive_stack.key_prefix}:{{{table_id}}}:*")) == []
        assert restarted.zcard(f"{archive_stack.key_prefix}:archive:outbox") == 0
        assert restarted.zcard(f"{archive_stack.key_prefix}:archive:trim") == 0
        restarted.close()
    finally:
        own.stop()
    last_seq = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.last_seq
    assert archived(database_url, table_id) == (1, 2, last_seq)


def test_a_months_export_holds_every_archived_game_and_each_verifies(archive_stack, stubs, database_url, tmp_path):
    gateway, players = stubs
    table_id, _ = play_rated_table(gateway, players, random.Random(8))
    deadline = time.monotonic() + 60
    while archived(database_url, table_id)[0] == 0:  # after its rating update
        assert time.monotonic() < deadline
        archiver_round(archive_stack, database_url)
        time.sleep(0.3)
    month = time.strftime("%Y-%m", time.gmtime())
    out = tmp_path / "borgia.jsonl"
    exported = subprocess.run(
        [sys.executable, "-m", "gateway.export", "borgia", month, "--database", database_url, "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(text) for text in out.read_text().splitlines()]
    with psycopg.connect(database_url) as connection:
        ids = [row[0] for row in connection.execute("SELECT table_id FROM archived_tables ORDER BY finish_time")]
    assert [line["table_id"] for line in lines] == ids and table_id in ids
    assert all("chat" not in line and "player_id" not in json.dumps(line) for line in lines)  # nothing private

    checked = verify_export(out)
    assert checked.returncode == 0 and f"{len(ids)} of {len(ids)} exported tables verify" in checked.stdout

    # A line altered anywhere fails: another seed, or an action of another seat.
    altered = [dict(lines[-1], seed=lines[-1]["seed"] ^ 1), json.loads(json.dumps(lines[-1]))]
    altered[1]["actions"][0]["seat"] = 1 - altered[1]["actions"][0]["seat"]
    out.write_text("".join(json.dumps(line) + "\n" for line in altered))
    checked = verify_export(out)
    assert checked.returncode == 1 and "0 of 2 exported tables verify" in checked.stdout


def verify_export(path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "services.verify", "--export", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_deleted_account_leaves_no_name_rating_history_or_chat(archive_stack, stubs, keys, database_url):
    gateway, players = stubs
    rng = random.Random(6)
    first, tokens = play_rated_table(gateway, players, rng, names=("Ottoline", "bea"))
    seat = next(seat for seat, token in tokens.items() if token.startswith("p.") and seat == 0)
    token = tokens[seat]
    player_id = token.split(".")[1]
    wait_rated(players, token, first)
    deadline = time.monotonic() + 60
    while archived(database_url, first)[0] == 0:  # the first table archived before the deletion
        assert time.monotonic() < deadline
        archiver_round(archive_stack, database_url)
        time.sleep(0.3)
    with psycopg.connect(database_url) as connection:
        connection.execute(
            "INSERT INTO archived_chat (table_id, seq, seat, player_id, sent_at, body) "
            "VALUES (%s, 1, 0, %s, now(), 'gg')",
            (first, player_id),
        )
    # A second table finishes and waits in the outbox while the account is deleted: the
    # deletion archives it (without the player) and trims both from Redis at once.
    second, _ = play_rated_table(gateway, players, rng, names=("Ottoline", "bea"), tokens_of={"Ottoline": token})
    wait_rated(players, token, second)

    with pytest.raises(grpc.RpcError) as caught:
        players.DeletePlayer(pl.DeletePlayerRequest(player_id="someone-else"), metadata=auth.metadata(token))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    name = players.GetPlayer(pl.GetPlayerRequest(player_id=player_id)).player.display_name
    deleted = players.DeletePlayer(pl.DeletePlayerRequest(player_id=player_id), metadata=auth.metadata(token))
    assert deleted.archived_tables == 2
    # Its name is free for someone else: the look-alike index let it go with the account.
    assert players.CreatePlayer(pl.CreatePlayerRequest(display_name=name)).player.display_name == name
    assert table_keys(keys, archive_stack, first) == table_keys(keys, archive_stack, second) == []
    with pytest.raises(grpc.RpcError) as caught:
        players.ListMyTables(pl.ListMyTablesRequest(), metadata=auth.metadata(token))
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as caught:
        players.GetPlayer(pl.GetPlayerRequest(player_id=player_id))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert list(keys.scan_iter(match=f"{archive_stack.key_prefix}*{player_id}*")) == []  # ratings, history
    assert keys.zscore(f"{archive_stack.key_prefix}:{{ratings}}:board:borgia", player_id) is None

    for table_id in (first, second):
        with psycopg.connect(database_url) as connection:
            rows = connection.execute(
                "SELECT player_id, display_name, rating_change FROM archived_seats WHERE table_id = %s AND seat = 0",
                (table_id,),
            ).fetchall()
            assert rows == [(None, "deleted player", None)]
            chat = connection.execute("SELECT count(*) FROM archived_chat WHERE table_id = %s", (table_id,))
            assert chat.fetchone()[0] == 0
        seen = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.seats[0]
        assert (seen.display_name, seen.player_id) == ("deleted player", "")
        for viewer in (None, 0, 1):
            replay = gateway.GetReplay(gw.GetReplayRequest(table_id=table_id, seat=viewer))
            assert "Ottoline" not in str(replay) and player_id not in str(replay)
    assert verify_table(archive_stack.gateway_address, first).ok  # the game itself is untouched


@pytest.mark.slow
def test_postgresql_away_for_a_minute_loses_and_doubles_nothing(archive_stack, stubs):
    """The archiver keeps its rounds while its PostgreSQL is stopped for a minute, and
    copies the table once it is back (within its longest pause between rounds, 30 s).
    After the tests of archive_stack's tables: its archive is a private server's, where
    the earlier tests' tables still in Redis go too."""
    gateway, players = stubs
    try:
        private = start_private_postgres()
    except RuntimeError as error:
        pytest.skip(str(error))
    if private.bin_dir is None:
        private.stop()
        pytest.skip("the private server is pgserver's, which this test cannot stop and start")
    try:
        url = ensure_database(private.url, "tavola_away")
        running = subprocess.Popen(
            [sys.executable, "-m", "gateway.archiver", "run"],
            cwd=ROOT,
            env=archiver_env(archive_stack, url, TAVOLA_ARCHIVE_LEASE_SECONDS="1", TAVOLA_ARCHIVE_SECONDS="0.2"),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            while not _has_schema(url):  # the archiver migrated it as it started
                assert running.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
            private.pg_ctl("stop", "-m", "fast")
            away = time.monotonic()
            table_id, _ = play_rated_table(gateway, players, random.Random(5))
            time.sleep(max(POSTGRES_AWAY_SECONDS - (time.monotonic() - away), 0))  # rounds fail meanwhile
            assert running.poll() is None  # and the archiver carries on
            private.pg_ctl("start")
            last_seq = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.last_seq
            deadline = time.monotonic() + 60
            while archived(url, table_id) != (1, 2, last_seq):
                assert time.monotonic() < deadline, "the table was never archived"
                time.sleep(0.3)
        finally:
            running.terminate()
            output, _ = running.communicate(timeout=30)
        assert "archive_round_failed" in output
    finally:
        private.stop()


def _has_schema(url: str) -> bool:
    try:
        with psycopg.connect(url) as connection:
            return connection.execute("SELECT to_regclass('archived_log') IS NOT NULL").fetchone()[0]
    except psycopg.OperationalError:
        return False


def play_guest_table(gateway, rng: random.Random) -> gw.Table:
    """A 2-seat Borgia table of two guests, played to its end: the table as it ended."""
    created = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2))
    table_id = created.table.table_id
    tokens = [
        gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, display_name=name)).seat_token for name in ("cy", "di")
    ]
    gateway.StartTable(gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(created.host_token))
    while (table := gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table).status != (gw.TABLE_STATUS_FINISHED):
        seat = table.deciding_seats[0]
        view = gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(tokens[seat]))
        request = gw.SubmitActionRequest(table_id=table_id, action=rng.choice(list(view.legal_actions)).action)
        gateway.SubmitAction(request, metadata=auth.metadata(tokens[seat]))
    return table


def wait_trimmed(redis_url: str, stack: Stack, table_id: str, seconds: float) -> None:
    client = redis.Redis.from_url(redis_url)
    try:
        deadline = time.monotonic() + seconds
        while table_keys(client, stack, table_id):
            assert time.monotonic() < deadline, "the gateway never trimmed the table"
            time.sleep(0.2)
    finally:
        client.close()


def test_a_gateway_archives_and_trims_its_finished_tables_by_itself(redis_url, key_prefix, database_url, tmp_path):
    """The archiver as it runs in production: a round of every gateway."""
    with (
        Stack(
            redis_url=redis_url,
            key_prefix=f"{key_prefix}-archiving-gateway",
            games=("borgia",),
            with_worker=False,
            log_dir=tmp_path,
            gateway_env={
                "TAVOLA_DATABASE_URL": database_url,
                "TAVOLA_ARCHIVE_SECONDS": "0.2",
                "TAVOLA_RETRY_WINDOW_SECONDS": "1",
                "TAVOLA_QUOTA_CREATE_PER_MINUTE": "0",
                "TAVOLA_QUOTA_SEATS_PER_MINUTE": "0",
            },
        ) as stack,
        grpc.insecure_channel(stack.gateway_address) as channel,
    ):
        gateway = gateway_pb2_grpc.GatewayServiceStub(channel)
        table = play_guest_table(gateway, random.Random(7))
        table_id = table.table_id
        before = gateway.GetReplay(gw.GetReplayRequest(table_id=table_id)).SerializeToString()
        wait_trimmed(redis_url, stack, table_id, 30)
        assert archived(database_url, table_id) == (1, 2, table.last_seq)
        assert gateway.GetReplay(gw.GetReplayRequest(table_id=table_id)).SerializeToString() == before


def test_a_redis_clusters_finished_tables_are_archived_and_trimmed(redis_url, key_prefix, database_url, tmp_path):
    """On a Redis Cluster the outbox is in a slot of its own: the gateway files a table
    there after its commit, and the archiver's reads and trims run on the table's slot."""
    cluster = start_private_cluster(masters=3, replicas_per_master=0)
    try:
        with Stack(
            redis_url=cluster.url,
            broker_url=redis_url,
            key_prefix=f"{key_prefix}-archive-cluster",
            bots=("random",),
            worker_bots=("random",),
            log_dir=tmp_path,
            gateway_env={
                "TAVOLA_DATABASE_URL": database_url,
                "TAVOLA_ARCHIVE_SECONDS": "0.2",
                "TAVOLA_RETRY_WINDOW_SECONDS": "1",
            },
        ) as stack:
            channel, stub = stub_for(stack.gateway_address)
            with channel:
                logs = play_every_game([stub], tables_per_game=2, watchers=1)
                client = connect(cluster.url)
                try:
                    deadline = time.monotonic() + 60
                    while any(client.exists(f"{stack.key_prefix}:{{{table_id}}}:table") for table_id in logs):
                        assert time.monotonic() < deadline, "tables left in the cluster"
                        time.sleep(0.3)
                finally:
                    client.close()
                for table_id, events in logs.items():
                    assert archived(database_url, table_id) == (1, 2, events[-1].seq)
                    replayed = stub.GetReplay(gw.GetReplayRequest(table_id=table_id))
                    assert [step.event for step in replayed.steps if step.HasField("event")] == events
            stack.delete_keys()
    finally:
        cluster.stop()


def test_a_gateway_started_while_postgresql_is_away_archives_once_it_is_back(redis_url, key_prefix, tmp_path):
    """Live tables need no PostgreSQL: the gateway starts and plays without it, and its
    archiver brings the schema up to date and archives once the server answers."""
    try:
        private = start_private_postgres()
    except RuntimeError as error:
        pytest.skip(str(error))
    if private.bin_dir is None:
        private.stop()
        pytest.skip("the private server is pgserver's, which this test cannot stop and start")
    try:
        url = ensure_database(private.url, "tavola_late")
        private.pg_ctl("stop", "-m", "fast")
        with (
            Stack(
                redis_url=redis_url,
                key_prefix=f"{key_prefix}-archive-late",
                games=("borgia",),
                with_worker=False,
                log_dir=tmp_path,
                gateway_env={
                    "TAVOLA_DATABASE_URL": url,
                    "TAVOLA_ARCHIVE_SECONDS": "0.2",
                    "TAVOLA_RETRY_WINDOW_SECONDS": "1",
                    "TAVOLA_QUOTA_CREATE_PER_MINUTE": "0",
                    "TAVOLA_QUOTA_SEATS_PER_MINUTE": "0",
                },
            ) as stack,
            grpc.insecure_channel(stack.gateway_address) as channel,
        ):
            gateway = gateway_pb2_grpc.GatewayServiceStub(channel)
            table = play_guest_table(gateway, random.Random(10))
            time.sleep(2)
            client = redis.Redis.from_url(redis_url)
            try:
                assert table_keys(client, stack, table.table_id)  # kept while PostgreSQL is away
            finally:
                client.close()
            private.pg_ctl("start")
            wait_trimmed(redis_url, stack, table.table_id, 60)
            assert archived(url, table.table_id) == (1, 2, table.last_seq)
            assert gateway.GetTable(gw.GetTableRequest(table_id=table.table_id)).table == table
        assert "archive_unreachable" in (tmp_path / "gateway.log").read_text()
    finally:
        private.stop()

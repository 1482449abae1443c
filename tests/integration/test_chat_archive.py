"""A finished table's chat goes to the archive with it (gateway/archiver.py), and is read
from there, by the same rules, once Redis no longer holds the table; a shadow-muted
player's messages are left out."""

import subprocess
import sys
from collections.abc import Iterator

import grpc
import pytest
import redis

from common import auth
from deploy.stack import ROOT, Stack
from tavola.gateway.v1 import chat_pb2 as chat
from tavola.gateway.v1 import chat_pb2_grpc, gateway_pb2_grpc, players_pb2_grpc
from tests.integration.chat_tables import PLAYERS, SPECTATORS, ChatTable, new_player, refused, send, texts

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def archive_stack(redis_url: str, key_prefix: str, database_url: str, tmp_path_factory) -> Iterator[Stack]:
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-chat-archive",
        games=("borgia",),
        with_worker=False,
        bots=("random",),
        log_dir=tmp_path_factory.mktemp("chat-archive-stack"),
        gateway_env={
            "TAVOLA_DATABASE_URL": database_url,
            "TAVOLA_ARCHIVE_SECONDS": "0",  # the test runs the round
            "TAVOLA_QUOTA_PLAYERS_PER_MINUTE": "0",
        },
    ) as running:
        yield running


def test_a_finished_tables_chat_is_archived_and_read_back(archive_stack, database_url):
    with grpc.insecure_channel(archive_stack.gateway_address) as channel:
        gateway = gateway_pb2_grpc.GatewayServiceStub(channel)
        players = players_pb2_grpc.PlayerServiceStub(channel)
        chat_stub = chat_pb2_grpc.ChatServiceStub(channel)
        table = ChatTable.make(gateway, players)
        table.start(gateway)
        _, watcher = new_player(players, "Archived Watcher")
        spectator = auth.metadata(watcher)
        send(chat_stub, table.token(0), table.table_id, PLAYERS, "good luck")
        send(chat_stub, spectator, table.table_id, SPECTATORS, "seat 1 bluffs")
        table.play_to_end(gateway)
        send(chat_stub, table.token(1), table.table_id, PLAYERS, "gg <b>well played</b>")
        done = subprocess.run(
            [sys.executable, "-m", "gateway.archiver", "once"],
            cwd=ROOT,
            env=archive_stack.env(TAVOLA_DATABASE_URL=database_url, TAVOLA_RULES=""),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert "archived 1 tables" in done.stdout
        # As the trim after the retry window would: the table's keys leave Redis.
        keys = redis.Redis.from_url(archive_stack.redis_url)
        try:
            prefix = f"{archive_stack.key_prefix}:{{{table.table_id}}}"
            gone = [f"{prefix}:{suffix}" for suffix in ("table", "log", "requests", "archive")]
            keys.delete(*gone, f"{prefix}:chat:players", f"{prefix}:chat:spectators")
        finally:
            keys.close()
        assert texts(chat_stub, table.token(0), table.table_id, PLAYERS) == ["good luck", "gg <b>well played</b>"]
        assert texts(chat_stub, table.token(1), table.table_id, SPECTATORS) == ["seat 1 bluffs"]
        refused(
            lambda: texts(chat_stub, spectator, table.table_id, PLAYERS),
            grpc.StatusCode.PERMISSION_DENIED,
            "NOT_SEATED",
        )
        streamed = chat_stub.WatchChat(
            chat.WatchChatRequest(table_id=table.table_id, channel=PLAYERS), metadata=table.token(1)
        )
        (response,) = list(streamed)  # the history, then the end: the table's chat is over
        assert [(m.text, m.seat) for m in response.messages] == [("good luck", 0), ("gg <b>well played</b>", 1)]
        assert response.messages[0].display_name.startswith("Seat0er")

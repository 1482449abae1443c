"""The clients' chat against a real gateway: the terminal's chat command (a player saved by
the terminal says something at their table, another seat reads it, a mute), and the Node.js
example's chat stream."""

import asyncio
import json
import shutil
import subprocess

import pytest

from clients.terminal import chat as chat_cli
from clients.terminal import players as players_cli
from common import auth
from tavola.gateway.v1 import chat_pb2 as chat
from tavola.gateway.v1 import chat_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.chat_tables import PLAYERS, new_player, texts
from tests.integration.test_node_client import NODE_CLIENT

pytestmark = pytest.mark.integration


def test_the_terminal_says_and_mutes(stack, gateway, channel, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TAVOLA_CLIENT_DIR", str(tmp_path / "seats"))
    address = ["--gateway", stack.gateway_address]
    assert players_cli.main([*address, "create", f"Terminal Chatter {tmp_path.name[-6:]}"]) == 0
    table_id = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=0), metadata=auth.metadata(players_cli.saved_token()))
    other_id, other_token = new_player(players_pb2_grpc.PlayerServiceStub(channel), "Other Seat")
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=1), metadata=auth.metadata(other_token))
    capsys.readouterr()
    assert chat_cli.main([*address, table_id, "--say", "hello <b>there</b>"]) == 0
    assert "(Seat 1): hello <b>there</b>" in capsys.readouterr().out
    stub = chat_pb2_grpc.ChatServiceStub(channel)
    assert texts(stub, auth.metadata(other_token), table_id, PLAYERS) == ["hello <b>there</b>"]
    # A refusal is told in words, and the command fails.
    assert chat_cli.main([*address, table_id, "--say", "bell\x07"]) == 1
    assert "U+0007 BELL" in capsys.readouterr().err
    assert chat_cli.main([*address, "--mute", other_id]) == 0
    assert other_id in capsys.readouterr().out
    stub.SendChat(
        chat.SendChatRequest(table_id=table_id, channel=PLAYERS, text="hi"), metadata=auth.metadata(other_token)
    )
    assert texts(stub, auth.metadata(players_cli.saved_token()), table_id, PLAYERS) == ["hello <b>there</b>"]


@pytest.fixture(scope="module")
def node_client():
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: the Node.js client is not tested")
    if not (NODE_CLIENT / "node_modules" / "@grpc" / "grpc-js").is_dir():
        installed = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_CLIENT, capture_output=True, text=True, timeout=300
        )
        assert installed.returncode == 0, f"npm ci failed:\n{installed.stderr[-2000:]}"
    return NODE_CLIENT


def test_the_node_client_shows_chat_on_a_stream(stack, node_client):
    argv = ["node", "client.js", "--gateway", stack.gateway_address, "--game", "borgia", "--players", "2"]
    ran = subprocess.run(
        [*argv, "--chat", "good luck <b>all</b>"], cwd=node_client, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout.strip().splitlines()[-1])
    assert result["chat_seen"] == "good luck <b>all</b>" and result["outcome"]["summary"]
    assert "chat: node " in ran.stderr and '"good luck <b>all</b>"' in ran.stderr


def test_the_terminal_clients_chat_screen_shows_text_and_sends(stack, gateway, channel):
    """The chat screen (key c of the terminal client) on its own, in Textual's pilot: the
    players' channel of the saved player's table, markup shown as typed, Enter sends."""
    from textual.app import App

    from clients.terminal.chat_screen import ChatScreen

    players = players_pb2_grpc.PlayerServiceStub(channel)
    (_, mine), (_, theirs) = new_player(players, "Screen Chatter"), new_player(players, "Screen Other")
    table_id = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
    for seat, token in enumerate((mine, theirs)):
        gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=seat), metadata=auth.metadata(token))
    seats = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.seats
    stub = chat_pb2_grpc.ChatServiceStub(channel)
    stub.SendChat(
        chat.SendChatRequest(table_id=table_id, channel=PLAYERS, text="[bold red]not markup[/] <i>x</i>"),
        metadata=auth.metadata(theirs),
    )
    screen = ChatScreen(channel, table_id, mine, seats)

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(screen)

    async def scenario() -> None:
        async with Host().run_test(size=(100, 30)) as pilot:
            for _ in range(400):
                if screen.lines:
                    break
                await pilot.pause(0.05)
            assert screen.lines[0].endswith("(Seat 2): [bold red]not markup[/] <i>x</i>")
            await pilot.press(*"hello", "enter")
            for _ in range(400):
                if len(screen.lines) == 2:
                    break
                await pilot.pause(0.05)
            assert screen.lines[1].endswith("(Seat 1): hello")

    asyncio.run(scenario())
    assert texts(stub, auth.metadata(theirs), table_id, PLAYERS) == ["[bold red]not markup[/] <i>x</i>", "hello"]

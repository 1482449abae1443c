"""The terminal's chat command against a real gateway: a player saved by the terminal
says something at their table, and another seat reads it."""

import pytest

from clients.terminal import chat as chat_cli
from clients.terminal import players as players_cli
from common import auth
from tavola.gateway.v1 import chat_pb2 as chat
from tavola.gateway.v1 import chat_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.chat_tables import PLAYERS, new_player, texts

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

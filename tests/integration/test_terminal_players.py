"""The terminal's player commands against a real gateway: a player made and saved, its
page, its tables and a leaderboard."""

import pytest

from clients.terminal import players as cli
from tavola.gateway.v1 import gateway_pb2 as gw

pytestmark = pytest.mark.integration


def test_player_commands(stack, gateway, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TAVOLA_CLIENT_DIR", str(tmp_path / "seats"))
    address = ["--gateway", stack.gateway_address]
    assert cli.main([*address, "create", "Terminal Tess"]) == 0
    assert (tmp_path / "player.json").stat().st_mode & 0o077 == 0
    assert cli.main([*address, "me"]) == 0
    assert "Terminal Tess" in capsys.readouterr().out
    table_id = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
    from common import auth

    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id), metadata=auth.metadata(cli.saved_token()))
    assert cli.main([*address, "tables"]) == 0
    assert table_id in capsys.readouterr().out
    assert cli.main([*address, "leaderboard", "borgia"]) == 0
    assert "borgia:" in capsys.readouterr().out
    assert cli.main([*address, "player", "nobody-at-all"]) == 1

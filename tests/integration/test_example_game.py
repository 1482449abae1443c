"""Adding a game is one entry point: a game that lives only in the tests
(``tests/example_game``: its proto, engine and codec) is registered through the
``tavola.games`` entry-point group in a distribution of its own, and then the stack serves
it with a rules service, the gateway routes to it, and bots play a table to the end,
with no tavola file naming it: the search bot among them, by the playbook the game's
distribution registers (``tavola.playbooks``)."""

import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from grpc_tools import protoc

from deploy.stack import Stack
from services import registry
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc

EXAMPLE = Path(__file__).resolve().parents[1] / "example_game"


@pytest.fixture
def coin_installed(tmp_path, monkeypatch):
    """The example game as a separately installed distribution: generated code, the
    package, and a dist-info whose entry point registers it."""
    site = tmp_path / "site"
    site.mkdir()
    assert protoc.main(["protoc", f"-I{EXAMPLE / 'proto'}", f"--python_out={site}", "coin.proto"]) == 0
    for module in ("coin_game.py", "coin_playbook.py"):
        (site / module).write_text((EXAMPLE / module).read_text())
    dist = site / "tavola_example_coin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tavola-example-coin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[tavola.games]\ncoin = coin_game:GAME\n\n[tavola.playbooks]\ncoin = coin_playbook:PLAYBOOK\n"
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", f"{site}:{Path.cwd()}")
    registry.load_games.cache_clear()
    yield
    registry.load_games.cache_clear()


def test_a_game_registered_by_an_entry_point_plays_to_the_end(coin_installed, redis_url, key_prefix, tmp_path):
    assert "coin" in registry.game_ids()
    check = subprocess.run(
        [sys.executable, "-c", "from services.registry import game_ids; print(' '.join(game_ids()))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "coin" in check.stdout.split()  # every process of the stack sees it too
    with Stack(redis_url=redis_url, key_prefix=f"{key_prefix}-coin", log_dir=tmp_path / "stack") as stack:
        assert "coin" in stack.rules_addresses
        with grpc.insecure_channel(stack.gateway_address) as channel:
            gateway = gateway_pb2_grpc.GatewayServiceStub(channel)
            games = {game.game_id: game for game in gateway.ListGames(gw.ListGamesRequest()).games}
            assert games["coin"].view_type == "tavola.coin.v1.View"
            created = gateway.CreateTable(
                gw.CreateTableRequest(
                    game_id="coin",
                    player_count=2,
                    bot_seats=[gw.BotSeat(seat=0, bot="random"), gw.BotSeat(seat=1, bot="ismcts")],
                    auto_start=True,
                )
            )
            table_id = created.table.table_id
            deadline = time.monotonic() + 60
            while (table := gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table).status != (
                gw.TABLE_STATUS_FINISHED
            ):
                assert time.monotonic() < deadline, "the coin table did not finish"
                time.sleep(0.1)
            assert table.version >= 3  # created and dealt, two guesses
            assert table.outcome.summary in ("a right guess", "nobody wins")
        # The worker built the search bot for the game from its playbook and it decided (no
        # fallback to a random action, which a failing bot is logged and played by).
        logs = "".join(path.read_text() for path in (tmp_path / "stack").glob("*.log"))
        assert "bot_unavailable" not in logs and "bot_strategy_failed" not in logs and "bad_bot" not in logs
        stack.delete_keys()

"""A client in another language: the Node.js client under clients/node plays a table of
each game against bots and watches it as a spectator, through the real platform. Its
npm dependencies come from the committed package-lock.json (npm ci)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

NODE_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "node"
TABLES = {"borgia": {}, "mortadella": {"max_turns": "20"}, "pecunia": {"target": "10"}}


@pytest.fixture(scope="module")
def node_client() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: the Node.js client is not tested")
    if not (NODE_CLIENT / "node_modules" / "@grpc" / "grpc-js").is_dir():
        installed = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_CLIENT, capture_output=True, text=True, timeout=300
        )
        assert installed.returncode == 0, f"npm ci failed:\n{installed.stderr[-2000:]}"
    return NODE_CLIENT


@pytest.mark.parametrize("game", sorted(TABLES))
def test_the_node_client_plays_and_watches_a_table(stack, node_client, game):
    argv = ["node", "client.js", "--gateway", stack.gateway_address, "--game", game, "--players", "2", "--seed", "5"]
    for name, value in TABLES[game].items():
        argv += ["--option", f"{name}={value}"]
    # A Mortadella table of two can end before the client's first decision (the bot starts,
    # and guesses its role right: M19): such a game tests nothing here, so another is played.
    for _ in range(4):
        ran = subprocess.run(argv, cwd=node_client, capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0, ran.stderr
        result = json.loads(ran.stdout.strip().splitlines()[-1])
        if result["decisions"] > 0:
            break
    assert result["game"] == game and result["seat"] == 0
    assert result["view_type"].endswith(f"tavola.{game}.v1.View")
    assert result["outcome"]["summary"]
    # It played over a seat session: every move answered on it, and the bots' moves pushed.
    assert result["decisions"] > 0 and result["updates"] > result["decisions"]
    assert result["spectator_saw_the_end"] and result["spectator_events"] > 2
    # Every event came with its text, and the game's last one says how it ended.
    assert result["spectator_texts"] == result["spectator_events"]
    assert result["ending"].startswith("The game ends")
    # It asks for batched streams: the setup's events, at least, arrive in one message.
    assert 0 < result["spectator_messages"] < result["spectator_events"]

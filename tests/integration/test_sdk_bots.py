"""The bot SDK against a real platform: the first bot of docs/bots.md, run as written from
an environment that holds the SDK and none of the platform's packages, finishes its game
against the default search bot; the SDK's arena plays a bot against the platform's probes."""

import re
import subprocess
from pathlib import Path

import grpc
import pytest

from deploy.stack import Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc
from tests.bots.sdk_venv import ROOT, sdk_venv


def first_bot() -> str:
    text = (ROOT / "docs" / "bots.md").read_text()
    blocks = re.findall(r"^```python first-bot\n(.*?)^```$", text, flags=re.S | re.M)
    assert len(blocks) == 1, "docs/bots.md has one first-bot block"
    return blocks[0]


@pytest.fixture(scope="module")
def sdk_python(tmp_path_factory) -> Path:
    return sdk_venv(tmp_path_factory.mktemp("sdk"))


@pytest.fixture(scope="module")
def platform(redis_url: str, key_prefix: str, tmp_path_factory):
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-sdk",
        # The probes of this platform: two of them, beside the default search bot.
        bots=("ismcts", "first-legal", "borgia-always-call"),
        worker_bots=("ismcts", "first-legal", "borgia-always-call"),
        log_dir=tmp_path_factory.mktemp("sdk-stack"),
    ) as stack:
        yield stack
        stack.delete_keys()


def test_the_first_bot_of_the_docs_finishes_a_game_against_the_default_bot(sdk_python, platform, tmp_path):
    (tmp_path / "my_bot.py").write_text(first_bot())
    ran = subprocess.run(
        [sdk_python, "my_bot.py"],
        cwd=tmp_path,
        env={"TAVOLA_GATEWAY": platform.gateway_address, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr
    table_id = re.search(r"of table (\S+), against ismcts", ran.stdout).group(1)
    decisions = int(re.search(r"my bot (?:won|lost), (\d+) decisions", ran.stdout).group(1))
    assert decisions > 0
    with grpc.insecure_channel(platform.gateway_address) as channel:
        table = gateway_pb2_grpc.GatewayServiceStub(channel).GetTable(gw.GetTableRequest(table_id=table_id)).table
    assert table.status == gw.TABLE_STATUS_FINISHED
    assert [seat.bot for seat in table.seats if seat.bot] == ["ismcts"]


def test_the_sdk_arena_plays_a_bot_against_the_probes(sdk_python, platform, tmp_path):
    (tmp_path / "my_bot.py").write_text(first_bot())  # as docs/bots.md runs the arena
    arena = ["-m", "tavola_bot_sdk.arena", "--gateway", platform.gateway_address, "--game", "borgia"]
    ran = subprocess.run(
        [sdk_python, *arena, "--bot", "my_bot:decide", "--probes", "--games", "2"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr
    rows = {line.split()[0]: line.split() for line in ran.stdout.splitlines()[2:]}
    # Every probe the platform offers for Borgia, two games each.
    assert set(rows) == {"first-legal", "borgia-always-call"}
    assert all(row[1] == "2" for row in rows.values())


def test_a_decision_that_is_no_legal_action_is_refused_by_the_sdk(sdk_python, platform, tmp_path):
    script = (
        "import os\n"
        "from tavola_bot_sdk import Client, LegalAction\n"
        "with Client(os.environ['TAVOLA_GATEWAY']) as client:\n"
        "    client.new_table('borgia', ['first-legal']).play(lambda view, legal: LegalAction(label='mine'))\n"
    )
    ran = subprocess.run(
        [sdk_python, "-c", script],
        cwd=tmp_path,
        env={"TAVOLA_GATEWAY": platform.gateway_address, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode != 0
    assert "BadDecision: decide returned" in ran.stderr and "not one of its" in ran.stderr

"""The gateway runs no game's code: it tells events from the phrases the rules services
send and the catalogs they serve (gateway/text.py). A gateway that has played tables of
every game, served their replays and their spectators, has imported no module of a game
(``services.<game>``): its log holds every import it made, ``PYTHONPROFILEIMPORTTIME``
being set for it (a stack of its own: the other tests read every log line as JSON)."""

import re
import time
from collections.abc import Iterator

import pytest

from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.bot_tables import create_bot_table, spectate, stub_for

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def traced(redis_url, key_prefix, tmp_path_factory) -> Iterator[Stack]:
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-no-games",
        bots=("random",),
        log_dir=tmp_path_factory.mktemp("no-games"),
        gateway_env={**NO_QUOTAS, "PYTHONPROFILEIMPORTTIME": "1"},
    ) as running:
        yield running
        running.delete_keys()


GAMES = ("borgia", "mortadella", "pecunia")


def _finished(gateway, table_id: str) -> gw.Table:
    deadline = time.monotonic() + 120
    while True:
        table = gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table
        if table.status == gw.TABLE_STATUS_FINISHED or time.monotonic() > deadline:
            return table
        time.sleep(0.2)


def test_the_gateway_imports_no_game(traced):
    channel, gateway = stub_for(traced.gateway_address)
    stack = traced
    for game in GAMES:
        table_id = create_bot_table(gateway, game)
        assert _finished(gateway, table_id).status == gw.TABLE_STATUS_FINISHED
        events = spectate(gateway, table_id)
        assert events and all(event.text for event in events), game
        replay = gateway.GetReplay(gw.GetReplayRequest(table_id=table_id, seat=0, with_views=True))
        told = [step.event.text for step in replay.steps if step.event.WhichOneof("body")]
        assert told and all(told), (game, [step.event for step in replay.steps if not step.event.text][:2])
    imported = set()
    for process in stack.processes:
        if process.name.startswith("gateway"):
            for line in process.log_path.read_text(errors="replace").splitlines():
                if match := re.match(r"import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", line):
                    imported.add(match.group(1))
    channel.close()
    assert "gateway.text" in imported  # the log does list the gateway's imports
    games = sorted(name for name in imported if re.match(rf"services\.({'|'.join(GAMES)})\b", name))
    assert games == [], games

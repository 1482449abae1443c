"""Credentials that hold: no gateway starts with the development secret unless told it is a
development run, one bot's key acts for that bot's seats only, and the timer service is
not on the public port (test_timers.py)."""

import json
import os
import subprocess
import sys

import grpc
import pytest

from common import auth, defaults
from common.errors import reason_of
from deploy.redis_local import free_port
from deploy.stack import ROOT
from tavola.gateway.v1 import gateway_pb2 as gw


@pytest.mark.parametrize("secret", [None, defaults.DEV_BOT_SECRET, "", "change-me", "x", "0123456789abcdef" * 2])
def test_the_gateway_refuses_the_development_secret_and_weak_ones(secret, redis_url):
    env = {key: value for key, value in os.environ.items() if not key.startswith("TAVOLA_")}
    env.update(REDIS_URL=redis_url, TAVOLA_PORT=str(free_port()), TAVOLA_TIMER_PORT="0")
    if secret is not None:
        env["TAVOLA_BOT_SECRET"] = secret
    done = subprocess.run(
        [sys.executable, "-m", "gateway"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    refusal = next(line for line in lines if line["event"] == "bot_secret_required")
    assert "openssl rand -hex 32" in refusal["problem"]


def test_a_bot_key_acts_only_for_its_own_bot(gateway, stack):
    created = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="borgia",
            player_count=2,
            bot_seats=[gw.BotSeat(seat=0, bot="held"), gw.BotSeat(seat=1, bot="held")],
        )
    )
    table_id = created.table.table_id
    gateway.StartTable(gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(created.host_token))
    held = auth.bot_key(stack.bot_secret, "held")
    for seat in (0, 1):
        token = auth.bot_token(held, table_id, seat)
        view = gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(token))
        assert view.seat == seat
    forged = [
        auth.bot_token(auth.bot_key(stack.bot_secret, "random"), table_id, 0),  # another bot's key
        auth.bot_token(stack.bot_secret, table_id, 0),  # the platform secret used as a key
        auth.bot_token(auth.bot_key(defaults.DEV_BOT_SECRET, "held"), table_id, 0),  # the development secret
    ]
    for token in forged:
        with pytest.raises(grpc.RpcError) as caught:
            gateway.GetView(gw.GetViewRequest(table_id=table_id), metadata=auth.metadata(token))
        assert reason_of(caught.value) == "TOKEN_NOT_FOR_TABLE"


def test_a_bot_key_derives_no_timer_credential(stack):
    held = auth.bot_key(stack.bot_secret, "held")
    assert auth.timer_token(held, "t") != auth.timer_token(stack.bot_secret, "t")
    assert held != auth.bot_key(stack.bot_secret, "random")

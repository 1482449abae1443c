"""The gateway learns its bots from the tavola.bots registry: clients list them with
their options and strength, a table seats them with options, and bad bot input is
INVALID_ARGUMENT with a reason."""

import json

import grpc
import pytest

from common.errors import reason_of
from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc
from tests.integration.games import CASES
from tests.integration.test_bots import spectate_to_end


def test_list_bots_describes_each_bot_with_options_and_strength(gateway):
    bots = {bot.name: bot for bot in gateway.ListBots(gw.ListBotsRequest()).bots}
    assert {"random", "ismcts"} <= set(bots)
    ismcts = bots["ismcts"]
    assert ismcts.description and ismcts.strength > bots["random"].strength
    assert "budget_ms" in {option.name for option in ismcts.options}
    strengths = [bot.strength for bot in gateway.ListBots(gw.ListBotsRequest()).bots]
    assert strengths == sorted(strengths, reverse=True)  # strongest first


@pytest.mark.parametrize(
    ("bot", "reason"),
    [
        ("no-such-bot", "UNKNOWN_BOT"),
        ("ismcts:budget_ms=-5", "BAD_BOT_OPTION"),
        ("ismcts:no_such_option=1", "BAD_BOT_OPTION"),
        ("ismcts:budget_ms", "BAD_BOT_OPTION"),
    ],
)
def test_a_bad_bot_is_invalid_argument(gateway, bot, reason):
    request = gw.CreateTableRequest(game_id="borgia", player_count=2, bot_seats=[gw.BotSeat(seat=0, bot=bot)])
    with pytest.raises(grpc.RpcError) as caught:
        gateway.CreateTable(request)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(caught.value) == reason


@pytest.mark.parametrize("game", sorted(CASES))
def test_a_search_bot_with_options_plays_a_table_to_the_end(gateway, game):
    """ISMCTS in the worker, on the engines in-process, submitting through the gateway."""
    created = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id=game,
            player_count=2,
            bot_seats=[gw.BotSeat(seat=0, bot="ismcts:budget_ms=5"), gw.BotSeat(seat=1, bot="random")],
            auto_start=True,
        )
    )
    assert created.table.seats[0].bot == "ismcts:budget_ms=5"  # the canonical form the task carries
    events = spectate_to_end(gateway, created.table.table_id, timeout=240)
    assert events[-1].HasField("game_finished")


def test_a_gateway_checks_the_options_of_a_bot_declared_to_it(redis_url, key_prefix, tmp_path):
    """A bot whose worker runs elsewhere, declared in TAVOLA_BOT_SPECS: CreateTable takes its
    options, checked (before: UNKNOWN_BOT for any option), and ListBots shows them."""
    declared = tmp_path / "bots.json"
    declared.write_text(
        json.dumps(
            [
                {
                    "name": "caller",
                    "description": "Calls every bid it doubts.",
                    "games": ["borgia"],
                    "options": [{"name": "eager", "kind": "bool", "default": "true"}],
                }
            ]
        )
    )
    with (
        Stack(
            redis_url=redis_url,
            key_prefix=f"{key_prefix}-declared",
            games=("borgia",),
            with_worker=False,
            gateway_env={**NO_QUOTAS, "TAVOLA_BOT_SPECS": str(declared)},
            log_dir=tmp_path / "logs",
        ) as stack,
        grpc.insecure_channel(stack.gateway_address) as channel,
    ):
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        created = stub.CreateTable(
            gw.CreateTableRequest(
                game_id="borgia", player_count=2, bot_seats=[gw.BotSeat(seat=0, bot="caller:eager=false")]
            )
        )
        assert created.table.seats[0].bot == "caller:eager=false"
        with pytest.raises(grpc.RpcError) as caught:
            stub.CreateTable(
                gw.CreateTableRequest(
                    game_id="borgia", player_count=2, bot_seats=[gw.BotSeat(seat=0, bot="caller:x=1")]
                )
            )
        assert reason_of(caught.value) == "BAD_BOT_OPTION"
        listed = {bot.name: bot for bot in stub.ListBots(gw.ListBotsRequest(game_id="borgia")).bots}
        assert [option.name for option in listed["caller"].options] == ["eager"]

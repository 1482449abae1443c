"""The gateway learns its bots from the tavola.bots registry: clients list them with
their options and strength, a table seats them with options, and bad bot input is
INVALID_ARGUMENT with a reason."""

import grpc
import pytest

from common.errors import reason_of
from tavola.gateway.v1 import gateway_pb2 as gw
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

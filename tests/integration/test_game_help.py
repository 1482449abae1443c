"""GetGameHelp through the real gateway and rules services: each game's help as its own
catalog holds it (the same words the terminal and the web page show), told in the reader's
language with English where a catalog lacks a message, and an unknown game refused."""

import grpc
import pytest

from common.errors import reason_of
from common.help import help_messages
from common.phrases import Catalogs
from services.registry import get_game
from tavola.gateway.v1 import gateway_pb2 as gw

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("game_id", ["borgia", "mortadella", "pecunia"])
def test_every_help_message_of_the_games_catalog_is_served(gateway, game_id):
    reply = gateway.GetGameHelp(gw.GetGameHelpRequest(game_id=game_id))
    served = {entry.id: entry.text for entry in reply.entries}
    assert list(served) == help_messages(Catalogs.from_folder(get_game(game_id).words.catalog))
    assert all(text.strip() and "help." not in text for text in served.values())
    assert "help.rules" in served and "help.goal" in served


def test_the_pope_is_told_as_b9_says_and_in_the_readers_language(gateway):
    english = {e.id: e.text for e in gateway.GetGameHelp(gw.GetGameHelpRequest(game_id="borgia")).entries}
    assert "The cardinal with the most influence is elected pope" in " ".join(english["help.goal"].split())
    # A reader of another language reads every message: their catalog's, else English.
    metadata = (("tavola-locale", "it"),)
    italian = gateway.GetGameHelp(gw.GetGameHelpRequest(game_id="borgia"), metadata=metadata).entries
    assert [e.id for e in italian] == list(english) and all(e.text for e in italian)


def test_an_unknown_game_is_refused(gateway):
    with pytest.raises(grpc.RpcError) as raised:
        gateway.GetGameHelp(gw.GetGameHelpRequest(game_id="chess"))
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(raised.value) == "UNKNOWN_GAME"

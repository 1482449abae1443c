"""The terminal's command-line tools in the reader's language (--lang): players, friends and
chat run against the real platform in German and in Italian print no English sentence,
their help and argparse's own words included; ids and names are printed as they are."""

import re

import pytest

from clients.terminal import chat as chat_cli
from clients.terminal import friends as friends_cli
from clients.terminal import language, words
from clients.terminal import players as players_cli
from common import auth
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import players_pb2_grpc
from tests.test_terminal_words import marked

pytestmark = pytest.mark.integration

# What each language must show: a player's page, a table's status, a friend's presence, an
# invitation, a chat line's seat, a refusal, and argparse's heading and error.
SHOWN = {
    "de": (
        "noch keine gewerteten Partien",
        "wartet auf Spieler",
        "du folgst jetzt",
        "lädt dich zu borgia an Tisch",
        "(Platz 1): hallo",
        "stummgeschaltet:",
        "Einladung abgelehnt",
        "Optionen:",
        "Fehler: nenne einen Tisch (oder --lobby)",
        "Spieler im Terminal",
    ),
    "it": (
        "ancora nessuna partita classificata",
        "in attesa di giocatori",
        "ora segui",
        "ti invita a borgia al tavolo",
        "(Posto 1): hallo",
        "silenziati:",
        "invito rifiutato",
        "opzioni:",
        "errore: indica un tavolo (o --lobby)",
        "Giocatori nel terminale",
    ),
}


def english_words(tag: str) -> set[str]:
    """The words of the terminal's English texts that no text of ``tag``'s catalog uses: an
    option's name or an id ("--lobby", "borgia") reads the same in every language."""
    catalog = words.messages(tag)
    english = {w.lower() for text in marked() for w in re.findall(r"[A-Za-z]{3,}", text)}
    told = {w.lower() for text in catalog.values() for w in re.findall(r"[A-Za-z]{3,}", text)}
    return english - told


class Tools:
    """The three tools run in one language, as one of two players (each in its own
    TAVOLA_CLIENT_DIR), every line they print kept."""

    def __init__(self, stack, tag: str, monkeypatch, capsys, tmp_path):
        self.address = ["--gateway", stack.gateway_address, "--lang", tag]
        self.monkeypatch, self.capsys, self.tmp_path = monkeypatch, capsys, tmp_path
        self.printed: list[str] = []

    def as_player(self, name: str) -> None:
        self.monkeypatch.setenv("TAVOLA_CLIENT_DIR", str(self.tmp_path / name))

    def run(self, tool, *argv: str) -> int:
        try:
            code = tool.main([*self.address, *argv])
        except SystemExit as stop:  # --help, argparse's errors, no player saved
            code = stop.code if isinstance(stop.code, int) else 1
            if isinstance(stop.code, str):
                print(stop.code)
        told = self.capsys.readouterr()
        self.printed.append(told.out + told.err)
        return code


def play_through(tools: Tools, gateway, channel, tag: str) -> dict[str, str]:
    """Every command a person uses, once: two players, a table, a follow, an invitation,
    a chat line; the ids and names, as printed, to leave out of the words read."""
    ids: dict[str, str] = {}
    for name in ("ada", "bea"):
        tools.as_player(name)
        assert tools.run(players_cli, "create", f"{name.title()} {tag}") == 0
        token = ids[f"{name}-token"] = players_cli.saved_token()
        me = players_pb2_grpc.PlayerServiceStub(channel).GetPlayer(pl.GetPlayerRequest(), metadata=auth.metadata(token))
        ids[name] = me.player.player_id
    table = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2)).table.table_id
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table, seat=0), metadata=auth.metadata(ids["ada-token"]))
    ids["table"] = table
    tools.as_player("bea")
    assert tools.run(friends_cli, "follow", ids["ada"]) == 0
    tools.as_player("ada")
    for argv in (("me",), ("tables",), ("leaderboard", "borgia")):
        assert tools.run(players_cli, *argv) == 0
    assert tools.run(players_cli, "player", "nobody-at-all") == 1
    assert tools.printed[-1].startswith("tavola: ")
    assert tools.run(friends_cli, "follow", ids["bea"]) == 0
    assert tools.run(friends_cli, "list") == 0
    assert tools.run(friends_cli, "invite", ids["bea"], table) == 0
    tools.as_player("bea")
    assert tools.run(friends_cli, "invitations") == 0
    invitation = tools.printed[-1].split()[0]
    assert tools.run(friends_cli, "decline", invitation) == 0
    assert tools.run(friends_cli, "unfollow", ids["ada"]) == 0
    tools.as_player("ada")
    assert tools.run(chat_cli, table, "--say", "hallo") == 0
    assert tools.run(chat_cli, "--mute", ids["bea"]) == 0
    assert tools.run(chat_cli) == 2
    for tool in (players_cli, friends_cli, chat_cli):
        assert tools.run(tool, "--help") == 0
    return ids


@pytest.mark.parametrize("tag", sorted(SHOWN))
def test_the_tools_speak_the_reader_s_language(stack, gateway, channel, monkeypatch, capsys, tmp_path, tag):
    monkeypatch.setattr(language, "LANGUAGE", language.LANGUAGE)  # each tool sets it from --lang
    tools = Tools(stack, tag, monkeypatch, capsys, tmp_path)
    ids = play_through(tools, gateway, channel, tag)
    printed = "\n".join(tools.printed)
    missing = [text for text in SHOWN[tag] if text not in printed]
    assert not missing, f"{missing} not in\n{printed}"
    read = printed.replace(str(tmp_path), "")
    # An option's name reads the same in every language; a refusal's details are the
    # gateway's own words (English: common/shapes.py), after the tool's "tavola:".
    read = re.sub(r"--?[\w-]+|^tavola: .*$", "", read, flags=re.MULTILINE)
    for value in ids.values():
        read = read.replace(value, "")
    untold = english_words(tag)
    english = sorted({w for w in re.findall(r"[A-Za-z]{3,}", read) if w.lower() in untold})
    assert not english, f"English {english} in\n{printed}"

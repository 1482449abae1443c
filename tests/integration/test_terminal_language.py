"""The terminal client reads the games' events in its language: --lang, else the
terminal's locale (LANG), else English; every call of its channel names it
(clients/terminal/language.py)."""

import grpc

from clients.terminal import language
from clients.terminal.__main__ import parse_args
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc
from tests.integration.conftest import HumanTable


def test_the_language_is_the_flag_else_the_terminal_locale_else_english(monkeypatch):
    assert language.from_environment({"LANG": "de_DE.UTF-8"}) == "de_DE"
    assert language.from_environment({"LC_ALL": "it_IT.UTF-8@euro", "LANG": "de_DE.UTF-8"}) == "it_IT"
    assert language.from_environment({"LANG": "C.UTF-8"}) == "en"
    assert language.from_environment({}) == "en"
    monkeypatch.setenv("LC_ALL", "")
    monkeypatch.setenv("LC_MESSAGES", "")
    monkeypatch.setenv("LANG", "it_IT.UTF-8")
    assert parse_args([]).lang == "it_IT"
    assert parse_args(["--lang", "de"]).lang == "de"


def test_a_channel_in_a_language_reads_the_events_in_it(stack, gateway):
    table = HumanTable(gateway, 3, game="borgia", seed=5, bots={1: "random", 2: "random"})
    table.start()
    with grpc.insecure_channel(stack.gateway_addresses[0]) as plain:
        german = gateway_pb2_grpc.GatewayServiceStub(language.in_language(plain, "de"))
        replay = german.GetReplay(gw.GetReplayRequest(table_id=table.table_id))
        texts = [step.event.text for step in replay.steps if step.HasField("event")]
        assert "Die Marionetten werden verdeckt verteilt." in texts, texts
        stream = german.SpectateTable(gw.SpectateTableRequest(table_id=table.table_id), timeout=10)
        first = [next(stream).event.text for _ in range(5)]
        stream.cancel()
        assert "p0 nimmt Platz." in first, first

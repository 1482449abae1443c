"""Bots whose workers run elsewhere are declared to the gateway (TAVOLA_BOT_SPECS) by their
name, games, options and strength, none of their code; the gateway then checks their
options as it checks a registered bot's (before, ``caller:eager=false`` was UNKNOWN_BOT)."""

import json

import grpc
import pytest

from common.errors import ApiError
from gateway.bots import BotCatalog, read_declarations
from services import bot_specs

CALLER = {
    "name": "caller",
    "description": "Calls every bid it doubts.",
    "strength": 30,
    "strength_note": "beats random Borgia players",
    "games": ["borgia"],
    "options": [
        {"name": "eager", "kind": "bool", "default": "true", "description": "call at the first doubt"},
        {"name": "doubt", "kind": "float", "default": "0.5", "minimum": 0, "maximum": 1},
    ],
}


def test_every_registered_bot_declares_itself_and_reads_back():
    for spec in bot_specs.load_bots().values():
        declared = bot_specs.from_declaration(json.loads(json.dumps(bot_specs.declaration(spec))))
        assert bot_specs.declaration(declared) == bot_specs.declaration(spec)


def test_a_declared_bots_options_are_checked_like_a_registered_ones(tmp_path):
    path = tmp_path / "bots.json"
    path.write_text(json.dumps([CALLER]))
    catalog = BotCatalog(("random",), read_declarations(path))
    assert catalog.check("borgia", "caller:eager=false, doubt=0.25") == "caller:doubt=0.25,eager=false"
    assert catalog.check("borgia", "caller:eager=true") == "caller"
    for text, reason in [
        ("caller:bogus=1", "BAD_BOT_OPTION"),
        ("caller:doubt=2", "BAD_BOT_OPTION"),
        ("caller:eager=maybe", "BAD_BOT_OPTION"),
        ("lazy", "UNKNOWN_BOT"),
    ]:
        with pytest.raises(ApiError) as caught:
            catalog.check("borgia", text)
        assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, reason), text
    with pytest.raises(ApiError) as caught:
        catalog.check("pecunia", "caller")
    assert caught.value.reason == "BOT_NOT_FOR_GAME"
    listed = {bot.name: bot for bot in catalog.describe("borgia")}
    assert [option.name for option in listed["caller"].options] == ["eager", "doubt"]
    assert listed["caller"].strength == 30
    assert "caller" not in {bot.name for bot in catalog.describe("pecunia")}


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"name": "Caller!"}, "lowercase"),
        ({"strength": 101}, "strength"),
        ({"options": [{"name": "x", "kind": "text", "default": ""}]}, "kind"),
        ({"options": [{"name": "x", "kind": "int", "default": "many"}]}, "default"),
        ({"games": "borgia"}, "games"),
    ],
)
def test_a_bad_declaration_says_what_is_wrong(tmp_path, change, words):
    path = tmp_path / "bots.json"
    path.write_text(json.dumps([{**CALLER, **change}]))
    with pytest.raises(ValueError, match=words):
        read_declarations(path)


def test_a_file_that_is_not_a_list_of_declarations_is_refused(tmp_path):
    path = tmp_path / "bots.json"
    for text in ("{", json.dumps(CALLER)):
        path.write_text(text)
        with pytest.raises(ValueError, match="TAVOLA_BOT_SPECS"):
            read_declarations(path)


def test_the_declarations_of_installed_bots_print_as_json(capsys):
    bot_specs.main(["random", "ismcts"])
    printed = json.loads(capsys.readouterr().out)
    assert [item["name"] for item in printed] == ["random", "ismcts"]
    assert any(option["name"] == "budget_ms" for option in printed[1]["options"])


def test_the_printer_runs_as_the_docs_write_it():
    """``python -m services.bot_specs <bot>`` (docs/bots.md): run as a script the module is
    ``__main__``, whose BotSpec is not the class the entry points load; it once failed with
    "is not a services.bot_specs.BotSpec" on every bot."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "services.bot_specs", "random"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert [item["name"] for item in json.loads(done.stdout)] == ["random"]


def test_a_numeric_default_is_read_alike_by_every_path(tmp_path):
    """A bot author's ``default=50`` once passed the arena, the worker and the printer, then
    made the gateway refuse the whole declarations file at start."""
    option = bot_specs.BotOption("budget_ms", "thinking time", "int", 50, (), 1, 1000)  # type: ignore[arg-type]
    assert option.default == "50"
    assert bot_specs.BotOption("eager", "", "bool", True).default == "true"  # type: ignore[arg-type]
    spec = bot_specs.BotSpec("thinker", "", 10, "", make="", options=(option,))
    path = tmp_path / "bots.json"
    path.write_text(json.dumps([bot_specs.declaration(spec)]))
    (declared,) = read_declarations(path)
    assert declared.options_by_name["budget_ms"].default == "50"
    # Written by hand as a JSON number, the gateway reads it the same way.
    path.write_text(json.dumps([{**CALLER, "options": [{"name": "doubt", "kind": "float", "default": 0.5}]}]))
    (declared,) = read_declarations(path)
    assert declared.options_by_name["doubt"].parse(declared.options_by_name["doubt"].default) == 0.5


def test_a_default_the_option_refuses_fails_where_the_spec_is_made():
    with pytest.raises(bot_specs.BotError, match="budget_ms"):
        bot_specs.BotOption("budget_ms", "", "int", "many")
    with pytest.raises(bot_specs.BotError, match="default must be a string or a number"):
        bot_specs.BotOption("budget_ms", "", "int", None)  # type: ignore[arg-type]

"""The terminal client's own words (clients/terminal/words.py): every text its code marks
(``_("...")``, ``N_("...")``) has a translation in every catalog, with the same placeholders,
and English is the text in the code."""

import ast
import re
from pathlib import Path

import pytest

from clients.terminal import words

CODE = Path(words.__file__).parent
LANGUAGES = ("it", "de")
# A placeholder: "{name}" (words._), or argparse's "%(prog)s", "%s", "%r".
_PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}|(%\(\w+\)[sr]|%[sr])")


def marked() -> dict[str, str]:
    """Every marked text of the terminal client, with the file marking it first: the
    literal of each ``_("...")``, and of each ``N_("...")`` (a text told later, by ``_(name)``)."""
    found: dict[str, str] = {}
    for path in sorted(CODE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "N_"):
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.setdefault(first.value, path.name)
                else:
                    assert node.func.id == "_", f"{path.name}:{node.lineno}: N_ marks a string literal"
    return found


def test_the_terminal_marks_its_words():
    texts = marked()
    assert {"Your decision", "Help", "Quit", "Leave the table? y: leave · n: stay"} <= texts.keys()
    assert len(texts) > 50


@pytest.mark.parametrize("tag", LANGUAGES)
def test_every_marked_text_is_translated_with_the_same_placeholders(tag):
    catalog = words.messages(tag)
    missing = [text for text in marked() if not catalog.get(text)]
    assert not missing, f"{tag}.po lacks: {missing}"
    for text in marked():
        assert sorted(_PLACEHOLDER.findall(catalog[text])) == sorted(_PLACEHOLDER.findall(text)), (tag, text)
    stale = sorted(set(catalog) - set(marked()))
    assert not stale, f"{tag}.po has texts the code no longer tells: {stale}"


def test_english_is_the_text_in_the_code_and_the_fallback():
    assert words._("Your decision: {step}", "en", step="Bid") == "Your decision: Bid"
    assert words._("Your decision: {step}", "de_DE", step="Ansage") == "Deine Entscheidung: Ansage"
    assert words._("Your decision", "it") == "Tocca a te decidere"
    assert words._("Your decision", "fr") == "Your decision"  # no French catalog: English
    # a value is written in after the translation: a name is never read as a placeholder
    assert words._("{name} sits down.", "de", name="{who}") == "{who} nimmt Platz."


@pytest.mark.parametrize(
    ("tag", "shown"),
    [
        # the game's catalog's terms: a card in the hand, a Roman, a latrine seat
        ("de", ("Ziel: 10 Sesterzen.", "Latrine", "Reihe", "deine Hand", "Vordrängler", "Bürger 1R/2S", "links:")),
        (
            "it",
            ("Obiettivo: 10 sesterzi.", "latrina", "fila", "la tua mano", "Saltafila", "Cittadino 1t/2s", "sinistro:"),
        ),
    ],
)
def test_a_pecunia_board_in_the_reader_s_language(monkeypatch, tag, shown):
    import io

    from rich.console import Console

    from clients.terminal import language
    from clients.terminal.renderers.base import TableContext
    from clients.terminal.renderers.pecunia import RENDERER
    from services.pecunia import GAME
    from tavola.gateway.v1 import gateway_pb2 as gw

    monkeypatch.setattr(language, "LANGUAGE", tag)
    state = GAME.engine.new_game(2, {"target": "10"}, 3)[0]
    view = GAME.codec.view_to_proto(GAME.engine.view(state, 0))
    table = gw.Table(seats=[gw.Seat(seat=0, display_name="Ada"), gw.Seat(seat=1, display_name="Bea")])
    console = Console(record=True, width=200, file=io.StringIO())
    console.print(RENDERER.board(view, TableContext.of(table, 0)))
    text = console.export_text()
    assert all(word in text for word in shown), text
    english = (
        "Target",
        "latrine ",
        "queue",
        "your hand",
        "sesterces",
        "Draw piles",
        "Queue-jumper",
        "Citizen",
        "left:",
    )
    assert not any(word in text for word in english), text


def board_text(renderer, game, players: int, seed: int, viewer: int = 0) -> str:
    import io

    from rich.console import Console

    from clients.terminal.renderers.base import TableContext
    from tavola.gateway.v1 import gateway_pb2 as gw

    state = game.engine.new_game(players, {}, seed)[0]
    view = game.codec.view_to_proto(game.engine.view(state, viewer))
    names = ("Ada", "Bea", "Cy", "Dan")[:players]
    table = gw.Table(seats=[gw.Seat(seat=i, display_name=name) for i, name in enumerate(names)])
    console = Console(record=True, width=100, file=io.StringIO())
    console.print(renderer.board(view, TableContext.of(table, viewer)))
    return console.export_text()


@pytest.mark.parametrize("tag", ("en", *LANGUAGES))
def test_a_mortadella_board_names_roles_and_symbols_as_the_game_s_catalog_does(monkeypatch, tag):
    from clients.terminal import language
    from clients.terminal.renderers.mortadella import RENDERER
    from common.phrases import Catalogs
    from services.mortadella import GAME
    from services.mortadella.words import WORDS

    monkeypatch.setattr(language, "LANGUAGE", tag)
    text = board_text(RENDERER, GAME, 3, 3)
    catalog = Catalogs.from_folder(WORDS.folder).chain(tag)[0].messages
    # seat 0 was dealt the Cardinal; the dice show a Rat and the People (M1)
    for term in ("mortadella.role.cardinal", "mortadella.symbol.rat", "mortadella.symbol.people"):
        assert catalog[(None, term)] in text, (term, text)
    if tag != "en":
        assert not any(word in text for word in ("Cardinal ", "[Rat]", "at least", "Your role")), text
    else:
        assert "Your role: Cardinal" in text and "[Rat]" in text, text

"""The terminal client's own words in the reader's language (clients/terminal/words.py):
a Borgia table played through the real platform in German and in Italian shows the table
screen, the key bar and the board in that language, and none of their English words."""

import asyncio

import pytest

from clients.terminal import language
from clients.terminal.app import Plan, TableApp
from tests.integration.test_terminal_client import SIZE, deciding, until

# The words each language must show at a decision: the prompt, the key bar, the board's
# headings and the seat's own puppet and dice (B1); the gateway's events in the same language.
SHOWN = {
    "de": (
        "Deine Entscheidung",
        "Hilfe",
        "Beenden",
        "Verlauf",
        "Plätze",
        "Kardinal",
        "Einfluss",
        "Deine Marionette:",
        "Deine Würfel:",
        "Ada (du)",
        "Runde 1",
        "nimmt Platz.",
        "du bist Ada",
    ),
    "it": (
        "Tocca a te decidere",
        "Aiuto",
        "Esci",
        "Cronologia",
        "Posti",
        "cardinale",
        "influenza",
        "Il tuo burattino:",
        "I tuoi dadi:",
        "Ada (tu)",
        "Round 1",
        "dadi sul tavolo",
        "si siede al tavolo.",
        "sei Ada",
    ),
}
REPLAY = {"de": "Wiederholung, Schritt 1 von", "it": "Replay, passo 1 di"}
ENGLISH = (
    "Your decision",
    "Help",
    "Quit",
    "History",
    "Seats",
    "The cardinals",
    "influence",
    "Your puppet",
    "Your dice",
    "(you)",
    "dice on the table",
    "to choose",
    "What each seat",
    "you are",
    "table ",
    "in progress",
)


@pytest.mark.parametrize("tag", sorted(SHOWN))
def test_a_borgia_table_in_the_reader_s_language(stack, monkeypatch, tmp_path, tag):
    monkeypatch.setenv("TAVOLA_CLIENT_DIR", str(tmp_path / "seats"))
    monkeypatch.setattr(language, "LANGUAGE", tag)  # as --lang sets it
    seen: list[str] = []

    async def main():
        app = TableApp(stack.gateway_address, Plan(game="borgia", players=2, name="Ada", bots=["random"]))
        async with app.run_test(size=SIZE) as pilot:
            # The key bar paints after the table: every word expected is waited for (the
            # deadline's failure shows the screen).
            await until(pilot, lambda: deciding(app) and all(word in app.screen_text() for word in SHOWN[tag]))
            seen.append(app.screen_text())
            await pilot.press("q")  # leaving asks first, in the same language
            await pilot.pause(0.3)
            seen.append(app.screen_text())
            await pilot.press("n")
            await pilot.pause(0.2)
            await pilot.press("v")  # the replay screen, in the same language
            await until(pilot, lambda: REPLAY[tag] in app.screen_text())
            seen.append(app.screen_text())

    asyncio.run(main())
    table, confirm, replay = seen
    missing = [word for word in SHOWN[tag] if word not in table]
    assert not missing, f"{missing} not in\n{table}"
    english = [word for word in ENGLISH if word in table]
    assert not english, f"{english} in\n{table}"
    leave = {"de": "Den Tisch verlassen? y: gehen · n: bleiben", "it": "Lasciare il tavolo? y: esci · n: resta"}
    assert leave[tag] in confirm and "Leave the table" not in confirm, confirm
    assert ("Was geschah" if tag == "de" else "Che cosa è successo") in replay, replay
    assert "What happened" not in replay and "step 1 of" not in replay, replay

"""The web client in Italian and German: the browser's language by default, a switch that
re-renders the page and is kept for the next visit, <html lang> set, the page's own words
and the games' events in the chosen language (the gateway tells them in the tavola-locale
the page sends), dates written as the language writes them; at phone width nothing
overflows, and axe-core finds nothing serious in either language."""

import re

import grpc

from common.help import help_entries
from common.phrases import Catalogs
from services.registry import get_game
from tavola.gateway.v1 import social_pb2 as so
from tests.web.test_browser import create_table, my_turn
from tests.web.test_friends import Remote, sign_in

PHONE = 375


def _history(page) -> list[str]:
    return page.page.locator("[data-testid=history] li").all_inner_texts()


def _fits(page) -> None:
    width = page.page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE, f"the page is {width} px wide at {PHONE} px"
    for selector in (".actions .choices button", "header.site select", ".history h2", ".table-head h1"):
        for box in [item.bounding_box() for item in page.page.locator(selector).all()]:
            assert box is None or box["x"] + box["width"] <= PHONE, (selector, box)


def test_the_browser_language_is_the_default_and_the_switch_is_kept(open_page, base_url):
    page = open_page(locale="de-DE", name="language-default")
    page.page.goto(f"{base_url}#/")
    page.page.wait_for_selector("[data-testid=new-borgia]")
    assert page.page.get_attribute("html", "lang") == "de"
    assert page.page.locator("[data-testid=nav-quick]").inner_text() == "Schnelles Spiel"
    assert page.page.locator("[data-testid=new-borgia]").inner_text().startswith("Neuer Tisch")
    assert page.page.input_value("[data-testid=language]") == "de"
    page.page.select_option("[data-testid=language]", "it")
    page.page.wait_for_selector("text=Partita rapida")
    assert page.page.get_attribute("html", "lang") == "it"
    assert page.page.locator("main.lobby h1").inner_text() == "Sala"
    page.axe("lobby-it")
    page.page.reload()
    page.page.wait_for_selector("[data-testid=new-borgia]")
    assert page.page.get_attribute("html", "lang") == "it"  # kept, over the browser's German
    assert page.page.locator("[data-testid=nav-quick]").inner_text() == "Partita rapida"
    page.page.select_option("[data-testid=language]", "en")
    page.page.wait_for_selector("text=Quick play")
    assert page.page.get_attribute("html", "lang") == "en"


def test_a_table_in_italian_then_german_at_phone_width(open_page, base_url):
    page = open_page(width=PHONE, height=800, locale="it-IT", timezone="Europe/Rome", name="language-table")
    page.page.goto(f"{base_url}#/")
    page.page.wait_for_selector("[data-testid=new-borgia]")
    create_table(page, base_url, "borgia", "Pip", ["bot:random", "bot:random"])
    my_turn(page)
    texts = _history(page)
    assert any("Pip si siede al tavolo." in text for text in texts), texts
    assert any("I burattini vengono distribuiti in segreto. Il tuo burattino: " in text for text in texts), texts
    assert page.page.locator(".actions h2").inner_text().startswith("La tua mossa")
    assert page.page.locator("[data-testid=commitment]").inner_text().startswith("Impegno del seme")
    _fits(page)
    page.shot("table-it")
    page.axe("table-it")

    page.page.select_option("[data-testid=language]", "de")
    page.page.wait_for_selector("text=Die Marionetten werden verdeckt verteilt.", state="attached")
    my_turn(page)
    assert page.page.get_attribute("html", "lang") == "de"
    texts = _history(page)
    assert any("Pip nimmt Platz." in text for text in texts), texts
    assert not any("si siede" in text or "burattin" in text for text in texts), texts  # read again in German
    assert page.page.locator(".actions h2").inner_text().startswith("Dein Zug")
    _fits(page)
    page.shot("table-de")
    page.axe("table-de")

    # The lobby's row of the table: when it was made, as German writes it.
    page.page.click("[data-testid=nav-lobby]")
    made = page.page.locator("section[aria-label='Laufende Tische'] time").first
    made.wait_for()
    assert made.inner_text().startswith("erstellt vor ") or made.inner_text().startswith("erstellt jetzt"), (
        made.inner_text()
    )
    assert re.fullmatch(r"\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}", made.get_attribute("title") or ""), made.get_attribute(
        "title"
    )
    _fits(page)
    page.shot("lobby-de")


def test_pecunia_and_mortadella_in_german_at_phone_width(open_page, base_url):
    for game, options, words in (
        ("pecunia", {"target": "12"}, ("Zug ", "Reihe (vom Anfang):", "Römerstapel")),
        ("mortadella", {"max_turns": "6"}, ("Deine Rolle:", "Zug ", " spielt")),
    ):
        page = open_page(width=PHONE, height=800, locale="de-DE", name=f"language-{game}")
        page.page.goto(f"{base_url}#/")
        page.page.wait_for_selector(f"[data-testid=new-{game}]")
        create_table(page, base_url, game, "Pip", ["bot:random", "bot:random"], options)
        my_turn(page)
        board = page.page.locator("body").inner_text()
        assert all(word in board for word in words), board
        # The turn's dice, labelled in German when there are any (none before the turn's roll).
        rolled = page.page.locator("[data-testid=turn-dice]")
        assert not rolled.count() or rolled.inner_text().startswith("Gewürfelt:"), rolled.inner_text()
        # The moves, told by the gateway from the game's German catalog.
        labels = page.page.locator(".actions .choices button").all_inner_texts()
        english = re.compile(r"\b(the|draw|roll|refill|start with)\b")
        assert labels and not any(english.search(label) for label in labels), labels
        assert any("Pip nimmt Platz." in text for text in _history(page))
        _fits(page)
        page.shot(f"{game}-de")
        page.axe(f"{game}-de")


def _help_of(game: str, locale: str) -> dict[str, str]:
    return dict(help_entries(Catalogs.from_folder(get_game(game).words.catalog), locale))


def test_the_help_panel_in_german_then_italian_at_phone_width(open_page, base_url):
    """The rules panel, its headings and the roles' table are in the page's language, the
    help asked again when the language changes; German's long words stay inside 375 px."""
    page = open_page(width=PHONE, height=800, locale="de-DE", name="language-help")
    page.page.goto(f"{base_url}#/")
    page.page.wait_for_selector("[data-testid=new-mortadella]")
    assert page.page.locator("[data-testid=learn-mortadella]").inner_text() == "Spielanleitung"
    create_table(page, base_url, "mortadella", "Pip", ["bot:random", "bot:random"], {"max_turns": "6"})
    page.page.wait_for_selector("[data-testid=rules-help]")
    help = _help_of("mortadella", "de")
    panel = page.page.locator("[data-testid=rules-help]")
    assert panel.locator("summary").inner_text() == "Spielanleitung"
    panel.locator("summary").click()
    page.page.wait_for_selector("[data-testid=rules-help][open]")
    shown = " ".join(panel.inner_text().split())
    for text in help.values():
        assert " ".join(text.split()) in shown  # every help message, in German
    assert panel.locator("caption").inner_text() == "Die Rollen und ihre Ziele"
    assert panel.locator("th").all_inner_texts() == ["Rolle", "Ziel"]
    assert panel.locator("h3").all_inner_texts() == ["Aktionen", "Würfelseiten", "Effekte", "Sonderwürfe"]
    mine = page.page.locator("[data-testid=my-goal]")
    assert mine.inner_text().startswith("Dein Ziel: mindestens")
    _fits(page)
    for box in [item.bounding_box() for item in panel.locator("p, li, td, th, h3, caption").all()]:
        assert box is None or box["x"] + box["width"] <= PHONE, box
    page.shot("help-de")
    page.axe("help-de")

    page.page.select_option("[data-testid=language]", "it")
    page.page.wait_for_selector("[data-testid=rules-help] summary >> text=Come si gioca")
    page.page.locator("[data-testid=rules-help][open]").wait_for()  # kept open across the redraw
    italian = _help_of("mortadella", "it")
    shown = " ".join(page.page.locator("[data-testid=rules-help]").inner_text().split())
    assert " ".join(italian["help.rules"].split()) in shown and " ".join(help["help.rules"].split()) not in shown
    _fits(page)
    page.shot("help-it")


def test_the_player_page_and_the_friends_page_in_german(open_page, base_url, web_stack):
    with grpc.insecure_channel(web_stack.gateway_address) as channel:
        ada, bea = Remote(channel, "Ada"), Remote(channel, "Bea")
        bea.social.FollowPlayer(so.FollowPlayerRequest(player_id=ada.id), metadata=bea.auth)
        ada.social.FollowPlayer(so.FollowPlayerRequest(player_id=bea.id), metadata=ada.auth)
        bea.social.SetPresence(so.SetPresenceRequest(state=so.PRESENCE_STATE_AWAY), metadata=bea.auth)
    page = open_page(locale="de-DE", name="language-me")
    sign_in(page, base_url, ada)

    page.page.goto(f"{base_url}#/me")
    page.page.wait_for_selector("[data-testid=me-name]")
    page.page.wait_for_selector("text=Noch keine:")  # the tables listed (none yet)
    me = page.page.locator("main.me").inner_text()
    for words in ("Dein Spieler: ", "Deine Tische", "Überall abmelden", "Wenn du am Zug bist", "Umbenennen"):
        assert words in me, (words, me)
    assert not any(english in me for english in ("Your tables", "Sign out everywhere", "Rename")), me
    page.page.click("[data-testid=forget]")
    assert page.page.locator("[data-testid=forget-yes]").inner_text() == "Ja, hier vergessen"
    page.axe("me-de")
    page.shot("me-de")

    page.page.goto(f"{base_url}#/friends")
    friend = page.page.locator("[data-testid=friend]")
    friend.wait_for()
    assert "(abwesend)" in friend.inner_text(), friend.inner_text()
    assert friend.get_by_role("button", name="Nicht mehr folgen").count() == 1
    friends = page.page.locator("main.friends-page").inner_text()
    for words in ("Freunde", "Einladungen", "Keine Einladung wartet auf dich.", "Du hast niemanden blockiert."):
        assert words in friends, (words, friends)
    page.axe("friends-de")
    page.shot("friends-de")

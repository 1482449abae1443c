"""Learning in the page: the table page's rules panel and the explanations beside the
choices are the game's own catalog's words (GetGameHelp, common/help.py), reachable by the
keyboard (a disclosure, no hover), and a Mortadella player's goal stays in view with a table
of every role's goal; a Pecunia hand says what each card does."""

import time

import pytest

from common.help import help_entries
from common.phrases import Catalogs
from services.registry import get_game
from tests.web.test_browser import MOVE_SELECTOR, click_a_move, create_table

GAMES = {"borgia": {}, "mortadella": {"max_turns": "6"}, "pecunia": {"target": "12"}}


def help_of(game: str) -> dict[str, str]:
    return dict(help_entries(Catalogs.from_folder(get_game(game).words.catalog)))


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_rules_and_what_each_choice_does_are_in_the_page(open_page, base_url, game):
    page = open_page(name=f"help-{game}")
    help = help_of(game)
    create_table(page, base_url, game, "Ada", ["bot:random"], GAMES[game])
    page.page.wait_for_selector(f"{MOVE_SELECTOR}, [data-testid=ending]")
    panel = page.page.locator("[data-testid=rules-help]")
    assert panel.count() == 1 and panel.get_attribute("open") is None  # folded until asked
    # Opened from the keyboard: the summary is reached by focus and opened with Enter.
    panel.locator("summary").focus()
    page.page.keyboard.press("Enter")
    page.page.wait_for_selector("[data-testid=rules-help][open]")
    shown = words(panel.inner_text())
    assert words(help["help.rules"]) in shown and words(help["help.goal"]) in shown
    for key, text in help.items():
        assert words(text) in shown, key  # every action, card, face, effect, role and variant
    page.shot("rules")
    page.axe("rules")
    if game == "mortadella":
        # Every role with its goal, as a table (M14).
        goals = {words(text) for key, text in help.items() if key.startswith("help.role.") and key.endswith(".goal")}
        assert page.page.locator("[data-testid=roles-help] tr").count() == 1 + len(goals) == 8
        mine = page.page.locator("[data-testid=my-goal]")
        assert mine.inner_text().startswith("Your goal: at least")
        assert words(mine.inner_text()).removeprefix("Your goal: ") in {
            words(t) for k, t in help.items() if k.endswith(".goal")
        }
    if page.page.locator("[data-testid=ending]").count():
        return  # over before this page's first decision (a bot's guess): nothing to choose
    said = words(page.page.locator("[data-testid=choice-help]").inner_text())
    actions = {words(text) for key, text in help.items() if key.startswith(("help.action.", "help.card."))}
    assert any(text in said for text in actions), said
    button = page.page.locator(MOVE_SELECTOR).first
    assert button.get_attribute("aria-describedby") == "choice-help"
    if game == "pecunia":  # the hand's cards say what they do
        hand = words(page.page.locator("[data-testid=hand-0]").inner_text())
        cards = [text for key, text in help.items() if key.startswith("help.card.") and words(text) in hand]
        assert cards, hand
    # The panel stays open across the page's redraws (a move played).
    button.click()
    page.page.wait_for_timeout(500)
    assert page.page.locator("[data-testid=rules-help]").get_attribute("open") is not None


def test_the_lobby_links_each_game_to_its_help(open_page, base_url):
    page = open_page(name="learn")
    page.page.goto(f"{base_url}#/")
    page.page.click("[data-testid=learn-mortadella]")
    page.page.wait_for_url("**#/learn/mortadella")
    page.page.wait_for_selector("[data-testid=rules-help][open]")
    help = help_of("mortadella")
    shown = words(page.page.locator("main").inner_text())
    assert "How to play Il Trono di Mortadella" in shown
    assert words(help["help.rules"]) in shown and words(help["help.role.brigand.goal"]) in shown
    assert page.page.locator("[data-testid=roles-help] tr").count() == 8
    page.shot("mortadella")
    page.axe("mortadella")
    page.page.goto(f"{base_url}#/learn/chess")
    page.page.wait_for_selector("text=No such game is hosted here.")


def test_a_mortadella_effect_waiting_on_a_decision_says_what_it_does(open_page, base_url):
    """While an effect waits for its target, a cancel or a discard (M6, M7), the board says
    what it does, with what cancelling it costs: "pay Mortadella to cancel it" is no longer
    chosen blind. Three players: no two-player guess ends the game first (M19)."""
    page = open_page(name="help-effect")
    create_table(page, base_url, "mortadella", "Ada", ["bot:random", "bot:random"], {"max_turns": "60"})
    effects = {words(text) for key, text in help_of("mortadella").items() if key.startswith("help.effect.")}
    shown = page.page.locator("[data-testid=effect-help]")
    deadline = time.monotonic() + 180
    # Texts are read in one call: a bot's move may take the effect off the board between a
    # count and a later read of it.
    while not (texts := shown.all_inner_texts()):
        assert time.monotonic() < deadline and not page.page.locator("[data-testid=ending]").count(), "no effect waited"
        if not click_a_move(page):
            time.sleep(0.05)
    assert words(texts[0]) in effects

"""The boards as pictures: each game's board mid-game and at its end is drawn in SVG (dice,
tokens, cards, the ladder), every picture named for screen readers with what its chip said,
whose turn it is marked, nothing wider than a phone's 375 px, and no serious or critical
axe-core violation on a mid-game board. Moves animate, and with reduced motion asked for,
no animation runs.

The screenshots go to .artifacts/web/ (board-<game>-<moment>-<width>.png). With
TAVOLA_DOCS_SCREENSHOTS=1 the same pictures of the boards are also written to docs/images/,
which docs/players.md shows (make docs-screenshots); CI never sets it, so it rewrites nothing.
"""

import os
import re
import time

import pytest

from tests.web.conftest import ARTIFACTS, ROOT
from tests.web.test_browser import GAMES, MOVE_SELECTOR, click_a_move, create_table, play_to_end

DOCS_IMAGES = ROOT / "docs" / "images"
WIDTHS = (1280, 375)
# A picture's name as its chip said it, per game (src/pictures).
BORGIA_FACES = {"Bribe", "Poison", "Judgement", "Accusation", "Rumor", "Fate"}
CARDINALS = ("Borgia", "Della Rovere", "Medici", "Orsini", "Colonna", "Sforza")
TOKEN_LABEL = re.compile(r"^(People|Tower|Book|Mortadella) \d+$")
ROMAN_LABEL = re.compile(
    r"^(Senator|Citizen|Woman|Slave): sits \d+ rounds?, pays \d+ sesterces?(, \d+ round markers? left)?$"
)
ACTION_NAMES = {
    "Villa Dixius",
    "Queue-jumper",
    "Castor oil",
    "Fish poisoning",
    "Special tax",
    "Poaching",
    "Swap",
    "Senate meeting",
    "Reordering",
    "Eviction",
}


def labels(page, selector: str) -> list[str]:
    return page.page.locator(selector).evaluate_all("nodes => nodes.map(node => node.getAttribute('aria-label'))")


# Mid-game, in events of the history: a few rounds or turns in, well before a short game's end.
MID_GAME = {"borgia": 20, "mortadella": 12, "pecunia": 25}


def play_to_mid_game(page, game: str, limit_seconds: float = 120.0) -> None:
    """Plays this page's seat until the history holds MID_GAME[game] events and it is this seat's
    turn again (or the game is over)."""
    deadline = time.monotonic() + limit_seconds
    history = page.page.locator("[data-testid=history] li")
    while history.count() < MID_GAME[game] and not page.page.locator("[data-testid=ending]").count():
        assert time.monotonic() < deadline, "the game did not reach its middle in time"
        if not click_a_move(page):
            time.sleep(0.1)
    page.page.wait_for_selector(f"{MOVE_SELECTOR}, [data-testid=ending]")


def check_pictures(page, game: str, over: bool) -> None:
    """Every picture on the board is named; each game's own pictures say what the chips said."""
    named = labels(page, ".board svg[role=img]")
    assert named and all(named), f"unnamed pictures on the {game} board: {named}"
    assert page.page.locator(".board svg:not([role=img]):not([aria-hidden=true])").count() == 0
    if not over:
        assert page.page.locator(".seat-card.turn").count() == 1, "one seat is marked as the one to play"
        assert page.page.locator(".seat-card.turn .turn-badge").inner_text() == "to play"
    else:  # the winners marked, as the end's headline names them
        headline = page.page.locator("[data-testid=headline]").inner_text()
        won = page.page.locator(".seat-card.won .won-badge")
        assert page.page.locator(".seat-card.turn").count() == 0
        assert (won.count() == 0) == headline.startswith("Nobody"), headline
        assert (page.page.locator("[data-testid=seat-0].won").count() == 1) == headline.startswith("You win"), headline
    if game == "borgia":
        ladder = page.page.locator("[data-testid=ladder]").get_attribute("aria-label")
        assert ladder.startswith("Ladder, top first: 1. ")
        assert all(name in ladder for name in CARDINALS) or over, ladder  # the end may drop some
        assert len(re.findall(r"\d+ influence", ladder)) == page.page.locator("[data-testid=ladder] > g").count()
        faces = labels(page, "[data-testid=dice-0] svg.die")
        assert set(faces) <= BORGIA_FACES | {"hidden die"}, faces
        if not over and page.page.locator("[data-testid=my-secrets]").count():
            mine = labels(page, "[data-testid=my-secrets] svg.die")
            words = page.page.locator("[data-testid=my-secrets] .die-word").all_inner_texts()
            assert mine == words and set(mine) <= BORGIA_FACES, (mine, words)
    elif game == "mortadella":
        tokens = labels(page, ".board svg.token")
        assert len(tokens) == 4 * page.page.locator(".board .seat-card").count()
        assert all(TOKEN_LABEL.match(label) for label in tokens), tokens
    else:
        seated = labels(page, ".latrine svg.card")
        assert len(seated) >= 3 * page.page.locator(".board .seat-card").count()
        assert all(ROMAN_LABEL.match(label) or label == "empty seat" for label in seated), seated
        assert all(ROMAN_LABEL.match(label) for label in labels(page, ".queue svg.card")), "queue"
        hand = labels(page, "[data-testid=hand-0] svg.card")
        assert set(hand) <= ACTION_NAMES, hand
        assert all("hidden" in hand or over for hand in page.page.locator("[data-testid^=hand-]").all_inner_texts()[1:])


def shoot(page, game: str, moment: str) -> None:
    """The board (with the moves, or the end, above it) at each width: into .artifacts/web/, and
    into docs/images/ when TAVOLA_DOCS_SCREENSHOTS is set; at 375 px, nothing wider than the page."""
    for width in WIDTHS:
        page.page.set_viewport_size({"width": width, "height": 900})
        page.page.wait_for_function(f"document.documentElement.clientWidth === {width}")
        scroll = page.page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width, f"{game} {moment}: the page is {scroll} px wide at {width} px"
        outside = page.page.locator(".board svg").evaluate_all(
            f"nodes => nodes.filter(n => n.getBoundingClientRect().right > {width} + 0.5).length"
        )
        assert outside == 0, f"{game} {moment}: {outside} pictures reach past {width} px"
        top = page.page.locator("[data-testid=ending], .actions, .board").first.bounding_box()
        board = page.page.locator(".board").bounding_box()
        assert top and board
        left = max(0, board["x"] - 8)  # the page's column, without the empty margins of a wide window
        right = min(width, board["x"] + board["width"] + 8)
        bottom = board["y"] + board["height"] + 8
        clip = {"x": left, "y": top["y"] - 8, "width": right - left, "height": bottom - top["y"] + 8}
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        targets = [ARTIFACTS / f"board-{game}-{moment}-{width}.png"]
        if os.environ.get("TAVOLA_DOCS_SCREENSHOTS"):
            DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
            targets.append(DOCS_IMAGES / f"{game}-{moment}-{width}.png")
        for target in targets:
            page.page.screenshot(path=str(target), clip=clip, full_page=True)
    page.page.set_viewport_size({"width": WIDTHS[0], "height": 900})


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_board_is_drawn_in_named_pictures_mid_game_and_at_the_end(open_page, base_url, game):
    page = open_page(width=WIDTHS[0], name=f"board-{game}")
    page.page.emulate_media(reduced_motion="reduce")  # still pictures: no die caught mid-roll
    # Three seats: more to see, and a Mortadella bot rarely ends the game by a guess at once.
    create_table(page, base_url, game, f"Board {game}", ["bot:random", "bot:random"], GAMES[game])
    play_to_mid_game(page, game)
    if not page.page.locator("[data-testid=ending]").count():
        check_pictures(page, game, over=False)
        page.axe("mid-game")
        shoot(page, game, "mid-game")
    play_to_end(page)
    page.page.wait_for_selector("[data-testid=seed-verdict]:not(.pending)")
    check_pictures(page, game, over=True)
    page.axe("end")
    shoot(page, game, "end")


# Counted from the page's first load: every CSS animation that starts, and every element drawn
# with a class that animates it (src/pictures/motion.ts marks what changed: a roll, a new bid...).
ANIMATED = ".roll, .rolled, .pop, .pulse, .slide, .enter"
COUNT_ANIMATIONS = f"""
window.animationsStarted = 0;
window.animatedDrawn = 0;
document.addEventListener("animationstart", () => {{ window.animationsStarted += 1; }}, true);
new MutationObserver((records) => {{
  for (const record of records)
    for (const node of record.addedNodes)
      if (node.nodeType === 1)
        window.animatedDrawn += node.querySelectorAll("{ANIMATED}").length + (node.matches("{ANIMATED}") ? 1 : 0);
}}).observe(document, {{ childList: true, subtree: true }});
"""


@pytest.mark.parametrize("reduced", [False, True], ids=["motion", "reduced-motion"])
def test_bids_and_rolls_animate_unless_reduced_motion_is_asked(open_page, base_url, reduced):
    """A Borgia table: each new bid pops in, each round's dice roll. With reduced motion
    emulated, the same changes are drawn (marked to animate) and no animation starts at all."""
    page = open_page(name=f"motion-{'reduced' if reduced else 'full'}")
    if reduced:
        page.page.emulate_media(reduced_motion="reduce")
    page.page.add_init_script(COUNT_ANIMATIONS)
    create_table(page, base_url, "borgia", f"Motion {reduced}", ["bot:random", "bot:random"])
    deadline = time.monotonic() + 120

    def enough() -> bool:
        if reduced:  # changes that animate with motion on: a few of them
            return page.page.evaluate("window.animatedDrawn") >= 2
        return page.page.evaluate("window.animationsStarted") > 0

    while not enough():
        assert time.monotonic() < deadline, "no animated change in time"
        if page.page.locator("[data-testid=ending]").count():
            counts = page.page.evaluate("[window.animationsStarted, window.animatedDrawn]")
            pytest.skip(f"the game ended before its changes were seen (started, drawn: {counts})")
        if not click_a_move(page):
            time.sleep(0.1)
    if reduced:
        started = page.page.evaluate("window.animationsStarted")
        running = page.page.evaluate("document.getAnimations().length")
        assert started == 0 and running == 0, (started, running)

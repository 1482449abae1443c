"""The levels' shipped calibrations (bots/<game>/calibration.json): every level's preset as
it stands is calibrated (a preset changed since fails here until the game is calibrated
again), and ListBots lists every level's rating from it until rated play has its own."""

import dataclasses

import pytest

from bots.search import calibration
from bots.search.levels import level_presets
from bots.search.playbooks import level_schedules
from bots.search.specs import ISMCTS
from gateway.bots import BotCatalog, merged
from services import bot_specs
from tavola.gateway.v1 import gateway_pb2 as gw

GAMES = sorted(level_schedules())


def test_every_game_with_levels_ships_a_calibration():
    assert GAMES == ["borgia", "mortadella", "pecunia"]
    for game_id in GAMES:
        data = calibration.read(game_id)
        assert data is not None and data["game"] == game_id
        assert data["command"].startswith("python -m bots.lab.calibrate") and data["note"] and data["date"]


@pytest.mark.parametrize("game_id", GAMES)
def test_every_level_preset_has_a_calibration_of_its_settings_now(game_id: str):
    """Changing a level's preset changes its digest: calibrate the game again
    (``python -m bots.lab.calibrate --game <game> --games 200 --clock cpu --keep DIR --write``)."""
    calibrated = calibration.levels(game_id)
    for level in level_presets(game_id):
        digest = bot_specs.settings_digest(level["bot"], game_id)
        entry = calibrated.get(str(level["level"]))
        assert entry is not None and entry.digest == digest, (
            f"{game_id} level {level['level']}: its preset has no calibration (digest {digest}); "
            f"run python -m bots.lab.calibrate --game {game_id} --write"
        )
        assert bot_specs.calibration(level["bot"], game_id) == entry


@pytest.mark.parametrize("game_id", GAMES)
def test_the_shipped_fit_predicts_every_pair_within_five_points_and_orders_the_ends(game_id: str):
    data = calibration.read(game_id)
    assert data is not None
    for pair in data["pairs"]:
        assert pair["games"] == 200 and abs(pair["predicted"] - pair["measured"]) <= 0.05, pair
    levels = calibration.levels(game_id)
    assert levels["1"].rating < levels["4"].rating < levels["8"].rating
    assert all(0 < entry.uncertainty < 200 for entry in levels.values())


def test_a_calibration_counts_only_for_the_preset_as_calibrated():
    assert bot_specs.calibration("ismcts", "borgia") == bot_specs.calibration("ismcts:level=8", "borgia")
    assert bot_specs.calibration("ismcts:level=3", "borgia") is not None
    assert bot_specs.calibration("ismcts:level=3,slips=0.5", "borgia") is None  # an option overridden
    assert bot_specs.calibration("random", "borgia") is None  # no presets
    assert bot_specs.calibration("ismcts:level=3", "no-such-game") is None
    # a preset whose settings moved since its calibration: none until calibrated again
    entry = bot_specs.calibration("ismcts:level=3", "borgia")
    assert entry is not None
    moved = dataclasses.replace(entry, digest="0" * 16)
    spec = dataclasses.replace(ISMCTS, calibrations={"borgia": {"3": moved}})
    assert bot_specs.calibration("ismcts:level=3", "borgia", bots={"ismcts": spec}) is None


def test_list_bots_shows_each_level_calibrated_until_rated_play_rates_it():
    catalog = BotCatalog()
    calibrated = catalog.calibrated("ismcts", "mortadella")
    assert [rating.bot for rating in calibrated][-1] == "ismcts" and len(calibrated) == 8
    assert all(rating.calibrated and rating.uncertainty > 0 and rating.games >= 200 for rating in calibrated)
    ladder = [
        gw.BotRating(bot="ismcts:level=3", rating=1480.0, uncertainty=120.0, games=12),
        gw.BotRating(bot="ismcts:level=5", rating=1500.0, uncertainty=500.0, games=0),  # started again
        gw.BotRating(bot="ismcts:budget_ms=50", rating=1600.0, uncertainty=300.0, games=3),
    ]
    listed = {rating.bot: rating for rating in merged(ladder, calibrated)}
    assert len(listed) == 9
    assert (listed["ismcts:level=3"].rating, listed["ismcts:level=3"].calibrated) == (1480.0, False)
    assert listed["ismcts:level=5"].calibrated and listed["ismcts:level=5"].games == 400
    assert listed["ismcts:budget_ms=50"].games == 3
    ordered = merged(ladder, calibrated)
    assert [rating.rating for rating in ordered] == sorted((rating.rating for rating in ordered), reverse=True)
    # the hint follows the rating: not one figure for every level
    hints = {rating.bot: rating.strength for rating in ordered}
    assert hints["ismcts"] > hints["ismcts:level=4"] > hints["ismcts:level=1"]
    assert 0 < hints["ismcts:level=1"] < 50 < hints["ismcts"] < 100

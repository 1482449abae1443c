"""bots.lab.calibrate: rating the levels from neighbouring pairs' games (the batch fit of
bots/lab/fit.py), the report's checks and the shipped calibration."""

import math

import pytest

from bots.lab import calibrate
from bots.lab.arena import GameResult
from bots.lab.fit import Tally, fit, prediction
from bots.worker.rating_model import Rated, predicted_win
from services.bot_specs import settings_digest


def game(index: int, upper_won: bool | None) -> GameResult:
    """A two-player game of (lower, upper) with the upper level at seat index % 2."""
    seating = (0, 1) if index % 2 == 0 else (1, 0)
    upper_seat = seating.index(1)
    winners = () if upper_won is None else ((upper_seat,) if upper_won else (1 - upper_seat,))
    return GameResult(index, seating, winners, (10, 10), (0.1, 0.1))


def games_won(upper_wins: int, total: int) -> list[GameResult]:
    """``upper_wins`` of ``total`` games won by the upper level, spread evenly through them
    (online ratings weigh the latest games most, so a run of losses at the end would move them)."""
    return [game(index, (index + 1) * upper_wins // total > index * upper_wins // total) for index in range(total)]


def test_upper_share_counts_a_game_nobody_won_as_half():
    assert calibrate.upper_share(game(0, True)) == 1.0
    assert calibrate.upper_share(game(1, True)) == 1.0
    assert calibrate.upper_share(game(1, False)) == 0.0
    assert calibrate.upper_share(game(2, None)) == 0.5


def test_parse_levels_reads_ranges_and_lists_and_refuses_unknown_levels():
    assert calibrate.parse_levels("1-3") == [1, 2, 3]
    assert calibrate.parse_levels("6,4,5") == [4, 5, 6]
    for bad in ("4", "0-2", "7-9", "3-3"):
        with pytest.raises(ValueError):
            calibrate.parse_levels(bad)


def test_a_level_that_wins_three_of_five_is_rated_above_within_the_band_with_the_fits_prediction():
    results = {(1, 2): games_won(120, 200), (2, 3): games_won(120, 200)}
    data = calibrate.report("mortadella", [1, 2, 3], results, games_per_pair=200, seed=1, clock="cpu")
    by_level = {entry["level"]: entry for entry in data["levels"]}
    assert by_level[1]["rating"] < by_level[2]["rating"] < by_level[3]["rating"]
    assert by_level[2]["games"] == 400 and by_level[1]["games"] == 200
    assert [by_level[level]["slips"] for level in (1, 2, 3)] == [1.0, 0.86, 0.71]  # Mortadella's schedule
    for pair in data["pairs"]:
        assert pair["measured"] == 0.6
        # 60% head to head: about 170 points on the model's own curve
        assert pair["gap_ok"], pair
        assert pair["prediction_ok"], pair


def test_two_wins_in_three_is_farther_apart_than_neighbours_should_be():
    results = {(7, 8): games_won(134, 200)}
    data = calibrate.report("borgia", [7, 8], results, games_per_pair=200, seed=1, clock="cpu")
    (pair,) = data["pairs"]
    assert pair["gap"] > 200 and not pair["gap_ok"]
    assert pair["prediction_ok"], pair


def test_equal_levels_are_flagged_as_too_close():
    results = {(4, 5): games_won(100, 200)}
    data = calibrate.report("borgia", [4, 5], results, games_per_pair=200, seed=1, clock="cpu")
    (pair,) = data["pairs"]
    assert abs(pair["gap"]) < 100 and not pair["gap_ok"]
    assert abs(pair["predicted"] - 0.5) < 0.05


def test_the_command_plays_each_pair_and_keeps_its_games_for_the_next_run(capsys, tmp_path):
    import json

    argv = ["--game", "mortadella", "--levels", "1-2", "--games", "2", "--jobs", "1", "--json", "--keep", str(tmp_path)]
    assert calibrate.main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert [entry["level"] for entry in first["levels"]] == [1, 2]
    (pair,) = first["pairs"]
    assert pair["games"] == 2 and (pair["lower"], pair["upper"]) == (1, 2)
    (kept,) = tmp_path.iterdir()
    assert kept.name.startswith("mortadella-1-2-")
    # the next run reads the pair back instead of playing it, and reports the same
    assert calibrate.main(argv) == 0
    output = capsys.readouterr()
    assert "kept in" in output.err and json.loads(output.out) == first


# -- the batch fit ---------------------------------------------------------------------


def test_the_fit_recovers_known_gaps_from_every_pair_at_once():
    """Shares drawn exactly from known ratings (games enough that the standard errors
    vanish), over more pairs than gaps: the fit finds the ratings, their mean at 1500."""
    known = {1: 1300.0, 2: 1450.0, 3: 1500.0, 4: 1750.0}
    games = 10**8
    tallies = {}
    for lower, upper in [(1, 2), (2, 3), (3, 4), (1, 3), (1, 4), (2, 4)]:
        chance = predicted_win(Rated(known[upper], 0.0, 0), Rated(known[lower], 0.0, 0))
        tallies[(lower, upper)] = Tally(chance * games, games)
    fitted = fit([1, 2, 3, 4], tallies)
    for level, rating in known.items():
        assert fitted[level].rating == pytest.approx(rating, abs=0.1)
        assert fitted[level].uncertainty < 0.5
    assert fitted[1].games == 3 * games


def test_a_chain_of_pairs_is_fitted_exactly_with_standard_errors_that_shrink_with_games():
    shares = {(1, 2): 109, (2, 3): 106, (3, 4): 117, (4, 5): 95}
    fitted = fit([1, 2, 3, 4, 5], {pair: Tally(wins, 200) for pair, wins in shares.items()})
    for (lower, upper), wins in shares.items():
        assert prediction(fitted, lower, upper) == pytest.approx(wins / 200, abs=1e-9)
    assert sum(rated.rating for rated in fitted.values()) / 5 == pytest.approx(1500.0)
    assert fitted[5].rating < fitted[4].rating  # 95 of 200: the upper level below
    # the ends are the least sure (their ratings hang on every gap to the mean); four times
    # the games halve every error
    errors = [fitted[level].uncertainty for level in range(1, 6)]
    assert errors[0] > errors[2] < errors[4] and all(20 < error < 100 for error in errors)
    more = fit([1, 2, 3, 4, 5], {pair: Tally(wins * 4, 800) for pair, wins in shares.items()})
    assert more[1].uncertainty == pytest.approx(errors[0] / 2, rel=0.05)


def test_the_report_predicts_each_pair_from_the_fit_and_a_pair_won_whole_stays_finite():
    data = calibrate.tally_report("pecunia", [1, 2, 3], {(1, 2): Tally(130, 200), (2, 3): Tally(2, 2)})
    first, whole = data["pairs"]
    assert first["predicted"] == first["measured"] == 0.65 and first["prediction_ok"]
    assert whole["measured"] == 1.0 and whole["predicted"] == pytest.approx(0.75, abs=0.01)  # 1.5 of 2
    assert all(math.isfinite(level["rating"]) for level in data["levels"])


def test_tallies_are_read_for_each_neighbouring_pair_and_refused_otherwise():
    assert calibrate.parse_tallies("1-2=109,2-3=106.5", [1, 2, 3], 200) == {
        (1, 2): Tally(109.0, 200),
        (2, 3): Tally(106.5, 200),
    }
    for bad in ("1-2=109", "1-2=109,2-3=201", "1-3=100,2-3=100"):
        with pytest.raises(ValueError):
            calibrate.parse_tallies(bad, [1, 2, 3], 200)


def test_a_calibration_file_holds_each_levels_rating_and_the_digest_of_its_preset():
    data = calibrate.tally_report("borgia", [7, 8], {(7, 8): Tally(191.5, 200)}, games_per_pair=200)
    written = calibrate.calibration_file(data, "python -m bots.lab.calibrate ...", "a note")
    assert written["game"] == "borgia" and written["note"] == "a note" and "standard error" in written["uncertainty"]
    top = written["levels"]["8"]
    assert top["digest"] == settings_digest("ismcts:level=8", "borgia") != written["levels"]["7"]["digest"]
    assert top["rating"] - written["levels"]["7"]["rating"] > 500 and top["games"] == 200
    assert written["pairs"][0]["upper_share"] == 191.5


def test_writing_a_calibration_needs_every_level(capsys):
    with pytest.raises(SystemExit):
        calibrate.main(["--game", "borgia", "--levels", "7,8", "--tallies", "7-8=191.5", "--write"])
    assert "--levels 1-8" in capsys.readouterr().err

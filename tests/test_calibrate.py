"""bots.lab.calibrate: rating the levels from neighbouring pairs' games, and the report's checks."""

import pytest

from bots.lab import calibrate
from bots.lab.arena import GameResult


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


def test_a_level_that_wins_three_of_five_is_rated_above_within_the_band_with_a_matching_prediction():
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

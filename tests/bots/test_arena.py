"""The arena (bots/lab/arena.py, its report bots/lab/report.py): seats rotate among the bots,
shared wins are split, and --json prints one object with per-bot and per-seat win rates and
their Wilson intervals."""

import json

import pytest

from bots.lab import arena, report


def run_json(capsys, *argv: str) -> dict:
    assert arena.main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out)


def check_rate(entry: dict) -> None:
    low, high = entry["ci95"]
    assert 0 <= low <= entry["win_rate"] <= high <= 1
    assert entry["win_rate"] == pytest.approx(entry["wins"] / entry["games"], abs=1e-4)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_json_report_shape(capsys, jobs):
    bots = "random,ismcts:level=5,iterations=5,budget_ms=0"
    report = run_json(
        capsys, "--game", "borgia", "--players", "3", "--bots", bots, "--games", "4", "--seed", "3", "--jobs", jobs
    )
    assert report["game"] == "borgia" and report["players"] == 3 and report["games"] == 4
    assert "1/len(winners)" in report["ties"]
    assert list(report["bots"]) == ["random", "ismcts:level=5,iterations=5,budget_ms=0"]
    for entry in report["bots"].values():
        check_rate(entry)
        assert entry["mean_decision_ms"] >= 0
        assert sum(s["games"] for s in entry["seats"].values()) == entry["games"]
    # 4 games x 3 seats over 2 bots, rotated: every seat-game is counted once
    assert sum(entry["games"] for entry in report["bots"].values()) == 12
    assert [s["seat"] for s in report["seats"]] == [0, 1, 2]
    for seat in report["seats"]:
        check_rate(seat)
        assert seat["games"] == 4
    total_wins = sum(entry["wins"] for entry in report["bots"].values())
    assert total_wins == pytest.approx(4 - report["no_winner"])


def test_the_same_seed_plays_the_same_games(capsys):
    argv = ["--game", "pecunia", "--players", "2", "--bots", "random,pecunia-heuristic", "--games", "6", "--jobs", "1"]
    first, second = run_json(capsys, *argv), run_json(capsys, *argv)
    assert first["bots"]["random"]["wins"] == second["bots"]["random"]["wins"]


def test_seats_rotate_among_the_bots():
    assert [arena.seating(g, 2, 2) for g in range(3)] == [(0, 1), (1, 0), (0, 1)]
    assert arena.seating(1, 3, 2) == (1, 0, 1)


def test_wilson_interval():
    low, high = report.wilson(5, 10)
    assert (round(low, 3), round(high, 3)) == (0.237, 0.763)
    assert report.wilson(0, 10)[0] == 0 and report.wilson(10, 10)[1] == 1


def test_text_report_says_how_ties_count(capsys):
    assert arena.main(["--game", "mortadella", "--bots", "random", "--games", "2", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "1/len(winners)" in out and "95% CI" in out


@pytest.mark.parametrize(
    "bots", ["nobody,random", "borgia-odds,random", "ismcts:depth=2,random"], ids=["unknown", "game", "option"]
)
def test_a_bad_bot_is_refused_before_any_game(capsys, bots):
    with pytest.raises(SystemExit):
        arena.main(["--game", "pecunia", "--bots", bots, "--games", "1", "--jobs", "1"])
    assert "bot" in capsys.readouterr().err


def test_cpu_clock_is_reported(capsys):
    argv = [
        "--game",
        "borgia",
        "--bots",
        "ismcts:level=5,iterations=3,budget_ms=0,random",
        "--games",
        "2",
        "--jobs",
        "1",
    ]
    report = run_json(capsys, *argv, "--clock", "cpu")
    assert report["clock"] == "cpu"
    assert report["bots"]["ismcts:level=5,iterations=3,budget_ms=0"]["mean_decision_ms"] > 0
    # 3 rounds a searched decision, none where one legal action (or a slip) needs no search
    assert 0 < report["bots"]["ismcts:level=5,iterations=3,budget_ms=0"]["mean_iterations"] <= 3
    assert report["bots"]["random"]["mean_iterations"] == 0
    assert arena.main([*argv, "--clock", "cpu"]) == 0
    assert "budgets in CPU time" in capsys.readouterr().out
    assert run_json(capsys, *argv)["clock"] == "wall"


def test_the_progress_bar_redraws_only_on_a_terminal(capsys):
    """Into a pipe (here pytest's capture) the arena writes one line when done, never the
    carriage-return redraws a terminal shows."""
    assert arena.main(["--game", "pecunia", "--bots", "random", "--games", "4", "--jobs", "1"]) == 0
    progress = capsys.readouterr().err
    assert "\r" not in progress
    assert "4/4 games in" in progress


def plays(result: arena.GameResult) -> tuple:
    """A game's result without its timings."""
    return (result.index, result.seating, result.winners, result.decisions)


def test_kept_games_are_written_as_they_finish_and_a_longer_run_goes_on_from_them(tmp_path):
    kept = tmp_path / "runs" / "pecunia.jsonl"
    bots = ["random", "pecunia-heuristic"]
    first = arena.play_games("pecunia", 2, bots, 3, seed=5, keep=kept)
    assert len(kept.read_text().splitlines()) == 1 + 3  # the settings, then one line a game
    played: list[int] = []
    longer = arena.play_games("pecunia", 2, bots, 6, seed=5, keep=kept, progress=lambda done, _: played.append(done))
    assert played[0] == 3  # the three kept games, read back
    assert longer[:3] == first
    at_once = arena.play_games("pecunia", 2, bots, 6, seed=5)
    assert [plays(r) for r in longer] == [plays(r) for r in at_once]  # as one run would have played them
    with kept.open("a") as cut:
        cut.write('{"index": 6, "seat')  # a line cut short by a stop
    again = arena.play_games("pecunia", 2, bots, 7, seed=5, keep=kept)
    assert again[:6] == longer and len(again) == 7
    assert len(arena.play_games("pecunia", 2, bots, 7, seed=5, keep=kept)) == 7  # all 7 read back
    with pytest.raises(arena.KeptGamesMismatch, match="other settings"):
        arena.play_games("pecunia", 2, bots, 6, seed=6, keep=kept)

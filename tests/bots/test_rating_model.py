"""bots.worker.rating_model and the arena's rating column: offline games rated by the platform's
model, with its rules for places and for a bot seated twice."""

from bots.lab import arena
from bots.worker.rating_model import Rated, places, predicted_win, rate_games


def test_places_put_the_winners_first_and_everyone_level_when_nobody_won():
    assert places(3, (1,)) == [2.0, 1.0, 2.0]
    assert places(3, ()) == [1.0, 1.0, 1.0]


def test_the_bot_that_wins_more_is_rated_higher_and_predicted_to_win():
    games = []
    for n in range(90):
        seated = ["a", "b"] if n % 2 else ["b", "a"]
        winner = seated.index("a") if n % 3 else seated.index("b")  # a wins two games in three
        games.append((seated, (winner,)))
    rated = rate_games(games)
    assert set(rated) == {"a", "b"} and rated["a"].games == rated["b"].games == 90
    assert rated["a"].rating > rated["b"].rating
    assert predicted_win(rated["a"], rated["b"]) > 0.5 > predicted_win(rated["b"], rated["a"])


def test_a_bot_seated_twice_counts_for_nobody_at_that_game():
    rated = rate_games([(["a", "a", "b"], (2,)), (["a", "a"], (0,))])
    assert "a" not in rated and "b" not in rated  # no game had two distinct bots left


def test_even_ratings_predict_an_even_game():
    even = Rated(1500.0, 100.0, 50)
    assert abs(predicted_win(even, even) - 0.5) < 1e-9


def test_the_arena_report_gives_each_bot_its_rating():
    results = [
        arena.GameResult(index, arena.seating(index, 2, 2), (arena.seating(index, 2, 2).index(0),), (5, 5), (0.1, 0.1))
        for index in range(20)
    ]
    report = arena.summarize("borgia", 2, ["strong", "weak"], 1, {}, results)
    assert report["bots"]["strong"]["rating"] > 1500 > report["bots"]["weak"]["rating"]
    text = arena.format_report(report)
    assert "rating" in text and f"{report['bots']['strong']['rating']:.0f} ±" in text

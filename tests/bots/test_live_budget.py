"""A live decision gets the search its budget buys however busy the host: the worker's budget
counts the deciding thread's CPU time (bots/search/clock.py), under a wall-clock ceiling that ends
it when the thread gets almost no CPU. Assertions count search iterations, not time."""

import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY, generate_latest

from bots.lab.offline import view_response
from bots.search import clock
from bots.worker import main as worker
from bots.worker import metrics, registry, tasks
from services.registry import get_game

# Plain tree search with random playouts: many cheap iterations per decision, so counts
# compare well; 150 ms of budget.
BOT = "ismcts:budget_ms=150,paired=0,rollout=random,belief=uniform,guide=none"
GAME = "pecunia"


@pytest.fixture(autouse=True)
def wall_clock_after() -> Iterator[None]:
    yield
    clock.use("wall")


def views(count: int = 3) -> list:
    """Seat views of the first decisions of a game with several legal actions."""
    game = get_game(GAME)
    state, _ = game.engine.new_game(2, {}, 3)
    rng = random.Random(3)
    found = []
    while (deciders := game.engine.deciders(state)) and len(found) < count:
        seat = deciders[0]
        legal = game.engine.legal_actions(state, seat)
        if len(legal) > 1:
            found.append(view_response(game, state, seat))
        state, _ = game.engine.apply(state, seat, legal[rng.randrange(len(legal))])
    return found


def worker_iterations(positions: list) -> int:
    """Search iterations of the worker's decisions (``bots.worker.tasks.choose``, as a task makes
    them) at ``positions``, under the clock the worker set up."""
    strategy = tasks.strategy_for(BOT, GAME)
    done = 0
    for index, response in enumerate(positions):
        with clock.measure() as effort:
            _, fallback = tasks.choose(strategy, response, random.Random(index))
        assert not fallback
        done += effort.iterations
    return done


class Neighbour:
    """CPU-hogging processes pinned to the one core this test's thread is pinned to."""

    def __init__(self, hogs: int = 1) -> None:
        self.core = min(os.sched_getaffinity(0))
        self.kept = os.sched_getaffinity(0)
        self.hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(hogs)]

    def __enter__(self) -> "Neighbour":
        for hog in self.hogs:
            os.sched_setaffinity(hog.pid, {self.core})
        os.sched_setaffinity(0, {self.core})  # this thread
        time.sleep(0.2)  # the hogs are running
        return self

    def __exit__(self, *exc: object) -> None:
        os.sched_setaffinity(0, self.kept)
        for hog in self.hogs:
            hog.kill()
            hog.wait()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
def test_a_worker_decision_beside_a_cpu_hog_gets_its_cpu_budget():
    positions = views()
    registry.make_strategy(BOT, GAME)  # built before anything is counted
    # The worker's clock (CPU time), its ceiling far off: this host's other work must not
    # reach it here (the ceiling has tests of its own below).
    worker.configure_clock({"TAVOLA_BOT_WALL_CEILING": "20"})
    alone = worker_iterations(positions)
    with Neighbour():
        beside_a_hog = worker_iterations(positions)
        clock.use("wall")  # the worker's budget before: wall time
        walled = worker_iterations(positions)
    assert alone > 30
    # The hog takes about half of the core: a wall-clock budget buys about half the search...
    assert walled < 0.75 * beside_a_hog
    # ...and a CPU-time budget the search it buys alone.
    assert beside_a_hog > 0.7 * alone


def test_the_wall_clock_ceiling_ends_a_budget_the_thread_gets_no_cpu_for():
    worker.configure_clock({"TAVOLA_BOT_WALL_CEILING": "2"})
    budget = clock.Budget(0.05)
    waits = 0
    with clock.measure() as effort:
        while not budget.over() and waits < 2000:  # asleep: no CPU time is spent
            time.sleep(0.005)
            waits += 1
    assert waits < 2000, "a CPU-time budget with a ceiling never ended"
    assert effort.ceiling_reached
    assert effort.wall_seconds >= 2 * 0.05


def test_without_the_ceiling_a_cpu_budget_waits_for_cpu_time():
    worker.configure_clock({"TAVOLA_BOT_WALL_CEILING": "0"})
    budget = clock.Budget(0.05)
    time.sleep(0.15)  # three times the budget on the wall clock
    assert not budget.over()


def test_a_search_cut_short_by_the_ceiling_still_answers_and_says_so():
    worker.configure_clock({"TAVOLA_BOT_WALL_CEILING": "1"})
    strategy = tasks.strategy_for(BOT, GAME)
    with Neighbour(hogs=2), clock.measure() as effort:
        _, fallback = tasks.choose(strategy, views(1)[0], random.Random(1))
    assert not fallback and effort.iterations > 0
    # A third of the core at most: the wall clock reaches the budget before the CPU time does.
    assert effort.ceiling_reached


def test_the_worker_counts_cpu_time_by_default_and_refuses_a_ceiling_below_the_budget():
    worker.configure_clock({})
    assert clock.Budget(1)._ceiling == worker.DEFAULT_WALL_CEILING
    assert clock._now is time.thread_time
    worker.configure_clock({"TAVOLA_BOT_CLOCK": "wall"})
    assert clock._now is time.perf_counter and clock.Budget(1)._ceiling == 0
    with pytest.raises(ValueError, match=r"TAVOLA_BOT_WALL_CEILING=0\.5"):
        worker.configure_clock({"TAVOLA_BOT_WALL_CEILING": "0.5"})
    with pytest.raises(ValueError, match="TAVOLA_BOT_WALL_CEILING='soon' is not a number"):
        worker.configure_clock({"TAVOLA_BOT_WALL_CEILING": "soon"})


def test_a_decision_s_search_is_exported_with_its_time():
    worker.configure_clock({})
    strategy = tasks.strategy_for(BOT, GAME)
    with clock.measure() as effort:
        tasks.choose(strategy, views(1)[0], random.Random(1))
    metrics.observed_decision(BOT, GAME, effort)
    exported = generate_latest(REGISTRY).decode()
    labels = f'bot="ismcts",game="{GAME}"'
    for sample in (
        "tavola_bot_search_iterations_count",
        "tavola_bot_search_iterations_sum",
        "tavola_bot_decision_cpu_seconds_sum",
        "tavola_bot_decision_seconds_count",
    ):
        assert f"{sample}{{{labels}}}" in exported
    searched = REGISTRY.get_sample_value("tavola_bot_search_iterations_sum", {"bot": "ismcts", "game": GAME})
    assert searched is not None and searched >= effort.iterations > 0

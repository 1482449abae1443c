"""The budget clock (bots/search/clock.py): wall time by default; CPU time on request, so a
thinking budget measured on shared cores buys what it would on an idle one; a bot worker
takes its clock from TAVOLA_BOT_CLOCK."""

import os
import subprocess
import sys
import time

import pytest

from bots.search import clock


@pytest.fixture(autouse=True)
def wall_clock_after():
    yield
    clock.use("wall")


def test_the_wall_clock_counts_waiting():
    started = clock.now()
    time.sleep(0.05)
    assert clock.now() - started >= 0.05


def test_the_cpu_clock_counts_work_not_waiting():
    clock.use("cpu")
    started = clock.now()
    time.sleep(0.2)
    slept = clock.now() - started
    assert slept < 0.1
    started = clock.now()
    sum(i * i for i in range(300_000))  # work, however long other processes keep the core
    assert clock.now() - started > 0


def test_an_unknown_clock_is_refused():
    with pytest.raises(ValueError, match="no clock 'sundial'"):
        clock.use("sundial")


def test_a_worker_with_an_unknown_clock_refuses_to_start():
    env = {**os.environ, "TAVOLA_BOT_CLOCK": "sundial"}
    started = subprocess.run([sys.executable, "-m", "bots.worker"], env=env, capture_output=True, text=True, timeout=60)
    assert started.returncode == 2
    assert "TAVOLA_BOT_CLOCK: no clock 'sundial' (clocks: wall, cpu)" in started.stdout  # bad_configuration

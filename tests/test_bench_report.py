"""The bench's bot-path rows: tavola's processes beside their bare counterparts, like for like."""

import pytest

from bench.__main__ import Report, _bot_cpu_rows
from bench.tables import TablesFigures


def test_a_bot_action_is_weighed_against_the_bare_client_gateway_and_rules():
    # 100 actions; CPU seconds by process, as CpuMeter reports them.
    cpu = {"bot-worker": 0.08, "gateway": 0.2, "rules-borgia": 0.1, "rules-pecunia": 0.0001, "redis": 0.02}
    figures = TablesFigures(tables=1, finished=1, seconds=1.0, actions=100, cpu=cpu)
    bare = {"cpu_ms": 3.0, "cpu_ms_by_process": {"client": 0.5, "gateway": 1.6, "rules": 0.9, "redis": 0.1}}
    report = Report(quiet=True)

    _bot_cpu_rows(report, "bots", figures, bare)

    rows = report.figures
    # The sum leaves Redis out, on both sides (the worker stands where the bare client does).
    assert rows["bots.cpu_ms_per_action"]["value"] == pytest.approx(0.8 + 2.0 + 1.0 + 0.001)
    assert rows["bots.cpu_ms_per_action"]["reference"] == 3.0
    assert rows["bots.cpu_ms_per_action.bot-worker"]["reference"] == 0.5
    assert rows["bots.cpu_ms_per_action.gateway"]["reference"] == 1.6
    assert rows["bots.cpu_ms_per_action.rules-borgia"]["reference"] == 0.9
    assert rows["bots.cpu_ms_per_action.redis"]["reference"] == 0.1
    # A rules service of a game no table played is left out.
    assert "bots.cpu_ms_per_action.rules-pecunia" not in rows
    # Redis comes last, after the processes the sum holds.
    assert list(rows)[-1] == "bots.cpu_ms_per_action.redis"


def test_the_live_tables_part_prints_the_sum_alone():
    figures = TablesFigures(tables=1, finished=1, seconds=1.0, actions=10, cpu={"gateway": 0.02, "redis": 0.01})
    report = Report(quiet=True)

    _bot_cpu_rows(report, "tables", figures, {"cpu_ms": 4.0}, by_process=False)

    assert list(report.figures) == ["tables.cpu_ms_per_action"]
    assert report.figures["tables.cpu_ms_per_action"]["ratio"] == 0.5

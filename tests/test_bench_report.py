"""The bench's report: the bot path's rows (tavola's processes beside their bare
counterparts, like for like, and beside the floor of two gRPC echo calls and a commit
script), the engines' interleaved rounds, the runs' summary (each ratio's median and
range, quiet beside contended) and the contention mode's background load."""

import pytest

from bench.__main__ import engine_rows
from bench.contention import BackgroundLoad
from bench.echo import CommitFigures, EchoFigures, Floor, combine_floors
from bench.engines import round_ratios
from bench.gateway import Figures, combined
from bench.pipeline import _bot_cpu_rows, _floor_rows
from bench.report import Report
from bench.summary import CONTENDED, QUIET, Run, format_summary, summarize
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


def _floor(calls=1000, seconds=1.0, client=0.3, server=0.2, commits=500, caller=0.1, redis=0.05) -> Floor:
    return Floor(
        EchoFigures(calls, seconds, {"client": client, "server": server}),
        CommitFigures(commits, seconds / 2, {"client": caller, "redis": redis}),
    )


def test_the_floor_is_two_echo_calls_and_a_commit_script_and_the_ceiling_half_the_echo_rate():
    floor = _floor()

    # 0.5 s of CPU over 1,000 calls, twice; 0.1 s over 500 commits.
    assert floor.cpu_ms == pytest.approx(2 * 0.5 + 0.2)
    assert floor.redis_cpu_ms == pytest.approx(0.1)
    assert floor.ceiling == pytest.approx(500.0)


def test_the_floors_before_and_after_a_figure_are_pooled():
    pooled = combine_floors([_floor(calls=1000, client=0.3), _floor(calls=3000, client=1.3)])

    assert pooled.echo.calls == 4000
    assert pooled.echo.per_second == pytest.approx(2000.0)
    assert pooled.echo.cpu_ms_per_call == pytest.approx((0.3 + 1.3 + 0.4) * 1000 / 4000)
    assert pooled.commit.commits == 1000


def test_a_bot_action_is_weighed_against_the_floor_and_its_rate_against_the_ceiling():
    cpu = {"bot-worker": 0.08, "gateway": 0.2, "rules-borgia": 0.1, "redis": 0.02}
    figures = TablesFigures(tables=1, finished=1, seconds=2.0, actions=100, cpu=cpu)
    report = Report(quiet=True)

    _floor_rows(report, "bots", figures, _floor())

    rows = report.figures
    assert rows["bots.cpu_ms_vs_floor"]["value"] == pytest.approx(3.8)
    assert rows["bots.cpu_ms_vs_floor"]["reference"] == pytest.approx(1.2)
    # Redis on both sides: tavola's 0.2 ms an action beside the commit script's 0.1 ms.
    assert rows["bots.cpu_ms_with_redis_vs_floor"]["value"] == pytest.approx(4.0)
    assert rows["bots.cpu_ms_with_redis_vs_floor"]["reference"] == pytest.approx(1.3)
    assert rows["bots.actions_per_second_vs_ceiling"]["ratio"] == pytest.approx(50 / 500)
    assert rows["bots.floor"]["ceiling"] == 500.0


def test_an_engine_is_the_median_of_its_rounds_ratios_and_its_worst_round_is_kept():
    samples = [
        {"python_liars_poker": 100.0, "borgia": 200.0, "python_kuhn_poker": 150.0},
        {"python_liars_poker": 50.0, "borgia": 80.0, "python_kuhn_poker": 60.0},  # a slow round for both
        {"python_liars_poker": 100.0, "borgia": 210.0, "python_kuhn_poker": 140.0},
    ]
    report = Report(quiet=True)

    engine_rows(report, samples, ["borgia"])

    rows = report.figures
    assert round_ratios(samples, "borgia") == pytest.approx([2.0, 1.6, 2.1])
    # The median of the rounds' ratios, not the ratio of the medians (200 / 100).
    assert rows["engine.borgia"]["ratio"] == pytest.approx(2.0)
    assert rows["engine.borgia"]["value"] == 200.0
    assert rows["engine.borgia.worst_round"]["ratio"] == pytest.approx(1.6)
    assert rows["engine.borgia.worst_round"]["reference"] == 50.0
    assert rows["engine.openspiel.python_kuhn_poker"]["ratio"] == pytest.approx(1.4)
    assert "ratio" not in rows["engine.openspiel.python_liars_poker"]


def test_without_openspiel_the_engines_print_no_ratio():
    report = Report(quiet=True)

    engine_rows(report, [{"borgia": 200.0}, {"borgia": 220.0}], ["borgia"])

    assert report.figures["engine.borgia"]["value"] == 210.0
    assert "ratio" not in report.figures["engine.borgia"]
    assert "engine.openspiel" in report.figures


def _figures(ratio: float, value: float = 10.0) -> dict[str, dict]:
    return {
        "submit.16.per_second": {
            "label": "16 clients: submits/s",
            "value": value,
            "unit": "/s",
            "reference": value / ratio,
            "reference_label": "bare",
            "ratio": ratio,
        },
        "bots.finished": {"finished": 3},  # a note: no ratio, not summed up
    }


def test_the_summary_gives_each_ratios_median_and_range_over_the_runs():
    runs = [Run(number, QUIET, _figures(ratio)) for number, ratio in enumerate((0.8, 0.95, 0.85))]

    (line,) = summarize(runs)

    quiet = line.ratio(QUIET)
    assert quiet is not None
    assert (quiet.median, quiet.low, quiet.high, quiet.count) == (0.85, 0.8, 0.95, 3)
    assert line.ratio(CONTENDED) is None
    assert line.against_quiet() is None
    assert line.title == "submit: 16 clients: submits/s"
    assert line.as_json()[QUIET]["ratio_min"] == 0.8


def test_under_contention_each_ratio_is_printed_beside_its_quiet_value():
    runs = []
    for number, (quiet, busy) in enumerate(((0.9, 0.45), (1.0, 0.6), (0.8, 0.5))):
        runs.append(Run(number, QUIET, _figures(quiet), (2.0, 2.0, 2.0), (2.5, 2.1, 2.0), 60.0))
        runs.append(Run(number, CONTENDED, _figures(busy), (2.5, 2.1, 2.0), (4.0, 2.8, 2.2), 61.0))

    (line,) = summarize(runs)
    text = format_summary(runs)

    busy = line.ratio(CONTENDED)
    assert busy is not None and busy.median == 0.5
    assert line.against_quiet() == pytest.approx(0.5 / 0.9)
    assert line.as_json()["contended_over_quiet"] == pytest.approx(0.556)
    assert "under the background load" in text[0]
    assert "0.90 [0.80-1.00]" in text[1] and "0.50 [0.45-0.60]" in text[1] and "x0.56" in text[1]
    # Every run's load average, at its start and end.
    assert len(text) == 1 + 1 + 6
    assert text[-1] == "  run 3 contended: 61s, load average 2.5 2.1 2.0 at its start, 4.0 2.8 2.2 at its end"


def test_the_background_load_is_its_processes_started_and_stopped_by_pid():
    with BackgroundLoad(2) as load:
        pids = load.pids
        assert len(pids) == 2
        assert all(process.poll() is None for process in load.processes)
        processes = list(load.processes)

    assert [process.returncode is not None for process in processes] == [True, True]
    assert load.pids == []


def test_the_slices_of_a_side_sum_their_cpu_and_context_switches():
    slices = [
        Figures(16, 10, 1.0, 5.0, 9.0, [0.005] * 10, {"gateway": 0.02}, {"gateway": (30, 4), "client": (10, 1)}),
        Figures(16, 20, 1.0, 5.0, 9.0, [0.004] * 20, {"gateway": 0.03}, {"gateway": (50, 6)}),
    ]

    figures = combined(slices)

    assert figures.submits == 30
    assert figures.cpu == {"gateway": pytest.approx(0.05)}
    assert figures.switches == {"gateway": (80, 10), "client": (10, 1)}

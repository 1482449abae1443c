"""The arena through the live path (bench/live.py, ``python -m bench.live``): tables
played by real Celery workers through the gateway, and the search each bot did per decision
read back from the workers' metrics, where a search bot's decisions show their playouts
and CPU time and a random bot's none."""

from bench import live
from deploy.stack import NO_QUOTAS, Stack


def test_live_tables_report_the_search_done_per_decision(redis_url, key_prefix, tmp_path):
    bots = ["ismcts:budget_ms=50", "random"]
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-live",
        bots=("ismcts", "random"),
        worker_bots=("ismcts", "random"),
        gateway_env=dict(NO_QUOTAS),
        log_dir=tmp_path,
    ) as stack:
        results, searched = live.play_live("borgia", 2, bots, games=2, stack=stack)
        stack.delete_keys()
    assert [result.seating for result in results] == [(0, 1), (1, 0)]
    assert all(set(result.winners) <= {0, 1} for result in results)
    search, plain = searched["ismcts"], searched["random"]
    assert search.decisions > 0 and plain.decisions > 0
    assert search.iterations > 0
    assert search.cpu_seconds > 0
    assert plain.iterations == 0
    report = live.format_search(searched, {})
    assert "ismcts" in report and "random" in report

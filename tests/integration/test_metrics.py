"""Every process serves Prometheus metrics that answer an operator's questions: a short
run of bot tables moves the counts of tables, games, actions, rules-service calls, bot
decisions and worker tasks, and the gauges of tables, queues and streams are there."""

import time
import urllib.request
from collections import defaultdict

from prometheus_client.parser import text_string_to_metric_families

from deploy.stack import Stack
from services.registry import game_ids
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.bot_tables import create_bot_table, play_every_game, spectate, stub_for


def scrape(address: str) -> dict[str, dict[tuple, float]]:
    """name -> {sorted label items: value} of every sample an endpoint serves."""
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as response:
        text = response.read().decode()
    samples: dict[str, dict[tuple, float]] = defaultdict(dict)
    for family in text_string_to_metric_families(text):
        samples.setdefault(family.name, {})
        for sample in family.samples:
            samples[sample.name][tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def total(samples, name: str, **labels: str) -> float:
    return sum(
        value
        for key, value in samples.get(name, {}).items()
        if all((label, wanted) in key for label, wanted in labels.items())
    )


def played(samples) -> float:
    """Bot tasks done: decisions, and all-bot tables begun (a begin task plays on)."""
    return sum(total(samples, "tavola_worker_tasks_total", task=task, result="success") for task in ("decide", "begin"))


def test_a_short_run_moves_the_metrics_of_every_process(redis_url, key_prefix, tmp_path):
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-metrics",
        bots=("random",),
        worker_bots=("random",),
        log_dir=tmp_path,
    ) as stack:
        names = set(stack.metrics_addresses)
        assert {"gateway", "bot-worker", *(f"rules-{game}" for game in game_ids())} <= names
        before = {name: scrape(address) for name, address in stack.metrics_addresses.items()}
        channel, stub = stub_for(stack.gateway_address)
        with channel:
            play_every_game([stub], tables_per_game=1, watchers=1)
        after = {name: scrape(address) for name, address in stack.metrics_addresses.items()}
        stack.delete_keys()

    gateway_before, gateway = before["gateway"], after["gateway"]
    for game in game_ids():
        for name in ("tavola_tables_created_total", "tavola_tables_started_total", "tavola_games_finished_total"):
            assert total(gateway, name, game=game) - total(gateway_before, name, game=game) == 1, (name, game)
        actions = total(gateway, "tavola_actions_applied_total", game=game)
        assert actions - total(gateway_before, "tavola_actions_applied_total", game=game) > 0
        rules = after[f"rules-{game}"]
        calls = total(rules, "tavola_rules_request_seconds_count", game=game, method="ApplyAction")
        assert calls >= actions, f"rules-{game} answered fewer ApplyAction calls than actions were committed"
        worker = after["bot-worker"]
        decisions = total(worker, "tavola_bot_decision_seconds_count", bot="random", game=game)
        assert decisions >= actions, "every committed bot action was timed"
    assert {key: value for key, value in gateway["tavola_tables"].items()}, "tavola_tables{status} is served"
    assert "tavola_gateway_open_streams" in gateway
    assert total(gateway, "tavola_gateway_requests_total", method="SpectateTable") >= len(game_ids())
    # The bots' actions came on the workers' SubmitActions streams, not call by call.
    streamed = total(gateway, "tavola_gateway_requests_total", method="SubmitAction", protocol="stream")
    called = total(gateway, "tavola_gateway_requests_total", method="SubmitAction", protocol="grpc")
    # (A stream that fails before it ever answers sends that one request by a call.)
    assert streamed > 0 and called <= 4, (streamed, called)
    assert "tavola_gateway_action_streams" in gateway
    worker = after["bot-worker"]
    assert played(worker) > 0
    assert "tavola_worker_tasks_redelivered" in worker or "tavola_worker_tasks_redelivered_total" in worker
    queues = {dict(key)["queue"] for key in worker["tavola_queue_length"]}
    assert {"bots.random", "timers"} <= queues


def test_the_prefork_search_workers_endpoint_counts_the_decisions_of_its_children(stack: Stack):
    """The search bots' worker (a prefork pool, bots/worker/metrics.py's multiprocess mode): the
    decisions its child processes make show on its main process's endpoint."""
    assert stack.metrics_addresses.keys() >= {"bot-worker-search"}, "the search bots have a prefork worker"
    address = stack.metrics_addresses["bot-worker-search"]
    before = scrape(address)
    channel, stub = stub_for(stack.gateway_address)
    with channel:
        table_id = create_bot_table(stub, "mortadella", bot="ismcts:budget_ms=5")
        events = spectate(stub, table_id)
        assert events[-1].HasField("game_finished")
        replay = stub.GetReplay(gw.GetReplayRequest(table_id=table_id))
    acted = {step.seq for step in replay.steps if step.HasField("actor")}
    after = scrape(address)
    decisions = total(after, "tavola_bot_decision_seconds_count", bot="ismcts", game="mortadella")
    decisions -= total(before, "tavola_bot_decision_seconds_count", bot="ismcts", game="mortadella")
    assert acted and decisions >= len(acted), f"{decisions} decisions counted for {len(acted)} bot actions"
    # An all-bot table's task may play several turns on, and is counted once it returns,
    # which may be just after the game's end reached the spectator: a task at least.
    tasks_before = played(before)
    deadline = time.monotonic() + 60
    while played(after) <= tasks_before:
        assert time.monotonic() < deadline, "no task of the table counted"
        time.sleep(0.1)
        after = scrape(address)
    queues = {dict(key)["queue"] for key in after["tavola_queue_length"]}
    assert "bots.ismcts" in queues

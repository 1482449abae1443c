"""The container files describe the same platform as the registry: every registered game's
rules service, the gateway routing to each, and a worker on every bot's queue and the
timers'. A failure says what to add."""

from pathlib import Path

import yaml

from bots.registry import load_bots
from bots.worker import queues
from common.tasks import TIMER_QUEUE, queue_for
from services.registry import game_ids, rules_port

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def test_compose_runs_every_game_and_routes_to_it():
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    routes = services["gateway"]["environment"]["TAVOLA_RULES"]
    for game in game_ids():
        port = rules_port(game)
        hint = f"deploy/compose.yaml: add a service rules-{game} running `python -m services.rules_server {game}`"
        assert f"rules-{game}" in services, hint
        rules = services[f"rules-{game}"]
        assert rules["command"][-1] == game, hint
        assert rules["environment"]["TAVOLA_PORT"] == str(port), f"{hint} with TAVOLA_PORT {port}"
        assert f"{game}=rules-{game}:{port}" in routes, (
            f"deploy/compose.yaml: add {game}=rules-{game}:{port} to the gateway's TAVOLA_RULES"
        )
    worker = services["bot-worker"]["command"]
    assert worker[:3] == ["python", "-m", "bots.worker"], "deploy/compose.yaml: the worker learns its queues itself"


def test_kubernetes_runs_every_game_and_routes_to_it():
    docs = {
        (doc["kind"], doc["metadata"]["name"]): doc
        for doc in yaml.safe_load_all((DEPLOY / "k8s" / "tavola.yaml").read_text())
    }
    gateway_env = {
        e["name"]: e for e in docs["Deployment", "gateway"]["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    for game in game_ids():
        port = rules_port(game)
        hint = f"deploy/k8s/tavola.yaml: add a Deployment and a headless Service rules-{game} on port {port}"
        assert ("Deployment", f"rules-{game}") in docs and ("Service", f"rules-{game}") in docs, hint
        container = docs["Deployment", f"rules-{game}"]["spec"]["template"]["spec"]["containers"][0]
        assert container["command"][-1] == game, hint
        assert container["readinessProbe"]["grpc"]["port"] == port, hint
        assert docs["Service", f"rules-{game}"]["spec"]["clusterIP"] == "None", hint
        route = f"{game}=dns:///rules-{game}:{port}"
        assert route in gateway_env["TAVOLA_RULES"]["value"], f"deploy/k8s/tavola.yaml: add {route} to TAVOLA_RULES"
    worker = docs["Deployment", "bot-worker"]["spec"]["template"]["spec"]["containers"][0]
    assert worker["command"][:3] == ["python", "-m", "bots.worker"], "deploy/k8s/tavola.yaml: run bots.worker"


def test_the_worker_consumes_every_registered_bot_and_the_timers(monkeypatch):
    monkeypatch.delenv("TAVOLA_WORKER_BOTS", raising=False)
    assert set(queues()) == {TIMER_QUEUE, *map(queue_for, load_bots())}
    monkeypatch.setenv("TAVOLA_WORKER_BOTS", "ismcts")
    monkeypatch.setenv("TAVOLA_WORKER_TIMERS", "false")
    assert queues() == ["bots.ismcts"]

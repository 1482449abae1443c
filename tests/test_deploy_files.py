"""The container files describe the same platform as the code: every game's rules
service, the gateway routing to each, and a worker on every bot's queue and the timers'."""

from pathlib import Path

import yaml

from bots.app import TIMER_QUEUE, queue_for
from bots.strategies import STRATEGIES
from deploy.stack import GAMES
from services.rules_server import DEFAULT_PORTS

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def test_compose_runs_every_game_and_routes_to_it():
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    routes = services["gateway"]["environment"]["TAVOLA_RULES"]
    for game in GAMES:
        rules = services[f"rules-{game}"]
        assert rules["command"][-1] == game
        assert rules["environment"]["TAVOLA_PORT"] == str(DEFAULT_PORTS[game])
        assert f"{game}=rules-{game}:{DEFAULT_PORTS[game]}" in routes
    assert set(services["bot-worker"]["command"][-1].split(",")) == {TIMER_QUEUE, *map(queue_for, STRATEGIES)}


def test_kubernetes_runs_every_game_and_routes_to_it():
    docs = {
        (doc["kind"], doc["metadata"]["name"]): doc
        for doc in yaml.safe_load_all((DEPLOY / "k8s" / "tavola.yaml").read_text())
    }
    gateway_env = {
        e["name"]: e for e in docs["Deployment", "gateway"]["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    for game in GAMES:
        container = docs["Deployment", f"rules-{game}"]["spec"]["template"]["spec"]["containers"][0]
        assert container["command"][-1] == game
        assert container["readinessProbe"]["grpc"]["port"] == DEFAULT_PORTS[game]
        assert docs["Service", f"rules-{game}"]["spec"]["clusterIP"] == "None"
        assert f"{game}=dns:///rules-{game}:{DEFAULT_PORTS[game]}" in gateway_env["TAVOLA_RULES"]["value"]
    worker = docs["Deployment", "bot-worker"]["spec"]["template"]["spec"]["containers"][0]
    assert set(worker["command"][-1].split(",")) == {TIMER_QUEUE, *map(queue_for, STRATEGIES)}

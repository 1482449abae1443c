"""The Kubernetes files that name games or bots (deploy/k8s/base/games.yaml, ladder.yaml,
worker-bots.yaml and deploy/k8s/optional/keda-bot-worker.yaml), written from the registries
(``python -m deploy.generate``)."""

from typing import Any

from common.ratings import RATINGS_QUEUE
from common.tasks import ALL_BOT_PRIORITIES, TIMER_QUEUE, queue_for, queue_key
from deploy.manifests import GATEWAY_PORT, LADDER_BOTS, LADDER_TABLES, METRICS_PORT, dump
from deploy.workers import split_bots
from services.registry import rules_port

POD_SECURITY = {
    "runAsNonRoot": True,
    "runAsUser": 10001,
    "runAsGroup": 10001,
    "fsGroup": 10001,
    "seccompProfile": {"type": "RuntimeDefault"},
}
CONTAINER_SECURITY = {
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "capabilities": {"drop": ["ALL"]},
}
SCRAPED = {"prometheus.io/scrape": "true", "prometheus.io/port": str(METRICS_PORT), "prometheus.io/path": "/metrics"}


def _deployment(
    name: str, labels: dict[str, str], replicas: int, tmp_size: str, container: dict[str, Any], **spec: Any
) -> dict[str, Any]:
    """A Deployment of the tavola image, as every generated one is: scraped for metrics,
    non-root with a read-only root, its /tmp an emptyDir of ``tmp_size``; ``container``
    names the process (name first, then command, env, ports, probes, resources)."""
    name_only = {"name": container["name"]}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "replicas": replicas,
            **spec,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": labels, "annotations": SCRAPED},
                "spec": {
                    "terminationGracePeriodSeconds": 15,
                    "securityContext": POD_SECURITY,
                    "containers": [
                        {
                            **name_only,
                            "image": "tavola",
                            **container,
                            "securityContext": CONTAINER_SECURITY,
                            "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
                        }
                    ],
                    "volumes": [{"name": "tmp", "emptyDir": {"sizeLimit": tmp_size}}],
                },
            },
        },
    }


def _rules_docs(game: str) -> list[dict[str, Any]]:
    name, port = f"rules-{game}", rules_port(game)
    labels = {"app": name, "tier": "rules"}
    deployment = _deployment(
        name,
        labels,
        replicas=2,
        tmp_size="64Mi",
        container={
            "name": "rules",
            "command": ["python", "-m", "services.rules_server", game],
            "env": [
                {"name": "TAVOLA_HOST", "value": "0.0.0.0"},
                {"name": "TAVOLA_PORT", "value": str(port)},
                {"name": "TAVOLA_METRICS_PORT", "value": str(METRICS_PORT)},
            ],
            "ports": [
                {"containerPort": port, "name": "grpc"},
                {"containerPort": METRICS_PORT, "name": "metrics"},
            ],
            "readinessProbe": {"grpc": {"port": port}, "periodSeconds": 5},
            "livenessProbe": {"grpc": {"port": port}, "periodSeconds": 10, "failureThreshold": 3},
            "resources": {
                "requests": {"cpu": "250m", "memory": "128Mi"},
                "limits": {"cpu": "1", "memory": "384Mi"},
            },
        },
    )
    # Headless: the gateway's round_robin channel (dns:///rules-<game>:<port>) resolves
    # every pod and spreads calls across them.
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"clusterIP": "None", "selector": {"app": name}, "ports": [{"port": port, "name": "grpc"}]},
    }
    autoscaler = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": 2,
            "maxReplicas": 10,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}},
                }
            ],
        },
    }
    # One pod at a time may go: a drain always proceeds, and with two or more pods one serves.
    budget = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name},
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": name}}},
    }
    metrics = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": f"{name}-metrics",
            "labels": {"app": name, "tavola.dev/metrics": "true"},
            "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": str(METRICS_PORT)},
        },
        "spec": {
            "clusterIP": "None",
            "selector": {"app": name},
            "ports": [{"port": METRICS_PORT, "name": "metrics"}],
        },
    }
    return [deployment, service, autoscaler, budget, metrics]


def k8s_games(games: list[str]) -> str:
    routes = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "tavola-rules"},
        "data": {"TAVOLA_RULES": ",".join(f"{game}=dns:///rules-{game}:{rules_port(game)}" for game in games)},
    }
    comment = """
Every hosted game's rules service: a Deployment, a headless Service on the game's port
(services/registry.py), a CPU autoscaler, a disruption budget and a metrics Service;
and the gateway's routes to them (ConfigMap tavola-rules, read by gateway.yaml).
Stateless: any pod answers any call, so they scale freely.
"""
    docs: list[dict[str, Any]] = [routes]
    for game in games:
        docs += _rules_docs(game)
    return dump(docs, comment)


def k8s_ladder(games: list[str]) -> str:
    settings = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "tavola-ladder"},
        "data": {
            "TAVOLA_LADDER_TABLES": str(LADDER_TABLES),
            "TAVOLA_LADDER_GAMES": ",".join(games),
            "TAVOLA_LADDER_BOTS": LADDER_BOTS,
        },
    }
    labels = {"app": "ladder"}
    deployment = _deployment(
        "ladder",
        labels,
        # One: each pod plays its own TAVOLA_LADDER_TABLES tables, so two would double the cap.
        replicas=1,
        strategy={"type": "Recreate"},
        tmp_size="16Mi",
        container={
            "name": "ladder",
            "command": ["python", "-m", "bots.worker.ladder"],
            "env": [
                {"name": "TAVOLA_GATEWAY", "value": f"dns:///gateway:{GATEWAY_PORT}"},
                {"name": "TAVOLA_HOST", "value": "0.0.0.0"},
                {"name": "TAVOLA_METRICS_PORT", "value": str(METRICS_PORT)},
            ],
            "envFrom": [{"configMapRef": {"name": "tavola-ladder"}}],
            "ports": [{"containerPort": METRICS_PORT, "name": "metrics"}],
            "livenessProbe": {
                "httpGet": {"path": "/metrics", "port": METRICS_PORT},
                "periodSeconds": 30,
                "failureThreshold": 3,
            },
            "resources": {
                "requests": {"cpu": "50m", "memory": "96Mi"},
                "limits": {"cpu": "250m", "memory": "256Mi"},
            },
        },
    )
    budget = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "ladder"},
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": labels}},
    }
    comment = """
The ladder (python -m bots.worker.ladder): rated bot-against-bot tables, played on and on at the
bot workers' lowest priority, so that every level of the search bot has a rating on the
people's scale (quick play fills seats with the level nearest the people's rating). Its cap
is TAVOLA_LADDER_TABLES in the ConfigMap tavola-ladder: tables in play at once, each holding
at most one process of the search bots' worker bot-worker-search (2 of its 4 with two pods
of 2; the light bots' bot-worker plays none of its tables); 0 turns it off. One replica:
each pod plays its own tables.
"""
    return dump([settings, deployment, budget], comment)


def k8s_worker_bots() -> str:
    settings = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "tavola-worker-bots"},
        "data": {"light": "@light", "search": "@search"},
    }
    comment = """
Which bots each bot worker plays (TAVOLA_WORKER_BOTS of bot-worker.yaml's Deployments):
light, on bot-worker's threads pool with the timers and the rating updates; search (a
thinking budget, deploy/workers.py), on bot-worker-search's prefork pool. @light and
@search are read from the image's bot registry as each worker starts: a bot added to the
image is played by one of them after a rollout, with no file written again (only the
optional KEDA triggers, keda-bot-worker.yaml, name each bot's queue). A comma-separated
list of bot names instead pins a worker's bots.
"""
    return dump([settings], comment)


def _triggers(bots: list[str], extra: list[str], key_prefix: str) -> list[dict[str, Any]]:
    """A redis trigger per list of these bots' queues (one per priority too) and of ``extra``."""
    queues = [(queue_for(bot), ALL_BOT_PRIORITIES) for bot in bots] + [(queue, ()) for queue in extra]
    lists = []
    for queue, priorities in queues:
        lists.append(queue)
        lists += [queue_key(queue, priority) for priority in priorities]
    return [
        {
            "type": "redis",
            "metadata": {
                "address": "redis.tavola.svc:6379",
                "username": "tavola",
                "listName": f"{key_prefix}:celery:{name}",
                "listLength": "20",
            },
            "authenticationRef": {"name": "tavola-redis"},
        }
        for name in lists
    ]


def keda(bots: list[str], key_prefix: str = "tavola") -> str:
    light, search = split_bots(bots)
    auth = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "TriggerAuthentication",
        "metadata": {"name": "tavola-redis", "namespace": "tavola"},
        "spec": {"secretTargetRef": [{"parameter": "password", "name": "tavola-redis", "key": "platform-password"}]},
    }

    def scaled(name: str, triggers: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "apiVersion": "keda.sh/v1alpha1",
            "kind": "ScaledObject",
            "metadata": {"name": name, "namespace": "tavola"},
            "spec": {
                "scaleTargetRef": {"name": name},
                "minReplicaCount": 1,
                "maxReplicaCount": 20,
                "pollingInterval": 10,
                "cooldownPeriod": 120,
                "triggers": triggers,
            },
        }

    docs = [auth, scaled("bot-worker", _triggers(light, [TIMER_QUEUE, RATINGS_QUEUE], key_prefix))]
    if search:
        docs.append(scaled("bot-worker-search", _triggers(search, [], key_prefix)))
    comment = """
Optional: scale the bot workers on the length of their Celery queues, with KEDA
(https://keda.sh, installed in the cluster), each Deployment on its own queues: bot-worker
on the light bots', the timers' and the ratings'; bot-worker-search on the search bots'
(deploy/workers.py). Lists are named <TAVOLA_KEY_PREFIX>:celery:<queue>; one trigger per
queue a worker consumes and one per bot queue's list of each priority, <queue>\\x06\\x16<priority>
(common/tasks.py).
KEDA reads them as the platform's Redis user (Secret tavola-redis).
The triggers name the bots of the registry this file was generated from: a bot added to
the image is played by the workers (they read the registry as they start), but its queue
scales nothing until this file is generated again (python -m deploy.generate --out DIR).
  kubectl -n tavola apply -f deploy/k8s/optional/keda-bot-worker.yaml
"""
    return dump(docs, comment)


# -- the command ----------------------------------------------------------------------

"""deploy/compose.yaml and deploy/prometheus.yml, written from the registries
(``python -m deploy.generate``)."""

from typing import Any

from deploy.manifests import GATEWAY_PORT, LADDER_BOTS, LADDER_TABLES, METRICS_PORT, TIMER_PORT, WEB_PORT, dump
from deploy.workers import split_bots
from services.registry import rules_port

COMPOSE_COMMENT = """
The platform as containers, for machines with a Docker engine. Secrets come from a
generated env file and an ACL file, never from this file (keep both out of git):
  echo "TAVOLA_BOT_SECRET=$(openssl rand -hex 32)" > deploy/.env
  echo "TAVOLA_REDIS_PASSWORD=$(openssl rand -hex 32)" >> deploy/.env
  (set -a; . deploy/.env; python -m deploy.redis_users) > deploy/redis-users.acl
  docker compose -f deploy/compose.yaml up --build
Redis accepts only its ACL users (deploy/redis_users.py): the platform's, and a bot
author's per bot, which reaches only its bot's queue.
The gateway is published on 127.0.0.1:50051; its timer port (50052) stays inside.
Two bot workers: bot-worker, a threads pool of 8 for the light bots, the timers and the
rating updates; bot-worker-search, a prefork pool of one process per core for the search
bots (those with a thinking budget, deploy/workers.py), so that their CPU never starves
the light bots' turns. Each reads its bots from the image's registry as it starts
(TAVOLA_WORKER_BOTS=@light, @search): a bot added to the image is played once the
workers restart, without writing this file again. Each serves metrics on 9150 from its main process, counting every
task and decision: bot-worker-search's children write their counts to files in
PROMETHEUS_MULTIPROC_DIR (/tmp/metrics, its own tmpfs), which its endpoint sums.
The ladder plays rated tables of the search bot on and on at the workers' lowest priority,
so that every level of it has a rating: at most TAVOLA_LADDER_TABLES (default 2) tables at
once, each holding at most one of bot-worker-search's processes, never a slot of
bot-worker; TAVOLA_LADDER_TABLES=0 in deploy/.env turns it off.
Flower (the Celery monitor) on 127.0.0.1:5555 and Prometheus on 127.0.0.1:9090, which
scrapes every process's metrics port (9150, deploy/prometheus.yml); the Grafana
dashboard deploy/grafana/tavola.json reads that Prometheus.
No container engine runs where this project is developed: the suite checks this file
against the registries and lints the Dockerfile (hadolint), but never starts it.
"""

PLATFORM_REDIS_URL = "redis://tavola:${TAVOLA_REDIS_PASSWORD:?generate deploy/.env first}@redis:6379/0"


def _tavola_service(command: list[str], redis: bool = True, **environment: str) -> dict[str, Any]:
    """A service of the tavola image; ``redis``: one that uses Redis (rules services do not,
    and get neither its password nor the platform's secret)."""
    platform = {
        "REDIS_URL": PLATFORM_REDIS_URL,
        "TAVOLA_BOT_SECRET": "${TAVOLA_BOT_SECRET:?generate deploy/.env first (see the top of this file)}",
    }
    service = {
        "build": {"context": "..", "dockerfile": "deploy/Dockerfile"},
        "image": "tavola:latest",
        "read_only": True,
        "tmpfs": ["/tmp"],
        "security_opt": ["no-new-privileges:true"],
        "command": command,
        "environment": {**(platform if redis else {}), "TAVOLA_METRICS_PORT": str(METRICS_PORT), **environment},
    }
    if redis:
        service["depends_on"] = {"redis": {"condition": "service_healthy"}}
    return service


def _grpc_health(port: int) -> dict[str, Any]:
    return {
        "test": ["CMD", "python", "-m", "common.healthcheck", f"127.0.0.1:{port}"],
        "interval": "10s",
        "timeout": "5s",
        "retries": 3,
        "start_period": "10s",
    }


def _worker_health(node: str) -> dict[str, Any]:
    """The worker itself answers over the broker (its node name: ``--hostname <node>@%h``)."""
    return {
        "test": ["CMD-SHELL", f"celery -A bots.worker.app inspect ping -d {node}@$$HOSTNAME --timeout 5 >/dev/null"],
        "interval": "30s",
        "timeout": "20s",
        "retries": 3,
        "start_period": "20s",
    }


def compose(games: list[str], bots: list[str]) -> str:
    services: dict[str, Any] = {
        "redis": {
            "image": "redis:7-alpine",
            "command": [
                "redis-server",
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--aclfile",
                "/etc/redis/users.acl",
            ],
            "volumes": ["redis-data:/data", "./redis-users.acl:/etc/redis/users.acl:ro"],
            # The default user may only PING (deploy/redis_users.py), for this check.
            "healthcheck": {"test": ["CMD", "redis-cli", "ping"], "interval": "5s", "timeout": "3s", "retries": 5},
        }
    }
    for game in games:
        port = rules_port(game)
        service = _tavola_service(["python", "-m", "services.rules_server", game], redis=False, TAVOLA_PORT=str(port))
        service["healthcheck"] = _grpc_health(port)
        services[f"rules-{game}"] = service
    gateway = _tavola_service(
        ["python", "-m", "gateway"],
        TAVOLA_HOST="0.0.0.0",
        TAVOLA_PORT=str(GATEWAY_PORT),
        TAVOLA_TIMER_HOST="0.0.0.0",
        TAVOLA_TIMER_PORT=str(TIMER_PORT),
        TAVOLA_WEB_PORT=str(WEB_PORT),
        TAVOLA_RULES=",".join(f"{game}=rules-{game}:{rules_port(game)}" for game in games),
    )
    gateway["ports"] = [f"127.0.0.1:{GATEWAY_PORT}:{GATEWAY_PORT}", f"127.0.0.1:{WEB_PORT}:{WEB_PORT}"]
    gateway["healthcheck"] = _grpc_health(GATEWAY_PORT)
    gateway["depends_on"] = {
        "redis": {"condition": "service_healthy"},
        **{f"rules-{game}": {"condition": "service_healthy"} for game in games},
    }
    services["gateway"] = gateway
    # The light bots, the timers and the rating updates on a threads pool; the search bots
    # (deploy/workers.py) on a prefork pool of their own, one process per core (bots/worker/main.py).
    # Each worker reads its bots from the image's registry as it starts (@light, @search), so
    # a bot added to the image is played without writing this file again.
    _, search = split_bots(bots)
    worker = _tavola_service(
        ["python", "-m", "bots.worker", "--pool", "threads", "--concurrency", "8", "--hostname", "bots@%h"],
        TAVOLA_GATEWAY=f"gateway:{GATEWAY_PORT}",
        TAVOLA_TIMER_GATEWAY=f"gateway:{TIMER_PORT}",
        TAVOLA_WORKER_BOTS="@light",
        TAVOLA_TASK_EVENTS="true",  # task events for Flower
    )
    worker["healthcheck"] = _worker_health("bots")
    worker["depends_on"] = {"gateway": {"condition": "service_healthy"}}
    services["bot-worker"] = worker
    ladder_after = ["bot-worker"]
    if search:
        # No --concurrency: Celery's default, a process per core, as make run does.
        searcher = _tavola_service(
            ["python", "-m", "bots.worker", "--pool", "prefork", "--hostname", "bots-search@%h"],
            TAVOLA_GATEWAY=f"gateway:{GATEWAY_PORT}",
            TAVOLA_WORKER_BOTS="@search",
            TAVOLA_WORKER_TIMERS="false",  # and so no rating updates either
            TAVOLA_TASK_EVENTS="true",
            # The pool's children count their tasks and decisions in files here, which the
            # main process's endpoint sums (prometheus_client's multiprocess mode).
            PROMETHEUS_MULTIPROC_DIR="/tmp/metrics",
        )
        searcher["healthcheck"] = _worker_health("bots-search")
        searcher["depends_on"] = {"gateway": {"condition": "service_healthy"}}
        services["bot-worker-search"] = searcher
        ladder_after.append("bot-worker-search")
    ladder = _tavola_service(
        ["python", "-m", "bots.worker.ladder"],
        redis=False,  # a client of the public API only
        TAVOLA_HOST="0.0.0.0",  # its metrics, for Prometheus
        TAVOLA_GATEWAY=f"gateway:{GATEWAY_PORT}",
        TAVOLA_LADDER_TABLES=f"${{TAVOLA_LADDER_TABLES:-{LADDER_TABLES}}}",
        TAVOLA_LADDER_GAMES=",".join(games),
        TAVOLA_LADDER_BOTS=LADDER_BOTS,
    )
    ladder["healthcheck"] = {  # its metrics answer (it serves nothing else)
        "test": [
            "CMD",
            "python",
            "-c",
            f"import urllib.request; urllib.request.urlopen('http://127.0.0.1:{METRICS_PORT}/metrics', timeout=3)",
        ],
        "interval": "30s",
        "timeout": "5s",
        "retries": 3,
    }
    ladder["depends_on"] = {name: {"condition": "service_healthy"} for name in ladder_after}
    services["ladder"] = ladder
    flower = _tavola_service(["celery", "-A", "bots.worker.app", "flower", "--port=5555", "--address=0.0.0.0"])
    flower["ports"] = ["127.0.0.1:5555:5555"]
    flower["healthcheck"] = {
        "test": [
            "CMD",
            "python",
            "-c",
            "import urllib.request; urllib.request.urlopen('http://127.0.0.1:5555/healthcheck', timeout=3)",
        ],
        "interval": "30s",
        "timeout": "5s",
        "retries": 3,
    }
    services["flower"] = flower
    services["prometheus"] = {
        "image": "prom/prometheus:v2.55.1",
        "command": ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"],
        "volumes": ["./prometheus.yml:/etc/prometheus/prometheus.yml:ro", "prometheus-data:/prometheus"],
        "ports": ["127.0.0.1:9090:9090"],
        "healthcheck": {
            "test": ["CMD", "wget", "-q", "-O", "/dev/null", "http://127.0.0.1:9090/-/ready"],
            "interval": "10s",
            "timeout": "3s",
            "retries": 5,
        },
    }
    return dump([{"services": services, "volumes": {"redis-data": None, "prometheus-data": None}}], COMPOSE_COMMENT)


def prometheus(games: list[str], bots: list[str]) -> str:
    workers = ["bot-worker"] + (["bot-worker-search"] if split_bots(bots)[1] else [])

    def job(name: str, targets: list[str]) -> dict[str, Any]:
        return {"job_name": name, "static_configs": [{"targets": targets}]}

    config = {
        "global": {"scrape_interval": "15s", "evaluation_interval": "15s"},
        "scrape_configs": [
            job("tavola-gateway", [f"gateway:{METRICS_PORT}"]),
            job("tavola-rules", [f"rules-{game}:{METRICS_PORT}" for game in games]),
            job("tavola-bot-worker", [f"{name}:{METRICS_PORT}" for name in workers]),
            job("tavola-ladder", [f"ladder:{METRICS_PORT}"]),
            job("flower", ["flower:5555"]),
        ],
    }
    comment = """
Prometheus for deploy/compose.yaml: every tavola process serves /metrics on 9150.
On Kubernetes the pods carry prometheus.io annotations and metrics Services instead
(deploy/k8s/base/monitoring.yaml, games.yaml; a ServiceMonitor in deploy/k8s/optional/).
"""
    return dump([config], comment)

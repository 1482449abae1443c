"""The deploy files that name games or bots, written from the registries:

    python -m deploy.generate            # every registered game (make deploy-files: tavola's own)
    python -m deploy.generate --check    # exit 1 and name the files that differ
    python -m deploy.generate --out DIR  # an image with more games: its own set of files

It writes deploy/compose.yaml, deploy/prometheus.yml, deploy/k8s/base/games.yaml (each
game's rules Deployment, headless Service, autoscaler, disruption budget and metrics
Service, and the gateway's routes in the ConfigMap tavola-rules), deploy/k8s/base/ladder.yaml
(the rating ladder, with the games it plays and the levels it rates),
deploy/k8s/base/worker-bots.yaml (which bots each bot worker plays: its registry's light or
search bots, deploy/workers.py, read as it starts) and
deploy/k8s/optional/keda-bot-worker.yaml (each bot worker scaled on its own queues). Every other Kubernetes
file names no game and is written by hand. A game's port is the registry's
(services/registry.py): declared by the game or derived from its id, so adding a game
adds its lines and changes no other game's.
"""

import argparse
import sys
from importlib.metadata import entry_points
from pathlib import Path

from deploy.compose_files import compose, prometheus
from deploy.k8s_files import k8s_games, k8s_ladder, k8s_worker_bots, keda
from deploy.manifests import DEPLOY
from services.registry import game_ids, game_ids_of


def render(games: list[str], bots: list[str]) -> dict[Path, str]:
    """Each generated file (relative to deploy/) and its text."""
    return {
        Path("compose.yaml"): compose(games, bots),
        Path("prometheus.yml"): prometheus(games, bots),
        Path("k8s/base/games.yaml"): k8s_games(games),
        Path("k8s/base/ladder.yaml"): k8s_ladder(games),
        Path("k8s/base/worker-bots.yaml"): k8s_worker_bots(),
        Path("k8s/optional/keda-bot-worker.yaml"): keda(bots),
    }


def stale(files: dict[Path, str], root: Path = DEPLOY) -> list[Path]:
    return [path for path, text in files.items() if not (root / path).exists() or (root / path).read_text() != text]


def bot_names(distribution: str | None = None) -> list[str]:
    """The bots of the tavola.bots registry (bots/worker/registry.py), by name: the KEDA triggers
    need their queues only, not their code."""

    def normal(name: str) -> str:
        return name.replace("_", "-").lower()

    return sorted(
        entry.name
        for entry in entry_points(group="tavola.bots")
        if distribution is None or (entry.dist is not None and normal(entry.dist.name) == normal(distribution))
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the deploy files that name games from the registry")
    parser.add_argument("--out", type=Path, default=DEPLOY, help="where to write them (default: deploy/)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file differs")
    parser.add_argument(
        "--distribution", help="only the games and bots this distribution registers (tavola: the project's own)"
    )
    args = parser.parse_args(argv)
    games = list(game_ids_of(args.distribution) if args.distribution else game_ids())
    bots = bot_names(args.distribution)
    files = render(games, bots)
    if args.check:
        differing = stale(files, args.out)
        for path in differing:
            print(f"{args.out / path} is not what `python -m deploy.generate` writes", file=sys.stderr)
        return 1 if differing else 0
    for path, text in files.items():
        (args.out / path).parent.mkdir(parents=True, exist_ok=True)
        (args.out / path).write_text(text)
        print(f"wrote {args.out / path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

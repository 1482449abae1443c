"""make run: the platform in the foreground for clients, until Ctrl-C.

GATEWAYS=n and RULES_REPLICAS=n (default 1) start several gateways and rules services per
game; clients reach the gateways through one gRPC target list (ipv4:host:p1,host:p2).
The first gateway's web port (TAVOLA_WEB_PORT, default 8080) serves browsers: the Connect
and gRPC-Web protocols, and the web client when clients/web/dist is built."""

import os
import signal
import threading
from pathlib import Path

from common import defaults
from deploy.stack import ROOT, Stack
from gateway.web import DEFAULT_STATIC

WEB_PORT = 8080


def write_secret(secret: str, path: Path) -> Path:
    """This run's platform secret, readable by its owner only, for minting bot keys."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(secret)
    return path


def main() -> None:
    port = int(os.environ.get("TAVOLA_PORT", defaults.GATEWAY_PORT))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    gateways = int(os.environ.get("GATEWAYS", "1"))
    replicas = int(os.environ.get("RULES_REPLICAS", "1"))
    web_port = int(os.environ.get("TAVOLA_WEB_PORT", WEB_PORT))
    with Stack(
        gateway_port=port, web_port=web_port, gateways=gateways, rules_replicas=replicas, log_dir=ROOT / ".run" / "run"
    ) as stack:
        print("tavola is running:")
        for line in stack.describe():
            print(f"  {line}")
        print(f"\nclients connect to the gateway at {stack.gateway_address} (server reflection is on)")
        if gateways > 1:
            print("  (several gateways: open the channel with the round_robin policy to spread calls over them)")
        else:
            print("  (GATEWAYS=2 make run starts two gateways behind one balanced address)")
        secret_file = write_secret(stack.bot_secret, ROOT / ".run" / "run" / "bot-secret")
        print(
            "\na bot of your own (docs/bots.md): its worker's key, TAVOLA_BOT_KEY, is\n"
            f"  .venv/bin/python -m common.auth --secret-file {secret_file.relative_to(ROOT)} <bot name>"
        )
        web_url = f"http://{stack.web_addresses[0]}/"
        if DEFAULT_STATIC.is_dir():
            print(f"\nopen {web_url} in a browser (the web client; its API on the same port)")
        else:
            print(f"\nbrowsers reach the gateway at {web_url} (Connect and gRPC-Web; no web client built)")
        print("logs in .run/run/; press Ctrl-C to stop")
        stop.wait()
        print("stopping...")


if __name__ == "__main__":
    main()

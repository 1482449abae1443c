"""make run: the platform in the foreground for clients, until Ctrl-C.

GATEWAYS=n and RULES_REPLICAS=n (default 1) start several gateways and rules services per
game; clients reach the gateways through one gRPC target list (ipv4:host:p1,host:p2).
The first gateway's web port (TAVOLA_WEB_PORT, default 8080) serves browsers: the Connect
and gRPC-Web protocols, and the web client when clients/web/dist is built. Logs and the
run's secret go to TAVOLA_RUN_DIR (default .run/run). A process of the stack that dies is
reported on the terminal once (it is not restarted)."""

import os
import signal
import threading
from pathlib import Path

from common import defaults, settings
from common import logging as tavola_logging
from deploy.stack import ROOT, Process, Stack
from gateway.web import DEFAULT_STATIC

WEB_PORT = 8080


def shown(path: Path) -> Path:
    """A path as the person at the checkout reads it: relative to it when inside."""
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def write_secret(secret: str, path: Path) -> Path:
    """This run's platform secret, readable by its owner only, for minting bot keys."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(secret)
    return path


def main() -> None:
    tavola_logging.configure("run")
    with settings.exit_on_bad_config():  # a bad setting: one line, no traceback
        settings.check()
        port = settings.port("TAVOLA_PORT", defaults.GATEWAY_PORT) or 0
        web_port = settings.port("TAVOLA_WEB_PORT", WEB_PORT) or 0
        # The Makefile's own (make run GATEWAYS=n RULES_REPLICAS=n), not the processes'.
        gateways = settings.env_int("GATEWAYS", 1, 1)
        replicas = settings.env_int("RULES_REPLICAS", 1, 1)
    run_dir = ROOT / settings.text("TAVOLA_RUN_DIR")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    with Stack(
        gateway_port=port,
        web_port=web_port,
        gateways=gateways,
        rules_replicas=replicas,
        log_dir=run_dir,
        key_prefix=settings.text("TAVOLA_KEY_PREFIX"),
        archive=True,
    ) as stack:
        print("tavola is running:")
        for line in stack.describe():
            print(f"  {line}")
        print(f"\nclients connect to the gateway at {stack.gateway_address} (server reflection is on)")
        if gateways > 1:
            print("  (several gateways: open the channel with the round_robin policy to spread calls over them)")
        else:
            print("  (GATEWAYS=2 make run starts two gateways behind one balanced address)")
        secret_file = write_secret(stack.bot_secret, run_dir / "bot-secret")
        print(
            "\na bot of your own (docs/bots.md): its worker's key, TAVOLA_BOT_KEY, is\n"
            f"  .venv/bin/python -m common.auth --secret-file {shown(secret_file)} <bot name>"
        )
        web_url = f"http://{stack.web_addresses[0]}/"
        if DEFAULT_STATIC.is_dir():
            print(f"\nopen {web_url} in a browser (the web client; its API on the same port)")
        else:
            print(f"\nbrowsers reach the gateway at {web_url} (Connect and gRPC-Web; no web client built)")
        print(f"logs in {shown(run_dir)}/; press Ctrl-C to stop", flush=True)
        told: set[str] = set()
        while not stop.wait(1):
            for process in stack.exited():
                if process.name not in told:
                    told.add(process.name)
                    print(exit_line(process), flush=True)
        print("stopping...")


def exit_line(process: Process) -> str:
    """What an operator is told of a process of the stack that died: it is not restarted."""
    code = process.popen.returncode
    how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
    what = {
        "rules": "commands at its game fail UNAVAILABLE",
        "gateway": "clients reach the other gateways, or none",
        "worker": "bot seats wait for another worker",
    }
    effect = next((text for prefix, text in what.items() if process.name.startswith(prefix)), "")
    log = shown(process.log_path)
    return (
        f"\n{process.name} (pid {process.popen.pid}) {how}{': ' + effect if effect else ''}; "
        f"it is not restarted (see {log}; Ctrl-C and make run again)"
    )


if __name__ == "__main__":
    main()

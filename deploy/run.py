"""make run: the platform in the foreground for clients, until Ctrl-C.

GATEWAYS=n and RULES_REPLICAS=n (default 1) start several gateways and rules services per
game; clients reach the gateways through one gRPC target list (ipv4:host:p1,host:p2)."""

import os
import signal
import threading

from common import defaults
from deploy.stack import ROOT, Stack


def main() -> None:
    port = int(os.environ.get("TAVOLA_PORT", defaults.GATEWAY_PORT))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    gateways = int(os.environ.get("GATEWAYS", "1"))
    replicas = int(os.environ.get("RULES_REPLICAS", "1"))
    with Stack(gateway_port=port, gateways=gateways, rules_replicas=replicas, log_dir=ROOT / ".run" / "run") as stack:
        print("tavola is running:")
        for line in stack.describe():
            print(f"  {line}")
        print(f"\nclients connect to the gateway at {stack.gateway_address} (server reflection is on)")
        if gateways > 1:
            print("  (several gateways: open the channel with the round_robin policy to spread calls over them)")
        else:
            print("  (GATEWAYS=2 make run starts two gateways behind one balanced address)")
        print("logs in .run/run/; press Ctrl-C to stop")
        stop.wait()
        print("stopping...")


if __name__ == "__main__":
    main()

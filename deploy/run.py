"""make run: the platform in the foreground for clients, until Ctrl-C."""

import os
import signal
import threading

from deploy.stack import ROOT, Stack


def main() -> None:
    port = int(os.environ.get("TAVOLA_PORT", "50051"))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    with Stack(gateway_port=port, log_dir=ROOT / ".run" / "run") as stack:
        print("tavola is running:")
        for line in stack.describe():
            print(f"  {line}")
        print(f"\nclients connect to the gateway at {stack.gateway_address} (server reflection is on)")
        print("logs in .run/run/; press Ctrl-C to stop")
        stop.wait()
        print("stopping...")


if __name__ == "__main__":
    main()

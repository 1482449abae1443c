"""A local stack's owner that gets SIGTERM or SIGINT (a CI timeout, kill, Ctrl-C sent to
it alone) stops every process the stack started: no gateway or rules service is left
running under init. The owner here is a child Python process; its stack's processes are
the grandchildren, started in sessions of their own, so they get no signal but the
owner's."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The owner as a terminal starts it: SIGHUP at its default (a suite run under nohup would
# hand it down ignored, and an owner that ignores hangups rightly stays up).
OWNER = """
import json, signal, sys, time
signal.signal(signal.SIGHUP, signal.SIG_DFL)
from deploy.stack import Stack
stack = Stack(redis_url=sys.argv[1], key_prefix=sys.argv[2], games=("borgia",), with_worker=False)
with stack:
    print(json.dumps([p.popen.pid for p in stack.processes]), flush=True)
    time.sleep(120)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie no one reaps (its parent gone) counts as gone.
    status = Path(f"/proc/{pid}/stat")
    return status.exists() and status.read_text().split(") ", 1)[1][0] != "Z"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=["SIGTERM", "SIGINT", "SIGHUP"])
def test_a_signal_to_the_owner_stops_the_stacks_processes(redis_url, key_prefix, signum):
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, redis_url, f"{key_prefix}-signals"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    children: list[int] = []
    try:
        assert owner.stdout is not None
        children = json.loads(owner.stdout.readline())
        assert len(children) == 2 and all(map(alive, children))  # a rules service and a gateway
        owner.send_signal(signum)
        owner.wait(timeout=60)  # the servers drain first (up to 15 s each on a loaded machine)
        deadline = time.monotonic() + 5
        while any(map(alive, children)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in children if alive(pid)], "left running after the owner's signal"
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()
        for pid in children:  # a failed check leaves no server of this test running
            if alive(pid):
                os.kill(pid, signal.SIGKILL)

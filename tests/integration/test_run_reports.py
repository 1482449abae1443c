"""``make run`` (python -m deploy.run) tells its operator when a process of the platform
dies: once, the terminal went on saying nothing while every command of a game whose rules
service was killed failed."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_process_that_dies_is_reported_once(redis_url, key_prefix, tmp_path):
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "TAVOLA_KEY_PREFIX": f"{key_prefix}-run",
        "TAVOLA_PORT": "0",
        "TAVOLA_WEB_PORT": "0",
        "TAVOLA_RUN_DIR": str(tmp_path),
        "PYTHONUNBUFFERED": "1",
    }
    run = subprocess.Popen(
        [sys.executable, "-m", "deploy.run"], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert run.stdout is not None
    seen: list[str] = []
    try:
        rules_pid = None
        for line in run.stdout:
            seen.append(line)
            found = re.match(r"\s*rules-borgia: pid (\d+)", line)
            if found:
                rules_pid = int(found.group(1))
            if "press Ctrl-C to stop" in line:
                break
        assert rules_pid is not None, "".join(seen)
        os.kill(rules_pid, signal.SIGKILL)  # a process this test's run started
        deadline = time.monotonic() + 20
        for line in run.stdout:
            seen.append(line)
            if "rules-borgia" in line and "killed by signal 9" in line:
                break
            assert time.monotonic() < deadline, "".join(seen)
        assert "commands at its game fail UNAVAILABLE" in seen[-1]
        assert "it is not restarted" in seen[-1]
    finally:
        run.send_signal(signal.SIGTERM)
        rest, _ = run.communicate(timeout=60)
    assert run.returncode == 0
    told = [line for line in seen + rest.splitlines() if "rules-borgia (pid" in line]
    assert len(told) == 1, told  # once, not every second

"""Ending the child processes the stack, a private Redis or the bench started."""

import subprocess


def terminate(*processes: subprocess.Popen, timeout: float = 10.0) -> None:
    """SIGTERM to every process still running, then a wait of up to ``timeout`` seconds each
    before SIGKILL: all are asked first, so they shut down side by side."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

"""Every JSON log line names its process's service, whoever wrote it: structlog or the
standard library, the main thread or another (a Celery worker's task threads once wrote
``rating_applied`` and the ladder's lines without it), and an uncaught exception too."""

import json
import subprocess
import sys

PROGRAM = """
import logging, threading, structlog
from common import logging as tavola_logging
tavola_logging.configure("some-service")
structlog.get_logger().info("from_main")
thread = threading.Thread(target=lambda: structlog.get_logger().info("from_a_thread"))
thread.start(); thread.join()
logging.getLogger("celery").warning("from_the_standard_library")
raise RuntimeError("uncaught")
"""


def test_every_line_names_its_service():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    events = {line["event"]: line for line in lines}
    assert set(events) >= {"from_main", "from_a_thread", "from_the_standard_library", "uncaught_exception"}, lines
    assert {line.get("service") for line in lines} == {"some-service"}, lines

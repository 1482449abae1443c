"""Run a bot worker:  python -m bots.worker [celery worker options] (bots/worker/main.py)."""

from bots.worker.main import main

if __name__ == "__main__":
    main()

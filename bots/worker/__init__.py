"""The bot worker: Celery tasks that play bot seats, timers and rating updates (``python -m bots.worker``)."""

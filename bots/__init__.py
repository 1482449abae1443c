"""Bot workers: Celery tasks that play bot seats through the gateway, as ordinary clients."""

"""Defaults every process shares, so that a local run needs no configuration. Each is
overridden by the environment variable named beside it."""

REDIS_URL = "redis://127.0.0.1:6379/0"  # REDIS_URL
KEY_PREFIX = "tavola"  # TAVOLA_KEY_PREFIX
GATEWAY_PORT = 50051  # TAVOLA_PORT (gateway)
GATEWAY_ADDRESS = f"127.0.0.1:{GATEWAY_PORT}"  # TAVOLA_GATEWAY (clients, workers)
# TAVOLA_BOT_SECRET: a fixed secret for local development only; deployments set their own.
DEV_BOT_SECRET = "tavola-local-bot-secret"

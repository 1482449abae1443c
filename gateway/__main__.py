"""Run the gateway:  python -m gateway

Environment: REDIS_URL, TAVOLA_RULES (game=host:port,...), TAVOLA_BOTS, TAVOLA_BOT_SECRET,
TAVOLA_KEY_PREFIX, TAVOLA_TABLE_TTL_SECONDS, TAVOLA_SWEEP_SECONDS, TAVOLA_HOST, TAVOLA_PORT (default 50051),
TAVOLA_PORT_FILE, TAVOLA_METRICS_PORT, TAVOLA_LOG_LEVEL.
"""

import asyncio

import redis.asyncio as redis
import structlog

from common import defaults
from common import logging as tavola_logging
from common.server import Server, game_proto_files, listen_address, serve_until_signal
from common.tasks import celery_app
from gateway import metrics
from gateway.bots import BotCatalog
from gateway.config import Settings
from gateway.core import TableCore
from gateway.hub import Hub
from gateway.rules import RulesDirectory
from gateway.service import GatewayServicer, TimerServicer
from gateway.store import TableStore
from gateway.sweeper import Sweeper
from tavola.gateway.v1 import gateway_pb2, gateway_pb2_grpc

log = structlog.get_logger()


async def serve() -> None:
    tavola_logging.configure("gateway")
    settings = Settings.from_env()
    metrics.serve_from_env()
    client = redis.Redis.from_url(settings.redis_url)
    await client.ping()
    hub = Hub(client, f"{settings.key_prefix}:gateway")
    await hub.start()
    rules = RulesDirectory(settings.rules, settings.rules_timeout_seconds)
    core = TableCore(
        TableStore(client, settings.key_prefix, settings.table_ttl_seconds),
        hub,
        rules,
        BotCatalog(settings.bots),
        settings.bot_secret,
        celery_app("tavola-gateway", settings.redis_url, settings.key_prefix),
    )
    services = gateway_pb2.DESCRIPTOR.services_by_name
    server = Server([services["GatewayService"].full_name, services["TimerService"].full_name], game_proto_files())
    gateway_pb2_grpc.add_GatewayServiceServicer_to_server(GatewayServicer(core), server.grpc)
    gateway_pb2_grpc.add_TimerServiceServicer_to_server(TimerServicer(core), server.grpc)

    sweeper = Sweeper(core, settings.sweep_seconds)
    sweeper.start()

    async def close() -> None:
        await sweeper.stop()
        await hub.stop()
        await rules.close()
        await client.aclose()

    log.info("configured", games=sorted(settings.rules), bots=list(core.bots.names()))
    if settings.bot_secret == defaults.DEV_BOT_SECRET:
        log.warning("default_bot_secret", hint="set TAVOLA_BOT_SECRET: with the default, anyone can act for bot seats")
    await serve_until_signal(server, listen_address(defaults.GATEWAY_PORT), "gateway", on_stop=close)


def main() -> None:
    asyncio.run(serve())


if __name__ == "__main__":
    main()

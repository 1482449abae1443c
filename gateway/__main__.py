"""Run the gateway:  python -m gateway

Environment: the variables common/settings/ declares for the gateway, read at once by
``Settings.from_env`` (gateway/config.py); the table of docs/operators.md lists them.

The public port serves GatewayService; TimerService has a port of its own, meant to be
reachable only from inside the deployment (the timer workers). The web port, when set,
serves GatewayService, PlayerService and ChatService to browsers (Connect and gRPC-Web) through the
same handlers.
"""

import asyncio
import importlib
import os
import pkgutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import redis.asyncio as redis
import structlog
from google.protobuf.descriptor import FileDescriptor
from grpc_health.v1 import health_pb2

from common import auth, defaults, generated, redis_client, tracing
from common import logging as tavola_logging
from common.server import Server, collect_less, serve_until_signal
from common.settings import ConfigError, exit_on_bad_config
from common.settings import check as check_settings
from common.tasks import celery_app
from gateway import metrics
from gateway.abandoned import Abandonment
from gateway.archive import Archive, migrate, sqlalchemy_url
from gateway.archiver import Archiver
from gateway.bots import BotCatalog, read_declarations
from gateway.chat import ChatBook, ChatServicer
from gateway.chat_store import ChatStore
from gateway.commands import TableCore
from gateway.config import Settings
from gateway.handlers import add_to_server
from gateway.hub import Hub
from gateway.leaving import AccountDeletion
from gateway.matchmaking import Matchmaker
from gateway.players import Players, PlayerStore
from gateway.presence import PresenceBook
from gateway.quotas import Quotas
from gateway.ratings import Ratings
from gateway.rules import HEALTH_PREFIX, RulesDirectory
from gateway.service import ActionServicer, GatewayServicer, PlayerServicer, TimerServicer
from gateway.sessions import SessionServicer
from gateway.social import Social, SocialServicer
from gateway.store import TableStore
from gateway.sweeper import Sweeper
from gateway.turn_service import serve_turns
from gateway.web import WebServer, build_app
from tavola.gateway.v1 import actions_pb2, chat_pb2, gateway_pb2, players_pb2, sessions_pb2, social_pb2, turns_pb2

log = structlog.get_logger()

# The platform's own proto packages; every other one generated into tavola/ is a game's.
PLATFORM_PACKAGES = frozenset(("gateway", "rules", "store"))


def game_proto_files() -> list[FileDescriptor]:
    """The proto files of the games' messages, from the generated modules (no game's code):
    the gateway carries them in Any fields, and reflection clients (grpcurl, generic
    clients) decode them from these."""
    import tavola

    files: dict[str, FileDescriptor] = {}
    for module in pkgutil.walk_packages(tavola.__path__, "tavola."):
        package = module.name.split(".")
        if len(package) == 4 and package[1] not in PLATFORM_PACKAGES and package[3].endswith("_pb2"):
            descriptor = importlib.import_module(module.name).DESCRIPTOR
            files[descriptor.name] = descriptor
    return list(files.values())


async def open_archive(settings: Settings, store: TableStore) -> tuple[Archive | None, Archiver | None]:
    """The archive of finished tables when TAVOLA_DATABASE_URL is set: its schema brought
    up to date, reads falling through to it, and this gateway's archiver (its rounds run
    unless TAVOLA_ARCHIVE_SECONDS=0). A finished table then stays in Redis until it is archived
    and its retry window is over: the finished tables' TTL no longer applies. A PostgreSQL
    away as the gateway starts does not stop it: live tables need none, and the archiver
    brings the schema up to date before its first copy."""
    if not settings.database_url:
        log.warning("no_archive", hint="set TAVOLA_DATABASE_URL: finished tables expire from Redis with their TTL")
        return None, None
    try:
        sqlalchemy_url(settings.database_url)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    archive = Archive(settings.database_url)
    await archive.open()
    store.use_archive(archive)
    store.finished_ttl = 0
    # Started only with TAVOLA_ARCHIVE_SECONDS > 0; account deletions use it either way.
    archiver = Archiver(store, archive, settings.retry_window_seconds, settings.archive_seconds or 1.0)
    try:
        await asyncio.to_thread(migrate, settings.database_url)
    except Exception as error:
        log.error(
            "archive_unreachable",
            error=str(error)[:300],
            hint="finished tables wait in Redis; archived ones answer UNAVAILABLE until PostgreSQL answers",
        )
        archiver.schema_url = settings.database_url
    return archive, archiver


@dataclass
class Gateway:
    """A gateway composed from its settings, its background work under way: its public
    server to serve, what ends its long-lived streams as a stop begins, and its closing."""

    server: Server
    address: str
    begin_stopping: Callable[[], None]
    close: Callable[[], Awaitable[None]]


async def compose(settings: Settings) -> Gateway:
    """Every part of the gateway, made from ``settings`` alone."""
    web_settings = settings.web
    try:
        declared_bots = read_declarations(settings.bot_specs_file) if settings.bot_specs_file else ()
    except ValueError as error:  # a file that does not read as declarations
        raise ConfigError(str(error)) from None
    weak = auth.secret_problem(settings.bot_secret, frozenset({defaults.DEV_BOT_SECRET}))
    if weak and not (settings.development and settings.bot_secret == defaults.DEV_BOT_SECRET):
        log.critical(
            "bot_secret_required",
            problem=weak,
            hint="set TAVOLA_BOT_SECRET to a secret of your own; "
            "TAVOLA_DEVELOPMENT=true allows the development secret on a development machine",
        )
        raise SystemExit(2)
    max_connections = settings.redis_connections
    if settings.redis_cluster:
        # A pool per cluster node, of at most max_connections each.
        client = redis_client.connect_async(settings.redis_url, max_connections=max_connections)
    else:
        # A sized pool that waits for a free connection rather than failing, so a burst of
        # commands and watchers queues up instead of answering UNAVAILABLE.
        pool = redis_client.lean_blocking_pool(
            settings.redis_url,
            max_connections=max_connections,
            timeout=settings.redis_pool_timeout_seconds,
            **redis_client.without_maintenance_handshake(),
        )
        client = redis.Redis(connection_pool=pool)
    await client.ping()
    metrics.register_table_index(redis_client.connect(settings.redis_url, socket_timeout=2), settings.key_prefix)
    metrics.serve_from_env()
    hub = Hub(client, f"{settings.key_prefix}:gateway")
    await hub.start()
    rules = RulesDirectory(settings.rules, settings.rules_timeout_seconds, settings.rules_streams)
    core = TableCore(
        TableStore(
            client,
            settings.key_prefix,
            settings.table_ttl_seconds,
            settings.open_table_ttl_seconds,
            settings.finished_table_ttl_seconds,
            settings.retry_window_seconds,
            settings.recent_records,
        ),
        hub,
        rules,
        BotCatalog(settings.bots, declared_bots),
        settings.bot_secret,
        celery_app("tavola-gateway", settings.broker_url, settings.key_prefix),
        Quotas(client, settings.key_prefix, settings.quotas),
    )
    archive, archiver = await open_archive(settings, core.store)
    services = gateway_pb2.DESCRIPTOR.services_by_name
    public = (
        services["GatewayService"],
        players_pb2.DESCRIPTOR.services_by_name["PlayerService"],
        actions_pb2.DESCRIPTOR.services_by_name["ActionService"],
        social_pb2.DESCRIPTOR.services_by_name["SocialService"],
        turns_pb2.DESCRIPTOR.services_by_name["TurnService"],
        chat_pb2.DESCRIPTOR.services_by_name["ChatService"],
        sessions_pb2.DESCRIPTOR.services_by_name["SessionService"],
    )
    server = Server(
        [service.full_name for service in public],
        game_proto_files(),
        max_receive_bytes=settings.request_limits.largest(),
        interceptors=tracing.server_interceptors(
            method.name for service in public for method in service.methods if method.server_streaming
        ),
    )
    players = Players(PlayerStore(client, settings.key_prefix, core.names), core)
    rating_book = Ratings(
        client,
        settings.key_prefix,
        core,
        players.store,
        settings.rating_resend_seconds,
    )
    servicer = GatewayServicer(core, players, rating_book)
    servicer.lobby_decision_seconds = settings.lobby_decision_seconds
    add_to_server(servicer, "GatewayService", server.grpc, settings.request_limits)
    action_servicer = ActionServicer(servicer)
    add_to_server(action_servicer, "ActionService", server.grpc, settings.request_limits)
    session_servicer = SessionServicer(core)
    add_to_server(session_servicer, "SessionService", server.grpc, settings.request_limits)
    core.rating_job = rating_book.job
    core.on_rated_finish = rating_book.table_finished
    matchmaker = Matchmaker(client, settings.key_prefix, core, players.store, rating_book, settings.quick_play)
    player_servicer = PlayerServicer(players, rating_book, matchmaker)
    player_servicer.leaving = AccountDeletion(client, settings.key_prefix, players.store, archiver)
    add_to_server(player_servicer, "PlayerService", server.grpc, settings.request_limits)
    presence = PresenceBook(client, settings.key_prefix)
    social = Social(client, settings.key_prefix, players.store, core.reads, presence, hub)
    matchmaker.social = social
    player_servicer.leaving.forgetters.append(social.forget)
    social_servicer = SocialServicer(social, players)
    add_to_server(social_servicer, "SocialService", server.grpc, settings.request_limits)
    turn_servicer, digest = serve_turns(client, settings.key_prefix, core, players)
    add_to_server(turn_servicer, "TurnService", server.grpc, settings.request_limits)
    player_servicer.leaving.forgetters.append(turn_servicer.forget_player)
    chat_store = ChatStore(client, settings.key_prefix, settings.chat.history, settings.table_ttl_seconds)
    chat_servicer = ChatServicer(ChatBook(core, players.store, chat_store, settings.chat))
    add_to_server(chat_servicer, "ChatService", server.grpc, settings.request_limits)
    timer_server = Server([services["TimerService"].full_name], interceptors=tracing.server_interceptors())
    add_to_server(TimerServicer(core), "TimerService", timer_server.grpc)
    timer_host = settings.timer_host
    timer_port = await timer_server.start(f"{timer_host}:{settings.timer_port}")
    timer_port_file = settings.timer_port_file
    if timer_port_file:  # a launcher that asked for port 0 learns the bound port here
        with open(f"{timer_port_file}.tmp", "w") as handle:
            handle.write(str(timer_port))
        os.replace(f"{timer_port_file}.tmp", timer_port_file)
    log.info("serving", server="gateway-timers", address=f"{timer_host}:{timer_port}")

    web_server = None
    if web_settings is not None:
        web_app = build_app(
            {
                "GatewayService": servicer,
                "PlayerService": player_servicer,
                "SocialService": social_servicer,
                "TurnService": turn_servicer,
                "ChatService": chat_servicer,
                "SessionService": session_servicer,
            },
            settings.request_limits,
            web_settings.origins,
            web_settings.static_dir,
            web_settings.write_timeout,
        )
        web_server = WebServer(web_app, web_settings)
        web_port = await web_server.start()
        log.info(
            "serving",
            server="gateway-web",
            address=f"{web_settings.host}:{web_port}",
            origins=list(web_settings.origins),
            static=str(web_settings.static_dir) if web_settings.static_dir else None,
        )

    core.wakeups.grace_seconds = settings.task_grace_seconds
    core.timeouts_to_leave = settings.timeouts_to_leave
    abandonment = Abandonment(core, settings.abandon_open_seconds, settings.abandon_idle_seconds)
    sweeper = Sweeper(core, settings.sweep_seconds, settings.due_sweep_seconds, abandonment)
    sweeper.start()
    digest.start()

    async def tell_health(game: str, up: bool) -> None:
        status = health_pb2.HealthCheckResponse.SERVING if up else health_pb2.HealthCheckResponse.NOT_SERVING
        await server.health.set(f"{HEALTH_PREFIX}{game}", status)

    # The gateway itself stays SERVING while a game's rules service is down (every gateway
    # shares it: a balancer would drop them all); "rules/<game>" tells that game's state.
    rules_health = asyncio.get_running_loop().create_task(
        rules.watch_health(tell_health, settings.rules_health_seconds)
    )
    rating_book.start()
    matchmaker.start()
    presence.start()
    if archiver is not None and settings.archive_seconds > 0:
        archiver.start()

    async def close() -> None:
        rules_health.cancel()
        if web_server is not None:
            await web_server.stop()
        await timer_server.stop()
        await sweeper.stop()
        await digest.stop()
        await rating_book.stop()
        await matchmaker.stop()
        await presence.stop()
        if archiver is not None:
            await archiver.stop()
        if archive is not None:
            await archive.close()
        await hub.stop()
        await rules.close()
        await client.aclose()
        tracing.shutdown()

    collect_less()
    log.info(
        "configured",
        games=sorted(settings.rules),
        bots=list(core.bots.names()),
        quotas=str(settings.quotas),
        request_limits=str(settings.request_limits),
    )
    if settings.bot_secret == defaults.DEV_BOT_SECRET:
        log.warning("development_bot_secret", hint="anyone can act for bot seats: never expose this gateway")
    return Gateway(server, f"{settings.host}:{settings.port}", action_servicer.begin_stopping, close)


async def serve() -> None:
    tavola_logging.configure("gateway")
    tracing.configure("gateway")
    check_settings()
    try:
        settings = Settings.from_env()
    except ValueError as error:  # e.g. a Redis Cluster without a broker for Celery
        raise ConfigError(str(error)) from None
    gateway = await compose(settings)
    await serve_until_signal(
        gateway.server, gateway.address, "gateway", on_stop=gateway.close, on_stopping=gateway.begin_stopping
    )


def main() -> None:
    generated.check()
    with exit_on_bad_config():  # a bad setting: one line, no traceback
        asyncio.run(serve())


if __name__ == "__main__":
    main()

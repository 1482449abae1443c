"""The bot task: play one decision of one bot seat, through the gateway, like any client.

The task carries ids only. The worker derives the seat's token from the shared bot secret,
fetches the seat's view, chooses among its legal actions with an RNG seeded by
(table, seat, version), and submits with request id "bot-<seat>-<version>". A retried or
duplicated task therefore submits the same action under the same id, which the gateway
answers from its idempotency record: it changes nothing twice.
"""

import hashlib
import os
import random

import grpc
import structlog

from bots.app import DECIDE_TASK, app
from bots.strategies import STRATEGIES
from common import auth
from common.errors import reason_of
from tavola.gateway.v1 import gateway_pb2, gateway_pb2_grpc

log = structlog.get_logger()

_channel: grpc.Channel | None = None


def channel() -> grpc.Channel:
    """One channel to the gateway per worker process, opened after the fork."""
    global _channel
    if _channel is None:
        _channel = grpc.insecure_channel(os.environ.get("TAVOLA_GATEWAY", "127.0.0.1:50051"))
    return _channel


def platform_secret() -> str:
    return os.environ.get("TAVOLA_BOT_SECRET", "tavola-local-bot-secret")


class GatewayUnavailable(Exception):
    """Retried with backoff: the gateway is restarting or overloaded."""


def _seeded_rng(table_id: str, seat: int, version: int) -> random.Random:
    digest = hashlib.sha256(f"{table_id}:{seat}:{version}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


@app.task(
    name=DECIDE_TASK,
    autoretry_for=(GatewayUnavailable,),
    retry_backoff=0.2,
    retry_backoff_max=5,
    max_retries=10,
)
def decide(table_id: str, seat: int, version: int, bot: str) -> str:
    strategy = STRATEGIES.get(bot)
    if strategy is None:
        log.error("unknown_bot", bot=bot, table_id=table_id, seat=seat)
        return "unknown bot"
    metadata = auth.metadata(auth.bot_token(platform_secret(), table_id, seat))
    stub = gateway_pb2_grpc.GatewayServiceStub(channel())
    try:
        view = stub.GetView(gateway_pb2.GetViewRequest(table_id=table_id), metadata=metadata, timeout=10)
        if view.table.version != version or not view.must_decide:
            return "stale"  # a newer task exists for the table's current version
        choice = strategy(view, _seeded_rng(table_id, seat, version))
        stub.SubmitAction(
            gateway_pb2.SubmitActionRequest(
                table_id=table_id,
                action=choice.action,
                expected_version=version,
                request_id=f"bot-{seat}-{version}",
            ),
            metadata=metadata,
            timeout=10,
        )
    except grpc.RpcError as error:
        code = error.code()
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            raise GatewayUnavailable(str(code)) from error
        if code == grpc.StatusCode.ABORTED:
            return "stale"  # another seat acted first; the new version has its own task
        log.error("bot_rejected", table_id=table_id, seat=seat, code=code.name, reason=reason_of(error))
        return f"rejected: {reason_of(error)}"
    log.info("bot_acted", table_id=table_id, seat=seat, version=version, label=choice.label)
    return choice.label

"""The timer task: due when a human seat's decision deadline passes (DESIGN: timers).

It carries ids only (table, seat, version) and asks the gateway's TimerService, on the
gateway's internal port (TAVOLA_TIMER_GATEWAY, default 127.0.0.1:50052), to apply
the table's timeout policy; the gateway does nothing if the seat decided in time, so an
early, late or repeated run is harmless.
"""

import grpc
import structlog

from bots.worker.app import EXPIRE_TASK, app
from bots.worker.tasks import GatewayUnavailable, channel, platform_secret
from common import auth, settings
from common.errors import reason_of
from tavola.gateway.v1 import gateway_pb2, gateway_pb2_grpc

log = structlog.get_logger()


@app.task(name=EXPIRE_TASK, autoretry_for=(GatewayUnavailable,), retry_backoff=0.2, retry_backoff_max=5, max_retries=10)
def expire(table_id: str, seat: int, version: int) -> bool:
    stub = gateway_pb2_grpc.TimerServiceStub(channel(settings.text("TAVOLA_TIMER_GATEWAY")))
    request = gateway_pb2.ExpireDecisionRequest(table_id=table_id, seat=seat, version=version)
    try:
        response = stub.ExpireDecision(
            request, metadata=auth.metadata(auth.timer_token(platform_secret(), table_id)), timeout=10
        )
    except grpc.RpcError as error:
        if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            raise GatewayUnavailable(str(error.code())) from error
        log.error("timer_rejected", table_id=table_id, seat=seat, code=error.code().name, reason=reason_of(error))
        return False
    if response.expired:
        log.info("decision_expired", table_id=table_id, seat=seat, version=version)
    return response.expired

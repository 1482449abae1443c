"""Rich gRPC errors: a canonical status code plus a google.rpc.ErrorInfo reason.

Servers raise ``ApiError``; the server interceptor-free helpers here turn it into a
status with details. Clients read the reason back with ``reason_of``.
"""

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

DOMAIN = "tavola"
_DETAILS_KEY = "grpc-status-details-bin"


class ApiError(Exception):
    def __init__(self, code: grpc.StatusCode, reason: str, message: str, **metadata: str):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = metadata

    def to_status(self) -> grpc.Status:
        info = error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN, metadata=self.metadata)
        detail = any_pb2.Any()
        detail.Pack(info)
        status = status_pb2.Status(code=self.code.value[0], message=self.message, details=[detail])
        return rpc_status.to_status(status)


async def abort(context: grpc.aio.ServicerContext, error: ApiError) -> None:
    await context.abort_with_status(error.to_status())


def _status_of(error: grpc.RpcError) -> status_pb2.Status | None:
    trailing = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    for key, value in trailing or ():
        if key == _DETAILS_KEY:
            return status_pb2.Status.FromString(value)
    return None


def reason_of(error: grpc.RpcError) -> str:
    """The ErrorInfo reason of a failed call, or '' when it carries none."""
    status = _status_of(error)
    if status is None:
        return ""
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return ""


def from_rpc_error(error: grpc.RpcError) -> ApiError:
    """Re-raise a dependency's error with the same code, reason and message."""
    code = error.code()
    reason = reason_of(error)
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return ApiError(
            grpc.StatusCode.UNAVAILABLE, reason or "DEPENDENCY_UNAVAILABLE", "a rules service is unavailable"
        )
    return ApiError(code, reason or code_pb2.Code.Name(code.value[0]), error.details() or "")

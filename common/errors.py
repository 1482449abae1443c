"""Rich gRPC errors: a canonical status code plus a google.rpc.ErrorInfo reason, its
metadata (table_id, seat, versions...) and, for errors worth retrying, a
google.rpc.RetryInfo.

Servers raise ``ApiError``; the server interceptor-free helpers here turn it into a
status with details. Clients read the reason back with ``reason_of``, the rest with
``details_of``.
"""

from collections.abc import Iterable
from typing import cast

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

DOMAIN = "tavola"
_DETAILS_KEY = "grpc-status-details-bin"
# What RetryInfo suggests when a dependency is down, and after a lost race.
RETRY_UNAVAILABLE_SECONDS = 1.0
RETRY_CONTENTION_SECONDS = 0.05


class ApiError(Exception):
    """``metadata`` values become strings in ErrorInfo.metadata (None values are left out);
    ``retry_after`` (seconds) adds a RetryInfo telling the client when to try again."""

    def __init__(
        self, code: grpc.StatusCode, reason: str, message: str, retry_after: float | None = None, **metadata: object
    ):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.retry_after = retry_after
        self.metadata = {key: str(value) for key, value in metadata.items() if value is not None}

    def to_status(self) -> grpc.Status:
        return rpc_status.to_status(self.to_rpc_status())

    def to_rpc_status(self) -> status_pb2.Status:
        """The google.rpc.Status of this error: its code, message, ErrorInfo and RetryInfo."""
        info = error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN, metadata=self.metadata)
        details = [info]
        if self.retry_after is not None:
            delay = duration_pb2.Duration()
            delay.FromNanoseconds(int(self.retry_after * 1e9))
            details.append(error_details_pb2.RetryInfo(retry_delay=delay))
        packed = []
        for detail in details:
            packed.append(any_pb2.Any())
            packed[-1].Pack(detail)
        return status_pb2.Status(code=self.code.value[0], message=self.message, details=packed)


def invalid(reason: str, message: str, **metadata: object) -> ApiError:
    """A request that no state of the platform would accept (INVALID_ARGUMENT)."""
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, reason, message, retry_after=None, **metadata)


def failed(reason: str, message: str, **metadata: object) -> ApiError:
    """A request that the table's state refuses now (FAILED_PRECONDITION)."""
    return ApiError(grpc.StatusCode.FAILED_PRECONDITION, reason, message, retry_after=None, **metadata)


async def abort(context: grpc.aio.ServicerContext, error: ApiError) -> None:
    await context.abort_with_status(error.to_status())


def _status_of(error: grpc.RpcError) -> status_pb2.Status | None:
    # Sync errors carry (key, value) named tuples, aio errors a Metadata of pairs: both
    # unpack as pairs, and a "-bin" key's value is bytes.
    trailing = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    pairs = cast("Iterable[tuple[str, str | bytes]]", trailing or ())
    for key, value in pairs:
        if key == _DETAILS_KEY and isinstance(value, bytes):
            return status_pb2.Status.FromString(value)
    return None


def details_of(error: grpc.RpcError) -> tuple[error_details_pb2.ErrorInfo, error_details_pb2.RetryInfo | None]:
    """The ErrorInfo of a failed call (empty when it carries none) and its RetryInfo, if any."""
    info, retry = error_details_pb2.ErrorInfo(), None
    status = _status_of(error)
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            detail.Unpack(info)
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
    return info, retry


def reason_of(error: grpc.RpcError) -> str:
    """The ErrorInfo reason of a failed call, or '' when it carries none."""
    return details_of(error)[0].reason


def _reason_in(status: status_pb2.Status | None) -> str:
    info = error_details_pb2.ErrorInfo()
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            detail.Unpack(info)
    return info.reason


_CODE_OF_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


def from_rpc_status(status: status_pb2.Status) -> ApiError:
    """A dependency's error sent as a google.rpc.Status (a stream's answer to one of its
    requests), re-raised as ``from_rpc_error`` re-raises a failed call's."""
    code = _CODE_OF_NUMBER.get(status.code, grpc.StatusCode.UNKNOWN)
    return _dependency_error(code, _reason_in(status), status.message)


def from_rpc_error(error: grpc.RpcError) -> ApiError:
    """Re-raise a dependency's error with the same code, reason and message."""
    return _dependency_error(error.code(), reason_of(error), error.details() or "")


def _dependency_error(code: grpc.StatusCode, reason: str, message: str) -> ApiError:
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return ApiError(
            grpc.StatusCode.UNAVAILABLE,
            reason or "DEPENDENCY_UNAVAILABLE",
            "a rules service is unavailable",
            retry_after=RETRY_UNAVAILABLE_SECONDS,
        )
    return ApiError(code, reason or code_pb2.Code.Name(code.value[0]), message)

"""Exit 0 when the gRPC server at an address reports SERVING, 1 otherwise:
python -m common.healthcheck 127.0.0.1:50051 (container healthchecks; the image has no
grpc_health_probe binary)."""

import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from common import defaults


def main() -> int:
    address = sys.argv[1] if len(sys.argv) > 1 else defaults.GATEWAY_ADDRESS
    with grpc.insecure_channel(address) as channel:
        try:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=3)  # type: ignore[attr-defined]
        except grpc.RpcError as error:
            print(f"{address}: {error.code().name}", file=sys.stderr)
            return 1
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1


if __name__ == "__main__":
    sys.exit(main())

"""Channels to the gateway that spread calls over every gateway a target resolves to.

gRPC's default policy (pick_first) sends every call of a channel to the first address
that answers, so a worker or a client facing two gateways (``ipv4:host:p1,host:p2``, or
``dns:///gateway:50051`` of a headless Kubernetes Service) would load one of them only.
These channels ask for round_robin in their service config: one connection to each
resolved address, calls in turn over the ready ones, a gateway that is down skipped.
"""

import json

import grpc

ROUND_ROBIN = json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})
OPTIONS = (("grpc.service_config", ROUND_ROBIN),)


def balanced_channel(target: str) -> grpc.Channel:
    return grpc.insecure_channel(target, options=OPTIONS)


def balanced_aio_channel(target: str) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(target, options=OPTIONS)

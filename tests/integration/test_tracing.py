"""Traces: with an OTLP endpoint configured, one bot action gives spans in the gateway, the
bot worker and the rules service under one trace id (the context crosses gRPC metadata
and the Celery task's headers). The endpoint here is a real OTLP/gRPC receiver of the
test's own."""

import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


class Receiver(trace_service_pb2_grpc.TraceServiceServicer):
    """Keeps every exported span as (trace id, service name, span name)."""

    def __init__(self):
        self.spans: list[tuple[bytes, str, str]] = []
        self.lock = threading.Lock()

    def Export(self, request, context):
        with self.lock:
            for resource_spans in request.resource_spans:
                service = next(
                    (a.value.string_value for a in resource_spans.resource.attributes if a.key == "service.name"), ""
                )
                for scope in resource_spans.scope_spans:
                    self.spans.extend((span.trace_id, service, span.name) for span in scope.spans)
        return trace_service_pb2.ExportTraceServiceResponse()

    def services_by_trace(self) -> dict[bytes, set[str]]:
        traces: dict[bytes, set[str]] = defaultdict(set)
        with self.lock:
            for trace_id, service, _ in self.spans:
                traces[trace_id].add(service)
        return traces


@pytest.fixture(scope="module")
def receiver() -> Iterator[tuple[Receiver, int]]:
    server = grpc.server(futures.ThreadPoolExecutor(4))
    collected = Receiver()
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(collected, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield collected, port
    server.stop(0)


@pytest.fixture(scope="module")
def traced_stack(receiver, redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[Stack]:
    _, port = receiver
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{port}")
        patch.setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
        patch.setenv("OTEL_BSP_SCHEDULE_DELAY", "200")  # export every 0.2 s
        stack = Stack(
            redis_url=redis_url,
            key_prefix=f"{key_prefix}-tracing",
            games=("borgia",),
            bots=("random",),
            worker_bots=("random",),
            gateway_env=NO_QUOTAS,
            log_dir=tmp_path_factory.mktemp("tracing"),
        )
        stack.start()
    try:
        yield stack
    finally:
        stack.stop()


def test_one_bot_action_is_one_trace_across_gateway_worker_and_rules(receiver, traced_stack):
    collected, _ = receiver
    with grpc.insecure_channel(traced_stack.gateway_address) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        created = stub.CreateTable(
            gw.CreateTableRequest(
                game_id="borgia",
                player_count=2,
                bot_seats=[gw.BotSeat(seat=0, bot="random"), gw.BotSeat(seat=1, bot="random")],
                auto_start=True,
            )
        )
        for _ in stub.SpectateTable(gw.SpectateTableRequest(table_id=created.table.table_id), timeout=60):
            pass
    wanted = {"gateway", "bot-worker", "rules-borgia"}
    deadline = time.monotonic() + 20
    while not any(wanted <= services for services in collected.services_by_trace().values()):
        assert time.monotonic() < deadline, f"no trace spans {wanted}: {dict(collected.services_by_trace())}"
        time.sleep(0.2)
    # The worker's task span and its SubmitAction to the gateway share the trace.
    trace_id = next(t for t, services in collected.services_by_trace().items() if wanted <= services)
    names = {(service, name) for t, service, name in collected.spans if t == trace_id}
    assert any(service == "bot-worker" and "SubmitAction" in name for service, name in names), names
    assert any(service == "gateway" and "SubmitAction" in name for service, name in names), names


def test_log_lines_inside_a_span_name_their_trace(traced_stack, receiver):
    lines = (traced_stack.log_dir / "gateway.log").read_text().splitlines()
    assert any('"trace_id"' in line for line in lines)

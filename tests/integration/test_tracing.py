"""Traces: with an OTLP endpoint configured, one bot action gives spans in the gateway, the
bot worker and the rules service under one trace id (the context crosses gRPC metadata
and the Celery task's headers). The endpoint here is a real OTLP/gRPC receiver of the
test's own."""

import secrets
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from common import auth
from deploy.stack import NO_QUOTAS, Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc
from tavola.gateway.v1.gateway_connect import GatewayServiceClientSync


class Receiver(trace_service_pb2_grpc.TraceServiceServicer):
    """Keeps every exported span as (trace id, service name, span name)."""

    def __init__(self):
        self.spans: list[tuple[bytes, str, str]] = []
        # Each span's attributes (string and integer values), beside ``spans``.
        self.attributes: list[dict[str, object]] = []
        self.lock = threading.Lock()

    def Export(self, request, context):
        with self.lock:
            for resource_spans in request.resource_spans:
                service = next(
                    (a.value.string_value for a in resource_spans.resource.attributes if a.key == "service.name"), ""
                )
                for scope in resource_spans.scope_spans:
                    self.spans.extend((span.trace_id, service, span.name) for span in scope.spans)
                    self.attributes.extend(
                        {
                            a.key: a.value.string_value if a.value.HasField("string_value") else a.value.int_value
                            for a in span.attributes
                        }
                        for span in scope.spans
                    )
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

    def submitted_on_both_sides(trace_id: bytes) -> bool:
        names = {(service, name) for t, service, name in collected.spans if t == trace_id}
        return all(any(s == side and "SubmitAction" in n for s, n in names) for side in ("bot-worker", "gateway"))

    # Spans are exported in batches, each process on its own: wait for a trace that has
    # every service's and both sides of a SubmitAction, not only the first to span three.
    deadline = time.monotonic() + 20
    while not any(
        wanted <= services and submitted_on_both_sides(t) for t, services in collected.services_by_trace().items()
    ):
        assert time.monotonic() < deadline, f"no trace spans {wanted}: {dict(collected.services_by_trace())}"
        time.sleep(0.2)
    # The worker's task span and its SubmitAction to the gateway share the trace.
    trace_id = next(
        t for t, services in collected.services_by_trace().items() if wanted <= services and submitted_on_both_sides(t)
    )
    names = {(service, name) for t, service, name in collected.spans if t == trace_id}
    assert any(service == "bot-worker" and "SubmitAction" in name for service, name in names), names
    assert any(service == "gateway" and "SubmitAction" in name for service, name in names), names
    # ...and the bot action's rules call is in it too: once, on an ApplyActions stream, it
    # made no span, and a trace stopped at the gateway.
    assert any(service == "rules-borgia" and "ApplyAction" in name for service, name in names), names


def test_log_lines_inside_a_span_name_their_trace(traced_stack, receiver):
    lines = (traced_stack.log_dir / "gateway.log").read_text().splitlines()
    assert any('"trace_id"' in line for line in lines)


def _spans_of(collected: Receiver, trace_id: bytes) -> list[tuple[str, str, dict[str, object]]]:
    with collected.lock:
        return [
            (service, name, attributes)
            for (trace, service, name), attributes in zip(collected.spans, collected.attributes, strict=True)
            if trace == trace_id
        ]


@pytest.mark.parametrize("protocol", ["connect", "grpc-web"])
def test_a_web_call_is_traced_as_a_grpc_call_is(receiver, traced_stack, protocol):
    """A call on the web port makes the gateway span a gRPC call makes (the full method's
    name, continuing the caller's traceparent, its rules calls inside the trace), its
    protocol named (tavola.protocol), and a failure's status code recorded."""
    collected, _ = receiver
    with grpc.insecure_channel(traced_stack.gateway_address) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        created = stub.CreateTable(
            gw.CreateTableRequest(
                game_id="borgia",
                player_count=2,
                bot_seats=[gw.BotSeat(seat=0, bot="random"), gw.BotSeat(seat=1, bot="random")],
            )
        )
        stub.StartTable(
            gw.StartTableRequest(table_id=created.table.table_id), metadata=auth.metadata(created.host_token)
        )
    trace_ids = {name: secrets.token_bytes(16) for name in ("ok", "missing")}
    kind = {"connect": ProtocolType.CONNECT, "grpc-web": ProtocolType.GRPC_WEB}[protocol]
    with GatewayServiceClientSync(f"http://{traced_stack.web_addresses[0]}", protocol=kind, timeout_ms=30_000) as web:

        def traced(name: str) -> dict[str, str]:
            return {"traceparent": f"00-{trace_ids[name].hex()}-{secrets.token_hex(8)}-01"}

        # GetTable of a started table asks the rules service for the spectator's view.
        web.get_table(gw.GetTableRequest(table_id=created.table.table_id), headers=traced("ok"))
        with pytest.raises(ConnectError):
            web.get_table(gw.GetTableRequest(table_id="0123456789abcdef"), headers=traced("missing"))
    method = "/tavola.gateway.v1.GatewayService/GetTable"
    deadline = time.monotonic() + 20
    while not all(any(s[0] == "gateway" for s in _spans_of(collected, t)) for t in trace_ids.values()) or not any(
        s[0] == "rules-borgia" for s in _spans_of(collected, trace_ids["ok"])
    ):
        assert time.monotonic() < deadline, [_spans_of(collected, t) for t in trace_ids.values()]
        time.sleep(0.2)
    served = [span for span in _spans_of(collected, trace_ids["ok"]) if span[1].startswith("/tavola.gateway.")]
    assert [name for _, name, _ in served] == [method], served
    attributes = served[0][2]
    assert attributes["tavola.protocol"] == protocol and attributes["rpc.method"] == "GetTable"
    assert attributes["rpc.service"] == "tavola.gateway.v1.GatewayService"
    assert attributes["rpc.grpc.status_code"] == 0
    failed = [span for span in _spans_of(collected, trace_ids["missing"]) if span[1].startswith("/tavola.gateway.")]
    assert [name for _, name, _ in failed] == [method]
    assert failed[0][2]["rpc.grpc.status_code"] == grpc.StatusCode.NOT_FOUND.value[0]


def test_a_grpc_call_span_names_its_protocol(receiver, traced_stack):
    collected, _ = receiver
    trace_id = secrets.token_bytes(16)
    with grpc.insecure_channel(traced_stack.gateway_address) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        traceparent = f"00-{trace_id.hex()}-{secrets.token_hex(8)}-01"
        stub.ListGames(gw.ListGamesRequest(), metadata=[("traceparent", traceparent)])
    deadline = time.monotonic() + 20
    while not any(span[1].startswith("/tavola.gateway.") for span in _spans_of(collected, trace_id)):
        assert time.monotonic() < deadline, "no span of the gRPC call"
        time.sleep(0.2)
    served = [span for span in _spans_of(collected, trace_id) if span[1].startswith("/tavola.gateway.")]
    assert [(service, name) for service, name, _ in served] == [
        ("gateway", "/tavola.gateway.v1.GatewayService/ListGames")
    ]
    assert served[0][2]["tavola.protocol"] == "grpc"

"""Fuzzing every RPC of the public gateway: random bytes, mutated valid requests and
random well-formed requests, sent through a generic channel call with no token, a bogus
token or a real one. Whatever comes in, the answer is a documented status (never UNKNOWN
or INTERNAL), the gateway stays healthy and logs no internal error, and a table the
fuzzer holds no token for is left exactly as it was. Bounded in examples and time."""

import grpc
from google.protobuf import any_pb2
from google.protobuf.descriptor import FieldDescriptor
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from common import auth
from tavola.borgia.v1 import borgia_pb2
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.conftest import HumanTable

SERVICE = gw.DESCRIPTOR.services_by_name["GatewayService"]
FORBIDDEN = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}

_INTS = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
}
_EDGES = st.sampled_from([0, 1, -1, 2, 3, 7, 2**31 - 1, -(2**31)])


def _scalar(field: FieldDescriptor, table_ids: list[str]):
    if field.type == FieldDescriptor.TYPE_STRING:
        if field.name == "table_id":
            return st.sampled_from(table_ids) | st.text(max_size=80)
        if field.name == "game_id":
            return st.sampled_from(["borgia", "pecunia", "mortadella", ""]) | st.text(max_size=80)
        if field.name == "page_token":
            return st.sampled_from(["", "0", "20", "9" * 19]) | st.text(max_size=30)
        return st.text(max_size=300)
    if field.type == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if field.type == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=64)
    if field.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.floats(allow_nan=False, width=32)
    if field.type == FieldDescriptor.TYPE_ENUM:
        return st.integers(-2, len(field.enum_type.values) + 1)
    low, high = _INTS.get(field.type, (-(2**31), 2**31 - 1))
    edges = _EDGES.filter(lambda n: low <= n <= high)
    return edges | st.integers(low, high)


def _any(actions: list[any_pb2.Any]):
    random_any = st.builds(
        lambda url, value: any_pb2.Any(type_url=url, value=value),
        st.sampled_from(["type.tavola.dev/tavola.borgia.v1.Action", "type.googleapis.com/x.Y", ""]),
        st.binary(max_size=40),
    )
    return st.sampled_from(actions) | random_any


def message_of(descriptor, table_ids: list[str], actions: list[any_pb2.Any], depth: int = 0):
    """Random messages of ``descriptor``: each field set or left unset."""
    from google.protobuf import message_factory

    cls = message_factory.GetMessageClass(descriptor)
    if descriptor.full_name == "google.protobuf.Any":
        return _any(actions)
    fields = {}
    for field in descriptor.fields:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            key, value = field.message_type.fields_by_name["key"], field.message_type.fields_by_name["value"]
            strategy = st.dictionaries(_scalar(key, table_ids), _scalar(value, table_ids), max_size=3)
        elif field.message_type is not None:
            if depth >= 2:
                continue
            strategy = message_of(field.message_type, table_ids, actions, depth + 1)
            if field.is_repeated:
                strategy = st.lists(strategy, max_size=3)
        else:
            strategy = _scalar(field, table_ids)
            if field.is_repeated:
                strategy = st.lists(strategy, max_size=4)
        fields[field.name] = st.none() | strategy

    def build(values):
        message = cls()
        for name, value in values.items():
            if value is None:
                continue
            target = getattr(message, name) if not isinstance(value, (int, float, str, bytes, bool)) else None
            if isinstance(value, dict):
                target.update(value)
            elif isinstance(value, list):
                target.extend(value)
            elif target is not None:
                target.CopyFrom(value)
            else:
                setattr(message, name, value)
        return message

    return st.fixed_dictionaries(fields).map(build)


def mutated(raw: bytes):
    """A valid request's bytes with a few bytes flipped, cut or inserted."""

    def mutate(edits):
        data = bytearray(raw)
        for kind, position, byte in edits:
            position = position % (len(data) + 1)
            if kind == 0 and position < len(data):
                data[position] ^= byte or 1
            elif kind == 1:
                data.insert(position, byte)
            else:
                del data[position:]
        return bytes(data)

    edit = st.tuples(st.integers(0, 2), st.integers(0, 1000), st.integers(0, 255))
    return st.lists(edit, min_size=1, max_size=4).map(mutate)


def test_every_rpc_answers_every_input_with_a_documented_status(gateway, channel, stack):
    kept = HumanTable(gateway, players=3)  # the fuzzer never holds its tokens
    kept.start()
    before = (kept.table(), kept.view(0).SerializeToString(deterministic=True))
    playground = HumanTable(gateway, players=2)  # the fuzzer holds these tokens
    playground.start()
    legal = [option.action for option in playground.view(playground.decider()).legal_actions[:5]]
    actions = [*legal, any_pb2.Any()]
    bogus = any_pb2.Any()
    bogus.Pack(borgia_pb2.Action(call={}))
    actions.append(bogus)
    table_ids = [kept.table_id, playground.table_id, "no-such-table", ""]
    tokens = [None, "not-a-token", playground.host_token, *playground.tokens.values(), kept.table_id]

    def request_bytes(method):
        valid = message_of(method.input_type, table_ids, actions).map(lambda m: m.SerializeToString())
        return valid | valid.flatmap(mutated) | st.binary(max_size=200)

    calls = st.sampled_from(list(SERVICE.methods)).flatmap(
        lambda method: st.tuples(st.just(method), request_bytes(method), st.sampled_from(tokens))
    )
    seen: dict[str, set[str]] = {}

    @settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(calls)
    def one_call(call):
        method, raw, token = call
        path = f"/{SERVICE.full_name}/{method.name}"
        metadata = auth.metadata(token) if token else None
        try:
            if method.server_streaming:
                stream = channel.unary_stream(path)(raw, metadata=metadata, timeout=0.5)
                for count, _ in enumerate(stream):
                    if count >= 3:
                        stream.cancel()
                        break
            else:
                channel.unary_unary(path)(raw, metadata=metadata, timeout=5)
            code = grpc.StatusCode.OK
        except grpc.RpcError as error:
            code = error.code()
            assert code not in FORBIDDEN, (method.name, raw, error.details())
        seen.setdefault(method.name, set()).add(code.name)

    one_call()
    assert set(seen) == {method.name for method in SERVICE.methods}
    with grpc.insecure_channel(stack.gateway_address) as fresh:
        health = health_pb2_grpc.HealthStub(fresh).Check(health_pb2.HealthCheckRequest(), timeout=5)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert (kept.table(), kept.view(0).SerializeToString(deterministic=True)) == before
    log = (stack.log_dir / "gateway.log").read_text()
    assert '"internal_error"' not in log

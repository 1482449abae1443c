"""The platform as real processes: rules services, gateway and a Celery bot worker."""

from collections.abc import Iterator

import grpc
import pytest

from common import auth
from deploy.stack import Stack
from gateway.push import new_vapid_keys
from tavola.gateway.v1 import clocks_pb2, gateway_pb2_grpc
from tavola.gateway.v1 import gateway_pb2 as gw

pytestmark = pytest.mark.integration


@pytest.fixture(scope="session")
def stack(redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[Stack]:
    # "held" is a bot the gateway accepts but no worker plays: tests run its tasks by hand.
    with Stack(
        redis_url=redis_url,
        key_prefix=key_prefix,
        bots=("random", "ismcts", "held"),
        log_dir=tmp_path_factory.mktemp("stack"),
        # The suite creates many tables from one address; test_quotas.py runs with limits.
        gateway_env={
            "TAVOLA_QUOTA_CREATE_PER_MINUTE": "0",
            "TAVOLA_QUOTA_SEATS_PER_MINUTE": "0",
            "TAVOLA_QUOTA_STREAMS": "0",
            "TAVOLA_QUOTA_REPLAYS_PER_MINUTE": "0",
            "TAVOLA_QUOTA_PLAYERS_PER_MINUTE": "0",
            # The one other site allowed to call the web port (test_web_bridge.py).
            "TAVOLA_WEB_ORIGINS": "https://tables.example",
            # Web Push to the tests' own local endpoints, and digests as files checked each
            # second (test_turns.py).
            "TAVOLA_PUSH_VAPID_PRIVATE_KEY": new_vapid_keys()[0],
            "TAVOLA_PUSH_ALLOW_PRIVATE": "true",
            "TAVOLA_DIGEST_DIR": str(tmp_path_factory.mktemp("digests")),
            "TAVOLA_DIGEST_CHECK_SECONDS": "1",
        },
    ) as running:
        yield running


@pytest.fixture(scope="session")
def channel(stack: Stack) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(stack.gateway_address) as open_channel:
        yield open_channel


@pytest.fixture(scope="session")
def gateway(channel: grpc.Channel) -> gateway_pb2_grpc.GatewayServiceStub:
    return gateway_pb2_grpc.GatewayServiceStub(channel)


class HumanTable:
    """A table whose seats the test holds, with helpers to act as any of them."""

    def __init__(
        self,
        stub,
        players: int,
        options=None,
        seed=7,
        bots: dict[int, str] | None = None,
        game="borgia",
        decision_timer: gw.DecisionTimer | None = None,
        replay_mode: bool | None = None,
        clock: clocks_pb2.TableClock | None = None,
    ):
        bots = bots or {}
        self.stub = stub
        created = stub.CreateTable(
            gw.CreateTableRequest(
                game_id=game,
                player_count=players,
                options=options or {},
                seed=seed,
                # by default the tests' seeds fix the deal (replay mode)
                replay_mode=seed is not None if replay_mode is None else replay_mode,
                bot_seats=[gw.BotSeat(seat=seat, bot=bot) for seat, bot in bots.items()],
                decision_timer=decision_timer,
                clock=clock,
            )
        )
        self.table_id = created.table.table_id
        self.host_token = created.host_token
        self.tokens: dict[int, str] = {}
        for seat in range(players):
            if seat in bots:
                continue
            taken = stub.TakeSeat(gw.TakeSeatRequest(table_id=self.table_id, seat=seat, display_name=f"p{seat}"))
            self.tokens[taken.seat] = taken.seat_token

    def start(self) -> gw.Table:
        request = gw.StartTableRequest(table_id=self.table_id)
        return self.stub.StartTable(request, metadata=auth.metadata(self.host_token)).table

    def view(self, seat: int) -> gw.GetViewResponse:
        request = gw.GetViewRequest(table_id=self.table_id)
        return self.stub.GetView(request, metadata=auth.metadata(self.tokens[seat]))

    def table(self) -> gw.Table:
        return self.stub.GetTable(gw.GetTableRequest(table_id=self.table_id)).table

    def submit(self, seat: int, action, **fields) -> gw.SubmitActionResponse:
        request = gw.SubmitActionRequest(table_id=self.table_id, action=action, **fields)
        return self.stub.SubmitAction(request, metadata=auth.metadata(self.tokens[seat]))

    def decider(self) -> int:
        return self.table().deciding_seats[0]

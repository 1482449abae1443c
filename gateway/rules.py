"""The gateway's view of the rules services: one channel per game, descriptions cached."""

import grpc
import structlog

from common import tracing
from common.errors import ApiError, from_rpc_error
from tavola.rules.v1 import rules_pb2, rules_pb2_grpc

log = structlog.get_logger()


class RulesDirectory:
    def __init__(self, addresses: dict[str, str], timeout: float):
        self.timeout = timeout
        # round_robin spreads calls over every address a name resolves to (e.g. dns:/// of a
        # headless service), since rules services are stateless.
        options = [("grpc.lb_policy_name", "round_robin")]
        self.channels = {
            game: grpc.aio.insecure_channel(address, options=options, interceptors=tracing.aio_client_interceptors())
            for game, address in addresses.items()
        }
        self.stubs = {game: rules_pb2_grpc.RulesServiceStub(channel) for game, channel in self.channels.items()}
        self.descriptions: dict[str, rules_pb2.GameDescription] = {}

    async def close(self) -> None:
        for channel in self.channels.values():
            await channel.close()

    def stub(self, game_id: str) -> rules_pb2_grpc.RulesServiceStub:
        stub = self.stubs.get(game_id)
        if stub is None:
            raise ApiError(grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME", f"no game {game_id!r} is hosted here")
        return stub

    async def call(self, game_id: str, method: str, request):
        try:
            return await getattr(self.stub(game_id), method)(request, timeout=self.timeout)
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from None

    async def view_if_up(self, game_id: str, request: rules_pb2.GetViewRequest) -> rules_pb2.GetViewResponse | None:
        """A view for a read that can answer without it (GetTable, GetReplay): None, logged,
        when the game's rules service is unavailable, so the store's part still answers."""
        try:
            return await self.call(game_id, "GetView", request)
        except ApiError as error:
            if error.code != grpc.StatusCode.UNAVAILABLE:
                raise
            log.warning("view_left_out", game=game_id, reason=error.reason)
            return None

    async def describe(self, game_id: str) -> rules_pb2.GameDescription:
        if game_id not in self.descriptions:
            response = await self.call(game_id, "DescribeGame", rules_pb2.DescribeGameRequest())
            self.descriptions[game_id] = response.game
        return self.descriptions[game_id]

    async def describe_all(self) -> list[rules_pb2.GameDescription]:
        """Every game whose rules service answers; one that is down is left out and logged."""
        games = []
        for game_id in sorted(self.stubs):
            try:
                games.append(await self.describe(game_id))
            except ApiError as error:
                log.warning("rules_service_unavailable", game=game_id, reason=error.reason)
        return games

"""TurnService (turns.proto): a player's turns as a stream, their browsers' push
subscriptions, and their daily digest. Served beside PlayerService, on both ports."""

import asyncio

import grpc

from common import auth
from common.errors import ApiError
from gateway.digest import Digest, DigestSettings, DigestStore
from gateway.players import Players
from gateway.push import Pusher, PushSettings, PushSubscriptions, check_endpoint, check_keys
from gateway.quotas import client_of
from gateway.turns import Turns
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import turns_pb2 as tn

# Enough for every table where it may be a player's turn (ListMyTables' largest page).
TURNS_PAGE = 100


class TurnServicer:
    def __init__(
        self,
        players: Players,
        turns: Turns,
        subscriptions: PushSubscriptions,
        pusher: Pusher,
        digests: DigestStore,
    ):
        self.players = players
        self.turns = turns
        self.subscriptions = subscriptions
        self.pusher = pusher
        self.digests = digests

    async def forget_player(self, player_id: str) -> None:
        """A deleted account's subscriptions and digest address go with it."""
        await self.subscriptions.forget_player(player_id)
        await self.digests.set(player_id, "")

    async def _caller(self, context) -> str:
        return await self.players.caller(auth.token_from(context))

    async def waiting(self, player_id: str) -> list[pl.MyTable]:
        """The player's tables where it is their turn now."""
        return list((await self.players.my_tables(player_id, TURNS_PAGE, your_turn_only=True)).tables)

    async def WatchMyTurns(self, request: tn.WatchMyTurnsRequest, context) -> None:
        token = auth.token_from(context)
        player_id = await self.players.caller(token)

        async def one(table_id: str) -> pl.MyTable | None:
            return await self.players.my_table(player_id, table_id)

        async def send(mine: pl.MyTable) -> None:
            await context.write(tn.WatchMyTurnsResponse(table=mine).SerializeToString())

        assert token is not None
        with self.players.core.quotas.stream(client_of(context)):
            watch = self.turns.watch(player_id, lambda: self.waiting(player_id), one, send)
            await self.players.while_signed_in(player_id, token, watch)

    def _require_push(self) -> None:
        if not self.pusher.public_key:
            raise ApiError(
                grpc.StatusCode.FAILED_PRECONDITION,
                "PUSH_NOT_CONFIGURED",
                "this platform sends no push notifications (no TAVOLA_PUSH_VAPID_PRIVATE_KEY)",
            )

    async def GetPushKey(self, request: tn.GetPushKeyRequest, context) -> tn.GetPushKeyResponse:
        self._require_push()
        return tn.GetPushKeyResponse(public_key=self.pusher.public_key)

    async def AddPushSubscription(
        self, request: tn.AddPushSubscriptionRequest, context
    ) -> tn.AddPushSubscriptionResponse:
        player_id = await self._caller(context)
        self._require_push()  # a subscription nothing would be sent to is refused
        check_keys(request.p256dh, request.auth)
        await asyncio.to_thread(check_endpoint, request.endpoint, self.pusher.settings.allow_private)
        count = await self.subscriptions.add(player_id, request.endpoint, request.p256dh, request.auth)
        return tn.AddPushSubscriptionResponse(subscriptions=count)

    async def RemovePushSubscription(
        self, request: tn.RemovePushSubscriptionRequest, context
    ) -> tn.RemovePushSubscriptionResponse:
        player_id = await self._caller(context)
        return tn.RemovePushSubscriptionResponse(removed=await self.subscriptions.remove(player_id, request.endpoint))

    async def SetDigest(self, request: tn.SetDigestRequest, context) -> tn.SetDigestResponse:
        player_id = await self._caller(context)
        return tn.SetDigestResponse(enabled=await self.digests.set(player_id, request.email))


def serve_turns(redis, key_prefix: str, core, players: Players) -> tuple[TurnServicer, Digest]:
    """The turn notices wired into the table core and its streams, the servicer, and the
    daily digest (not started), from the environment's settings."""
    subscriptions = PushSubscriptions(redis, key_prefix)
    pusher = Pusher(subscriptions, PushSettings.from_env())
    turns = Turns(redis, core.hub, key_prefix, players.game_name, pusher)
    core.turns = turns
    core.streams.present = turns.present
    digests = DigestStore(redis, key_prefix)
    servicer = TurnServicer(players, turns, subscriptions, pusher, digests)

    async def player_name(player_id: str) -> str:
        return (await players.store.get(player_id)).display_name

    digest = Digest(digests, DigestSettings.from_env(), servicer.waiting, player_name, core.store.try_lock)
    return servicer, digest

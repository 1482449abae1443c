"""Follows, blocks, invitations and presence (tavola.gateway.v1.SocialService).

Following is one way; two players who follow each other are friends, and only friends see
each other's presence and tables: a follow alone tells the follower nothing. A block ends
both follows, drops the blocked player's invitations, keeps them from inviting and from
being seated with the blocker by quick play (``Social.blocked_among``).

Keys, per player (``<prefix>:social:<player>:``): ``following`` (set: whom the player
follows; whether another follows back is read from theirs, so a follow is one write, on
one slot of a cluster), ``blocks`` (set: whom the player blocked) and
``invitations`` (hash: invitation id -> Invitation, expiring a day after the last one).
Presence is ``gateway.presence``'s. An invitation's arrival is published on the invitee's
channel (``<prefix>:social:<player>``), which a WatchInvitations stream joins through the
gateway's hub, so it reaches the invitee's stream on whichever gateway holds it.
"""

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable

import grpc
import structlog
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from common import auth, shapes
from common.errors import ApiError, failed, invalid
from gateway.hub import Hub
from gateway.players import Players, PlayerStore, seat_of_player, text
from gateway.presence import PresenceBook
from gateway.reads import TableReads
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import social_pb2 as so

log = structlog.get_logger()

# An invitation and its key's expiry in one step: a gateway killed between the two would
# leave the invitee's invitations with no end.
_KEEP_INVITATION = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
"""

MAX_FOLLOWING = 500
MAX_BLOCKS = 1000
MAX_PENDING_INVITATIONS = 20
INVITATION_TTL_SECONDS = 24 * 3600
# The tables of a friend shown: their most recent ones that are open or being played.
FRIEND_TABLES = 5
# How often a WatchInvitations stream re-reads its invitations with no wake-up (a lost
# pub/sub message), and refreshes its player's presence.
WATCH_REFRESH_SECONDS = 30.0


def social_key(key_prefix: str, player_id: str, what: str) -> str:
    """One of a player's social keys: ``following``, ``blocks`` or ``invitations`` (the chat
    reads ``blocks`` too: a blocked player's messages are hidden from the blocker)."""
    return f"{key_prefix}:social:{player_id}:{what}"


def _invitation(stored: bytes | str) -> so.Invitation:
    return so.Invitation.FromString(stored.encode() if isinstance(stored, str) else stored)


class Social:
    def __init__(
        self,
        redis: "Redis | RedisCluster",
        key_prefix: str,
        players: PlayerStore,
        reads: TableReads,
        presence: PresenceBook,
        hub: Hub,
    ):
        self.redis = redis
        self.key_prefix = key_prefix
        self.base = f"{key_prefix}:social"
        self.players = players
        self.reads = reads
        self.presence = presence
        self._keep_invitation = redis.register_script(_KEEP_INVITATION)
        self.hub = hub

    def _key(self, player_id: str, what: str) -> str:
        return social_key(self.key_prefix, player_id, what)

    def channel(self, player_id: str) -> str:
        return f"{self.base}:{player_id}"

    async def _other(self, caller: str, player_id: str) -> pl.Player:
        """The other player of a follow or block: a person, not the caller."""
        if not player_id:
            raise invalid("BAD_PLAYER_ID", "player_id is required")
        if player_id == caller:
            raise invalid("SELF", "that is you")
        if shapes.is_bot_player(player_id):
            raise invalid("BOT_PLAYER", "bots cannot be followed, blocked or invited")
        return await self.players.get(player_id)  # NOT_FOUND for no such player

    async def blocks_between(self, one: str, other: str) -> bool:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.sismember(self._key(one, "blocks"), other)
            pipe.sismember(self._key(other, "blocks"), one)
            return any(await pipe.execute())

    async def follow(self, caller: str, player_id: str) -> pl.Player:
        player = await self._other(caller, player_id)
        if await self.blocks_between(caller, player_id):
            raise failed("BLOCKED", "one of you blocked the other")
        if await self.redis.scard(self._key(caller, "following")) >= MAX_FOLLOWING:
            raise ApiError(grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_FOLLOWS", f"at most {MAX_FOLLOWING} follows")
        await self.redis.sadd(self._key(caller, "following"), player_id)
        return player

    async def unfollow(self, caller: str, player_id: str) -> None:
        await self._other(caller, player_id)
        await self._end_follow(caller, player_id)

    async def _end_follow(self, follower: str, followed: str) -> None:
        await self.redis.srem(self._key(follower, "following"), followed)

    async def block(self, caller: str, player_id: str) -> pl.Player:
        player = await self._other(caller, player_id)
        if await self.redis.scard(self._key(caller, "blocks")) >= MAX_BLOCKS:
            raise ApiError(grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_BLOCKS", f"at most {MAX_BLOCKS} blocks")
        await self.redis.sadd(self._key(caller, "blocks"), player_id)
        await self._end_follow(caller, player_id)
        await self._end_follow(player_id, caller)
        await self._drop_invitations_from(caller, player_id)
        log.info("player_blocked", player_id=caller)
        return player

    async def unblock(self, caller: str, player_id: str) -> None:
        await self._other(caller, player_id)
        await self.redis.srem(self._key(caller, "blocks"), player_id)

    async def blocked_among(self, player_ids: list[str]) -> set[frozenset[str]]:
        """The pairs of ``player_ids`` in which one blocked the other (quick play seats
        neither pair together)."""
        people = [pid for pid in player_ids if not shapes.is_bot_player(pid)]
        if len(people) < 2:
            return set()
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid in people:
                pipe.smembers(self._key(pid, "blocks"))
            replies = await pipe.execute()
        present = set(people)
        return {
            frozenset((pid, text(other)))
            for pid, blocked in zip(people, replies, strict=True)
            for other in blocked
            if text(other) in present
        }

    async def forget(self, player_id: str) -> None:
        """A deleted account's follows, blocks, invitations and presence (others' follows
        of it are left: a follow of no player is skipped when read)."""
        for what in ("following", "blocks", "invitations"):  # one by one: a slot each on a cluster
            await self.redis.delete(self._key(player_id, what))
        await self.presence.forget(player_id)

    async def blocks_of(self, player_id: str) -> set[str]:
        return {text(other) for other in await self.redis.smembers(self._key(player_id, "blocks"))}

    async def friends(self, caller: str) -> so.ListFriendsResponse:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.smembers(self._key(caller, "following"))
            pipe.smembers(self._key(caller, "blocks"))
            following, blocked = ({text(v) for v in reply} for reply in await pipe.execute())
        ordered = sorted(following)
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid in ordered:
                pipe.sismember(self._key(pid, "following"), caller)
            followers = {pid for pid, back in zip(ordered, await pipe.execute(), strict=True) if back}
        people = await self.players.names(sorted(following | blocked))
        mutual = sorted(followers)
        presences = dict(zip(mutual, await self.presence.read(mutual), strict=True))
        response = so.ListFriendsResponse()
        for pid in sorted(following, key=lambda p: people[p].display_name.lower() if p in people else p):
            if pid not in people:  # an account deleted since
                continue
            friend = response.following.add(player=people[pid], follows_you=pid in followers)
            if pid in presences:
                friend.presence.CopyFrom(presences[pid])
                friend.tables.extend(await self._live_tables(pid))
        response.blocked.extend(people[pid] for pid in sorted(blocked) if pid in people)
        return response

    async def _live_tables(self, player_id: str) -> list[gw.Table]:
        table_ids = await self.players.tables(player_id, 4 * FRIEND_TABLES)
        records = await self.reads.store.load_many(table_ids)
        live = (gw.TABLE_STATUS_OPEN, gw.TABLE_STATUS_IN_PROGRESS)
        return [r.table for r in records if r is not None and r.table.status in live][:FRIEND_TABLES]

    async def set_presence(self, caller: str, state: int, table_id: str) -> so.Presence:
        if state == so.PRESENCE_STATE_AT_TABLE:
            if not table_id:
                raise invalid("BAD_TABLE_ID", "AT_TABLE needs the table_id")
            record, _ = await self.reads.load(table_id)
            if seat_of_player(record.table, caller) is None:
                raise ApiError(grpc.StatusCode.PERMISSION_DENIED, "NOT_YOUR_SEAT", "you hold no seat at that table")
        elif state in (so.PRESENCE_STATE_ONLINE, so.PRESENCE_STATE_AWAY):
            if table_id:
                raise invalid("BAD_TABLE_ID", "a table_id goes with AT_TABLE only")
        else:
            raise invalid("BAD_PRESENCE", "state is ONLINE, AWAY or AT_TABLE")
        return await self.presence.set(caller, state, table_id)

    # -- invitations -----------------------------------------------------------------------

    async def invite(self, caller: str, player_id: str, table_id: str) -> so.Invitation:
        invitee = await self._other(caller, player_id)
        if not table_id:
            raise invalid("BAD_TABLE_ID", "table_id is required")
        record, _ = await self.reads.load(table_id)
        table = record.table
        if seat_of_player(table, caller) is None:
            raise ApiError(grpc.StatusCode.PERMISSION_DENIED, "NOT_YOUR_SEAT", "you hold no seat at that table")
        if table.status != gw.TABLE_STATUS_OPEN or all(s.taken or s.kind != gw.SEAT_KIND_HUMAN for s in table.seats):
            raise failed("NO_FREE_SEAT", "the table has no free seat to invite to")
        if seat_of_player(table, player_id) is not None:
            raise failed("ALREADY_SEATED", "that player holds a seat there already")
        # The same answer whether they do not follow you or one of you blocked the other: a
        # block is not told.
        follows = await self.redis.sismember(self._key(player_id, "following"), caller)
        if not follows or await self.blocks_between(caller, player_id):
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED, "NOT_FOLLOWED", "you can invite only players who follow you"
            )
        key = self._key(player_id, "invitations")
        pending = [_invitation(v) for v in (await self.redis.hgetall(key)).values()]
        if any(i.table.table_id == table_id and i.inviter.player_id == caller for i in pending):
            raise ApiError(grpc.StatusCode.ALREADY_EXISTS, "ALREADY_INVITED", "you invited them to that table already")
        if len(pending) >= MAX_PENDING_INVITATIONS:
            raise ApiError(
                grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_INVITATIONS", "they have too many invitations pending"
            )
        invitation = so.Invitation(invitation_id=secrets.token_hex(8), table=table)
        invitation.inviter.CopyFrom(await self.players.get(caller))
        invitation.create_time.FromNanoseconds(time.time_ns())
        args: list[str | bytes | int] = [
            invitation.invitation_id,
            invitation.SerializeToString(),
            INVITATION_TTL_SECONDS,
        ]
        await self._keep_invitation(keys=[key], args=args)
        await self.redis.publish(self.channel(player_id), invitation.invitation_id)
        log.info("player_invited", table_id=table_id, player_id=caller, invitee=invitee.player_id)
        return invitation

    async def invitations(self, caller: str) -> list[so.Invitation]:
        stored = await self.redis.hgetall(self._key(caller, "invitations"))
        found = [_invitation(v) for v in stored.values()]
        return sorted(found, key=lambda i: i.create_time.ToNanoseconds(), reverse=True)

    async def answer(self, caller: str, invitation_id: str, accept: bool) -> so.AnswerInvitationResponse:
        if not invitation_id:
            raise invalid("BAD_INVITATION_ID", "invitation_id is required")
        key = self._key(caller, "invitations")
        stored = await self.redis.hget(key, invitation_id)
        if stored is None or not await self.redis.hdel(key, invitation_id):
            raise ApiError(
                grpc.StatusCode.NOT_FOUND, "INVITATION_NOT_FOUND", "no such invitation (answered or expired)"
            )
        response = so.AnswerInvitationResponse()
        if accept:
            invitation = _invitation(stored)
            record, _ = await self.reads.load(invitation.table.table_id)
            response.table.CopyFrom(record.table)
        return response

    async def _drop_invitations_from(self, invitee: str, inviter: str) -> None:
        key = self._key(invitee, "invitations")
        stored = await self.redis.hgetall(key)
        dropped = [iid for iid, v in stored.items() if _invitation(v).inviter.player_id == inviter]
        if dropped:
            await self.redis.hdel(key, *dropped)

    async def watch(self, caller: str, send: Callable[[so.WatchInvitationsResponse], Awaitable[None]]) -> None:
        """Sends each invitation once, the pending ones first, until the stream ends; keeps
        the caller online meanwhile."""
        channel = self.channel(caller)
        await self.hub.join(channel)
        sent: set[str] = set()
        try:
            with self.presence.online_while(caller):
                await self.presence.refresh([caller])
                while True:
                    generation = self.hub.generation(channel)
                    for invitation in reversed(await self.invitations(caller)):
                        if invitation.invitation_id not in sent:
                            sent.add(invitation.invitation_id)
                            await send(so.WatchInvitationsResponse(invitation=invitation))
                    await self.hub.wait(channel, generation, WATCH_REFRESH_SECONDS)
        except asyncio.CancelledError:
            raise
        finally:
            await self.hub.leave(channel)


class SocialServicer:
    """tavola.gateway.v1.SocialService: every call for the caller's player token."""

    def __init__(self, social: Social, players: Players):
        self.social = social
        self.players = players

    async def _caller(self, context) -> str:
        return await self.players.caller(auth.token_from(context))

    async def FollowPlayer(self, request: so.FollowPlayerRequest, context) -> so.FollowPlayerResponse:
        return so.FollowPlayerResponse(player=await self.social.follow(await self._caller(context), request.player_id))

    async def UnfollowPlayer(self, request: so.UnfollowPlayerRequest, context) -> so.UnfollowPlayerResponse:
        await self.social.unfollow(await self._caller(context), request.player_id)
        return so.UnfollowPlayerResponse()

    async def BlockPlayer(self, request: so.BlockPlayerRequest, context) -> so.BlockPlayerResponse:
        return so.BlockPlayerResponse(player=await self.social.block(await self._caller(context), request.player_id))

    async def UnblockPlayer(self, request: so.UnblockPlayerRequest, context) -> so.UnblockPlayerResponse:
        await self.social.unblock(await self._caller(context), request.player_id)
        return so.UnblockPlayerResponse()

    async def ListFriends(self, request, context) -> so.ListFriendsResponse:
        return await self.social.friends(await self._caller(context))

    async def SetPresence(self, request: so.SetPresenceRequest, context) -> so.SetPresenceResponse:
        caller = await self._caller(context)
        presence = await self.social.set_presence(caller, request.state, request.table_id)
        return so.SetPresenceResponse(presence=presence)

    async def Invite(self, request: so.InviteRequest, context) -> so.InviteResponse:
        caller = await self._caller(context)
        return so.InviteResponse(invitation=await self.social.invite(caller, request.player_id, request.table_id))

    async def ListInvitations(self, request, context) -> so.ListInvitationsResponse:
        return so.ListInvitationsResponse(invitations=await self.social.invitations(await self._caller(context)))

    async def AnswerInvitation(self, request: so.AnswerInvitationRequest, context) -> so.AnswerInvitationResponse:
        return await self.social.answer(await self._caller(context), request.invitation_id, request.accept)

    async def WatchInvitations(self, request, context) -> None:
        """Ends as FindGame does when the caller's token is revoked (SignOutEverywhere)."""
        token = auth.token_from(context)
        caller = await self.players.caller(token)

        async def send(response: so.WatchInvitationsResponse) -> None:
            await context.write(response.SerializeToString())

        assert token is not None
        await self.players.while_signed_in(caller, token, self.social.watch(caller, send))

"""Players who come back: identity without passwords.

A player is an id, a display name and one secret token, ``p.<player id>.<secret>``, shown
once and kept only as its SHA-256. The token names its player, so checking it is one
read of that player's hash and a constant-time comparison; a forged token (unknown id, or
a secret that is not the stored one) and a revoked one (replaced by ReissuePlayerToken)
are refused alike, UNAUTHENTICATED (PLAYER_TOKEN_INVALID), and so is one of another shape
than the one minted here (common/shapes.py), before its id names any key.

Keys, under the gateway's prefix: ``player:<id>`` (a hash: name, its confusable skeletons,
token digest, creation time), ``player-names`` (gateway/names.py: who holds each skeleton)
and ``player:<id>:tables`` (a sorted set: the player's tables by when the seat was
taken, the newest few hundred), beside ``player:<id>:turns``, where it may be their turn
(gateway/turn_index.py, read by ListMyTables: gateway/my_tables.py). Bots are players
too, by the id ``bot:<bot>``; they have no hash and no token: their name is their spec,
and their seats are played by their workers.

Signing out everywhere (SignOutEverywhere, and ReissuePlayerToken, which is the same)
replaces the token and revokes every seat token of the player's seats at open and
in-progress tables: each seat's token digest is emptied (no token holds it until its
player rejoins) in a commit whose log entry revokes the seat, so the seat's streams end on
every gateway (SEAT_SIGNED_OUT, gateway/streams.py); the streams the player token itself
opened (FindGame) hear of it through the gateways' pub/sub (``Hub.announce_revoked``).

An OpenID Connect sign-in attaches here later: a verified (issuer, subject) pair would map
to a player id in one more hash, and signing in would hand a token as SignOutEverywhere
does, so a player who lost every device gets a token back (docs/players.md).
"""

import asyncio
import hashlib
import hmac
import secrets
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import grpc
import structlog
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from common import auth, shapes
from common.errors import ApiError, invalid
from common.name_rules import skeletons
from gateway.commands import TableCore
from gateway.commit import Commit, NothingToDo
from gateway.log_record import LogEntry
from gateway.my_tables import MyTables
from gateway.names import NameIndex
from gateway.quotas import PLAYERS, Client
from gateway.turn_index import turn_keys
from gateway.turns import seat_of_player, your_turn
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.store.v1 import store_pb2

log = structlog.get_logger()

TOKEN_PREFIX = shapes.PLAYER_TOKEN_PREFIX
BOT_PREFIX = shapes.BOT_PREFIX
# The tables a player's list keeps (older ones drop off; the tables themselves expire).
KEPT_TABLES = 200
MAX_PAGE_SIZE = 100
# A stream that a player token opened checks the token this often besides hearing of its
# revocation (which a pub/sub message lost to a reconnect would not tell).
REVOCATION_POLL_SECONDS = 10.0

T = TypeVar("T")


def is_player_token(token: str | None) -> bool:
    return token is not None and token.startswith(TOKEN_PREFIX)


def bot_player_id(bot: str) -> str:
    """The rated player that a bot spec is (``ismcts:level=3`` -> ``bot:ismcts:level=3``)."""
    return f"{BOT_PREFIX}{bot}"


def bot_player(player_id: str) -> pl.Player:
    """A bot's player, ``bot:<bot>``: no hash, its name its bot string."""
    return pl.Player(player_id=player_id, display_name=f"{player_id[len(BOT_PREFIX) :]} bot", bot=True)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _invalid_token() -> ApiError:
    return shapes.player_token_invalid()


def text(value: object) -> str:
    """A Redis reply as text (the gateway's clients answer bytes)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def check_display_name(display_name: str, names: NameIndex) -> tuple[str, frozenset[str]]:
    """A player's name as kept, and its skeletons, by the one name policy
    (common/name_rules.py); INVALID_ARGUMENT for a name it refuses."""
    name, keys = names.check(display_name)
    if not name:
        raise invalid("DISPLAY_NAME_REQUIRED", "a player needs a display name")
    return name, keys


class PlayerStore:
    def __init__(self, redis: "Redis | RedisCluster", key_prefix: str, names: NameIndex | None = None):
        self.redis = redis
        self.prefix = f"{key_prefix}:player"
        self.name_index = names or NameIndex(redis, key_prefix)

    def _key(self, player_id: str) -> str:
        return f"{self.prefix}:{player_id}"

    def _tables_key(self, player_id: str) -> str:
        return f"{self.prefix}:{player_id}:tables"

    @staticmethod
    def _new_token(player_id: str) -> tuple[str, str]:
        secret = secrets.token_urlsafe(24)
        return f"{TOKEN_PREFIX}{player_id}.{secret}", _digest(secret)

    async def create(self, display_name: str) -> tuple[pl.Player, str]:
        name, keys = check_display_name(display_name, self.name_index)
        player_id = secrets.token_hex(8)
        token, digest = self._new_token(player_id)
        now = time.time_ns()
        await self.name_index.claim(keys, player_id)  # ALREADY_EXISTS when another player's looks the same
        created = await self.redis.hsetnx(self._key(player_id), "token", digest)
        if not created:  # 64 random bits collided: never in practice, and refused if so
            raise ApiError(grpc.StatusCode.ABORTED, "CONTENTION", "try again")
        kept = "\n".join(sorted(keys))
        await self.redis.hset(self._key(player_id), mapping={"name": name, "created": now, "skeletons": kept})
        log.info("player_created", player_id=player_id)
        return self._player(player_id, name, now), token

    @staticmethod
    def _player(player_id: str, name: str, created_ns: int) -> pl.Player:
        player = pl.Player(player_id=player_id, display_name=name)
        if created_ns:
            player.create_time.FromNanoseconds(created_ns)
        return player

    async def authenticate(self, token: str) -> str:
        """The id of the player whose token this is, or UNAUTHENTICATED."""
        player_id, secret = shapes.player_token(token)  # its shape first: the id names a key
        stored = await self.redis.hget(self._key(player_id), "token")
        if stored is None or not hmac.compare_digest(text(stored), _digest(secret)):
            raise _invalid_token()
        return player_id

    async def get(self, player_id: str) -> pl.Player:
        shapes.player_id(player_id)  # a bot's by its grammar, a person's before it names a key
        if shapes.is_bot_player(player_id):
            return bot_player(player_id)
        fields = await self.redis.hmget(self._key(player_id), ["name", "created"])
        if fields[0] is None:
            raise ApiError(grpc.StatusCode.NOT_FOUND, "PLAYER_NOT_FOUND", f"no player {player_id!r}")
        return self._player(player_id, text(fields[0]), int(fields[1] or 0))

    async def names(self, player_ids: list[str]) -> dict[str, pl.Player]:
        """Public summaries of many players in one trip (missing ones left out)."""
        people = [pid for pid in player_ids if not shapes.is_bot_player(pid)]
        found = {pid: bot_player(pid) for pid in player_ids if shapes.is_bot_player(pid)}
        if people:
            async with self.redis.pipeline(transaction=False) as pipe:
                for pid in people:
                    pipe.hmget(self._key(pid), ["name", "created"])
                replies = await pipe.execute()
            for pid, (name, created) in zip(people, replies, strict=True):
                if name is not None:
                    found[pid] = self._player(pid, text(name), int(created or 0))
        return found

    async def rename(self, player_id: str, display_name: str) -> pl.Player:
        """The player under a new name: its skeletons claimed first (ALREADY_EXISTS when
        another player's look the same), those it had released after."""
        name, keys = check_display_name(display_name, self.name_index)
        old_name, old_keys = await self.redis.hmget(self._key(player_id), ["name", "skeletons"])
        await self.name_index.claim(keys, player_id)
        await self.redis.hset(self._key(player_id), mapping={"name": name, "skeletons": "\n".join(sorted(keys))})
        # A player made before skeletons were kept holds those of the name it had, if any.
        held = text(old_keys).split("\n") if old_keys is not None else skeletons(text(old_name)) if old_name else ()
        await self.name_index.release(set(held) - keys, player_id)
        return await self.get(player_id)

    async def forget(self, player_id: str) -> bool:
        """Deletes the player's account (its hash, so its token, and its list of tables) and
        frees its name for others; False when there was none."""
        name, held = await self.redis.hmget(self._key(player_id), ["name", "skeletons"])
        # Its tables, where it is their turn (gateway/turn_index.py), the players it muted
        # (gateway/chat_store.py).
        await self.redis.delete(
            self._tables_key(player_id), *turn_keys(self.prefix, player_id), f"{self.prefix}:{player_id}:muted"
        )
        if not await self.redis.delete(self._key(player_id)):
            return False
        keys = text(held).split("\n") if held is not None else skeletons(text(name)) if name else ()
        await self.name_index.release(set(keys), player_id)
        return True

    async def reissue(self, player_id: str, old_token: str) -> str:
        """A new token for the player; the old one stops working at once. Compare-and-set on
        the stored digest, so of two reissues racing with the same old token one wins."""
        token, digest = self._new_token(player_id)
        old_digest = _digest(old_token.rpartition(".")[2])
        swapped = await self.redis.eval(
            "if redis.call('HGET', KEYS[1], 'token') == ARGV[1] then "
            "redis.call('HSET', KEYS[1], 'token', ARGV[2]) return 1 end return 0",
            1,
            self._key(player_id),
            old_digest,
            digest,
        )
        if not swapped:
            raise _invalid_token()
        log.info("player_token_reissued", player_id=player_id)
        return token

    async def note_table(self, player_id: str, table_id: str) -> None:
        key = self._tables_key(player_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(key, {table_id: time.time_ns()})
            pipe.zremrangebyrank(key, 0, -KEPT_TABLES - 1)
            await pipe.execute()

    async def tables(self, player_id: str, count: int) -> list[str]:
        return [text(tid) for tid in await self.redis.zrevrange(self._tables_key(player_id), 0, count - 1)]

    async def forget_tables(self, player_id: str, table_ids: list[str]) -> None:
        if table_ids:
            await self.redis.zrem(self._tables_key(player_id), *table_ids)


def signed_in_seat(record: store_pb2.TableRecord, player_id: str) -> int | None:
    """The player's seat at the table while a token holds it and the game is not over
    (what a sign-out revokes), else None."""
    seat = seat_of_player(record.table, player_id)
    if (
        seat is None
        or record.table.status == gw.TABLE_STATUS_FINISHED
        or record.table.seats[seat].kind != gw.SEAT_KIND_HUMAN
        or not record.seat_token_sha256[seat]
    ):
        return None
    return seat


def _token_revoked() -> ApiError:
    return ApiError(
        grpc.StatusCode.UNAUTHENTICATED,
        "PLAYER_TOKEN_REVOKED",
        "this player signed out everywhere: the player token that opened this stream no longer works",
    )


class Players:
    """The player commands; the servicer (gateway/service.py) calls these."""

    def __init__(self, store: PlayerStore, core: TableCore):
        self.store = store
        self.core = core
        self.listing = MyTables(store, core.store, core.turn_index)

    async def caller(self, token: str | None) -> str:
        if token is None:
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING", "send 'authorization: Bearer <token>'")
        return await self.store.authenticate(token)

    async def create(self, display_name: str, client: Client | None) -> pl.CreatePlayerResponse:
        # Charged to the address alone: a token proves nothing about who creates players.
        await self.core.quotas.charge(PLAYERS, None if client is None else Client(client.peer))
        player, token = await self.store.create(display_name)
        return pl.CreatePlayerResponse(player=player, player_token=token)

    async def my_tables(self, player_id: str, page_size: int, your_turn_only: bool = False) -> pl.ListMyTablesResponse:
        """The player's tables that still exist (of the last KEPT_TABLES), those where it is
        their turn first, then newest first, each with its game's name."""
        if page_size < 0:
            raise invalid("BAD_PAGE_SIZE", "page_size must not be negative")
        count = min(page_size or 20, MAX_PAGE_SIZE)
        mine = await self.listing.mine(player_id, KEPT_TABLES, count, your_turn_only)
        response = pl.ListMyTablesResponse(tables=mine)
        for table in response.tables:
            table.game_name = await self.game_name(table.table.game_id)
        return response

    async def my_table(self, player_id: str, table_id: str) -> pl.MyTable | None:
        """The player's table when it is their turn there now; None otherwise."""
        record = (await self.core.store.load_many([table_id]))[0]
        seat = None if record is None else seat_of_player(record.table, player_id)
        if record is None or seat is None or not your_turn(record.table, seat):
            return None
        name = await self.game_name(record.table.game_id)
        return pl.MyTable(table=record.table, seat=seat, your_turn=True, game_name=name)

    async def game_name(self, game_id: str) -> str:
        """The game's display name; its id while its rules service does not answer."""
        try:
            return (await self.core.rules.describe(game_id)).display_name or game_id
        except ApiError:
            return game_id

    async def rejoin(self, player_id: str, table_id: str) -> pl.RejoinSeatResponse:
        """A new token for the player's seat; the seat's previous token stops working: the
        device that held it can no longer act, and a stream it has open on the seat ends
        (SEAT_REJOINED) at the log entry this commit adds, which revokes the seat's token
        (on every gateway: the log and its wake-up carry it; gateway/streams.py)."""
        token = auth.new_token()
        found: list[int] = []

        async def change(record: store_pb2.TableRecord, commit: Commit, _stored) -> None:
            seat = seat_of_player(record.table, player_id)
            if seat is None:
                raise ApiError(
                    grpc.StatusCode.PERMISSION_DENIED, "NOT_YOUR_SEAT", "this player holds no seat at this table"
                )
            if record.table.seats[seat].kind != gw.SEAT_KIND_HUMAN:
                raise ApiError(
                    grpc.StatusCode.FAILED_PRECONDITION, "SEAT_IS_BOT", "a bot has taken this seat over", seat=seat
                )
            if record.table.status == gw.TABLE_STATUS_FINISHED:
                raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, "TABLE_FINISHED", "the game is over")
            record.seat_token_sha256[seat] = auth.digest(token)
            commit.entries.append(LogEntry(spectator=b"", revoked_seat=seat))  # seen by nobody
            found[:] = [seat]

        record, _ = await self.core.transact(table_id, change)
        log.info("seat_rejoined", table_id=table_id, seat=found[0], player_id=player_id)
        return pl.RejoinSeatResponse(seat=found[0], seat_token=token, table=record.table)

    async def sign_out_everywhere(self, player_id: str, old_token: str) -> tuple[str, list[str]]:
        """Revokes ``old_token`` and every seat token of the player's seats (see the module's
        docstring); returns the new player token and the tables whose seat was signed out.

        The seats are swept while the old token still works, so that a failure there leaves
        the player a token to try again with; then the token is replaced, the gateways are
        told, and the seats are swept once more: a seat taken or rejoined with the old token
        meanwhile is in the player's list by then, or its call finds the token revoked once
        seated and signs that seat out itself (``confirm_seat``)."""
        signed_out = set(await self._sign_out_seats(player_id))
        token = await self.store.reissue(player_id, old_token)
        try:
            await self.core.hub.announce_revoked(player_id)
            signed_out.update(await self._sign_out_seats(player_id))
        except Exception:  # the new token stands: without it the player could not get back in
            log.error("sign_out_incomplete", player_id=player_id, exc_info=True)
        log.info("signed_out_everywhere", player_id=player_id, tables=len(signed_out))
        return token, sorted(signed_out)

    async def _sign_out_seats(self, player_id: str) -> list[str]:
        """Signs out the player's seat at each of its tables where a token holds one."""
        table_ids = await self.store.tables(player_id, KEPT_TABLES)
        records = await self.core.store.load_many(table_ids)
        held = [
            table_id
            for table_id, record in zip(table_ids, records, strict=True)
            if record is not None and signed_in_seat(record, player_id) is not None
        ]
        done = await asyncio.gather(*(self._sign_out_seat(player_id, table_id) for table_id in held))
        return [table_id for table_id, signed_out in zip(held, done, strict=True) if signed_out]

    async def _sign_out_seat(self, player_id: str, table_id: str) -> bool:
        """Empties the digest of the player's seat token at the table (no token holds the
        seat until RejoinSeat), in a commit whose log entry revokes the seat. False when
        there was nothing to sign out."""

        async def change(record: store_pb2.TableRecord, commit: Commit, _stored) -> None:
            seat = signed_in_seat(record, player_id)
            if seat is None:
                raise NothingToDo
            record.seat_token_sha256[seat] = b""
            commit.entries.append(LogEntry(spectator=b"", revoked_seat=seat))  # seen by nobody

        try:
            await self.core.transact(table_id, change)
        except NothingToDo:
            return False
        except ApiError as error:
            if error.reason == "TABLE_NOT_FOUND":  # expired meanwhile
                return False
            raise
        log.info("seat_signed_out", table_id=table_id, player_id=player_id)
        return True

    async def confirm_seat(self, token: str, player_id: str, table_id: str) -> None:
        """After a seat was taken or rejoined with the player token ``token``: should the
        token have been revoked meanwhile, a sign-out may have swept the player's tables
        before this seat was there, so the seat is signed out here and the call refused as
        the revoked token would have been."""
        try:
            await self.store.authenticate(token)
        except ApiError:
            await self._sign_out_seat(player_id, table_id)
            raise

    async def while_signed_in(self, player_id: str, token: str, stream: Coroutine[Any, Any, T]) -> T:
        """Runs ``stream`` (one that the player token ``token`` opened) to its end, unless
        the token is revoked first, on any gateway: then cancels it and raises
        UNAUTHENTICATED (PLAYER_TOKEN_REVOKED)."""
        with self.core.hub.player_revocations(player_id) as revoked:
            task = asyncio.ensure_future(stream)
            try:
                while True:
                    # Checked once listening (a revocation announced before was not heard),
                    # then at each announcement (for this player, not always this token) or poll.
                    revoked.clear()
                    try:
                        await self.store.authenticate(token)
                    except ApiError:
                        raise _token_revoked() from None
                    heard = asyncio.ensure_future(revoked.wait())
                    try:
                        await asyncio.wait(
                            (task, heard), timeout=REVOCATION_POLL_SECONDS, return_when=asyncio.FIRST_COMPLETED
                        )
                    finally:
                        heard.cancel()
                    if task.done():
                        return task.result()
            finally:
                if not task.done():
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)

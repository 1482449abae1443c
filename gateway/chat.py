"""Chat at the tables and in the lobby (tavola.gateway.v1.ChatService; the API's rules are
in proto/tavola/gateway/v1/chat.proto).

Who may do what is decided in one place, ``_access``: the table's players alone write and
read the players' channel; spectators write the spectators' channel, which the players
read only once the game is over (what spectators say may hold what they see, and a
player's own screen is all that player may know while the game runs). A spectator's
stream of that channel ends (GAME_NOT_OVER) when its player takes a seat and the game
is running. The operator turns channels off per game and rated or unrated
(``ChatSettings.table_chat``).

A message is refused before anything is written: the caller's token, their right to the
channel, the text's policy (gateway/chat_policy.py), the player's token bucket
(TAVOLA_CHAT_PER_MINUTE, TAVOLA_CHAT_BURST), then the operator's filter.
"""

import base64
from collections.abc import Awaitable, Callable
from typing import cast

import grpc
import structlog

from common import auth
from common.errors import ApiError, failed, invalid
from gateway.archive import Archive
from gateway.chat_policy import OFF, SPECTATORS, ChatContext, ChatSettings
from gateway.chat_store import MESSAGE_ID, ChatStore, channel_name, visible
from gateway.commands import TableCore
from gateway.players import PlayerStore, seat_of_player
from gateway.quotas import client_of
from gateway.replay import logged
from tavola.gateway.v1 import chat_pb2 as chat
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2

log = structlog.get_logger()

CHAT_QUOTA = "chat"
REPORT_QUOTA = "chat_report"
REPORTS_PER_MINUTE, REPORT_BURST = 6, 3
MAX_MUTES = 1000
WATCH_POLL_SECONDS = 10.0

PLAYERS, SPECTATORS_CHANNEL, LOBBY = (
    chat.CHAT_CHANNEL_PLAYERS,
    chat.CHAT_CHANNEL_SPECTATORS,
    chat.CHAT_CHANNEL_LOBBY,
)


def _id_key(message_id: str) -> tuple[int, int]:
    """A message_id ('<milliseconds>-<n>') in its order; "" before every one."""
    milliseconds, _, number = message_id.partition("-")
    return (int(milliseconds), int(number)) if message_id else (-1, -1)


def _denied(reason: str, message: str) -> ApiError:
    return ApiError(grpc.StatusCode.PERMISSION_DENIED, reason, message)


class ChatBook:
    def __init__(self, core: TableCore, players: PlayerStore, store: ChatStore, settings: ChatSettings):
        self.core = core
        self.players = players
        self.store = store
        self.settings = settings

    async def _caller(self, token: str | None) -> str:
        if token is None:
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING", "chat needs a player token (CreatePlayer)")
        return await self.players.authenticate(token)

    async def _access(
        self, player_id: str | None, table_id: str, channel: int, writing: bool
    ) -> tuple[store_pb2.TableRecord | None, int | None]:
        """The table's record and the caller's seat there, when ``player_id`` may read
        (``writing``: write) the channel; else the refusal."""
        if channel == LOBBY:
            if table_id:
                raise invalid("BAD_CHAT_CHANNEL", "the lobby's channel has no table_id")
            if not self.settings.lobby:
                raise failed("CHAT_OFF", "this platform has no lobby chat")
            return None, None
        if channel not in (PLAYERS, SPECTATORS_CHANNEL):
            raise invalid("BAD_CHAT_CHANNEL", "channel is CHAT_CHANNEL_PLAYERS, _SPECTATORS or _LOBBY")
        record, _ = await self.core.reads.load(table_id)
        table = record.table
        switch = self.settings.table_chat(table.game_id, table.rated)
        if switch == OFF or (switch == SPECTATORS and channel == PLAYERS):
            kind = "rated" if table.rated else "unrated"
            raise failed("CHAT_OFF", f"this channel is off at {kind} tables of {table.game_id} on this platform")
        seat = None if player_id is None else seat_of_player(table, player_id)
        running = table.status != gw.TABLE_STATUS_FINISHED
        if channel == PLAYERS and seat is None:
            raise _denied("NOT_SEATED", "the players' channel is for the table's seated players only")
        if channel == SPECTATORS_CHANNEL and seat is not None and running:
            if writing:
                raise _denied("SEATED_PLAYER", "a seated player talks in the players' channel while the game runs")
            raise _denied("GAME_NOT_OVER", "the table's players read the spectators' channel once the game is over")
        return record, seat

    async def send(self, token: str | None, request: chat.SendChatRequest) -> chat.ChatMessage:
        player_id = await self._caller(token)
        record, seat = await self._access(player_id, request.table_id, request.channel, writing=True)
        text = self.settings.clean(request.text)
        await self.core.quotas.take(CHAT_QUOTA, player_id, self.settings.per_minute, self.settings.burst)
        game_id = record.table.game_id if record is not None else ""
        context = ChatContext(channel_name(request.channel), request.table_id, game_id, player_id)
        text = await self.settings.filtered(text, context)
        player = await self.players.get(player_id)
        message = chat.ChatMessage(
            channel=request.channel,
            table_id=request.table_id,
            player_id=player_id,
            display_name=player.display_name,
            text=text,
        )
        if request.channel == PLAYERS and seat is not None:
            message.seat = seat
        message.send_time.GetCurrentTime()
        shadow = await self.store.is_shadow_muted(player_id)
        message_id = await self.store.append(message, shadow)
        if not message_id:
            raise ApiError(grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND", f"no table {request.table_id!r}")
        message.message_id = message_id
        log.info("chat_sent", table_id=request.table_id or None, channel=context.channel, shadow=shadow or None)
        return message

    async def _archived(
        self, record: store_pb2.TableRecord | None, channel: int, player_id: str
    ) -> list[chat.ChatMessage] | None:
        """The channel's messages from the archive, for a table it holds and Redis no
        longer does; None otherwise (the table's chat is in Redis)."""
        archive = self.core.store.archive
        if record is None or not isinstance(archive, Archive):
            return None
        table = record.table
        if await self.store.table_exists(table.table_id):
            return None
        rows = await archive.chat(table.table_id)
        muted = await self.store.muted_by(player_id)
        spectators = await self.players.names([row.player_id for row in rows if row.seat is None])
        found = []
        for seq, row in enumerate(rows, 1):
            if (row.seat is not None) != (channel == PLAYERS) or row.player_id in muted:
                continue
            message = chat.ChatMessage(
                message_id=f"{int(row.sent_at * 1000)}-{seq}",
                channel=cast(chat.ChatChannel, channel),
                table_id=table.table_id,
                player_id=row.player_id,
                text=row.text,
            )
            if row.seat is not None:
                message.seat = row.seat
                message.display_name = table.seats[row.seat].display_name
            elif row.player_id in spectators:
                message.display_name = spectators[row.player_id].display_name
            message.send_time.FromNanoseconds(int(row.sent_at * 1e9))
            found.append(message)
        return found

    async def history(self, token: str | None, table_id: str, channel: int) -> list[chat.ChatMessage]:
        """Every kept message of the channel that the caller may read."""
        player_id = await self._caller(token)
        record, _ = await self._access(player_id, table_id, channel, writing=False)
        archived = await self._archived(record, channel, player_id)
        if archived is not None:
            return archived
        muted = await self.store.muted_by(player_id)
        found: list[chat.ChatMessage] = []
        after = ""
        while page := await self.store.read(table_id, channel, after):
            found += visible(page, player_id, muted)
            after = page[-1][0].message_id
        return found

    async def watch(
        self, token: str | None, request: chat.WatchChatRequest, send: Callable[[bytes], Awaitable[None]], client
    ) -> None:
        player_id = await self._caller(token)
        table_id, channel = request.table_id, request.channel
        if request.after_id and not MESSAGE_ID.fullmatch(request.after_id):
            raise invalid("BAD_AFTER_ID", "after_id is a message_id ('<milliseconds>-<n>')")
        record, _ = await self._access(player_id, table_id, channel, writing=False)
        archived = await self._archived(record, channel, player_id)
        if archived is not None:  # a table the archive holds: its chat is over
            after_key = _id_key(request.after_id)
            shown = [message for message in archived if _id_key(message.message_id) > after_key]
            if shown:
                await send(chat.WatchChatResponse(messages=shown).SerializeToString())
            return
        hub = self.core.hub
        wake = self.store.wake_channel(table_id, channel)
        after = request.after_id
        with self.core.quotas.stream(client):
            await hub.join(wake)
            try:
                while True:
                    generation = hub.generation(wake)
                    page = await self.store.read(table_id, channel, after)
                    if page:
                        after = page[-1][0].message_id
                        # The token may have been revoked since (SignOutEverywhere), and a
                        # spectator may have taken a seat: each batch is read as a new call would be.
                        await self._caller(token)
                        if channel == SPECTATORS_CHANNEL:
                            await self._access(player_id, table_id, channel, writing=False)
                        shown = visible(page, player_id, await self.store.muted_by(player_id))
                        if shown:
                            await send(chat.WatchChatResponse(messages=shown).SerializeToString())
                        continue
                    await hub.wait(wake, generation, WATCH_POLL_SECONDS)
                    quiet = hub.generation(wake) == generation
                    if quiet and channel != LOBBY and not await self.store.table_exists(table_id):
                        return  # the table is gone, and its chat with it
            finally:
                await hub.leave(wake)

    async def mute(self, token: str | None, request: chat.MutePlayerRequest) -> chat.MutePlayerResponse:
        player_id = await self._caller(token)
        other = request.player_id
        if not other:
            raise invalid("PLAYER_ID_REQUIRED", "name the player to mute")
        if other == player_id:
            raise invalid("MUTE_SELF", "a player cannot mute themselves")
        if request.muted:
            await self.players.get(other)  # NOT_FOUND for no such player
            if await self.store.mute_count(player_id) >= MAX_MUTES:
                raise ApiError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_MUTES", f"a player mutes at most {MAX_MUTES} players"
                )
        await self.store.set_muted(player_id, other, request.muted)
        return chat.MutePlayerResponse(muted_player_ids=sorted(await self.store.muted_by(player_id)))

    async def report(self, token: str | None, request: chat.ReportChatRequest) -> chat.ReportChatResponse:
        player_id = await self._caller(token)
        if not MESSAGE_ID.fullmatch(request.message_id):
            raise invalid("BAD_MESSAGE_ID", "message_id is a message's id ('<milliseconds>-<n>')")
        reason = self.settings.clean(request.reason) if request.reason.strip() else ""
        record, seat = await self._access(player_id, request.table_id, request.channel, writing=False)
        found = await self.store.one(request.table_id, request.channel, request.message_id)
        if found is None or not visible([found], player_id, set()):
            raise ApiError(grpc.StatusCode.NOT_FOUND, "MESSAGE_NOT_FOUND", "no such message in this channel")
        message, _ = found
        await self.core.quotas.take(REPORT_QUOTA, player_id, REPORTS_PER_MINUTE, REPORT_BURST)
        replay = b""
        if record is not None:  # the table as the reporter saw it, up to the report
            replay = (
                await logged(self.core.reads, request.table_id, seat, None, seat_checked=True)
            ).SerializeToString()
        report_id = await self.store.file_report(
            {
                "reporter": player_id,
                "reported": message.player_id,
                "table_id": request.table_id,
                "channel": channel_name(request.channel),
                "message_id": message.message_id,
                "text": message.text,
                "reason": reason,
                "reporter_seat": seat,
                "replay": base64.b64encode(replay).decode(),
            }
        )
        log.info("chat_reported", table_id=request.table_id or None, report_id=report_id)
        return chat.ReportChatResponse(report_id=report_id)


class ChatServicer:
    """tavola.gateway.v1.ChatService."""

    def __init__(self, book: ChatBook):
        self.book = book

    async def SendChat(self, request: chat.SendChatRequest, context) -> chat.SendChatResponse:
        return chat.SendChatResponse(message=await self.book.send(auth.token_from(context), request))

    async def WatchChat(self, request: chat.WatchChatRequest, context) -> None:
        await self.book.watch(auth.token_from(context), request, context.write, client_of(context))

    async def ListChat(self, request: chat.ListChatRequest, context) -> chat.ListChatResponse:
        messages = await self.book.history(auth.token_from(context), request.table_id, request.channel)
        return chat.ListChatResponse(messages=messages)

    async def MutePlayer(self, request: chat.MutePlayerRequest, context) -> chat.MutePlayerResponse:
        return await self.book.mute(auth.token_from(context), request)

    async def ReportChat(self, request: chat.ReportChatRequest, context) -> chat.ReportChatResponse:
        return await self.book.report(auth.token_from(context), request)

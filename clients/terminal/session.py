"""The client's side of the public gateway API: tables, seats, views, actions, events.

Everything here is game-agnostic. Seat tokens are saved to a file per table so that a
player can rejoin their seat after a restart (``--rejoin TABLE_ID``).
"""

import asyncio
import json
import os
import threading
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass
from pathlib import Path

import grpc
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.any_pb2 import Any
from google.protobuf.message import Message
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from clients.terminal import language
from clients.terminal.words import N_, _
from common import auth, defaults, settings
from common.channels import balanced_channel
from common.errors import reason_of
from common.ratings import participant
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc, sessions_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import sessions_pb2 as ss
from tavola.rules.v1 import rules_pb2

# Why a call failed, in words a player understands (the gateway's reasons, docs/clients.md#errors).
REASONS = {
    "ILLEGAL_ACTION": N_("that action is not legal now"),
    "NOT_YOUR_DECISION": N_("it is not your decision now"),
    "VERSION_MISMATCH": N_("the table moved on before your action arrived"),
    "CONTENTION": N_("the table was busy"),
    "TABLE_FINISHED": N_("the game is already over"),
    "TABLE_NOT_STARTED": N_("the game has not started yet"),
    "TOKEN_REVOKED": N_("your seat was handed to a bot (your decision time ran out)"),
    "SEAT_REJOINED": N_("your seat was taken up again on another device"),
    "SEAT_SIGNED_OUT": N_("your player signed out everywhere: rejoin the table to play it here"),
    "PLAYER_TOKEN_REVOKED": N_("your player token was replaced (signed out everywhere)"),
    "TOKEN_NOT_FOR_TABLE": N_("the saved seat token is not one of this table's"),
    "TABLE_NOT_FOUND": N_("there is no such table (it may have expired)"),
    "TABLE_FULL": N_("every seat of that table is taken"),
    "TABLE_IN_PROGRESS": N_("that table has already started"),
}


# A seat this client held and no longer does: why, in words; the client then watches on.
SEAT_LOST = {
    "TOKEN_REVOKED": N_("Your seat was handed to a bot: your decision time ran out."),
    "SEAT_REJOINED": N_("You took this seat up again on another device; it is played there now."),
    "SEAT_SIGNED_OUT": N_("Your player signed out everywhere: to play on here, rejoin the table with the new token."),
}


def explain(error: grpc.RpcError) -> str:
    """A failed call in words, with the gateway's own message."""
    reason = reason_of(error)
    if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) and not reason:
        return _("the gateway does not answer")
    words = _(REASONS[reason]) if reason in REASONS else None
    details = error.details() or ""
    if words:
        return f"{words} ({details})" if details and details.lower() != words else words
    return details or f"{error.code().name} {reason}".strip()


def default_gateway() -> str:
    """TAVOLA_GATEWAY, else the loopback port make run uses (TAVOLA_PORT, default 50051)."""
    if settings.optional_text("TAVOLA_GATEWAY"):
        return settings.text("TAVOLA_GATEWAY")
    return f"127.0.0.1:{settings.port('TAVOLA_PORT', defaults.GATEWAY_PORT)}"


def state_dir() -> Path:
    """Where seat tokens are kept: TAVOLA_CLIENT_DIR, else the user's state directory."""
    explicit = settings.text("TAVOLA_CLIENT_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "tavola" / "seats"


@dataclass
class SavedSeat:
    table_id: str
    seat: int
    token: str
    gateway: str
    game_id: str

    def save(self) -> Path:
        folder = state_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.table_id}.json"
        path.write_text(json.dumps(asdict(self)))
        path.chmod(0o600)  # the token acts for the seat
        return path

    @classmethod
    def load(cls, table_id: str) -> "SavedSeat":
        path = state_dir() / f"{table_id}.json"
        try:
            return cls(**json.loads(path.read_text()))
        except FileNotFoundError:
            raise LookupError(f"no saved seat for table {table_id} in {state_dir()}") from None


class Decoder:
    """Decodes the game messages in Any fields: with the generated code this client has,
    else with descriptors the gateway serves through reflection (a game it never saw)."""

    def __init__(self, address: str):
        self.address = address
        self._reflected: descriptor_pool.DescriptorPool | None = None
        self._channel: grpc.Channel | None = None
        self._classes: dict[str, type[Message] | None] = {}

    def message_class(self, full_name: str) -> type[Message] | None:
        if full_name not in self._classes:
            self._classes[full_name] = self._find(full_name)
        return self._classes[full_name]

    def _find(self, full_name: str) -> type[Message] | None:
        try:
            return message_factory.GetMessageClass(descriptor_pool.Default().FindMessageTypeByName(full_name))
        except KeyError:
            pass
        try:
            if self._reflected is None:
                self._channel = balanced_channel(self.address)
                self._reflected = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(self._channel))
            return message_factory.GetMessageClass(self._reflected.FindMessageTypeByName(full_name))
        except (KeyError, grpc.RpcError):
            return None

    def decode(self, packed: Any) -> Message | None:
        if not packed.type_url:
            return None
        cls = self.message_class(packed.type_url.rsplit("/", 1)[-1])
        if cls is None:
            return None
        message = cls()
        message.ParseFromString(packed.value)
        return message

    def close(self) -> None:
        if self._channel is not None:
            self._channel.close()


@dataclass
class Snapshot:
    """What the client's seat (or a spectator) sees now."""

    table: gw.Table
    view: Any
    must_decide: bool
    legal_actions: list[rules_pb2.LegalAction]


class Session:
    """One seat at one table (or a spectator when ``seat`` is None).

    Calls run the blocking gRPC stubs in worker threads, so that the client's event loop
    stays free and no gRPC object is bound to one loop."""

    def __init__(self, address: str):
        self.address = address
        # round_robin: a target that names several gateways (ipv4:a,b or dns:/// of many) spreads calls
        self.channel = language.in_language(balanced_channel(address))  # the reader's language on every call
        self.stub = gateway_pb2_grpc.GatewayServiceStub(self.channel)
        self.players = players_pb2_grpc.PlayerServiceStub(self.channel)
        self.sessions = sessions_pb2_grpc.SessionServiceStub(self.channel)
        # The seat's newest view, pushed by its session (Follow) or answered by SubmitAction:
        # what snapshot shows, with no GetView a move.
        self.latest: Snapshot | None = None
        self.table_id = ""
        self.seat: int | None = None
        self.token = ""
        self.game: rules_pb2.GameDescription | None = None
        self.saved_path: Path | None = None
        self._streams: list = []

    @property
    def metadata(self):
        return auth.metadata(self.token) if self.token else None

    async def _call(self, method, request, **kwargs):
        return await asyncio.to_thread(method, request, **kwargs)

    async def close(self) -> None:
        for stream in self._streams:
            stream.cancel()
        self.channel.close()

    async def describe(self, game_id: str) -> rules_pb2.GameDescription:
        games = (await self._call(self.stub.ListGames, gw.ListGamesRequest(), timeout=5)).games
        for game in games:
            if game.game_id == game_id:
                self.game = game
                return game
        hosted = ", ".join(game.game_id for game in games)
        raise LookupError(f"the gateway hosts no game {game_id!r} (it hosts: {hosted})")

    async def create(
        self,
        game_id: str,
        players: int,
        bots: list[str],
        options: dict[str, str],
        name: str,
        timer: gw.DecisionTimer | None = None,
        seed: int | None = None,
    ) -> None:
        """A new table: this client at seat 0, bots at the others (the last bot repeats).
        ``seed``: a table in replay mode with that seed (the gateway uses a seed as given only
        in replay mode; otherwise it would mix it with its own entropy and fix nothing)."""
        await self.describe(game_id)
        bots = bots or ["ismcts"]
        request = gw.CreateTableRequest(
            game_id=game_id,
            player_count=players,
            options=options,
            bot_seats=[gw.BotSeat(seat=seat, bot=bots[min(seat - 1, len(bots) - 1)]) for seat in range(1, players)],
            auto_start=True,
            decision_timer=timer,
        )
        if seed is not None:
            request.seed = seed
            request.replay_mode = True
        table = (await self._call(self.stub.CreateTable, request, timeout=10)).table
        await self._take(table.table_id, 0, name)

    async def peek(self, table_id: str) -> gw.Table:
        """The table before sitting at it (is it in replay mode?)."""
        table = await self._table(table_id)
        await self.describe(table.game_id)
        return table

    async def join(self, table_id: str, name: str) -> None:
        """Takes the first free seat of an open table; starts it when it is the last."""
        table = await self._table(table_id)
        await self.describe(table.game_id)
        await self._take(table_id, None, name)
        await self._start_when_full(table_id)

    async def _start_when_full(self, table_id: str) -> bool:
        """Starts an open table whose seats are all taken; False while it waits for players."""
        table = await self._table(table_id)
        if table.status != gw.TABLE_STATUS_OPEN:
            return True
        if not all(seat.taken for seat in table.seats):
            return False
        try:
            request = gw.StartTableRequest(table_id=table_id)
            await self._call(self.stub.StartTable, request, metadata=self.metadata, timeout=10)
        except grpc.RpcError as error:
            if reason_of(error) != "TABLE_IN_PROGRESS":  # auto_start got there first
                raise
        return True

    async def rejoin(self, saved: SavedSeat) -> None:
        """Back in a saved seat: an invitation accepted or quick play's seat may be at a table
        that has not begun (started here once full, else waited for, as after a join)."""
        self.table_id, self.seat, self.token = saved.table_id, saved.seat, saved.token
        await self.describe(saved.game_id)
        if await self._start_when_full(saved.table_id):
            await self.snapshot()  # checks the token now rather than at the first action

    async def spectate(self, table_id: str) -> None:
        table = await self._table(table_id)
        await self.describe(table.game_id)
        self.table_id = table_id

    async def replay_only(self, table_id: str, seat: int | None) -> None:
        """Reads a table's replay without taking part: as a spectator, as ``seat`` (anyone
        may after the end), or as the seat saved for this table (with its token, also
        while the game runs)."""
        table = await self._table(table_id)
        await self.describe(table.game_id)
        self.table_id = table_id
        try:
            saved = SavedSeat.load(table_id)
        except LookupError:
            saved = None
        if saved is not None and seat in (None, saved.seat):
            self.seat, self.token = saved.seat, saved.token
        else:
            self.seat = seat

    async def replay(self) -> gw.GetReplayResponse:
        """The table's log as this seat (or a spectator) saw it, with its view at every step."""
        request = gw.GetReplayRequest(table_id=self.table_id, seat=self.seat, with_views=True)
        return await self._call(self.stub.GetReplay, request, metadata=self.metadata, timeout=120)

    async def _table(self, table_id: str) -> gw.Table:
        return (await self._call(self.stub.GetTable, gw.GetTableRequest(table_id=table_id), timeout=10)).table

    async def _take(self, table_id: str, seat: int | None, name: str) -> None:
        request = gw.TakeSeatRequest(table_id=table_id, display_name=name)
        if seat is not None:
            request.seat = seat
        taken = await self._call(self.stub.TakeSeat, request, timeout=10)
        self.table_id, self.seat, self.token = table_id, taken.seat, taken.seat_token
        assert self.game is not None
        self.saved_path = SavedSeat(table_id, taken.seat, taken.seat_token, self.address, self.game.game_id).save()

    async def why_seat_lost(self) -> str:
        """Why this client's seat token holds no seat any more (GetView answered
        TOKEN_NOT_FOR_TABLE before the event stream could tell): a key of SEAT_LOST."""
        table = await self._table(self.table_id)
        seat = self.seat
        if seat is not None and seat < len(table.seats) and table.seats[seat].kind == gw.SEAT_KIND_BOT:
            return "TOKEN_REVOKED"
        return "SEAT_REJOINED"

    async def snapshot(self) -> Snapshot:
        if self.seat is None:
            reply = await self._call(self.stub.GetTable, gw.GetTableRequest(table_id=self.table_id), timeout=10)
            return Snapshot(reply.table, reply.spectator_view, False, [])
        if self.latest is not None:
            return self.latest
        request = gw.GetViewRequest(table_id=self.table_id)
        reply = await self._call(self.stub.GetView, request, metadata=self.metadata, timeout=10)
        self._keep(reply)
        return Snapshot(reply.table, reply.view, reply.must_decide, list(reply.legal_actions))

    def _keep(self, reply: gw.GetViewResponse) -> None:
        """Keeps a view of the seat, unless one of a newer version is kept already."""
        if self.latest is None or reply.table.version >= self.latest.table.version:
            self.latest = Snapshot(reply.table, reply.view, reply.must_decide, list(reply.legal_actions))

    async def ratings(self, table: gw.Table) -> dict[int, str]:
        """Each seat's rating at the table's game ("1523±210"), for the seats whose player,
        or bot, has one (GetPlayer); nothing for the others, nor from a gateway without
        PlayerService."""
        pages: dict[str, pl.GetPlayerResponse | None] = {}
        found: dict[int, str] = {}
        for seat in table.seats:
            who = participant(seat)
            if who is None:
                continue
            if who not in pages:
                request = pl.GetPlayerRequest(player_id=who, recent_tables=0)
                try:
                    pages[who] = await self._call(self.players.GetPlayer, request, timeout=5)
                except grpc.RpcError:
                    pages[who] = None
            page = pages[who]
            rated = [r for r in page.ratings if r.game_id == table.game_id] if page else []
            if rated:
                found[seat.seat] = f"{rated[0].rating:.0f}±{rated[0].uncertainty:.0f}"
        return found

    async def submit(self, action: Any, version: int) -> gw.SubmitActionResponse:
        request = gw.SubmitActionRequest(
            table_id=self.table_id,
            action=action,
            expected_version=version,
            request_id=f"terminal-{uuid.uuid4().hex}",
        )
        response = await self._call(self.stub.SubmitAction, request, metadata=self.metadata, timeout=10)
        if response.HasField("view"):
            self._keep(response.view)
        return response

    async def events(self, after_seq: int = 0) -> AsyncIterator[gw.TableEvent]:
        """The seat's (or the public) events from after_seq on, live until the game ends.
        A thread reads the stream and hands each event to the event loop."""
        if self.seat is None:
            spectate = gw.SpectateTableRequest(table_id=self.table_id, after_seq=after_seq, batched=True)
            stream = self.stub.SpectateTable(spectate)
        else:  # the seat's session: its events, and its new view with them
            request = ss.FollowRequest(table_id=self.table_id, after_seq=after_seq)
            stream = self.sessions.Follow(request, metadata=self.metadata)
        self._streams.append(stream)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()

        def pump() -> None:
            try:
                for message in stream:  # batched: a command's events in one message
                    if isinstance(message, ss.FollowResponse) and message.HasField("view"):
                        loop.call_soon_threadsafe(self._keep, message.view)
                    for event in message.events:
                        loop.call_soon_threadsafe(queue.put_nowait, event)
                loop.call_soon_threadsafe(queue.put_nowait, None)
            except grpc.RpcError as error:
                self.latest = None  # the seat's view is read afresh (and tells a lost seat)
                loop.call_soon_threadsafe(queue.put_nowait, error)
            except RuntimeError:  # the loop closed first: the client is gone
                pass

        threading.Thread(target=pump, name="table-events", daemon=True).start()
        try:
            while True:
                item = await queue.get()
                if item is None:
                    return
                if isinstance(item, grpc.RpcError):
                    raise item
                yield item
        finally:
            stream.cancel()
            self._streams.remove(stream)

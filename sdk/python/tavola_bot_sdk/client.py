"""A bot's seat at a tavola table, through the public gateway only.

A bot author writes ``decide(view, legal_actions) -> action``; ``play`` does the rest: it
opens the seat's session (``SessionService.Play``: the seat's actions in, and after every
move at the table its events and new view pushed; opened again after the last event seen
when the stream breaks), and when the seat must decide, calls ``decide`` with the game's
view (decoded into the game's own message, e.g. ``tavola.borgia.v1.View``) and the legal
actions (``tavola.rules.v1.LegalAction``: a ``label`` and the ``action``), and sends the
one it returns on the session, at the version it decided on, under a request id of that
seat and version, so a retry changes nothing twice. An action refused because the table
moved on meanwhile (``ABORTED``) is simply decided again on the newer view.
"""

import queue
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import any_pb2, descriptor_pool, message_factory

# Every game's messages, so views and actions decode into them.
from tavola.borgia.v1 import borgia_pb2  # noqa: F401
from tavola.gateway.v1 import gateway_pb2, gateway_pb2_grpc, sessions_pb2, sessions_pb2_grpc
from tavola.mortadella.v1 import mortadella_pb2  # noqa: F401
from tavola.pecunia.v1 import pecunia_pb2  # noqa: F401
from tavola.rules.v1 import rules_pb2

LegalAction = rules_pb2.LegalAction
Decide = Callable[[Any, Sequence[rules_pb2.LegalAction]], rules_pb2.LegalAction]

# Calls the gateway answers at once; streams are long-lived.
CALL_TIMEOUT = 30.0
RETRIED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


class BadDecision(ValueError):
    """``decide`` returned something that is not one of the legal actions it was given."""


class Refused(RuntimeError):
    """The gateway refused an action of the session for another reason than a table that
    moved on: ``code`` (a grpc.StatusCode) and its message."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(f"{code.name}: {message}")
        self.code = code


def _status(data: bytes) -> tuple[grpc.StatusCode, str]:
    """A serialized google.rpc.Status's code (field 1) and message (field 2)."""
    code, message, at = 0, "", 0

    def varint() -> int:
        nonlocal at
        value, shift = 0, 0
        while True:
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    while at < len(data):
        key = varint()
        if key & 7 == 0:
            value = varint()
            code = value if key >> 3 == 1 else code
        elif key & 7 == 2:
            size = varint()
            if key >> 3 == 2:
                message = data[at : at + size].decode("utf-8", "replace")
            at += size
        else:
            break  # no other wire type in a Status's fields before its details
    known = {status.value[0]: status for status in grpc.StatusCode}
    return known.get(code, grpc.StatusCode.UNKNOWN), message


def unpack(packed: any_pb2.Any) -> Any:
    """The message an Any holds, decoded into its own type; the Any itself when this SDK
    does not know the type (a game newer than it)."""
    name = packed.TypeName()
    try:
        descriptor = descriptor_pool.Default().FindMessageTypeByName(name)
    except KeyError:
        return packed
    message = message_factory.GetMessageClass(descriptor)()
    packed.Unpack(message)
    return message


@dataclass(frozen=True)
class Result:
    """How a table ended for the seat this bot played."""

    table_id: str
    seat: int
    winners: tuple[int, ...]
    summary: str
    decisions: int

    @property
    def won(self) -> bool:
        return self.seat in self.winners


class Client:
    """A connection to a tavola gateway (``host:port``; TLS with ``secure=True``)."""

    def __init__(self, address: str, secure: bool = False) -> None:
        credentials = grpc.ssl_channel_credentials() if secure else None
        self.channel = grpc.secure_channel(address, credentials) if credentials else grpc.insecure_channel(address)
        self.stub = gateway_pb2_grpc.GatewayServiceStub(self.channel)
        self.sessions = sessions_pb2_grpc.SessionServiceStub(self.channel)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.channel.close()

    def games(self) -> list[rules_pb2.GameDescription]:
        return list(self.stub.ListGames(gateway_pb2.ListGamesRequest(), timeout=CALL_TIMEOUT).games)

    def bots(self, game_id: str = "") -> list[gateway_pb2.BotDescription]:
        return list(self.stub.ListBots(gateway_pb2.ListBotsRequest(game_id=game_id), timeout=CALL_TIMEOUT).bots)

    def new_table(
        self,
        game_id: str,
        opponents: Iterable[str],
        options: dict[str, str] | None = None,
        seat: int = 0,
        name: str = "bot",
    ) -> "Seat":
        """A table of ``game_id`` with this bot at ``seat`` and the platform's bots
        ``opponents`` (e.g. ``["ismcts"]``) at the others, started as soon as the seat is
        taken; the seat, ready to ``play``."""
        others = list(opponents)
        players = len(others) + 1
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} of a table of {players}")
        bot_seats = [s for s in range(players) if s != seat]
        created = self.stub.CreateTable(
            gateway_pb2.CreateTableRequest(
                game_id=game_id,
                player_count=players,
                options=options or {},
                bot_seats=[gateway_pb2.BotSeat(seat=s, bot=bot) for s, bot in zip(bot_seats, others, strict=True)],
                auto_start=True,
            ),
            timeout=CALL_TIMEOUT,
        )
        return self.take_seat(created.table.table_id, seat, name)

    def take_seat(self, table_id: str, seat: int | None = None, name: str = "bot") -> "Seat":
        """A seat at an open table (the first free one when ``seat`` is None)."""
        taken = self.stub.TakeSeat(
            gateway_pb2.TakeSeatRequest(table_id=table_id, seat=seat, display_name=name), timeout=CALL_TIMEOUT
        )
        return Seat(self, table_id, taken.seat, taken.seat_token)


@dataclass
class Seat:
    """A seat this bot holds: its table, number and secret token."""

    client: Client
    table_id: str
    seat: int
    token: str

    @property
    def metadata(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.token}"),)

    def view(self) -> gateway_pb2.GetViewResponse:
        return self.client.stub.GetView(
            gateway_pb2.GetViewRequest(table_id=self.table_id), metadata=self.metadata, timeout=CALL_TIMEOUT
        )

    def play(self, decide: Decide, retry_for: float = 60.0) -> Result:
        """Plays the seat to the end of the game with ``decide``; how it ended. A gateway
        that cannot be reached for ``retry_for`` seconds in a row ends it with its error."""
        last_seq, decisions, failing_since = 0, 0, None
        while True:
            outbox: queue.Queue = queue.Queue()
            opening = sessions_pb2.FollowRequest(table_id=self.table_id, after_seq=last_seq)
            outbox.put(sessions_pb2.PlayRequest(open=opening))
            updates = self.client.sessions.Play(iter(outbox.get, None), metadata=self.metadata)
            view: gateway_pb2.GetViewResponse | None = None
            pending, decided_at = False, -1
            try:
                for update in updates:
                    failing_since = None
                    if update.events:
                        last_seq = max(last_seq, update.events[-1].seq)
                    if update.answers:
                        pending = False
                        if update.error:
                            code, message = _status(update.error)
                            if code != grpc.StatusCode.ABORTED:  # ABORTED: the table moved on
                                raise Refused(code, message)
                    if update.HasField("view"):
                        view = update.view
                    if view is None:
                        continue
                    table = view.table
                    if table.status == gateway_pb2.TABLE_STATUS_FINISHED:
                        return Result(
                            self.table_id, self.seat, tuple(table.outcome.winners), table.outcome.summary, decisions
                        )
                    if pending or not view.must_decide or table.version == decided_at:
                        continue
                    outbox.put(sessions_pb2.PlayRequest(action=self._decision(decide, view)))
                    pending, decided_at = True, table.version
                    decisions += 1
                # The stream ended without the last view (the game was over already).
                response = self.view()
                outcome = response.table.outcome
                return Result(self.table_id, self.seat, tuple(outcome.winners), outcome.summary, decisions)
            except grpc.RpcError as error:
                if error.code() not in RETRIED:
                    raise
                failing_since = failing_since or time.monotonic()
                if time.monotonic() - failing_since > retry_for:
                    raise
                time.sleep(0.5)
            finally:
                outbox.put(None)
                updates.cancel()

    def _decision(self, decide: Decide, view: gateway_pb2.GetViewResponse) -> sessions_pb2.SessionAction:
        """``decide``'s choice on the view, as the session's action at its version."""
        legal = list(view.legal_actions)
        choice = decide(unpack(view.view), legal)
        if not any(choice is option or choice == option for option in legal):
            raise BadDecision(f"decide returned {str(choice)[:200]!r}, not one of its {len(legal)} legal actions")
        version = view.table.version
        return sessions_pb2.SessionAction(
            id=version + 1,
            action=choice.action,
            expected_version=version,
            request_id=f"sdk-{self.seat}-{version}",
        )

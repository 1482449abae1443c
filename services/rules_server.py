"""The generic rules service: wraps any game's pure engine and codec behind the
tavola.rules.v1.RulesService contract. Stateless: every call carries the whole state.

Run one game:  python -m services.rules_server borgia
(environment: TAVOLA_HOST, TAVOLA_PORT, TAVOLA_PORT_FILE, TAVOLA_METRICS_PORT, TAVOLA_LOG_LEVEL,
TAVOLA_GC_THRESHOLD)
"""

import argparse
import asyncio
import contextlib
import functools
import time
from collections.abc import Callable
from typing import Any, cast

import grpc
import structlog
from google.protobuf import any_pb2, message_factory
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import DecodeError, Message
from prometheus_client import Histogram

from common import generated, settings, tracing
from common import logging as tavola_logging
from common.errors import ApiError, abort
from common.metrics import serve_from_env
from common.phrase_wire import to_proto
from common.phrases import po_texts
from common.server import Server, collect_less, listen_address, serve_until_signal
from common.settings import exit_on_bad_config
from services.engine.api import Game, parse_options
from services.engine.errors import EngineError, IllegalAction, InvalidConfig, MalformedAction, NotYourDecision
from services.registry import game_ids, get_game, rules_port
from tavola.rules.v1 import rules_pb2, rules_pb2_grpc

log = structlog.get_logger()

LATENCY = Histogram(
    "tavola_rules_request_seconds",
    "Time a rules service takes to answer, by game, method and status code",
    ["game", "method", "code"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1),
)

# Legal actions kept packed, per rules service: a game's distinct actions seen lately.
LEGAL_CACHE_SIZE = 4096
# States this service sent lately, by their bytes: the next call about a table brings back
# the state its last ApplyAction sent, which then needs no decoding.
STATE_CACHE_SIZE = 2048

# The one place where engine errors become status codes.
_STATUS_OF_ERROR: dict[type[EngineError], grpc.StatusCode] = {
    InvalidConfig: grpc.StatusCode.INVALID_ARGUMENT,
    MalformedAction: grpc.StatusCode.INVALID_ARGUMENT,
    NotYourDecision: grpc.StatusCode.FAILED_PRECONDITION,
    IllegalAction: grpc.StatusCode.FAILED_PRECONDITION,
}


def api_error(error: EngineError) -> ApiError:
    code = next(
        (code for kind, code in _STATUS_OF_ERROR.items() if isinstance(error, kind)),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    return ApiError(code, error.reason, str(error))


def rpc(method):
    """Errors become statuses here: engine and request errors with their reason, anything
    unexpected as INTERNAL with a generic message (the traceback goes to the JSON log only)."""

    @functools.wraps(method)
    async def handler(self, request, context):
        started = time.perf_counter()
        code = "UNKNOWN"  # an abort raised by the method itself
        try:
            response = await method(self, request, context)
            code = "OK"
            return response
        except EngineError as error:
            failure = api_error(error)
            code = failure.code.name
            await abort(context, failure)
        except ApiError as error:
            code = error.code.name
            await abort(context, error)
        except grpc.aio.AbortError:
            raise
        except Exception:
            code = "INTERNAL"
            log.error("internal_error", method=method.__name__, exc_info=True)
            await abort(context, ApiError(grpc.StatusCode.INTERNAL, "INTERNAL", "the rules service failed"))
        finally:
            # The histogram of each code looked up once (labels() takes a lock each time).
            key = (self.engine.info.game_id, code)
            child = latency.get(key)
            if child is None:
                child = latency[key] = LATENCY.labels(key[0], method.__name__, code)
            child.observe(time.perf_counter() - started)

    latency: dict[tuple[str, str], Histogram] = {}  # this method's, by game and code
    return handler


def _descriptor(message_type: type[Message]) -> Descriptor:
    # The stubs type DESCRIPTOR as the pure-Python or the upb descriptor; with either backend it
    # is an instance of descriptor.Descriptor.
    return cast(Descriptor, message_type.DESCRIPTOR)


TYPE_URL_PREFIX = "type.tavola.dev/"


def _pack(message: Message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message, type_url_prefix=TYPE_URL_PREFIX)
    return packed


def _packer(codec: Any, kind: str, message_type: Descriptor) -> Callable[[Any], any_pb2.Any]:
    """Engine value -> its message packed in an Any: straight from the serialized message
    when the codec writes one itself (``<kind>_to_bytes``, as the derived codec does), rather
    than building the message only to serialize it."""
    to_bytes = getattr(codec, f"{kind}_to_bytes", None)
    if to_bytes is None:
        to_proto = getattr(codec, f"{kind}_to_proto")
        return lambda value: _pack(to_proto(value))
    type_url = TYPE_URL_PREFIX + message_type.full_name
    return lambda value: any_pb2.Any(type_url=type_url, value=to_bytes(value))


def _option_text(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


class RulesServicer(rules_pb2_grpc.RulesServiceServicer):
    def __init__(self, game: Game):
        self.engine = game.engine
        self.codec = game.codec
        self.words = game.words
        # Each legal action's entries: without its label phrase, and with it.
        self._legal_cache: dict[object, tuple[bytes, bytes]] = {}
        self._packed_actions: dict[bytes, object] = {}  # legal actions by their packed bytes
        self._labels: dict[object, str] = {}  # legal actions' labels, told once (as _legal_cache)
        self._states: dict[bytes, object] = {}
        # Set as the server stops: an ApplyActions stream ends after the message at hand.
        self.stopping = False
        self._open_streams: set[asyncio.Queue] = set()  # each open stream's queue of answers
        folder = self.words.catalog if self.words is not None else None  # the game's words, as data
        self.catalogs = (
            [rules_pb2.MessageCatalog(locale=locale, po=po) for locale, po in po_texts(folder)] if folder else []
        )
        info = self.engine.info
        self.description = rules_pb2.GameDescription(
            game_id=info.game_id,
            display_name=info.display_name,
            summary=info.summary,
            min_players=info.min_players,
            max_players=info.max_players,
            options=[
                rules_pb2.GameOption(
                    name=spec.name,
                    description=spec.description,
                    kind=f"OPTION_KIND_{spec.kind.upper()}",  # the enum's label; protobuf maps it
                    default_value=spec.default,
                    choices=spec.choices,
                    minimum=spec.minimum,
                    maximum=spec.maximum,
                )
                for spec in info.options
            ],
            action_type=self.codec.action_type().DESCRIPTOR.full_name,
        )
        # Every game's proto file declares GameState, View and Event beside its Action.
        game_file = _descriptor(self.codec.action_type()).file
        self.state_descriptor = game_file.message_types_by_name["GameState"]
        self.state_type = message_factory.GetMessageClass(self.state_descriptor)
        self.description.state_type = self.state_descriptor.full_name
        self.description.view_type = game_file.message_types_by_name["View"].full_name
        self.description.event_type = game_file.message_types_by_name["Event"].full_name
        self._pack_state = _packer(self.codec, "state", self.state_descriptor)
        self._pack_view = _packer(self.codec, "view", game_file.message_types_by_name["View"])
        self._pack_event = _packer(self.codec, "event", game_file.message_types_by_name["Event"])
        self._pack_action = _packer(self.codec, "action", _descriptor(self.codec.action_type()))
        self._action_url = TYPE_URL_PREFIX + self.description.action_type

    # -- helpers ---------------------------------------------------------------------

    def _state(self, packed: any_pb2.Any):
        message = self.state_type()
        if not packed.Is(self.state_descriptor):
            raise ApiError(
                grpc.StatusCode.INVALID_ARGUMENT, "BAD_STATE", f"state must be a {self.description.state_type}"
            )
        # A state this service encoded itself (engine states are values, never changed in place).
        known = self._states.get(packed.value)
        if known is not None:
            return known
        try:
            packed.Unpack(message)
            return self.codec.state_from_proto(message)
        except (DecodeError, ValueError, KeyError, IndexError) as error:
            raise ApiError(grpc.StatusCode.INVALID_ARGUMENT, "BAD_STATE", "state does not decode") from error

    def _packed_state(self, state) -> any_pb2.Any:
        """The state packed for the caller, and kept by its bytes for the next call about it."""
        packed = self._pack_state(state)
        states = self._states
        while len(states) >= STATE_CACHE_SIZE:
            del states[next(iter(states))]  # the oldest
        states[packed.value] = state
        return packed

    def _action(self, packed: any_pb2.Any):
        # A legal action this service packed itself (actions are values, like states).
        if packed.type_url == self._action_url:
            known = self._packed_actions.get(packed.value)
            if known is not None:
                return known
        action_type = self.codec.action_type()
        message = action_type()
        try:
            unpacked = packed.Is(_descriptor(action_type)) and packed.Unpack(message)
        except DecodeError:
            unpacked = False
        if not unpacked:
            raise ApiError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "MALFORMED_ACTION",
                f"action must be a {action_type.DESCRIPTOR.full_name}",
            )
        return self.codec.action_from_proto(message)

    def _status(self, state) -> rules_pb2.GameStatus:
        outcome = self.engine.outcome(state)
        if outcome is None:
            return rules_pb2.GameStatus(deciding_seats=self.engine.deciders(state))
        return rules_pb2.GameStatus(
            finished=True,
            outcome=rules_pb2.GameOutcome(winners=outcome.winners, summary=outcome.summary, scores=outcome.scores),
        )

    def _project(self, into, events, player_count: int) -> None:
        """Each event as the spectators and each seat see it, added to ``into`` (a response's
        repeated field: filled in place, not built apart and copied in), each projection with
        its phrase: the game's words for that viewer, made from that viewer's projection only,
        so they tell no more than its event. A seat gets an entry of its own where its event
        or its phrase differs from the spectators' (a phrase names seats as arguments: "you"
        is the reader's, not an entry of its own)."""
        project = self.engine.project_event
        phrase_of = self.words.event_phrase if self.words is not None else None
        for event in events:
            public = project(event, None)
            entry = into.add()
            public_phrase = None
            if public is not None:
                entry.spectator.CopyFrom(self._pack_event(public))
                if phrase_of is not None:
                    public_phrase = phrase_of(public, None)
                    entry.spectator_phrase.CopyFrom(to_proto(public_phrase))
            for seat in range(player_count):
                seen = project(event, seat)
                said = phrase_of(seen, seat) if phrase_of is not None and seen is not None else None
                if seen == public and said == public_phrase:
                    continue
                seat_event = entry.seats.add(seat=seat)
                if seen is not None:
                    seat_event.event.CopyFrom(self._pack_event(seen))
                    if said is not None and said != public_phrase:
                        seat_event.phrase.CopyFrom(to_proto(said))

    def _legal(self, state, seat: int, phrases: bool = True) -> bytes:
        """The seat's legal actions, each packed in its Any with its label, serialized as the
        legal_actions of a GetViewResponse: a response merges them in (parsing them is several
        times cheaper than copying as many messages in). Actions are values: each one's entry
        is made once and kept (a bounded cache), since packing every legal action of every
        view was a large share of a rules service's CPU. ``phrases``: with each label's
        phrase (for a caller that tells labels in another language; it doubles the bytes)."""
        cache = self._legal_cache
        which = 1 if phrases else 0
        entries = []
        for action in self.engine.legal_actions(state, seat):
            try:
                entry = cache.get(action)
            except TypeError:  # an action that is not hashable: packed every time
                entries.append(self._legal_entry(action)[1][which])
                continue
            if entry is None:
                if len(cache) >= LEGAL_CACHE_SIZE:
                    cache.clear()
                    self._packed_actions.clear()
                    self._labels.clear()
                packed, entry = self._legal_entry(action)
                cache[action] = entry
                self._packed_actions[packed] = action  # for when it comes back to be applied
            entries.append(entry[which])
        return b"".join(entries)

    def _label(self, action) -> str:
        """The action's label: the one its legal entry was made with, else told now."""
        with contextlib.suppress(TypeError):  # an action that is not hashable
            if (label := self._labels.get(action)) is not None:
                return label
        return self.engine.describe_action(action)

    def _legal_entry(self, action) -> tuple[bytes, tuple[bytes, bytes]]:
        """The action's packed bytes, and its entries of a GetViewResponse's legal_actions:
        without its label's phrase, and with it (the gateway tells it in a reader's language)."""
        packed = self._pack_action(action)
        label = self.engine.describe_action(action)
        with contextlib.suppress(TypeError):  # an action that is not hashable: told every time
            self._labels[action] = label
        legal = rules_pb2.LegalAction(action=packed, label=label)
        plain = rules_pb2.GetViewResponse(legal_actions=[legal]).SerializeToString()
        if self.words is None:
            return packed.value, (plain, plain)
        legal.label_phrase.CopyFrom(to_proto(self.words.action_phrase(action)))
        return packed.value, (plain, rules_pb2.GetViewResponse(legal_actions=[legal]).SerializeToString())

    def _fill_view(
        self,
        response: rules_pb2.GetViewResponse,
        state,
        seat: int | None,
        status: rules_pb2.GameStatus,
        phrases: bool = True,
    ) -> rules_pb2.GetViewResponse:
        """``response`` filled in place: a view inside a larger response is not copied in."""
        response.view.CopyFrom(self._pack_view(self.engine.view(state, seat)))
        response.status.CopyFrom(status)
        if seat is not None:
            response.MergeFromString(self._legal(state, seat, phrases))
        return response

    # -- RPCs ------------------------------------------------------------------------

    @rpc
    async def DescribeGame(self, request, context):
        return rules_pb2.DescribeGameResponse(game=self.description, catalogs=self.catalogs)

    @rpc
    async def NewGame(self, request, context):
        options = parse_options(self.engine.info, request.player_count, dict(request.options))
        state, events = self.engine.new_game(request.player_count, dict(request.options), request.seed)
        response = rules_pb2.NewGameResponse(
            state=self._packed_state(state),
            status=self._status(state),
            options={name: _option_text(value) for name, value in options.items()},
        )
        self._project(response.events, events, request.player_count)
        return response

    @rpc
    async def ListLegalActions(self, request, context):
        state = self._state(request.state)
        legal = rules_pb2.GetViewResponse.FromString(self._legal(state, request.seat)).legal_actions
        return rules_pb2.ListLegalActionsResponse(legal_actions=legal)

    @rpc
    async def ApplyAction(self, request, context):
        return self._apply(request, rules_pb2.ApplyActionResponse())

    async def ApplyActions(self, request_iterator, context):
        """ApplyAction for each message of a long-lived stream, answered in order: what
        ApplyAction answers, or the status it would fail with. The stream ends when the
        caller closes it, or (OK) after its current message once the service stops, so
        that the caller opens its next stream on a service that goes on. Messages are read
        and applied by a task of their own, so the next message is applied while the last
        answer is on its way (on a busy host, waiting for each write first made a stream's
        actions wait on each other). The handler is an async generator, the form gRPC's
        interceptors (tracing's among them) expect of a streaming handler."""
        replies: asyncio.Queue[rules_pb2.ApplyActionsResponse | None] = asyncio.Queue()
        reader = asyncio.get_running_loop().create_task(self._answer_stream(request_iterator, replies))
        self._open_streams.add(replies)
        try:
            while (reply := await replies.get()) is not None:
                yield reply
        finally:
            self._open_streams.discard(replies)
            if not reader.done():  # the caller left: nothing more to answer
                reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader

    async def _answer_stream(
        self, request_iterator, replies: "asyncio.Queue[rules_pb2.ApplyActionsResponse | None]"
    ) -> None:
        """Applies each message of a stream, in order, and queues its answer; None once the
        stream is over (the caller closed it, left, or the service is stopping)."""
        game = self.engine.info.game_id
        latency: dict[str, Histogram] = {}  # by code
        try:
            async for message in request_iterator:
                started = time.perf_counter()
                reply = rules_pb2.ApplyActionsResponse(id=message.id)
                try:
                    self._apply(message.request, reply.response)  # filled in place, not copied in
                    code = "OK"
                except (EngineError, ApiError) as error:
                    failure = api_error(error) if isinstance(error, EngineError) else error
                    code = failure.code.name
                    reply.error = failure.to_rpc_status().SerializeToString()
                except Exception:
                    code = "INTERNAL"
                    log.error("internal_error", method="ApplyActions", exc_info=True)
                    failure = ApiError(grpc.StatusCode.INTERNAL, "INTERNAL", "the rules service failed")
                    reply.error = failure.to_rpc_status().SerializeToString()
                replies.put_nowait(reply)
                # Counted as ApplyAction calls, whichever way they came.
                child = latency.get(code)
                if child is None:
                    child = latency[code] = LATENCY.labels(game, "ApplyAction", code)
                child.observe(time.perf_counter() - started)
                if self.stopping:
                    break
        except Exception:  # the stream is gone (its caller left): nothing more to read
            log.info("rules_stream_left", exc_info=True)
        finally:
            replies.put_nowait(None)

    def begin_stopping(self) -> None:
        """As the server stops: each stream ends (OK) after the answers already made, at
        once, rather than when its next message comes or the server's grace runs out (an
        idle stream held a stopping service for the whole grace). A message is applied and
        answered in one step of the event loop, so none is left half done here."""
        self.stopping = True
        for replies in self._open_streams:
            replies.put_nowait(None)

    def _apply(self, request: rules_pb2.ApplyActionRequest, response: rules_pb2.ApplyActionResponse):
        """The action applied, into ``response`` (a stream's reply's: filled in place)."""
        state = self._state(request.state)
        action = self._action(request.action)
        new_state, events = self.engine.apply(state, request.seat, action)
        status = self._status(new_state)
        response.state.CopyFrom(self._packed_state(new_state))
        response.status.CopyFrom(status)
        response.action_label = self._label(action)
        self._project(response.events, events, self.engine.player_count(new_state))
        # The views the caller would ask next (its bot seats'), without a call and a state
        # decoding of their own.
        asked = set(request.view_seats)
        seats = [seat for seat in status.deciding_seats if seat in asked]
        if request.watched_seats:  # seats whose view goes back whether they decide or not
            players = self.engine.player_count(new_state)
            seats += sorted({seat for seat in request.watched_seats if 0 <= seat < players} - set(seats))
        phrases = not request.omit_label_phrases
        for seat in seats:
            self._fill_view(response.views.add(seat=seat).view, new_state, seat, status, phrases)
        return response

    @rpc
    async def GetView(self, request, context):
        state = self._state(request.state)
        seat = request.seat if request.HasField("seat") else None
        if seat is not None and not 0 <= seat < self.engine.player_count(state):
            raise ApiError(grpc.StatusCode.INVALID_ARGUMENT, "BAD_SEAT", f"no seat {seat}")
        phrases = not request.omit_label_phrases
        return self._fill_view(rules_pb2.GetViewResponse(), state, seat, self._status(state), phrases)


async def serve(game_id: str) -> None:
    tavola_logging.configure(f"rules-{game_id}")
    settings.check()
    try:
        game = get_game(game_id)
    except KeyError:
        raise SystemExit(f"no game {game_id!r}; registered games: {', '.join(game_ids())}") from None
    tracing.configure(f"rules-{game_id}")
    serve_from_env()
    server = Server(
        [rules_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name], interceptors=tracing.server_interceptors()
    )
    servicer = RulesServicer(game)
    rules_pb2_grpc.add_RulesServiceServicer_to_server(servicer, server.grpc)
    collect_less()

    async def flush_traces() -> None:
        tracing.shutdown()

    await serve_until_signal(
        server,
        listen_address(rules_port(game_id)),
        f"rules-{game_id}",
        on_stop=flush_traces,
        on_stopping=servicer.begin_stopping,
    )


def main() -> None:
    generated.check()
    parser = argparse.ArgumentParser(description="Serve one game's rules over tavola.rules.v1.RulesService")
    parser.add_argument("game", help="a game id of the registry (the tavola.games entry points)")
    with exit_on_bad_config():  # a bad setting: one line, no traceback
        asyncio.run(serve(parser.parse_args().game))


if __name__ == "__main__":
    main()

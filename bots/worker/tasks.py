"""The bot task: play one decision of one bot seat, through the gateway, like any client.

The task carries ids and the bot's canonical string (``services.bot_specs.canonical``, e.g.
``ismcts:budget_ms=50``). The worker derives the seat's token from that bot's key: given
as TAVOLA_BOT_KEY to a worker of one bot (a third-party author holds nothing more), or
derived from the platform's TAVOLA_BOT_SECRET by the platform's own worker. The gateway
puts the seat's view in the task (the GetViewResponse that seat's token gets at that
version, nothing more), so the worker asks no GetView first; a task without one (the
rules service did not answer the gateway) fetches it. The worker finds the bot in the
registry for the table's game, chooses among its legal actions with an RNG seeded by
(table, seat, version), and submits with request id "bot-<seat>-<version>" and that
expected version. A retried or duplicated task therefore submits under the same id, which
the gateway answers from its idempotency record: it changes nothing twice (and a task
whose version has passed is refused as stale).

A task may play several decisions of its bot at the table: it asks the gateway to
continue (SubmitActionRequest.continue_as_bot) and, when its action leaves a seat of the
same bot to decide, the gateway answers that seat's view instead of sending a task for it,
saving the trip through the broker. A task continues for at most TAVOLA_BOT_CHAIN
decisions (default 1,000; 1: one decision a task); every TAVOLA_BOT_CHAIN_SECONDS
(default 0.25 s) it looks whether a task of a table with people (or a timer) waits in a
queue this worker consumes, and if one does it stops, so that a person's table waits no
longer than that for a worker. All-bot tables wait for each other instead: an auto-started
one is begun by the begin task of its first seat's bot (StartTable with that seat's token,
continuing to its first decision), which a worker takes only when no task of a table under
way waits (common/tasks.py). So a table once begun is played to its end by one task, with
no trip through the broker, and tables finish one after another. A decision continued to
is a task like any other: the gateway set its due time, so the due sweep sends it should
this worker stop; one that meets an unavailable gateway is sent again as its own task.

A strategy that raises or chooses no legal action is logged, and a random legal action is
played instead, so a faulty bot never stalls a table.
"""

import base64
import hashlib
import random
import threading
import time

import grpc
import redis
import structlog

from bots.search import clock
from bots.search.policy import Strategy
from bots.worker import metrics, registry
from bots.worker.app import app, queue_for
from bots.worker.gateway_stream import gateway_actions
from common import auth, settings
from common.channels import balanced_channel
from common.errors import ApiError, reason_of
from common.tasks import ALL_BOT_UNDER_WAY_PRIORITY, BEGIN_TASK, DECIDE_TASK, queue_key
from services.bot_specs import BotError
from services.registry import get_game
from tavola.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from tavola.rules.v1 import rules_pb2

log = structlog.get_logger()

# Each thread of a worker's pool has its own channels and stubs: the calls of one channel
# take its lock to start and to wait, so the threads of a pool sharing one spent a third of
# their time waiting on each other.
_local = threading.local()


def channel(address: str | None = None) -> grpc.Channel:
    """One channel per gateway address (default TAVOLA_GATEWAY) per thread of the worker
    process, opened after the fork; round_robin over every gateway the address resolves to."""
    address = address or gateway_address()
    channels: dict[str, grpc.Channel] = _local.__dict__.setdefault("channels", {})
    if address not in channels:
        channels[address] = balanced_channel(address)
    return channels[address]


def gateway_address() -> str:
    return settings.text("TAVOLA_GATEWAY")


def gateway_stub() -> gateway_pb2_grpc.GatewayServiceStub:
    """One stub per gateway address and thread: making one per task (a callable per method)
    is a noticeable share of a cheap bot's CPU."""
    address = gateway_address()
    stubs: dict[str, gateway_pb2_grpc.GatewayServiceStub] = _local.__dict__.setdefault("stubs", {})
    if address not in stubs:
        stubs[address] = gateway_pb2_grpc.GatewayServiceStub(channel(address))
    return stubs[address]


def platform_secret() -> str:
    return settings.text("TAVOLA_BOT_SECRET")


def bot_key(bot: str) -> str:
    """The key of ``bot`` (a name, or a name with options): TAVOLA_BOT_KEY when this worker
    was given one bot's key, else derived from the platform's secret."""
    return settings.text("TAVOLA_BOT_KEY") or auth.bot_key(platform_secret(), bot)


class GatewayUnavailable(Exception):
    """Retried with backoff: the gateway is restarting or overloaded."""


def chain_limits() -> tuple[int, float]:
    """(decisions, seconds): how far one task continues at its table, and how often it
    looks whether a person's table waits (then it stops)."""
    decisions = settings.integer("TAVOLA_BOT_CHAIN")
    seconds = settings.number("TAVOLA_BOT_CHAIN_SECONDS")
    return max(1, decisions), seconds


_broker: redis.Redis | None = None
_waiting_lists: list[str] | None = None


def _people_lists(bot: str) -> list[str]:
    """The broker lists of the tasks that come before all-bot tables' in the queues this
    worker consumes (tables with people, timers, ratings): each queue's own list."""
    global _waiting_lists
    if _waiting_lists is None:
        prefix = (app.conf.broker_transport_options or {}).get("global_keyprefix", "")
        try:
            consumed = list(app.amqp.queues.consume_from or ())
        except Exception:
            consumed = []
        _waiting_lists = [f"{prefix}{queue_key(queue)}" for queue in consumed or [queue_for(bot)]]
    return _waiting_lists


def people_wait(bot: str) -> bool:
    """Whether a task of a table with people (or a timer, or a rating) waits in a queue this
    worker consumes: a task that continues at an all-bot table (decide) then gives up its
    worker slot. True when the broker cannot be asked: a person never waits on a guess."""
    global _broker
    try:
        if _broker is None:
            _broker = redis.Redis.from_url(app.conf.broker_url)
        with _broker.pipeline(transaction=False) as pipe:
            for name in _people_lists(bot):
                pipe.llen(name)
            return any(pipe.execute())
    except redis.RedisError:
        log.warning("queue_check_failed", exc_info=True)
        return True


def _seeded_rng(table_id: str, seat: int, version: int) -> random.Random:
    digest = hashlib.sha256(f"{table_id}:{seat}:{version}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def strategy_for(bot_text: str, game_id: str, **context: object) -> Strategy | None:
    """The bot's strategy for the game; None (logged) when it cannot be had."""
    try:
        get_game(game_id)
        return registry.make_strategy(bot_text, game_id)
    except BotError as error:
        log.error("bad_bot", reason=error.reason, message=error.message, **context)
    except KeyError:
        log.error("unknown_game", game_id=game_id, **context)
    except Exception:
        log.exception("bot_unavailable", **context)
    return None


def choose(
    strategy: Strategy | None, view: gateway_pb2.GetViewResponse, rng: random.Random, **context: object
) -> tuple[rules_pb2.LegalAction, bool]:
    """(the legal action to submit, whether it is the random fallback). A missing strategy,
    one that raises or one that chooses no legal action is logged and replaced by a random
    legal action: a faulty bot never stalls a table."""
    if strategy is None:
        return rng.choice(list(view.legal_actions)), True
    try:
        choice = strategy(view, rng)
        if isinstance(choice, rules_pb2.LegalAction):
            for option in view.legal_actions:
                if option.action == choice.action:
                    return option, False
        log.error("bot_illegal_choice", choice=str(choice)[:200], **context)
    except Exception:
        log.exception("bot_strategy_failed", **context)
    return rng.choice(list(view.legal_actions)), True


@app.task(
    name=DECIDE_TASK,
    autoretry_for=(GatewayUnavailable,),
    retry_backoff=0.2,
    retry_backoff_max=5,
    max_retries=10,
)
def decide(table_id: str, seat: int, version: int, bot: str, view: str | None = None) -> str:
    # The view the task was sent with, base64 of its bytes (None: asked for below).
    response = gateway_pb2.GetViewResponse.FromString(base64.b64decode(view)) if view is not None else None
    return _play_on(gateway_stub(), bot_key(bot), table_id, seat, version, bot, response)


@app.task(
    name=BEGIN_TASK,
    autoretry_for=(GatewayUnavailable,),
    retry_backoff=0.2,
    retry_backoff_max=5,
    max_retries=10,
)
def begin(table_id: str, seat: int, bot: str) -> str:
    """Begins an all-bot table (this worker has room to play it), then plays on at it as a
    decide task does, from its first decision when a seat of this bot makes it."""
    key = bot_key(bot)
    stub = gateway_stub()
    metadata = auth.metadata(auth.bot_token(key, table_id, seat))
    try:
        started = stub.StartTable(
            gateway_pb2.StartTableRequest(table_id=table_id, continue_as_bot=True), metadata=metadata, timeout=10
        )
    except grpc.RpcError as error:
        if error.code() == grpc.StatusCode.FAILED_PRECONDITION and reason_of(error) == "TABLE_IN_PROGRESS":
            return "stale"  # a copy of the begin task (the due sweep's): the table was begun
        return _refused(error.code(), reason_of(error), table_id, seat)
    if not started.HasField("next_decision"):
        return "begun"  # another bot decides first: the gateway sent its task
    first = started.next_decision
    return _play_on(stub, key, table_id, first.seat, first.table.version, bot, first, own_task=False)


def _play_on(
    stub: gateway_pb2_grpc.GatewayServiceStub,
    key: str,
    table_id: str,
    seat: int,
    version: int,
    bot: str,
    response: gateway_pb2.GetViewResponse | None,
    own_task: bool = True,
) -> str:
    """Plays the decision of ``seat`` at ``version`` (``response``: its view, when known),
    then on at the table while the gateway answers this bot's next decision, within
    chain_limits; what came of the last decision played. ``own_task``: the first decision
    is the task's own (retried with it), not one continued to."""
    decisions, seconds = chain_limits()
    deadline = time.monotonic() + seconds
    result = ""
    for played in range(decisions):
        more = played + 1 < decisions
        if more and time.monotonic() >= deadline:
            # Time's up: on, for another while, unless a person's table waits for a worker.
            more = not people_wait(bot)
            deadline = time.monotonic() + seconds
        try:
            result, response = _play(stub, key, table_id, seat, version, bot, response, more)
        except GatewayUnavailable:
            if played == 0 and own_task:
                raise  # the task is retried
            # A decision continued to: no task was sent for it; it becomes one.
            assert response is not None
            people = any(info.kind == gateway_pb2.SEAT_KIND_HUMAN for info in response.table.seats)
            priority = 0 if people else ALL_BOT_UNDER_WAY_PRIORITY
            decide.apply_async(
                args=[table_id, seat, version, bot], queue=queue_for(bot), priority=priority, countdown=0.2
            )
            return "sent on"
        if response is None:
            return result
        seat, version = response.seat, response.table.version
    return result


def _refused(code: grpc.StatusCode, reason: str, table_id: str, seat: int) -> str:
    """What came of a decision the gateway refused; raises GatewayUnavailable to retry."""
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        raise GatewayUnavailable(str(code))
    if code == grpc.StatusCode.ABORTED:
        return "stale"  # another seat acted first; the new version has its own task
    if code == grpc.StatusCode.FAILED_PRECONDITION and reason == "TABLE_FINISHED":
        return "stale"  # a copy of a task (the due sweep's) that ran after the game ended
    log.error("bot_rejected", table_id=table_id, seat=seat, code=code.name, reason=reason)
    return f"rejected: {reason}"


def _play(
    stub: gateway_pb2_grpc.GatewayServiceStub,
    key: str,
    table_id: str,
    seat: int,
    version: int,
    bot: str,
    response: gateway_pb2.GetViewResponse | None,
    more: bool,
) -> tuple[str, gateway_pb2.GetViewResponse | None]:
    """Plays one decision: (what came of it, the view of the next decision to play when the
    gateway answered one)."""
    token = auth.bot_token(key, table_id, seat)
    metadata = auth.metadata(token)
    try:
        if response is None:
            response = stub.GetView(gateway_pb2.GetViewRequest(table_id=table_id), metadata=metadata, timeout=10)
        if response.table.version != version or not response.must_decide:
            return "stale", None  # a newer task exists for the table's current version
        context = {"table_id": table_id, "seat": seat, "version": version, "bot": bot}
        strategy = strategy_for(bot, response.table.game_id, **context)
        with clock.measure() as effort:
            choice, _ = choose(strategy, response, _seeded_rng(table_id, seat, version), **context)
        metrics.observed_decision(bot, response.table.game_id, effort)
        request = gateway_pb2.SubmitActionRequest(
            table_id=table_id,
            action=choice.action,
            expected_version=version,
            request_id=f"bot-{seat}-{version}",
            continue_as_bot=more,
        )
        actions = gateway_actions(gateway_address())
        submitted = actions.submit(token, request, timeout=10) if actions is not None else None
        if submitted is None:
            submitted = stub.SubmitAction(request, metadata=metadata, timeout=10)
    except grpc.RpcError as error:
        return _refused(error.code(), reason_of(error), table_id, seat), None
    except ApiError as error:  # the same refusals, answered on the stream
        return _refused(error.code, error.reason, table_id, seat), None
    # Debug only: a line per action is a noticeable share of a cheap bot's cost.
    log.debug("bot_acted", table_id=table_id, seat=seat, version=version, label=choice.label)
    return choice.label, submitted.next_decision if submitted.HasField("next_decision") else None

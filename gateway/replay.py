"""GetReplay: a table's log as a seat (or a spectator) saw it, and with views what that
viewer saw at every step.

The log keeps each event as every viewer saw it and the action beside the entries it
made, but no view. The views are rebuilt by replaying the game through its rules service:
``NewGame`` with the table's seed, options and player count (as at the start), then
``ApplyAction`` for each logged action in order, and ``GetView`` for the viewer once per
command (the entries of one command share one version, so one state). The actions are
applied one after the other; the views are asked for alongside, a bounded number at a
time, so a replay costs one rules call per action and one per view, linear in the log.

Who may read which replay is decided by ``logged`` alone (a seat's own replay with its
token while the game runs, any seat's after the end): the views are only added to the
answer it gives, and the replay is checked to end on the table's stored state, through
the viewer's view now, before answering.
"""

import asyncio
from dataclasses import dataclass, field

import grpc
from google.protobuf import any_pb2

from common.errors import RETRY_UNAVAILABLE_SECONDS, ApiError, invalid
from gateway.log_record import StoredEntry
from gateway.quotas import REPLAYS, Client, Quotas
from gateway.reads import TableReads
from gateway.rules import RulesDirectory
from gateway.store import TableStore
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2
from tavola.store.v1 import store_pb2

# GetView calls in flight at once for one replay: enough to hide the round trips, few
# enough that one long replay does not crowd out the tables being played.
VIEWS_IN_FLIGHT = 8
# Replays with views rebuilt at once by one gateway; more wait their turn, so that a
# burst of them costs the rules services a bounded share.
REPLAYS_AT_ONCE = 4
_replaying = asyncio.Semaphore(REPLAYS_AT_ONCE)


def mismatch(table_id: str, message: str) -> ApiError:
    """The log does not replay into the stored game (an engine changed since, or a
    damaged log): said plainly, since no retry will help."""
    return ApiError(grpc.StatusCode.DATA_LOSS, "REPLAY_MISMATCH", message, table_id=table_id)


async def replay(
    reads: TableReads,
    quotas: Quotas,
    table_id: str,
    seat: int | None,
    token: str | None,
    with_views: bool,
    client: Client | None,
) -> gw.GetReplayResponse:
    """``logged``'s answer; with ``with_views``, each step also carries the viewer's view
    at that step's version, and the call counts against ``client``'s quota of replays
    with views (a rules call per logged action)."""
    response = await logged(reads, table_id, seat, token)
    table = response.table
    if not with_views or table.status == gw.TABLE_STATUS_OPEN:
        return response
    if response.view_unavailable:
        raise ApiError(
            grpc.StatusCode.UNAVAILABLE,
            "DEPENDENCY_UNAVAILABLE",
            "a replay with views needs the game's rules service, which is unavailable",
            retry_after=RETRY_UNAVAILABLE_SECONDS,
            table_id=table_id,
        )
    await quotas.charge(REPLAYS, client)
    # The log only grows: read again up to the table's last_seq as the replay above saw
    # it, it is the same log, and replays into the state whose view the answer holds.
    record, _ = await reads.load(table_id)
    entries = [
        entry for entry in await read_whole_log(reads.store, table_id, table.last_seq) if entry.seq <= table.last_seq
    ]
    # Steps committed after the table was read are left out: the next call has them.
    while response.steps and response.steps[-1].seq > table.last_seq:
        response.steps.pop()
    if [step.seq for step in response.steps] != [entry.seq for entry in entries]:
        raise mismatch(table_id, "the table's log changed while it was read")
    async with _replaying:
        views, status = await ViewReplay(reads.rules, table, record.seed, seat).run(entries)
    final = views[-1] if views else None
    if (
        final is None
        or final.SerializeToString() != response.view.SerializeToString()
        or status is None
        or status.finished != (table.status == gw.TABLE_STATUS_FINISHED)
        or list(status.deciding_seats) != list(table.deciding_seats)
    ):
        raise mismatch(table_id, "replaying the log from the table's seed does not reach the table's state")
    for step, view in zip(response.steps, views, strict=True):
        if view is not None:
            step.view.CopyFrom(view)
    return response


async def logged(
    reads: TableReads, table_id: str, seat: int | None, token: str | None, *, seat_checked: bool = False
) -> gw.GetReplayResponse:
    """The log as ``seat`` (None: a spectator) saw it, with the actions it may know:
    its own, and every one once the game is over. While the game runs a seat's replay
    needs that seat's token (``seat_checked``: the caller proved the seat its own way, as a
    chat report does with the seat's player token)."""
    record, _ = await reads.load(table_id)
    table = record.table
    if seat is not None and not 0 <= seat < len(table.seats):
        raise invalid("BAD_SEAT", f"no seat {seat}")
    finished = table.status == gw.TABLE_STATUS_FINISHED
    if seat is not None and not finished and not seat_checked:
        if token is None:
            raise ApiError(
                grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING", "a seat's replay needs its token until the end"
            )
        if reads.seat_of(record, token) != seat:
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED, "TOKEN_NOT_FOR_TABLE", "this token does not hold that seat"
            )
    response = gw.GetReplayResponse(table=table)
    for entry in await read_whole_log(reads.store, table_id, table.last_seq):
        step = response.steps.add(seq=entry.seq)
        data = entry.for_viewer(seat)
        if data:
            step.event.ParseFromString(data)
        if entry.action:
            taken = store_pb2.SeatAction.FromString(entry.action)
            if finished or taken.seat == seat:
                step.actor = taken.seat
                step.action.CopyFrom(taken.action)
    if record.HasField("state"):  # dealt: not an open table, nor one closed unstarted
        view = await reads.rules.view_if_up(table.game_id, rules_pb2.GetViewRequest(state=record.state, seat=seat))
        if view is None:
            response.view_unavailable = True
        else:
            response.view.CopyFrom(view.view)
    return response


async def read_whole_log(store: TableStore, table_id: str, last_seq: int) -> list[StoredEntry]:
    entries: list[StoredEntry] = []
    while not entries or entries[-1].seq < last_seq:
        page = await store.read_log(table_id, entries[-1].seq if entries else 0)
        if not page:
            break
        entries += page
    return entries


@dataclass
class Command:
    """The consecutive log entries one command wrote, and the actions among them."""

    size: int = 0
    version: int | None = None  # None while only entries nobody saw tell of it
    starts_game: bool = False
    actions: list[store_pb2.SeatAction] = field(default_factory=list)
    awaits_random_action: bool = False  # a decision_expired whose random action follows


def _event_of(entry: StoredEntry) -> gw.TableEvent | None:
    """The entry as somebody saw it (every projection carries the version), or None."""
    data = entry.seen()
    return gw.TableEvent.FromString(data) if data else None


def commands(entries: list[StoredEntry]) -> list[Command]:
    """The log cut into commands: by the events' versions, and for an entry nobody saw by
    how commands open (with an action, or a decision_expired whose random action, if any,
    comes next in the same command)."""
    found: list[Command] = []
    for entry in entries:
        event = _event_of(entry)
        current = found[-1] if found else None
        if current is None:
            new = True
        elif event is not None and current.version is not None:
            new = event.version != current.version
        elif entry.action:
            new = not (current.awaits_random_action and not current.actions)
        else:
            new = event is not None and event.HasField("decision_expired")
        if new:
            current = Command()
            found.append(current)
        assert current is not None
        current.size += 1
        if event is not None:
            current.version = event.version
            current.starts_game |= event.HasField("table_started")
            if event.HasField("decision_expired"):
                current.awaits_random_action = event.decision_expired.policy == gw.TIMEOUT_POLICY_RANDOM_ACTION
        if entry.action:
            current.actions.append(store_pb2.SeatAction.FromString(entry.action))
    return found


class ViewReplay:
    """Replays one table's game for one viewer through the rules service."""

    def __init__(self, rules: RulesDirectory, table: gw.Table, seed: int, seat: int | None):
        self.rules = rules
        self.table = table
        self.seed = seed
        self.seat = seat
        self.gate = asyncio.Semaphore(VIEWS_IN_FLIGHT)

    async def _call(self, method: str, request):
        try:
            return await self.rules.call(self.table.game_id, method, request)
        except ApiError as error:
            if error.code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION):
                raise mismatch(
                    self.table.table_id, f"the rules service refuses the logged game ({error.reason}: {error.message})"
                ) from None
            raise

    async def _view(self, state: any_pb2.Any) -> any_pb2.Any:
        async with self.gate:
            request = rules_pb2.GetViewRequest(state=state, seat=self.seat)
            return (await self._call("GetView", request)).view

    async def run(self, entries: list[StoredEntry]) -> tuple[list[any_pb2.Any | None], rules_pb2.GameStatus | None]:
        """The viewer's view at each entry (None before the start) and the last status."""
        table = self.table
        state: any_pb2.Any | None = None
        status: rules_pb2.GameStatus | None = None
        pending: list[asyncio.Task[any_pb2.Any] | None] = []  # one per entry
        view: asyncio.Task[any_pb2.Any] | None = None
        try:
            for command in commands(entries):
                changed = False
                if command.starts_game:
                    dealt = await self._call(
                        "NewGame",
                        rules_pb2.NewGameRequest(
                            player_count=table.player_count, options=dict(table.options), seed=self.seed
                        ),
                    )
                    state, status, changed = dealt.state, dealt.status, True
                for taken in command.actions:
                    if state is None:
                        raise mismatch(table.table_id, "the log holds an action before the game's start")
                    request = rules_pb2.ApplyActionRequest(state=state, seat=taken.seat, action=taken.action)
                    applied = await self._call("ApplyAction", request)
                    state, status, changed = applied.state, applied.status, True
                if changed:
                    assert state is not None
                    view = asyncio.create_task(self._view(state))
                pending += [view] * command.size
            done = {task: await task for task in dict.fromkeys(task for task in pending if task is not None)}
        finally:
            for task in dict.fromkeys(task for task in pending if task is not None):
                if not task.done():
                    task.cancel()
                elif not task.cancelled():
                    task.exception()  # retrieved: a failure after another one is not logged as lost
        return [done[task] if task is not None else None for task in pending], status

"""A seat's moves: its actions (``submit``) and the platform's timer acting for it
(``expire_decision``), through the table core's one commit path (``gateway/commands.py``).

An action's answer carries the acting seat's new view: the rules service sends it with
the applied action (``watched_seats``), with those of the seats whose sessions are open
on this gateway (``gateway/sessions.py``), so neither the seat nor its session asks
GetView after a move.
"""

import hashlib
import hmac
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable

import grpc
import structlog
from google.protobuf import any_pb2

from common import auth
from common.errors import ApiError, invalid
from common.logging import bound
from gateway.clocks import seat_deadline_ns, timed
from gateway.commit import Commit, Idempotency, NothingToDo, Replay, compact_response, replayed, set_deadline
from gateway.limits import MAX_REQUEST_ID
from gateway.reads import TableReads, view_request, view_response
from gateway.rules import RulesDirectory
from gateway.store import RequestKey, TableStore
from gateway.wakeups import next_of_same_bot
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2
from tavola.store.v1 import store_pb2

log = structlog.get_logger()


def left_after(record: store_pb2.TableRecord, seat: int, timeouts_to_leave: int) -> gw.TimeoutPolicy:
    """The timeout policy that applies to the seat's expired decision, counted: the table's,
    except that the seat's ``timeouts_to_leave``-th expiry in a game gives it to a bot (a
    player who times out repeatedly has left)."""
    policy = record.table.decision_timer.policy
    if policy != gw.TIMEOUT_POLICY_RANDOM_ACTION:
        return policy
    counts = record.expired_decisions
    while len(counts) <= seat:
        counts.append(0)
    counts[seat] += 1
    if timeouts_to_leave and counts[seat] >= timeouts_to_leave:
        return gw.TIMEOUT_POLICY_BOT_TAKES_SEAT
    return policy


class Moves:
    """TableCore's seat moves (TableCore inherits them)."""

    store: TableStore
    rules: RulesDirectory
    reads: TableReads
    bot_secret: str
    # The seats of each table with a session open on this gateway (gateway/sessions.py).
    session_seats: dict[str, Counter[int]]
    transact: Callable[..., Awaitable[tuple[store_pb2.TableRecord, object]]]
    bot_seat_digest: Callable[[str, str, int], bytes]
    # A seat that lets this many decisions expire in one game (under the random-action
    # policy) is taken over by a bot, as one that left: its player is scored last (0: never).
    timeouts_to_leave: int = 3

    def watched(self, table_id: str, *seats: int) -> list[int]:
        """``seats`` and the seats with a session here: those whose view a command brings."""
        return sorted(set(seats).union(self.session_seats.get(table_id, ())))

    async def submit(
        self,
        table_id: str,
        token: str,
        action: any_pb2.Any,
        expected_version: int | None,
        request_id: str,
        continue_as_bot: bool = False,
        with_view: bool = True,
    ) -> gw.SubmitActionResponse:
        """``submit_parts``' answer, its view in it."""
        response, view = await self.submit_parts(
            table_id, token, action, expected_version, request_id, continue_as_bot, with_view
        )
        if view:
            response.view.MergeFromString(view)
        return response

    async def submit_parts(
        self,
        table_id: str,
        token: str,
        action: any_pb2.Any,
        expected_version: int | None,
        request_id: str,
        continue_as_bot: bool = False,
        with_view: bool = True,
    ) -> tuple[gw.SubmitActionResponse, bytes]:
        """One seat's action: its answer, and apart the seat's view after it (a
        GetViewResponse's bytes, b'' for none), which a unary answer sends as it is. The
        same request id with the same action answers the first response, whatever
        ``expected_version`` says and however many copies race.

        ``continue_as_bot``: the caller, a bot seat's worker, would play the next decision of
        a seat of the same bot: when the action leaves one to decide, its view is answered
        in ``next_decision`` and no task is sent for it (a bot worker thus plays several
        decisions a task, without a trip through the broker each). Its due time is set as
        for a task: should the worker not play it, the due sweep sends it."""
        if len(request_id) > MAX_REQUEST_ID:
            raise invalid("BAD_REQUEST_ID", f"at most {MAX_REQUEST_ID} characters")
        if not action.type_url:
            raise invalid("ACTION_REQUIRED", "action is required")
        idempotency = None
        if request_id:  # request ids are scoped to the caller's token
            idempotency = Idempotency(key=RequestKey.of(auth.digest(token), request_id))
        applied_label: list[str] = []
        seat_of: list[int] = []
        commits: list[Commit] = []
        views_of: list[int] = []  # the seat whose view the answer carries

        response = gw.SubmitActionResponse()

        async def change(record: store_pb2.TableRecord, commit: Commit, stored) -> store_pb2.StoredResponse | None:
            seat = self.reads.authorise_seat(record, token)
            command = hashlib.sha256(f"{seat}:".encode() + action.SerializeToString()).digest()
            if idempotency is not None:
                idempotency.command_sha256 = command
                if stored is not None:
                    idempotency.check(stored)
                    raise Replay(await replayed(self.store, record, stored))
            self.reads.require_status(record, gw.TABLE_STATUS_IN_PROGRESS)
            if expected_version is not None and expected_version != record.table.version:
                raise ApiError(
                    grpc.StatusCode.ABORTED,
                    "VERSION_MISMATCH",
                    f"the table is at version {record.table.version}, not {expected_version}",
                    expected_version=expected_version,
                    current_version=record.table.version,
                    seat=seat,
                )
            # A bot seat's worker reads no view of its own move (next_decision is its next).
            viewed = with_view and record.table.seats[seat].kind == gw.SEAT_KIND_HUMAN
            views_of[:] = [seat] if viewed else []
            watched = self.watched(table_id, seat) if viewed else self.watched(table_id)
            applied = await commit.apply(self.rules, seat, action, watched)
            applied_label[:] = [applied.action_label]
            seat_of[:] = [seat]
            commits[:] = [commit]
            if continue_as_bot:
                commit.keep_seat = next_of_same_bot(record, seat)
            commit.finish()
            response.Clear()  # a change that runs again (from a load) answers afresh
            response.table.CopyFrom(record.table)
            commit.seen_by(seat, response.events)
            if idempotency is None:
                return None
            return compact_response(command, seat, record.table, len(commit.entries))

        try:
            record, _ = await self.transact(table_id, change, idempotency, recent=True)
        except Replay as replay:
            # The seat's view now (a retry is rare: a read of its own).
            return replay.response, await self.reads.seat_view(table_id, token) if with_view else b""
        # Debug only: an info line per action was a noticeable share of the gateway's CPU.
        log.debug("action_applied", seat=seat_of[0], label=applied_label[0], version=record.table.version)
        commit = commits[0]
        if commit.kept_view is not None:
            response.next_decision.MergeFromString(commit.kept_view)
        return response, await self.view_after(commit, views_of[0]) if views_of else b""

    async def view_after(self, commit: Commit, seat: int) -> bytes:
        """``seat``'s GetViewResponse after the commit, serialized: the one the rules
        service sent with it, else (a service that sends none) asked."""
        table = commit.record.table
        view, phrased = commit.views.get(seat), commit.phrased
        if view is None:
            request = view_request(commit.record.state, seat)
            view, phrased = await self.rules.call(table.game_id, "GetView", request), not request.omit_label_phrases
        return view_response(table, seat, view, seat in table.deciding_seats, phrased)

    async def expire_decision(
        self, table_id: str, seat: int, version: int, token: str
    ) -> tuple[bool, store_pb2.TableRecord]:
        """Applies the table's timeout policy to an overdue decision of a human seat; does
        nothing if the seat decided in time or its deadline has not passed."""
        if not hmac.compare_digest(token, auth.timer_token(self.bot_secret, table_id)):
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED, "NOT_A_TIMER", "only the platform's timers expire decisions"
            )

        async def change(record: store_pb2.TableRecord, commit: Commit, _stored) -> None:
            table = record.table
            overdue = (
                table.status == gw.TABLE_STATUS_IN_PROGRESS
                and table.version == version
                and seat in table.deciding_seats
                and table.seats[seat].kind == gw.SEAT_KIND_HUMAN
                and timed(table)
                and (deadline := seat_deadline_ns(table, seat)) is not None
                and deadline <= time.time_ns()
            )
            if not overdue:
                raise NothingToDo
            policy = left_after(record, seat, self.timeouts_to_leave)
            entry = commit.public(decision_expired=gw.DecisionExpired(seat=seat, policy=policy))
            if policy == gw.TIMEOUT_POLICY_BOT_TAKES_SEAT:
                entry.revoked_seat = seat
                table.seats[seat].kind = gw.SEAT_KIND_BOT
                table.seats[seat].bot = "random"
                record.seat_token_sha256[seat] = self.bot_seat_digest("random", table.table_id, seat)
                set_deadline(record)
                return
            legal = await self.rules.call(
                table.game_id, "ListLegalActions", rules_pb2.ListLegalActionsRequest(state=record.state, seat=seat)
            )
            chooser = random.Random(f"{table.table_id}:{seat}:{table.version}")
            action = chooser.choice(list(legal.legal_actions)).action
            await commit.apply(self.rules, seat, action, self.watched(table_id))

        try:
            record, _ = await self.transact(table_id, change)
            expired = True
        except NothingToDo:
            record, _ = await self.reads.load(table_id)
            expired = False
        with bound(table_id=table_id, seat=seat):
            log.info("decision_timer", expired=expired, version=version)
        return expired, record

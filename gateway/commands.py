"""The table commands: every change to a table, whoever asks for it.

It holds no game knowledge: game state, actions, views and events stay opaque ``Any``
messages that only the rules service reads. Every command follows one path in
``TableCore.transact``: load the record (one Redis trip, with the stored response of the
request id when there is one), authorise, check status and version, ask the rules
service, then commit with one compare-and-set on the version (``gateway/commit.py``).
When another command got there first nothing is written and the loop starts again from a
fresh load, so a retried request finds its stored response before any version check.
After a commit the table is filed by its status and who must act is woken
(``gateway/wakeups.py``).

``TableCore`` also holds the gateway's other rooms, built over the same store and rules
services: the reads (``gateway/reads.py``), the streams (``gateway/streams.py``) and the
wake-ups; a seat's moves are in ``gateway/moves.py``. The gRPC servicers
(``gateway/service.py``, ``gateway/sessions.py``), the timer service and the sweeper are
thin callers of their public methods.
"""

import hmac
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence

import grpc
import structlog

from common import auth
from common.errors import RETRY_CONTENTION_SECONDS, ApiError, failed, invalid
from common.logging import bound
from common.name_rules import skeletons
from common.names import bot_display_name, shown_names
from gateway import metrics
from gateway.bots import BotCatalog
from gateway.commit import (
    Change,
    Commit,
    Idempotency,
    NothingToDo,
    Replay,
    replayed,
    set_deadline,
)
from gateway.commit_script import RatingJobWrite
from gateway.hub import Hub
from gateway.limits import check_table_request
from gateway.log_record import StoredEntry
from gateway.moves import Moves
from gateway.names import NameIndex, name_taken
from gateway.new_tables import draw_seed, new_record
from gateway.publisher import Tasks
from gateway.quotas import CREATE, SEATS, Client, Limits, Quotas
from gateway.reads import INDEX_OF_STATUS, TableReads
from gateway.rules import RulesDirectory
from gateway.store import RequestUsed, TableMissing, TableStore, VersionConflict
from gateway.streams import TableStreams
from gateway.turn_index import TurnIndex
from gateway.turns import Turns
from gateway.wakeups import Wakeups, awaits_begin, next_of_same_bot
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2
from tavola.store.v1 import store_pb2

log = structlog.get_logger()

MAX_RETRIES = 8


class TableCore(Moves):
    def __init__(
        self,
        store: TableStore,
        hub: Hub,
        rules: RulesDirectory,
        bots: BotCatalog,
        bot_secret: str,
        celery_app,
        quotas: Quotas | None = None,
    ):
        self.store = store
        self.hub = hub
        self.rules = rules
        self.bots = bots
        self.bot_secret = bot_secret
        # Unless given, quotas that limit nothing.
        self.quotas = quotas or Quotas(store.redis, store.prefix, Limits(0, 0, 0, 0, 0))
        self.reads = TableReads(store, rules)
        # Registered players' names and the bots' (gateway/names.py): a seat's name must not look like them.
        self.names = NameIndex(store.redis, store.prefix, bots.names())
        self.tasks = Tasks(celery_app)
        self.wakeups = Wakeups(store, rules, self.tasks, bots)
        self.streams = TableStreams(self.reads, hub, self.quotas)
        # The seats with a session open here, by table (gateway/sessions.py): each command at
        # the table brings their views; and the record its last commit here left.
        self.session_seats: dict[str, Counter[int]] = {}
        self.session_records: dict[str, store_pb2.TableRecord] = {}
        # A rated table's finishing commit writes its rating job (gateway/ratings.py), made by
        # ``rating_job``; ``on_rated_finish`` is then called with the record and whether the
        # commit's script wrote the job (a single Redis) or it is still to be written, and
        # answers whether the job is in Redis now.
        self.rating_job: Callable[[store_pb2.TableRecord], RatingJobWrite] | None = None
        self.on_rated_finish: Callable[[store_pb2.TableRecord, bool], Awaitable[bool]] | None = None
        # Where it is each player's turn, written after each commit (a hint for ListMyTables).
        self.turn_index = TurnIndex(store.redis, store.prefix)
        # Tells players the turns a commit begins (gateway/turns.py), when set.
        self.turns: Turns | None = None

    def bot_seat_digest(self, bot: str, table_id: str, seat: int) -> bytes:
        """SHA-256 of a bot seat's token, derived from that bot's own key."""
        return auth.digest(auth.bot_token(auth.bot_key(self.bot_secret, bot), table_id, seat))

    # -- the one commit path ---------------------------------------------------------------

    async def transact(
        self, table_id: str, change: Change, idempotency: Idempotency | None = None, recent: bool = False
    ) -> tuple[store_pb2.TableRecord, object]:
        """Load, change, commit with a compare-and-set; from a fresh load when another
        command won. Returns the committed record and what ``change`` returned (stored
        under the request id when it is a StoredResponse).

        ``recent``: first try from the record this gateway last loaded or committed for the
        table (TableStore.recent), without a load. The compare-and-set tells whether it was
        still the table's, and the commit script refuses a used request id whatever the
        record; should it be outdated, or the change fail on it (a seat that no longer
        decides, a token since revoked), the command starts again from a load, so it
        answers as it would have from one."""
        key = idempotency.key if idempotency else None
        attempts = 0
        while attempts < MAX_RETRIES:
            known = self.store.recent(table_id) if recent else None
            recent = False  # once at most
            from_recent = known is not None
            if known is not None:
                record, stored = known, None
            else:
                attempts += 1
                record, stored = await self.reads.load(table_id, key)
            expected = record.table.version
            commit = Commit(record)
            try:
                result = await change(record, commit, stored)
            except Exception:
                if from_recent:
                    continue
                raise
            to_store = result if key and isinstance(result, store_pb2.StoredResponse) else None
            record = commit.finish()
            written: list[StoredEntry] | None = [] if self.hub.watching(self.store.channel(table_id)) else None
            job = self.rating_job(record) if self.rating_job and commit.finishes_rated else None
            try:
                commit.due_written = await self.store.commit(
                    record, expected, commit.entries, key, to_store, self.wakeups.due_of(record), written, job
                )
            except VersionConflict:
                continue
            except TableMissing:
                if from_recent:
                    continue
                raise
            except RequestUsed as used:
                assert idempotency is not None
                idempotency.check(used.stored)
                current, _ = await self.reads.load(table_id)
                raise Replay(await replayed(self.store, current, used.stored)) from None
            if table_id in self.session_seats:  # the record its sessions' views are of
                self.session_records[table_id] = record
            if written:  # watched here: its watchers get the entries now, with no read
                self.hub.deliver(self.store.channel(table_id), written)
            await self._after_commit(commit)
            return record, result
        raise ApiError(
            grpc.StatusCode.ABORTED,
            "CONTENTION",
            "the table changed too often; retry",
            retry_after=RETRY_CONTENTION_SECONDS,
            table_id=table_id,
        )

    async def _after_commit(self, commit: Commit) -> None:
        """Files a table whose status changed in its index, then wakes who must act."""
        table = commit.record.table
        metrics.count_commit(commit.record.table, commit.status_before, commit.entries)
        job_kept = True
        if commit.finishes_rated and self.on_rated_finish:
            # Before the table leaves the in-progress index: where the commit could not write
            # the job (a Redis Cluster) it is written now, and until then the sweep finds the
            # finished table in that index and writes it (gateway/sweeper.py); so a job that
            # could not be written leaves the table there.
            written = self.rating_job is not None and self.store.jobs_in_commit
            job_kept = await self.on_rated_finish(commit.record, written)
        if commit.status_changed and job_kept:
            await self._index(table.table_id, INDEX_OF_STATUS.get(table.status))
        starting = commit.status_changed and table.status == gw.TABLE_STATUS_IN_PROGRESS
        commit.kept_view = await self.wakeups.wake(
            commit.record,
            views=commit.views,
            keep=commit.keep_seat,
            due_written=commit.due_written,
            starting=starting,
            phrased=commit.phrased,
        )
        if commit.views:
            self.reads.keep_views(table, commit.views, self.session_seats.get(table.table_id, ()), commit.phrased)
        await self._index_turns(commit)
        if self.turns is not None:
            await self.turns.committed(commit.record, commit.deciding_before)
        if commit.status_changed and table.status == gw.TABLE_STATUS_FINISHED:
            log.info(
                "game_finished",
                table_id=table.table_id,
                game=table.game_id,
                winners=list(table.outcome.winners),
                summary=table.outcome.summary[:200],
                version=table.version,
                rated=table.rated,
            )

    async def _index_turns(self, commit: Commit) -> None:
        try:
            await self.turn_index.committed(commit.record.table, commit.turn_players_before)
        except Exception:  # a hint: ListMyTables checks it, and rebuilds it daily
            log.warning("turn_index_failed", table_id=commit.record.table.table_id, exc_info=True)

    async def _index(self, table_id: str, status: str | None) -> None:
        try:
            await self.store.index(table_id, status, time.time())
        except Exception:  # only the indexes: the commit stands
            log.warning("index_update_failed", table_id=table_id, exc_info=True)

    # -- commands -----------------------------------------------------------------------------

    async def create_table(
        self, request: gw.CreateTableRequest, client: Client | None = None
    ) -> tuple[store_pb2.TableRecord, str]:
        """A new table and its host token; ``client`` (gateway/quotas.py) is charged first."""
        record, host_token, _ = await self.create_seated(request, client)
        return record, host_token

    async def create_seated(
        self,
        request: gw.CreateTableRequest,
        client: Client | None = None,
        people: Sequence[tuple[str, str]] = (),
        table_id: str = "",
    ) -> tuple[store_pb2.TableRecord, str, list[tuple[int, str]]]:
        """A new table with ``people`` ((player id, display name), quick play's) seated in the
        first seats that are not bots, in the same commit: the table, its host token, and
        each person's seat and seat token. ``table_id``: the id to give it (quick play names
        it before the commit, so that a table whose maker died can be found); else a new one."""
        await self.quotas.charge(CREATE, client)
        check_table_request(request)
        seed = draw_seed(request)
        # NewGame validates player count and options, and fills in the defaults.
        check = await self.rules.call(
            request.game_id,
            "NewGame",
            rules_pb2.NewGameRequest(player_count=request.player_count, options=dict(request.options), seed=seed),
        )
        bot_of: dict[int, str] = {}
        for bot_seat in request.bot_seats:
            if not 0 <= bot_seat.seat < request.player_count or bot_seat.seat in bot_of:
                raise invalid("BAD_SEAT", f"bot seat {bot_seat.seat} is not a free seat")
            bot_of[bot_seat.seat] = self.bots.check(request.game_id, bot_seat.bot)
        table_id = table_id or secrets.token_hex(8)
        digests = {seat: self.bot_seat_digest(bot, table_id, seat) for seat, bot in bot_of.items()}
        record, host_token = new_record(table_id, request, check.options, seed, bot_of, digests)
        commit = Commit(record)
        for seat, bot in sorted(bot_of.items()):
            taken = gw.SeatTaken(seat=seat, kind=gw.SEAT_KIND_BOT, display_name=bot_display_name(bot))
            commit.public(seat_taken=taken)
        free = [place for place in record.table.seats if not place.taken]
        if len(people) > len(free):
            raise invalid("BAD_SEAT", "more people than free seats")
        seated: list[tuple[int, str]] = []
        for (player_id, name), place in zip(people, free, strict=False):
            token = auth.new_token()
            place.taken, place.display_name, place.player_id = True, name, player_id
            record.seat_token_sha256[place.seat] = auth.digest(token)
            commit.public(seat_taken=gw.SeatTaken(seat=place.seat, kind=gw.SEAT_KIND_HUMAN, display_name=name))
            seated.append((place.seat, token))
        # A table of bots only waits open for a worker with room to begin it (the wake-up
        # sends its begin task): started now, it would stand idle behind the tables in play.
        if request.auto_start and all(place.taken for place in record.table.seats) and not awaits_begin(record):
            await commit.start_game(self.rules, dealt=check)
        finished = commit.finish()
        due = self.wakeups.due_of(finished)
        if awaits_begin(finished) and not self.store.due_in_commit:
            # A Redis Cluster writes the due time apart: first, so that a gateway that stops
            # just after the commit leaves the table waiting to begin to the due sweep (which
            # forgets a table never made). The walk takes only the tables in progress.
            await self.store.set_due(table_id, due)  # type: ignore[arg-type]
        # Version 0: a new key, no race.
        commit.due_written = await self.store.commit(finished, 0, commit.entries, due=due)
        await self._after_commit(commit)
        with bound(table_id=table_id):
            log.info(
                "table_created",
                game=request.game_id,
                players=request.player_count,
                bots=len(bot_of),
                replay_mode=request.replay_mode,
            )
        return record, host_token, seated

    async def take_seat(
        self,
        table_id: str,
        seat_wanted: int | None,
        display_name: str,
        client: Client | None = None,
        player_id: str = "",
    ) -> tuple[int, str, store_pb2.TableRecord]:
        """Seat ``seat_wanted`` (None: the first free one); returns the seat, its token and the
        table. ``player_id``: the seat is that player's (gateway/players.py), else a guest's."""
        await self.quotas.charge(SEATS, client)
        name, keys = self.names.check(display_name, "a seat's name")
        if name and await self.names.owners(keys) - {player_id}:
            raise name_taken()  # a registered player's, and not the caller's own
        token = auth.new_token()
        taken: list[int] = []

        async def change(record: store_pb2.TableRecord, commit: Commit, _stored) -> None:
            self.reads.require_status(record, gw.TABLE_STATUS_OPEN)
            seats = record.table.seats
            if record.table.rated and not player_id:
                raise ApiError(
                    grpc.StatusCode.UNAUTHENTICATED,
                    "PLAYER_REQUIRED",
                    "a rated table seats players: send a player token",
                )
            if player_id and any(s.player_id == player_id for s in seats):
                raise failed("ALREADY_SEATED", "this player already holds a seat at this table")
            if seat_wanted is not None:
                if not 0 <= seat_wanted < len(seats):
                    raise invalid("BAD_SEAT", f"no seat {seat_wanted}")
                seat = seats[seat_wanted]
                if seat.kind == gw.SEAT_KIND_BOT:
                    raise failed("SEAT_IS_BOT", "a bot plays that seat")
                if seat.taken:
                    raise failed("SEAT_TAKEN", "that seat is taken")
            else:
                free = next((s for s in seats if not s.taken), None)
                if free is None:
                    raise failed("TABLE_FULL", "every seat is taken")
                seat = free
            if name and any(skeletons(shown) & keys for shown in shown_names(seats, but=seat.seat)):
                raise ApiError(
                    grpc.StatusCode.ALREADY_EXISTS,
                    "DISPLAY_NAME_AT_TABLE",
                    "a seat at this table has a name that looks like this one: choose another",
                )
            seat.taken = True
            seat.display_name = name or f"Player {seat.seat + 1}"
            seat.player_id = player_id
            record.seat_token_sha256[seat.seat] = auth.digest(token)
            commit.public(
                seat_taken=gw.SeatTaken(seat=seat.seat, kind=gw.SEAT_KIND_HUMAN, display_name=seat.display_name)
            )
            taken[:] = [seat.seat]
            if record.auto_start and all(s.taken for s in seats):
                await commit.start_game(self.rules)

        record, _ = await self.transact(table_id, change)
        with bound(table_id=table_id, seat=taken[0]):
            log.info("seat_taken")
        return taken[0], token, record

    async def release_seat(self, table_id: str, player_id: str, bot: str) -> bool:
        """Gives ``player_id``'s human seat at the table to ``bot`` at once, its token revoked
        and the player's name taken off it (quick play's seat that its searcher was never
        told of: the table must not wait on it); whether a seat was given (False: the table
        seats no such player, or is over)."""

        async def change(record: store_pb2.TableRecord, commit: Commit, _stored) -> None:
            table = record.table
            place = next((s for s in table.seats if s.player_id == player_id and s.kind == gw.SEAT_KIND_HUMAN), None)
            if place is None or table.status == gw.TABLE_STATUS_FINISHED:
                raise NothingToDo
            name = bot_display_name(bot)
            place.kind, place.bot, place.player_id, place.display_name = gw.SEAT_KIND_BOT, bot, "", name
            record.seat_token_sha256[place.seat] = self.bot_seat_digest(bot, table.table_id, place.seat)
            entry = commit.public(seat_taken=gw.SeatTaken(seat=place.seat, kind=gw.SEAT_KIND_BOT, display_name=name))
            entry.revoked_seat = place.seat
            set_deadline(record)

        try:
            await self.transact(table_id, change)
        except NothingToDo:
            return False
        with bound(table_id=table_id):
            log.info("seat_released", player_id=player_id, bot=bot)
        return True

    async def start_table(
        self, table_id: str, token: str, continue_as_bot: bool = False
    ) -> tuple[store_pb2.TableRecord, bytes | None]:
        """The host or a seated player starts a table whose seats are all taken: the table,
        and with ``continue_as_bot`` (a bot worker beginning an all-bot table) the view of
        the first decision when a seat of the caller's bot makes it, whose task is not sent."""
        commits: list[Commit] = []

        async def change(record: store_pb2.TableRecord, commit: Commit, _stored) -> None:
            seat = None
            if not hmac.compare_digest(record.host_token_sha256, auth.digest(token)):
                seat = self.reads.authorise_seat(record, token)
            self.reads.require_status(record, gw.TABLE_STATUS_OPEN)
            if not all(place.taken for place in record.table.seats):
                raise failed("SEATS_OPEN", "every seat must be taken first")
            await commit.start_game(self.rules)
            if continue_as_bot and seat is not None:
                commit.keep_seat = next_of_same_bot(record, seat)
            commits[:] = [commit]

        record, _ = await self.transact(table_id, change)
        with bound(table_id=table_id):
            log.info("table_started")
        return record, commits[0].kept_view

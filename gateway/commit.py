"""What one command writes, and what a retry of it is answered.

``Commit`` gathers a command's log entries (numbered from the table's last seq, stamped
with its new version and time) and the rules service's views that came with it, and
stamps the record once the command is done. A request id (``Idempotency``) keeps, in the
table's requests hash, a compact response (``compact_response``): a retry is answered from
it and the log (``replayed``) instead of applying the action again.
"""

import hmac
import time
from collections.abc import Awaitable, Callable, MutableSequence, Sequence
from dataclasses import dataclass

import grpc
from google.protobuf import any_pb2, timestamp_pb2

from common.errors import ApiError
from common.names import for_viewer
from gateway import clocks
from gateway.log_record import LogEntry
from gateway.rules import RulesDirectory
from gateway.store import RequestKey, TableStore
from gateway.text import label_phrases_wanted, platform_text, read_phrase, tell
from gateway.text import names as text_names
from gateway.turn_index import turn_players
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2
from tavola.store.v1 import store_pb2

# Of a command's SHA-256 kept per request id: enough to tell apart two commands that one
# client sent under one request id (answered REQUEST_ID_REUSED); kept for every action.
COMMAND_BYTES = 8


def now() -> timestamp_pb2.Timestamp:
    seconds, nanos = divmod(time.time_ns(), 1_000_000_000)
    return timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)


class Commit:
    """The log entries of one command, numbered from the table's current last seq."""

    def __init__(self, record: store_pb2.TableRecord):
        self.record = record
        self.entries: list[LogEntry] = []
        self.version = record.table.version + 1
        self.stamp = now()
        # A new table (version 0) has no status yet: its first commit files it.
        self.status_before = record.table.status if record.table.version else gw.TABLE_STATUS_UNSPECIFIED
        # Who had to decide before it: the seats whose turn it begins are told (gateway/turns.py).
        self.deciding_before = tuple(record.table.deciding_seats)
        # Whose turn it was, by player: the turn index follows (gateway/turn_index.py).
        self.turn_players_before = turn_players(record.table)
        self.finished = False
        # The rules service's views of the seats that must decide after this command, by
        # seat, when it sent them with the applied action: a bot's goes in its task (the
        # wake-up asks for the rest), a person's answers that seat's next GetView.
        self.views: dict[int, rules_pb2.GetViewResponse] = {}
        # Whether they have their labels' phrases: asked for a reader of another language.
        self.phrased = False
        # A bot seat whose view goes back to the caller instead of into a task (a bot
        # worker that continues at the table), and that view once the commit is done.
        self.keep_seat: int | None = None
        self.kept_view: bytes | None = None  # a GetViewResponse, serialized
        # Whether the commit wrote the table's due time (a single Redis: in its script).
        self.due_written = False

    @property
    def next_seq(self) -> int:
        return self.record.table.last_seq + len(self.entries) + 1

    def _event(self, seq: int, **body) -> gw.TableEvent:
        return gw.TableEvent(seq=seq, version=self.version, time=self.stamp, **body)

    def public(self, **body) -> LogEntry:
        """A table event every viewer sees alike, with its text."""
        text = platform_text(text_names(self.record.table), **body)
        entry = LogEntry(spectator=self._event(self.next_seq, text=text, **body).SerializeToString())
        self.entries.append(entry)
        return entry

    def game_events(self, projected: list[rules_pb2.ProjectedEvent]) -> None:
        """The rules service's projections of each event, each with its phrase for that
        viewer (told as the event is read, gateway/text.py)."""
        for item in projected:
            seq = self.next_seq
            spectator = b""
            phrases: dict[int | None, bytes] = {}
            if item.HasField("spectator"):
                spectator = self._event(seq, game_event=item.spectator).SerializeToString()
                if item.HasField("spectator_phrase"):
                    phrases[None] = item.spectator_phrase.SerializeToString()
            seats = {}
            for seat_event in item.seats:
                seats[seat_event.seat] = b""
                if seat_event.HasField("event"):
                    seats[seat_event.seat] = self._event(seq, game_event=seat_event.event).SerializeToString()
                    if seat_event.HasField("phrase"):
                        phrases[seat_event.seat] = seat_event.phrase.SerializeToString()
            self.entries.append(LogEntry(spectator=spectator, seats=seats, phrases=phrases))

    def seen_by(self, seat: int, events: MutableSequence[gw.TableEvent]) -> None:
        """Adds the entries' events as ``seat`` sees them to ``events`` (a response's), each
        decoded into its place (no message of its own, copied in), with its words."""
        names = None
        for entry in self.entries:
            data = entry.seats.get(seat, entry.spectator)
            if data:
                event = events.add()  # type: ignore[attr-defined]
                event.MergeFromString(data)
                if "{" in event.text:  # the seat's own words of the text's choices
                    event.text = for_viewer(event.text, seat)
                phrase = entry.phrases.get(seat) or entry.phrases.get(None)
                if phrase and event.HasField("game_event") and (said := read_phrase(phrase)) is not None:
                    names = names or text_names(self.record.table)
                    event.text = tell(event.game_event.type_url, said, names, seat)

    def finish(self) -> store_pb2.TableRecord:
        """Stamps the new version, last seq and update time on the record to be written
        (once: a command that answers with the new table finishes before the commit)."""
        if self.finished:
            return self.record
        self.finished = True
        self.record.table.version = self.version
        self.record.table.last_seq += len(self.entries)
        self.record.table.update_time.CopyFrom(self.stamp)
        return self.record

    def apply_status(self, status: rules_pb2.GameStatus) -> None:
        """The rules service's status of the game: who decides now, and its end."""
        record = self.record
        table = record.table
        del table.deciding_seats[:]
        table.deciding_seats.extend(status.deciding_seats)
        if status.finished:
            table.status = gw.TABLE_STATUS_FINISHED
            table.outcome.CopyFrom(status.outcome)
            reveal = gw.SeedReveal(seed=record.seed, salt=record.seed_salt)
            self.public(game_finished=gw.GameFinished(outcome=status.outcome, seed_reveal=reveal)).end = True
        set_deadline(record)

    async def apply(
        self, rules: RulesDirectory, seat: int, action: any_pb2.Any, watched: Sequence[int] = ()
    ) -> rules_pb2.ApplyActionResponse:
        """Ask the rules service to apply one seat's action; put the result in the record.
        The views of the seats that must decide next come with it: a bot's for its task, a
        person's for the GetView that seat is about to ask; and those of the ``watched``
        seats whether they decide or not (the acting seat's answer, the open sessions)."""
        record = self.record
        seats = range(len(record.table.seats))
        self.phrased = label_phrases_wanted()
        try:
            applied = await rules.call(
                record.table.game_id,
                "ApplyAction",
                rules_pb2.ApplyActionRequest(
                    state=record.state,
                    seat=seat,
                    action=action,
                    view_seats=seats,
                    watched_seats=watched,
                    omit_label_phrases=not self.phrased,
                ),
            )
        except ApiError as error:
            error.metadata.setdefault("seat", str(seat))
            raise
        record.state.CopyFrom(applied.state)
        self.views = {seat_view.seat: seat_view.view for seat_view in applied.views}
        first = len(self.entries)
        self.game_events(list(applied.events))
        if len(self.entries) == first:  # the action's own entry, even when nobody sees it
            self.entries.append(LogEntry(spectator=b""))
        # Kept in the log for replays and for checking the game once it is over.
        self.entries[first].action = store_pb2.SeatAction(seat=seat, action=action).SerializeToString()
        clocks.decided(record.table, seat)
        self.apply_status(applied.status)
        return applied

    async def start_game(self, rules: RulesDirectory, dealt: rules_pb2.NewGameResponse | None = None) -> None:
        """Deals the game (``dealt``: a NewGame already made for this record's seed and options)."""
        record = self.record
        table = record.table
        response = dealt or await rules.call(
            table.game_id,
            "NewGame",
            rules_pb2.NewGameRequest(player_count=table.player_count, options=dict(table.options), seed=record.seed),
        )
        record.state.CopyFrom(response.state)
        table.status = gw.TABLE_STATUS_IN_PROGRESS
        self.public(
            table_started=gw.TableStarted(
                deciding_seats=response.status.deciding_seats, seed_commitment=table.seed_commitment
            )
        )
        self.game_events(list(response.events))
        self.apply_status(response.status)

    @property
    def status_changed(self) -> bool:
        return self.record.table.status != self.status_before

    @property
    def finishes_rated(self) -> bool:
        """Whether this commit ends a rated table's game (its rating job goes with it): not
        when the platform ended it unplayed (gateway/abandoned.py)."""
        table = self.record.table
        finished = self.status_changed and table.status == gw.TABLE_STATUS_FINISHED
        return table.rated and finished and not table.abandoned  # nobody played an abandoned one out


def set_deadline(record: store_pb2.TableRecord) -> None:
    """A timed table gives the human seats that must decide now a common deadline; a table
    with a clock runs each seat's own (gateway/clocks.py)."""
    table = record.table
    if table.HasField("clock"):
        clocks.run(table)
        return
    table.ClearField("decision_deadline")
    timed = table.decision_timer.seconds > 0 and table.status == gw.TABLE_STATUS_IN_PROGRESS
    if timed and any(table.seats[seat].kind == gw.SEAT_KIND_HUMAN for seat in table.deciding_seats):
        table.decision_deadline.FromNanoseconds(time.time_ns() + table.decision_timer.seconds * 10**9)


@dataclass
class Idempotency:
    """A request id, scoped to the caller's token, and what the command it names is."""

    key: RequestKey
    command_sha256: bytes = b""

    def check(self, stored: store_pb2.StoredResponse) -> None:
        known = stored.command_sha256
        if not hmac.compare_digest(known, self.command_sha256[:COMMAND_BYTES]):
            raise ApiError(
                grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_REUSED", "this request_id was used for another action"
            )


def compact_response(command: bytes, seat: int, table: gw.Table, entries: int) -> store_pb2.StoredResponse:
    """What a retry needs: where the action's events are in the log and the table fields it
    changed (the rest of the summary, the update time, which is its log entries' time, and
    the events themselves are read back)."""
    stored = store_pb2.StoredResponse(
        command_sha256=command[:COMMAND_BYTES],
        seat=seat,
        first_seq=table.last_seq - entries + 1,
        last_seq=table.last_seq,
        version=table.version,
        status=table.status,
        deciding_seats=table.deciding_seats,
    )
    if table.HasField("decision_deadline"):
        stored.decision_deadline.CopyFrom(table.decision_deadline)
    return stored


async def replayed(
    store: TableStore, record: store_pb2.TableRecord, stored: store_pb2.StoredResponse
) -> gw.SubmitActionResponse:
    """The response to a retried request, from its compact record: the table summary as
    the action left it (``record``: the table's now), and the action's events as its seat
    saw them."""
    table_id = record.table.table_id
    table = gw.Table()
    table.CopyFrom(record.table)
    table.version, table.last_seq, table.status = stored.version, stored.last_seq, stored.status
    del table.deciding_seats[:]
    table.deciding_seats.extend(stored.deciding_seats)
    table.ClearField("decision_deadline")
    if stored.HasField("decision_deadline"):
        table.decision_deadline.CopyFrom(stored.decision_deadline)
    if stored.status != gw.TABLE_STATUS_FINISHED:
        table.ClearField("outcome")
    entries = await store.read_log(table_id, stored.first_seq - 1, stored.last_seq - stored.first_seq + 1)
    if entries:  # the time of the action's entries
        table.update_time.FromNanoseconds(entries[0].time_ns)
    events = [gw.TableEvent.FromString(data) for entry in entries if (data := entry.for_viewer(stored.seat))]
    return gw.SubmitActionResponse(table=table, events=events, replayed=True)


class Replay(Exception):
    """Raised inside a change: the request was already applied; answer with this response."""

    def __init__(self, response: gw.SubmitActionResponse):
        self.response = response


class NothingToDo(Exception):
    """Raised inside a change: the command commits nothing (e.g. a decision taken in time)."""


# A change mutates the loaded record, adds log entries to the commit, and returns what to
# store under the request id (None: nothing). ``stored`` is the request id's prior response.
Change = Callable[[store_pb2.TableRecord, Commit, store_pb2.StoredResponse | None], Awaitable[object]]

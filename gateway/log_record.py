"""The event log's record format: what a table's log (the stream's field "e", or the
archive's entries: gateway/archive_format.py) holds for one entry, written by ``LogEntry``
and read back, as each viewer sees it, by ``StoredEntry``.

A LogRecord holds what each viewer sees with the parts they share stored once (version,
time, the public body; a seat's own body only where it differs), the mark of a finished
game's last entry, a seat whose token stops working at this entry, and the SeatAction that
made the entry (for replays; never streamed). Type URLs are kept by their index in the
table's list (its "types" field, TypeUrls, with the seats' names its game events' text
writes in, from which seq on).
"""

from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass, field

from common.names import has_choices
from gateway import phrase_store
from gateway.framing import length_delimited
from gateway.locale import READER
from gateway.phrase_store import string_index
from gateway.text import platform_read, seats_in, tell
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2

# The seats' names a log's text writes in, each list from a seq on (TableRecord.seat_names).
SeatNames = tuple[tuple[int, tuple[str, ...]], ...]
_ByReader = dict[tuple[int | None, str], bytes]  # by (viewer, reader's language)


def names_from(stored) -> SeatNames:
    return tuple((item.from_seq, tuple(item.names)) for item in stored)


def decode_types(data: bytes) -> tuple[tuple[str, ...], SeatNames]:
    """A table's "types" field (TypeUrls): its type URLs and the seats' names."""
    types = store_pb2.TypeUrls.FromString(data)
    return tuple(types.type_urls), names_from(types.seat_names)


def names_at(names: SeatNames, seq: int) -> dict[int, str]:
    """The seats' names that entry ``seq``'s text writes in: the last list set at or before it."""
    current: tuple[str, ...] = ()
    for from_seq, listed in names:
        if from_seq > seq:
            break
        current = listed
    return dict(enumerate(current))


def nanos(stamp) -> int:
    """A Timestamp's nanoseconds since the epoch: its own ToNanoseconds is Python, with a
    validity check, several times on each command's path."""
    return stamp.seconds * 1_000_000_000 + stamp.nanos


def _stored_event(
    data: bytes, type_urls: MutableSequence[str], phrase: bytes = b""
) -> tuple[gw.TableEvent, store_pb2.StoredEvent]:
    """A viewer's TableEvent bytes (b'': it sees nothing) and its phrase (a game event's
    words), and its body as the log keeps it."""
    event = gw.TableEvent.FromString(data)
    stored = store_pb2.StoredEvent()
    if not data:
        return event, stored
    if event.HasField("game_event"):
        stored.game_event = event.game_event.value
        stored.type_url = string_index(type_urls, event.game_event.type_url)
        if phrase:  # told as it is read (gateway/text.py)
            stored.phrase = phrase_store.stored(phrase, type_urls)
    else:
        body = gw.TableEvent()
        body.CopyFrom(event)
        for name in ("seq", "version", "time"):
            body.ClearField(name)
        stored.table_event = body.SerializeToString()
    return event, stored


@dataclass
class LogEntry:
    """One event log entry: the spectator's bytes and each seat's where they differ."""

    spectator: bytes
    seats: dict[int, bytes] = field(default_factory=dict)
    end: bool = False
    # A seat whose token stops working here (a bot took it): its watchers are let go.
    revoked_seat: int | None = None
    # The SeatAction that made this entry (bytes), read back only by replays.
    action: bytes = b""
    # A game event's words (a serialized Phrase): the spectators' (None) and each seat's
    # where it differs.
    phrases: dict[int | None, bytes] = field(default_factory=dict)

    def record(self, type_urls: MutableSequence[str], version: int, time_ns: int) -> store_pb2.LogRecord:
        """The entry as the log stores it: the version and time of the command that made it
        once (every projection shares them, and its seq is the stream id), each body once,
        type URLs by their index in ``type_urls`` (the table's list, extended with any new
        one)."""
        record = store_pb2.LogRecord(version=version, time_ns=time_ns, end=self.end)
        heads: list[gw.TableEvent] = []
        if self.spectator:
            event, public = _stored_event(self.spectator, type_urls, self.phrases.get(None, b""))
            record.public.CopyFrom(public)
            heads.append(event)
        for seat, data in sorted(self.seats.items()):
            seat_event = record.seats.add(seat=seat)
            if data:
                event, stored = _stored_event(data, type_urls, self.phrases.get(seat, b""))
                if stored.phrase == record.public.phrase:
                    stored.ClearField("phrase")  # read back from the public one (StoredEntry._event)
                seat_event.event.CopyFrom(stored)
                heads.append(event)
        if any(event.version != version or nanos(event.time) != time_ns for event in heads):
            raise ValueError("a log entry's projections differ from its command's version or time")
        if self.revoked_seat is not None:
            record.revoked_seat_plus_one = self.revoked_seat + 1
        if self.action:
            taken = store_pb2.SeatAction.FromString(self.action)
            record.action.seat = taken.seat
            record.action.value = taken.action.value
            record.action.type_url = string_index(type_urls, taken.action.type_url)
        return record

    def fields(self, type_urls: MutableSequence[str], version: int, time_ns: int) -> list[bytes | str]:
        return ["e", self.record(type_urls, version, time_ns).SerializeToString()]


@dataclass
class StoredEntry:
    """One entry read back from the log: its LogRecord (``data``, the stream's field "e" or
    the archive's), with the table's ``type_urls`` and ``names`` (the seats' names its
    text writes in, TableRecord.seat_names)."""

    seq: int
    data: bytes
    type_urls: Sequence[str] = ()
    names: SeatNames = ()
    _record: store_pb2.LogRecord = field(init=False, repr=False, compare=False)
    _seen: _ByReader = field(default_factory=dict, init=False, repr=False, compare=False)
    _framed: _ByReader = field(default_factory=dict, init=False, repr=False, compare=False)
    _framed_in_batch: _ByReader = field(default_factory=dict, init=False, repr=False, compare=False)
    # Each game event's phrase, read once, by whose projection it is (None: the public one).
    _phrases: dict[int | None, object] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._record = store_pb2.LogRecord.FromString(self.data)

    def _phrase(self, stored: store_pb2.StoredEvent, projection: int | None):
        """A game event's phrase: its own, else the public event's (None: it has none)."""
        if projection not in self._phrases:
            data = stored.phrase or self._record.public.phrase
            self._phrases[projection] = phrase_store.read(data, self.type_urls) if data else None
        return self._phrases[projection]

    def _text(self, stored: store_pb2.StoredEvent, projection: int | None, viewer: int | None) -> str:
        """A game event's words as ``viewer`` reads them: the phrase of the projection it is
        (``projection``: its seat, None for the public event), told with the names the seats
        had when it was logged ("" for an event without words)."""
        said = self._phrase(stored, projection)
        if said is None:
            return ""
        type_url = self.type_urls[stored.type_url]
        return tell(type_url, said, names_at(self.names, self.seq), viewer)

    def _viewer_dependent(self, seat: int) -> bool:
        """Whether ``seat`` reads the public event its own way ("You bid")."""
        public = self._record.public
        body = public.WhichOneof("body")
        if body == "game_event":
            said = self._phrase(public, None)
            return said is not None and seat in seats_in(said)
        if body == "table_event" and b"{" in public.table_event:  # a platform event's choices
            return has_choices(gw.TableEvent.FromString(public.table_event).text)
        return False

    def _event(self, stored: store_pb2.StoredEvent, viewer: int | None, projection: int | None) -> bytes:
        body = stored.WhichOneof("body")
        if body is None:
            return b""
        seconds, nanos = divmod(self._record.time_ns, 10**9)
        event = gw.TableEvent(seq=self.seq, version=self._record.version)
        event.time.seconds, event.time.nanos = seconds, nanos
        if body == "game_event":
            event.game_event.type_url = self.type_urls[stored.type_url]
            event.game_event.value = stored.game_event
            event.text = self._text(stored, projection, viewer)
        else:
            event.MergeFromString(stored.table_event)
            event.text = platform_read(event, self.names, self.seq, viewer)  # the reader's language, "(you)"
        return event.SerializeToString()

    def for_viewer(self, seat: int | None) -> bytes:
        """The entry as ``seat`` (None: spectator) sees it; b'' when it sees nothing."""
        record = self._record
        key = None
        if seat is not None and (
            any(seat_event.seat == seat for seat_event in record.seats) or self._viewer_dependent(seat)
        ):
            key = seat  # its own event, or its own words of the public one ("You bid")
        cached = (key, READER.get())  # each reader's language its own
        seen = self._seen.get(cached)
        if seen is None:  # an entry read once is shown to every watcher of the table
            own = next((seat_event.event for seat_event in record.seats if seat_event.seat == key), None)
            seen = self._event(record.public, key, None) if own is None else self._event(own, key, key)
            self._seen[cached] = seen
        return seen

    def framed_for_viewer(self, seat: int | None) -> bytes:
        """``for_viewer``'s event as the field 1 of a message (WatchTableResponse and
        SpectateTableResponse are ``TableEvent event = 1``): a stream's response, serialized
        once for every watcher who sees the entry alike. b'' when it sees nothing."""
        framed = self._framed.get(key := (seat, READER.get()))  # each reader's language its own
        if framed is None:
            data = self.for_viewer(seat)
            framed = self._framed[key] = length_delimited(b"\x0a", data)
        return framed

    def framed_in_batch(self, seat: int | None) -> bytes:
        """``for_viewer``'s event as one element of a batched stream response's ``repeated
        TableEvent events = 2``: the responses of a batch are these joined, serialized once
        for every watcher who sees the entry alike. b'' when it sees nothing."""
        framed = self._framed_in_batch.get(key := (seat, READER.get()))
        if framed is None:
            data = self.for_viewer(seat)
            framed = self._framed_in_batch[key] = length_delimited(b"\x12", data)
        return framed

    def seen(self) -> bytes:
        """The entry as somebody saw it, the spectators first, else a seat; b'' when nobody."""
        seats = sorted(seat_event.seat for seat_event in self._record.seats)
        return next((data for viewer in (None, *seats) if (data := self.for_viewer(viewer))), b"")

    @property
    def action(self) -> bytes:
        """The SeatAction that made this entry (bytes), b'' if none."""
        record = self._record
        if not record.HasField("action"):
            return b""
        stored = record.action
        taken = store_pb2.SeatAction(seat=stored.seat)
        taken.action.type_url = self.type_urls[stored.type_url]
        taken.action.value = stored.value
        return taken.SerializeToString()

    @property
    def time_ns(self) -> int:
        """The time of the command that made the entry."""
        return self._record.time_ns

    @property
    def is_end(self) -> bool:
        return self._record.end

    def revokes(self, seat: int | None) -> bool:
        return seat is not None and self._record.revoked_seat_plus_one == seat + 1

"""Tables in Redis.

Per table, four keys sharing the hash tag ``{table_id}`` (so the layout works on Redis
Cluster) and one pub/sub channel:
  <prefix>:{id}:table     hash: record (TableRecord proto), version, seq, types (TypeUrls:
                          the Any type URLs the log refers to by index, and the seats'
                          names its game events' text writes in, from which seq on)
  <prefix>:{id}:log       stream: the durable event log, entry id "<seq>-0", one field "e":
                          a LogRecord holding what each viewer sees with the parts they
                          share stored once (version, time, the public body; a seat's own
                          body only where it differs), the mark of a finished game's last
                          entry, a seat whose token stops working at this entry, and the
                          SeatAction that made the entry (for replays; never streamed)
  <prefix>:{id}:archive   string: the log of a finished game, frozen in one value (the
                          stream costs about 27 bytes an entry more): its first seq (4
                          bytes, big-endian), then each entry's LogRecord after its length
                          (2 bytes); entries committed after the game ended are appended.
                          A log with an entry over 64 KB stays a stream
  <prefix>:{id}:requests  hash: RequestKey.field -> StoredResponse (compact:
                          where the action's events are in the log, the table's new
                          version and status), for idempotency; once the game is over it
                          expires after a retry window, the table and its log after the
                          finished tables' TTL
  <prefix>:{id}:wake      channel: the new last seq, published on every commit

Two indexes across tables, sorted sets scored by the time a table took its status, and
written only when the status changes (never on the path of an ordinary action):
``<prefix>:index:open`` (tables waiting for players, for ListTables) and
``<prefix>:index:in-progress`` (tables being played, for ListTables and the sweep).
A third sorted set, ``<prefix>:due``, holds each table that waits on a bot or timer task,
scored by the time that task should have acted by; the gateway's sweep
(gateway/sweeper.py) wakes a table again once its time has passed.

On a Redis Cluster (``redis+cluster://``, common/redis_client.py) a table's keys live in
one slot, so the commit script runs on one node; the indexes and the sweep cursor are keys
of their own, written outside the script. The wake-up is a plain PUBLISH, which a cluster
forwards to every node, so a gateway's one subscription hears every table (sharded
pub/sub, SPUBLISH, needs Redis 7 and would spare that fan-out).

Every change goes through ``commit``: one Lua script that checks the version (a
compare-and-set), refuses a used request id, writes the record, appends the log entries,
stores the response, refreshes the TTL and publishes, all or nothing.

With an archive (gateway/archive.py, ``use_archive``), every commit of a finished table
also files it in ``<prefix>:archive:outbox`` (a sorted set, table id -> the commit's time:
its copy is due), in the script on a single Redis, right after it on a cluster; the
archiver (gateway/archiver.py) copies it, then ``trim`` deletes its keys once the retry
window is over, and ``load``, ``load_many`` and ``read_log`` read a table Redis no longer
holds from the archive: the same bytes.
"""

import hashlib
import time
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError

from common.names import has_choices
from gateway import phrase_store
from gateway.locale import READER
from gateway.phrase_store import string_index
from gateway.text import names_list, platform_read, seats_in, tell
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2

_COMMIT = """
local current = redis.call('HGET', KEYS[1], 'version')
if ARGV[1] == '0' then
  if current then return {-1} end
else
  if not current then return {-2} end
  if current ~= ARGV[1] then return {-3, current} end
end
if ARGV[6] ~= '' then
  local prior = redis.call('HGET', KEYS[3], ARGV[6])
  if prior then return {-4, prior} end
end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'version', ARGV[3], 'seq', ARGV[4])
if ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'types', ARGV[9]) end
local i = 18
for e = 1, tonumber(ARGV[11]) do
  local id = ARGV[i]
  local n = tonumber(ARGV[i + 1])
  local fields = {}
  for k = 1, n * 2 do fields[k] = ARGV[i + 1 + k] end
  redis.call('XADD', KEYS[2], id, unpack(fields))
  i = i + 2 + n * 2
end
if ARGV[12] == '1' then
  -- A finished log gets no more entries (but for the odd one, appended): its stream's
  -- entries move into the archive (KEYS[4]), each under 64 KB (its length takes 2 bytes
  -- there) and their seqs following on each other; else the stream stays.
  local entries = redis.call('XRANGE', KEYS[2], '-', '+')
  local parts, next_seq = {}, nil
  for _, entry in ipairs(entries) do
    local seq = tonumber(string.match(entry[1], '^(%d+)%-0$'))
    local record = entry[2][2]
    if not seq or (next_seq and seq ~= next_seq) or #record > 65535 then
      parts = nil
      break
    end
    if not next_seq and redis.call('EXISTS', KEYS[4]) == 0 then parts[1] = struct.pack('>I4', seq) end
    next_seq = seq + 1
    parts[#parts + 1] = struct.pack('>I2', #record) .. record
  end
  if parts and next_seq then
    redis.call('APPEND', KEYS[4], table.concat(parts))
    redis.call('DEL', KEYS[2])
  end
end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[3], ARGV[6], ARGV[7]) end
-- A TTL of 0 keeps the key (a finished table may be kept for good though its game had one).
-- The archive (KEYS[4]) is there only once the game is over.
local ttls = {tonumber(ARGV[5]), tonumber(ARGV[5]), tonumber(ARGV[10]), tonumber(ARGV[5])}
for k = 1, ARGV[12] == '1' and 4 or 3 do
  if ttls[k] > 0 then redis.call('EXPIRE', KEYS[k], ttls[k]) else redis.call('PERSIST', KEYS[k]) end
end
-- The table's due time (KEYS[5], a sorted set of every table), on a single Redis only:
-- a score, or 'rem' when it waits on no task.
if ARGV[13] == 'rem' then
  redis.call('ZREM', KEYS[5], ARGV[14])
elseif ARGV[13] ~= '' then
  redis.call('ZADD', KEYS[5], ARGV[13], ARGV[14])
end
-- A rated table's finishing commit: its rating job (KEYS[6], a hash of every job) and the
-- time to send its task again (KEYS[7]), on a single Redis only (gateway/ratings.py).
if ARGV[15] ~= '' then
  redis.call('HSET', KEYS[6], ARGV[14], ARGV[15])
  redis.call('ZADD', KEYS[7], ARGV[16], ARGV[14])
end
-- A finished table's commit files it in the archive's outbox (KEYS[8], gateway/archiver.py),
-- on a single Redis only: its copy in the archive is due (again, if it was copied before).
if ARGV[17] ~= '' then redis.call('ZADD', KEYS[8], ARGV[17], ARGV[14]) end
redis.call('PUBLISH', ARGV[8], ARGV[4])
return {1}
"""

# What ``commit`` writes as the table's due time: nothing (an open table, which never
# waits on a task), or a time (None: it waits on none now, the entry goes).
NO_DUE_WRITE = object()


# The seats' names a log's text writes in, each list from a seq on (TableRecord.seat_names).
SeatNames = tuple[tuple[int, tuple[str, ...]], ...]
_ByReader = dict[tuple[int | None, str], bytes]  # by (viewer, reader's language)


def _names_from(stored) -> SeatNames:
    return tuple((item.from_seq, tuple(item.names)) for item in stored)


def decode_types(data: bytes) -> tuple[tuple[str, ...], SeatNames]:
    """A table's "types" field (TypeUrls): its type URLs and the seats' names."""
    types = store_pb2.TypeUrls.FromString(data)
    return tuple(types.type_urls), _names_from(types.seat_names)


def names_at(names: SeatNames, seq: int) -> dict[int, str]:
    """The seats' names that entry ``seq``'s text writes in: the last list set at or before it."""
    current: tuple[str, ...] = ()
    for from_seq, listed in names:
        if from_seq > seq:
            break
        current = listed
    return dict(enumerate(current))


# Deletes a finished table's keys once the archive holds its version (gateway/archiver.py).
_TRIM = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return 0 end
if version ~= ARGV[1] then return -1 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return 1
"""


def outbox_key(prefix: str) -> str:
    """The sorted set of finished tables whose copy in the archive is due, by when."""
    return f"{prefix}:archive:outbox"


@dataclass(frozen=True)
class FinishedTable:
    """A finished table as Redis holds it: its record (decoded, and its bytes as stored,
    without type URLs), its "types" field, version and log entries (seq, LogRecord bytes)."""

    record: store_pb2.TableRecord
    data: bytes
    types: bytes
    version: int
    entries: list[tuple[int, bytes]]


class ArchivedTables(Protocol):
    """What TableStore reads from the archive (gateway/archive.py) for a table Redis no
    longer holds: the same bytes Redis held."""

    async def stored(self, table_id: str) -> tuple[bytes | None, bytes | None]: ...

    async def records(self, table_ids: list[str]) -> dict[str, bytes]: ...

    async def log(self, table_id: str, after_seq: int, count: int) -> tuple[bytes, list[tuple[int, bytes]]]:
        """The table's "types" field and up to ``count`` entries after ``after_seq``."""
        ...


# Forgets a table's due time only if nobody moved it later meanwhile (a newer commit did).
_FORGET_DUE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


@dataclass(frozen=True)
class RatingJobWrite:
    """A finished rated table's rating job, written by its finishing commit's script (a
    single Redis; on a cluster its keys are in another slot: gateway/ratings.py)."""

    jobs_key: str
    pending_key: str
    job: bytes
    send_at: float


@dataclass(frozen=True)
class RequestKey:
    """Where a request id's response is kept in its table's requests hash: 16 bytes of the
    request id digested with the caller's token digest as the key (request ids are scoped
    to the token)."""

    field: bytes

    @classmethod
    def of(cls, token_digest: bytes, request_id: str) -> "RequestKey":
        return cls(hashlib.blake2b(request_id.encode(), digest_size=16, key=token_digest).digest())


class TableExists(Exception):
    pass


class TableMissing(Exception):
    pass


# The keys of a table, after "<prefix>:{<table id>}:" (TableStore._keys).
KEY_SUFFIXES = ("table", "log", "requests", "archive")


class VersionConflict(Exception):
    def __init__(self, current: int):
        super().__init__(f"table is at version {current}")
        self.current = current


class RequestUsed(Exception):
    def __init__(self, stored: store_pb2.StoredResponse):
        super().__init__("request id already used")
        self.stored = stored


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


def archived_entries(archive: bytes) -> list[tuple[int, bytes]]:
    """A finished log's archive (the table's "archive" key) as (seq, LogRecord bytes)."""
    if not archive:
        return []
    seq = int.from_bytes(archive[:4], "big")
    entries, at = [], 4
    while at < len(archive):
        size = int.from_bytes(archive[at : at + 2], "big")
        entries.append((seq, archive[at + 2 : at + 2 + size]))
        seq, at = seq + 1, at + 2 + size
    return entries


def varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


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
            framed = self._framed[key] = b"\x0a" + varint(len(data)) + data if data else b""
        return framed

    def framed_in_batch(self, seat: int | None) -> bytes:
        """``for_viewer``'s event as one element of a batched stream response's ``repeated
        TableEvent events = 2``: the responses of a batch are these joined, serialized once
        for every watcher who sees the entry alike. b'' when it sees nothing."""
        framed = self._framed_in_batch.get(key := (seat, READER.get()))
        if framed is None:
            data = self.for_viewer(seat)
            framed = self._framed_in_batch[key] = b"\x12" + varint(len(data)) + data if data else b""
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


class TableStore:
    def __init__(
        self,
        client: Redis | RedisCluster,
        prefix: str,
        ttl_seconds: int,
        open_ttl_seconds: int | None = None,
        finished_ttl_seconds: int | None = None,
        retry_seconds: int = 3600,
        recent_records: int = 4096,
    ):
        self.redis = client
        self.prefix = prefix
        self.ttl = ttl_seconds
        # An open table nobody starts expires sooner, and so leaves the lobby.
        self.open_ttl = ttl_seconds if open_ttl_seconds is None else min(open_ttl_seconds, ttl_seconds)
        # A finished table changes no more: kept for replays and checks, as long as wanted.
        self.finished_ttl = ttl_seconds if finished_ttl_seconds is None else finished_ttl_seconds
        # A finished table's request ids answer retries this long (0: as long as the table
        # is kept); nothing else reads them.
        self.retry_seconds = retry_seconds
        self._commit = client.register_script(_COMMIT)
        # On a Redis Cluster the due set is in a slot of its own: written outside the commit.
        self.due_in_commit = not isinstance(client, RedisCluster)
        # So are the rating jobs (gateway/ratings.py).
        self.jobs_in_commit = self.due_in_commit
        self._forget_due = client.register_script(_FORGET_DUE)
        self._trim = client.register_script(_TRIM)
        self.due_key = f"{prefix}:due"
        # The records this gateway loaded or committed last, by table: (record bytes, type
        # URLs). A command may start from one instead of a load (``recent``); its commit's
        # compare-and-set on the version tells whether it was still the table's record.
        self.recent_records: dict[str, tuple[bytes, tuple[str, ...], SeatNames]] = {}
        self.recent_limit = recent_records
        # Decoded "types" fields, by their bytes (_types).
        self.known_types: dict[bytes, tuple[tuple[str, ...], SeatNames]] = {}
        # The archive (gateway/archive.py): finished tables trimmed from Redis are read from
        # it, and finished tables' commits file them in its outbox (``use_archive``).
        self.archive: ArchivedTables | None = None
        self.archive_outbox: str | None = None

    def use_archive(self, archive: "ArchivedTables") -> None:
        """Reads fall through to ``archive`` for a table Redis no longer holds, and every
        commit of a finished table files it in the archive's outbox."""
        self.archive = archive
        self.archive_outbox = outbox_key(self.prefix)

    def _types(self, data: bytes) -> tuple[tuple[str, ...], SeatNames]:
        """A table's "types" field, its type URLs and seats' names, decoded once for every
        table that has the same (a game's tables share a few lists of type URLs)."""
        known = self.known_types.get(data)
        if known is None:
            if len(self.known_types) >= 1024:
                self.known_types.clear()
            known = self.known_types[data] = decode_types(data)
        return known

    def _remember(self, table_id: str, data: bytes, type_urls: Sequence[str], names: SeatNames = ()) -> None:
        if self.recent_limit <= 0:
            return
        recent = self.recent_records
        recent.pop(table_id, None)  # the newest last
        while len(recent) >= self.recent_limit:
            del recent[next(iter(recent))]  # the oldest
        recent[table_id] = (data, type_urls if isinstance(type_urls, tuple) else tuple(type_urls), names)

    def recent(self, table_id: str) -> store_pb2.TableRecord | None:
        """The record this gateway last loaded or committed for the table, if it has one:
        possibly no longer the table's (another gateway or command may have committed since),
        which only a commit's compare-and-set tells."""
        known = self.recent_records.get(table_id)
        if known is None:
            return None
        record = store_pb2.TableRecord.FromString(known[0])
        record.type_urls.extend(known[1])
        for from_seq, names in known[2]:
            record.seat_names.add(from_seq=from_seq, names=names)
        return record

    def _keys(self, table_id: str) -> tuple[str, str, str, str]:
        """The table's keys: its record, log, requests and archive (KEY_SUFFIXES)."""
        table, log, requests, archive = (f"{self.prefix}:{{{table_id}}}:{suffix}" for suffix in KEY_SUFFIXES)
        return table, log, requests, archive

    def channel(self, table_id: str) -> str:
        return f"{self.prefix}:{{{table_id}}}:wake"

    async def load(
        self, table_id: str, request_key: RequestKey | None = None
    ) -> tuple[store_pb2.TableRecord, store_pb2.StoredResponse | None]:
        """The table's record, and the stored response for ``request_key`` if any, in one trip."""
        table_key, _, requests_key, _ = self._keys(table_id)
        if request_key:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hmget(table_key, ["record", "types"])
                pipe.hget(requests_key, request_key.field)
                replies = await pipe.execute()
        else:  # one command: no pipeline's own cost
            replies = [await self.redis.hmget(table_key, ["record", "types"])]
        data, types = replies[0]
        if data is None and self.archive is not None:
            data, types = await self.archive.stored(table_id)
        if data is None:
            raise TableMissing(table_id)
        record = store_pb2.TableRecord.FromString(data)
        if types:
            type_urls, names = self._types(types)
            record.ClearField("type_urls")
            record.type_urls.extend(type_urls)
            for from_seq, listed in names:
                record.seat_names.add(from_seq=from_seq, names=listed)
            self._remember(table_id, data, type_urls, names)
        else:
            self._remember(table_id, data, tuple(record.type_urls))
        stored = None
        if request_key:
            stored = store_pb2.StoredResponse.FromString(replies[1]) if replies[1] is not None else None
        return record, stored

    async def commit(
        self,
        record: store_pb2.TableRecord,
        expected_version: int,
        entries: list[LogEntry],
        request_key: RequestKey | None = None,
        stored: store_pb2.StoredResponse | None = None,
        due: object = NO_DUE_WRITE,
        written: list["StoredEntry"] | None = None,
        rating_job: RatingJobWrite | None = None,
    ) -> bool:
        """Writes ``record`` (whose table.version/last_seq are already the new ones) if the
        table is still at ``expected_version`` (0: create it). Raises TableExists,
        TableMissing, VersionConflict or RequestUsed, and then nothing was written.

        ``due``: the table's new due time (a float, or None: it waits on no task), written
        with the rest when ``due_in_commit`` (one trip, and no window between the commit and
        its due time). Returns whether it was written: on a cluster the caller writes it.
        ``written``: filled with the entries as the log now holds them (for watchers here).
        ``rating_job``: written with the rest when ``jobs_in_commit`` (else the caller's)."""
        table = record.table
        first_seq = table.last_seq - len(entries) + 1
        known_types = len(record.type_urls)
        stamp = nanos(table.update_time)  # the time of every entry of the command
        encoded = [entry.fields(record.type_urls, table.version, stamp) for entry in entries]
        # The seats' names the text of the log's game events writes in, from this command's
        # entries on: set as the game starts and again when they change (a bot takes a seat).
        names_changed = False
        if table.status != gw.TABLE_STATUS_OPEN and entries:
            names = names_list(table)
            if not record.seat_names or list(record.seat_names[-1].names) != names:
                record.seat_names.add(from_seq=first_seq, names=names)
                names_changed = True
        types = b""
        if len(record.type_urls) != known_types or names_changed:
            types = store_pb2.TypeUrls(type_urls=record.type_urls, seat_names=record.seat_names).SerializeToString()
        ttl = requests_ttl = self.ttl
        if table.status == gw.TABLE_STATUS_OPEN:
            ttl = requests_ttl = self.open_ttl
        elif table.status == gw.TABLE_STATUS_FINISHED:
            ttl = requests_ttl = self.finished_ttl
            if self.retry_seconds > 0 and not 0 < ttl <= self.retry_seconds:
                requests_ttl = self.retry_seconds
        # The type URLs and names are kept once, in the hash's "types" field, not in the record.
        type_urls = list(record.type_urls)
        seat_names = _names_from(record.seat_names)
        record.ClearField("type_urls")
        record.ClearField("seat_names")
        data = record.SerializeToString()
        record.type_urls.extend(type_urls)
        for from_seq, listed in seat_names:
            record.seat_names.add(from_seq=from_seq, names=listed)
        args: list[bytes | str | int] = [
            expected_version,
            data,
            table.version,
            table.last_seq,
            ttl,
            request_key.field if request_key else b"",
            stored.SerializeToString() if stored is not None else b"",
            self.channel(table.table_id),
            types,
            requests_ttl,
            len(entries),
            "1" if table.status == gw.TABLE_STATUS_FINISHED else "0",
        ]
        keys = list(self._keys(table.table_id))
        due_written = due is not NO_DUE_WRITE and self.due_in_commit
        job = rating_job if self.jobs_in_commit else None
        # A finished table's every commit files it in the archive's outbox.
        outbox = self.archive_outbox is not None and table.status == gw.TABLE_STATUS_FINISHED
        if due_written or job is not None or (outbox and self.due_in_commit):
            # On a single Redis: the due set, the rating job's two keys (the due set's name
            # again where there is no job: the script does not touch them) and the outbox.
            keys += [self.due_key, job.jobs_key, job.pending_key] if job is not None else [self.due_key] * 3
            if self.archive_outbox is not None:
                keys.append(self.archive_outbox)
        args += ["rem" if due is None else repr(due), table.table_id] if due_written else ["", table.table_id]
        if job is not None:
            args += [job.job, repr(job.send_at)]
        else:
            args += ["", ""]
        args.append(repr(stamp / 1e9) if outbox and self.due_in_commit else "")
        for offset, fields in enumerate(encoded):
            args += [f"{first_seq + offset}-0", len(fields) // 2, *fields]
        try:  # EVALSHA itself: redis-py's Script call checks for a pipeline at every call
            result = await self.redis.evalsha(self._commit.sha, len(keys), *keys, *args)
        except NoScriptError:  # a Redis that lost its scripts (restarted, flushed): loads it
            result = await self._commit(keys=keys, args=args)
        status = int(result[0])
        if status == 1:
            if outbox and not self.due_in_commit:
                # On a cluster the outbox is in a slot of its own: written after the commit.
                await self.redis.zadd(cast(str, self.archive_outbox), {table.table_id: stamp / 1e9})
            self._remember(table.table_id, data, type_urls, seat_names)
            if written is not None:
                written += [
                    StoredEntry(seq=first_seq + offset, data=fields[1], type_urls=type_urls, names=seat_names)
                    for offset, fields in enumerate(encoded)
                    if isinstance(fields[1], bytes)
                ]
            return due_written
        self.recent_records.pop(table.table_id, None)
        if status == -1:
            raise TableExists(table.table_id)
        if status == -2:
            raise TableMissing(table.table_id)
        if status == -3:
            raise VersionConflict(int(result[1]))
        raise RequestUsed(store_pb2.StoredResponse.FromString(result[1]))

    async def read_log(self, table_id: str, after_seq: int, count: int = 500) -> list[StoredEntry]:
        """Up to ``count`` entries after ``after_seq``, from the archive of a finished game
        and then the stream."""
        table_key, log_key, _, archive_key = self._keys(table_id)
        for _ in range(3):
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.get(archive_key)
                pipe.xrange(log_key, min=f"({after_seq}-0", max="+", count=count)
                # After the entries: the list only grows, so it covers every entry read.
                pipe.hmget(table_key, ["types", "seq"])
                archive, stream, (types, last) = await pipe.execute()
            # The game's end moved the stream into the archive between the two reads, which
            # then found neither: read again (the seq is written with the entries).
            if archive is None and not stream and int(last or 0) > after_seq:
                continue
            break
        if last is None and archive is None and not stream and self.archive is not None:
            types, rows = await self.archive.log(table_id, after_seq, count)  # trimmed from Redis
        else:
            rows = archived_entries(archive or b"")
        type_urls, names = self._types(types) if types else ((), ())
        entries = [
            StoredEntry(seq=seq, data=record, type_urls=type_urls, names=names)
            for seq, record in rows
            if seq > after_seq
        ][:count]
        last_seq = entries[-1].seq if entries else after_seq
        # redis-py types replies for every client flavour at once; this one does not decode.
        raw = cast("list[tuple[bytes, dict[bytes, bytes]]]", stream)
        for entry_id, fields in raw:
            seq = int(entry_id.split(b"-")[0])
            if seq > last_seq and len(entries) < count:
                entries.append(StoredEntry(seq=seq, data=fields[b"e"], type_urls=type_urls, names=names))
        return entries

    # -- indexes across tables ---------------------------------------------------------

    def _index(self, status: str) -> str:
        return f"{self.prefix}:index:{status}"

    async def index(self, table_id: str, status: str | None, now: float) -> None:
        """Files the table under its status ("open" or "in-progress"; None: neither, for a
        finished or expired table), scored by ``now``."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for name in ("open", "in-progress"):
                if name == status:
                    pipe.zadd(self._index(name), {table_id: now})
                else:
                    pipe.zrem(self._index(name), table_id)
            await pipe.execute()

    async def listed(self, status: str, offset: int, count: int) -> list[str]:
        """Tables under ``status``, the newest to it first."""
        # redis-py types replies for every client flavour at once; this one does not decode.
        raw = cast("list[bytes]", await self.redis.zrevrange(self._index(status), offset, offset + count - 1))
        return [table_id.decode() for table_id in raw]

    async def opened_before(self, when: float, count: int) -> list[str]:
        """Up to ``count`` open tables filed as open before ``when``, the oldest first."""
        raw = cast("list[bytes]", await self.redis.zrangebyscore(self._index("open"), "-inf", when, start=0, num=count))
        return [table_id.decode() for table_id in raw]

    async def load_many(self, table_ids: list[str]) -> list[store_pb2.TableRecord | None]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                pipe.hget(self._keys(table_id)[0], "record")
            replies = await pipe.execute()
        if self.archive is not None and None in replies:
            archived = await self.archive.records(
                [tid for tid, reply in zip(table_ids, replies, strict=True) if reply is None]
            )
            replies = [
                archived.get(tid) if reply is None else reply for tid, reply in zip(table_ids, replies, strict=True)
            ]
        return [store_pb2.TableRecord.FromString(reply) if reply else None for reply in replies]

    # -- the archive's side in Redis (gateway/archiver.py) --------------------------------

    async def snapshot(self, table_id: str) -> "FinishedTable | None":
        """A finished table as Redis holds it, read in one transaction on a single Redis
        (on a cluster in one trip: the rare entry appended meanwhile makes a newer version,
        which the trim sees): None when it is gone or not finished."""
        table_key, log_key, _, archive_key = self._keys(table_id)
        async with self.redis.pipeline(transaction=self.due_in_commit) as pipe:
            pipe.hmget(table_key, ["record", "types", "version"])
            pipe.get(archive_key)
            pipe.xrange(log_key, "-", "+")
            (data, types, version), archive, stream = await pipe.execute()
        if data is None:
            return None
        record = store_pb2.TableRecord.FromString(data)
        if record.table.status != gw.TABLE_STATUS_FINISHED:
            return None
        entries = archived_entries(archive or b"")
        raw = cast("list[tuple[bytes, dict[bytes, bytes]]]", stream)
        entries += [(int(entry_id.split(b"-")[0]), fields[b"e"]) for entry_id, fields in raw]
        return FinishedTable(record, data, types or b"", int(version), sorted(entries))

    async def file_finished(self, table_id: str) -> None:
        """Files a finished table in the archive's outbox where its commit could not (a
        cluster: the gateway writes it after the commit, and may have died in between)."""
        if self.archive_outbox is not None and not self.due_in_commit:
            await self.redis.zadd(self.archive_outbox, {table_id: time.time()}, nx=True)

    async def trim(self, table_id: str, archived_version: int) -> str:
        """Deletes a table's keys if Redis holds the version the archive holds:
        "trimmed", "gone" (nothing to delete) or "newer" (a later commit: copy it again)."""
        result = await self._trim(keys=list(self._keys(table_id)), args=[archived_version])
        return {1: "trimmed", 0: "gone", -1: "newer"}[int(result)]

    async def sweep_batch(self, count: int) -> list[str]:
        """The next ``count`` tables in progress for the sweep, which walks the index
        round and round from a cursor shared by every gateway."""
        cursor_key = f"{self.prefix}:sweep:cursor"
        offset = int(await self.redis.get(cursor_key) or 0)
        # redis-py types replies for every client flavour at once; this one does not decode.
        raw = cast("list[bytes]", await self.redis.zrange(self._index("in-progress"), offset, offset + count - 1))
        await self.redis.set(cursor_key, offset + len(raw) if len(raw) == count else 0)
        return [table_id.decode() for table_id in raw]

    async def try_lock(self, name: str, seconds: float) -> bool:
        """A lock that expires by itself, so one gateway of many does a periodic job."""
        milliseconds = max(1, int(seconds * 1000))
        return bool(await self.redis.set(f"{self.prefix}:lock:{name}", "1", nx=True, px=milliseconds))

    # -- due times: tables waiting on a task ---------------------------------------------

    async def set_due(self, table_id: str, when: float | None) -> None:
        """The time by which the table's pending task should have acted (None: it waits
        on no task)."""
        if when is None:
            await self.redis.zrem(self.due_key, table_id)
        else:
            await self.redis.zadd(self.due_key, {table_id: when})

    async def overdue(self, now: float, count: int) -> list[tuple[str, float]]:
        """Up to ``count`` tables whose due time has passed, the longest overdue first."""
        # redis-py types replies for every client flavour at once; this one does not decode.
        raw = cast(
            "list[tuple[bytes, float]]",
            await self.redis.zrangebyscore(self.due_key, "-inf", now, start=0, num=count, withscores=True),
        )
        return [(table_id.decode(), score) for table_id, score in raw]

    async def forget_due(self, table_id: str, seen: float) -> None:
        """Drops the table's due time unless a newer commit set a later one than ``seen``."""
        await self._forget_due(keys=[self.due_key], args=[table_id, repr(seen)])

    async def due_times(self, table_ids: list[str]) -> list[float | None]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                pipe.zscore(self.due_key, table_id)
            return await pipe.execute()

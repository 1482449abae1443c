"""The commit: one Lua script that checks the table's version (a compare-and-set), refuses
a used request id, writes the record, appends the log entries (freezing a finished game's
log into its archive), stores the response, refreshes the TTLs, files the table's due time,
rating job and archive copy where they share the Redis, and publishes: all or nothing.

Its keys and arguments are named once, in ``CommitKeys`` and ``CommitArgs``: their fields'
order makes both the lists handed to Redis and the script's ``local`` lines that name
them, so a position cannot drift between the two. The log entries follow the named
arguments, each as its stream id, its number of field pairs and the pairs.
"""

from dataclasses import dataclass, fields

from gateway.archive_format import FREEZE_LOG
from gateway.log_record import SeatNames, names_from
from gateway.text import names_list
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2

# What ``commit`` writes as the table's due time: nothing (an open table, which never
# waits on a task), or a time (None: it waits on none now, the entry goes).
NO_DUE_WRITE = object()


@dataclass(frozen=True)
class RatingJobWrite:
    """A finished rated table's rating job, written by its finishing commit's script (a
    single Redis; on a cluster its keys are in another slot: gateway/ratings.py)."""

    jobs_key: str
    pending_key: str
    job: bytes
    send_at: float


@dataclass(frozen=True)
class CommitKeys:
    """The script's KEYS, each a local ``<field>_key`` in it. The table's own four share its
    hash tag; the others are keys across tables, given on a single Redis only (on a cluster
    each is in a slot of its own and written outside the script) and only when used: the
    given ones come first (None only after the last given one)."""

    table: str
    log: str
    requests: str
    archive: str
    due: str | None = None  # the due set (TableStore.due_key)
    jobs: str | None = None  # the rating jobs' hash (gateway/ratings.py)
    pending: str | None = None  # the rating jobs' times to send their task again
    outbox: str | None = None  # the archive's outbox (gateway/archiver.py)

    def values(self) -> list[str]:
        given = [getattr(self, name) for name in _KEY_FIELDS]  # not astuple: see CommitArgs.values
        while given[-1] is None:
            given.pop()
        if None in given:
            raise ValueError("a commit's keys across tables are given in order")
        return given


@dataclass(frozen=True, kw_only=True)
class CommitArgs:
    """The script's named ARGV, each a local of its field's name in it (those across
    tables, written on a single Redis only, unwritten by default)."""

    expected_version: int  # 0: create the table
    record: bytes  # TableRecord, without type URLs and seats' names
    version: int  # the table's new version
    last_seq: int  # the log's new last seq, published on the wake channel
    ttl: int  # the table's, log's and archive's (0: kept for good)
    request_field: bytes  # RequestKey.field, b'' without a request id
    response: bytes  # the StoredResponse kept under it
    channel: str  # the table's wake channel
    types: bytes  # the new "types" field (TypeUrls), b'': unchanged
    requests_ttl: int  # the requests hash's
    entry_count: int  # how many log entries follow the named arguments
    finished: str  # "1": the game is over (its log moves into the archive)
    due: str = ""  # the table's due time: a score, "rem" (it waits on no task), "": unwritten
    table_id: str  # the member in the due set, the rating jobs and the outbox
    job: bytes = b""  # the rating job, b'': none
    send_at: str = ""  # when to send its task again
    outbox_at: str = ""  # the score in the archive's outbox, "": not filed

    def values(self) -> list[bytes | str | int]:
        # Field by field: astuple copies each value deeply, a share of every commit's CPU.
        return [getattr(self, name) for name in _ARG_NAMES]


def _locals(table: str, names: list[str]) -> str:
    return "\n".join(f"local {name} = {table}[{place}]" for place, name in enumerate(names, 1))


_KEY_FIELDS = [item.name for item in fields(CommitKeys)]
_KEY_NAMES = [f"{name}_key" for name in _KEY_FIELDS]
_ARG_NAMES = [item.name for item in fields(CommitArgs)]

_BODY = """
local current = redis.call('HGET', table_key, 'version')
if expected_version == '0' then
  if current then return {-1} end
else
  if not current then return {-2} end
  if current ~= expected_version then return {-3, current} end
end
if request_field ~= '' then
  local prior = redis.call('HGET', requests_key, request_field)
  if prior then return {-4, prior} end
end
redis.call('HSET', table_key, 'record', record, 'version', version, 'seq', last_seq)
if types ~= '' then redis.call('HSET', table_key, 'types', types) end
local i = FIRST_ENTRY
for e = 1, tonumber(entry_count) do
  local id = ARGV[i]
  local n = tonumber(ARGV[i + 1])
  local fields = {}
  for k = 1, n * 2 do fields[k] = ARGV[i + 1 + k] end
  redis.call('XADD', log_key, id, unpack(fields))
  i = i + 2 + n * 2
end
if finished == '1' then
FREEZE_LOG
end
if request_field ~= '' then redis.call('HSET', requests_key, request_field, response) end
-- A TTL of 0 keeps the key (a finished table may be kept for good though its game had one).
-- The archive is there only once the game is over.
local keys = {table_key, log_key, requests_key, archive_key}
local ttls = {tonumber(ttl), tonumber(ttl), tonumber(requests_ttl), tonumber(ttl)}
for k = 1, finished == '1' and 4 or 3 do
  if ttls[k] > 0 then redis.call('EXPIRE', keys[k], ttls[k]) else redis.call('PERSIST', keys[k]) end
end
-- The table's due time (a sorted set of every table), on a single Redis only: a score, or
-- 'rem' when it waits on no task.
if due == 'rem' then
  redis.call('ZREM', due_key, table_id)
elseif due ~= '' then
  redis.call('ZADD', due_key, due, table_id)
end
-- A rated table's finishing commit: its rating job (a hash of every job) and the time to
-- send its task again, on a single Redis only (gateway/ratings.py).
if job ~= '' then
  redis.call('HSET', jobs_key, table_id, job)
  redis.call('ZADD', pending_key, send_at, table_id)
end
-- A finished table's commit files it in the archive's outbox (gateway/archiver.py), on a
-- single Redis only: its copy in the archive is due (again, if it was copied before).
if outbox_at ~= '' then redis.call('ZADD', outbox_key, outbox_at, table_id) end
redis.call('PUBLISH', channel, last_seq)
return {1}
"""

SCRIPT = "\n".join(
    (
        _locals("KEYS", _KEY_NAMES),
        _locals("ARGV", _ARG_NAMES),
        _BODY.replace("FIRST_ENTRY", str(len(_ARG_NAMES) + 1)).replace("FREEZE_LOG", FREEZE_LOG.strip()),
    )
)


def script_args(args: CommitArgs, encoded: list[list[bytes | str]], first_seq: int) -> list[bytes | str | int]:
    """The script's ARGV: the named arguments, then each log entry (its fields, from seq
    ``first_seq`` on)."""
    values = args.values()
    for offset, entry_fields in enumerate(encoded):
        values += [f"{first_seq + offset}-0", len(entry_fields) // 2, *entry_fields]
    return values


def types_field(record: store_pb2.TableRecord, known_types: int, first_seq: int, entries: int) -> bytes:
    """The table's new "types" field (b'': unchanged): its type URLs, of which the first
    ``known_types`` were stored already, and the seats' names the text of the log's game
    events writes in, from this command's entries on (``entries`` of them from
    ``first_seq``), set as the game starts and again when they change (a bot takes a seat)."""
    table = record.table
    names_changed = False
    if table.status != gw.TABLE_STATUS_OPEN and entries:
        names = names_list(table)
        if not record.seat_names or list(record.seat_names[-1].names) != names:
            record.seat_names.add(from_seq=first_seq, names=names)
            names_changed = True
    if len(record.type_urls) == known_types and not names_changed:
        return b""
    return store_pb2.TypeUrls(type_urls=record.type_urls, seat_names=record.seat_names).SerializeToString()


def record_field(record: store_pb2.TableRecord) -> tuple[bytes, list[str], SeatNames]:
    """The table's "record" field, without the type URLs and names (kept once, in its
    "types" field), and those: ``record`` is left as it was."""
    type_urls = list(record.type_urls)
    seat_names = names_from(record.seat_names)
    record.ClearField("type_urls")
    record.ClearField("seat_names")
    data = record.SerializeToString()
    record.type_urls.extend(type_urls)
    for from_seq, listed in seat_names:
        record.seat_names.add(from_seq=from_seq, names=listed)
    return data, type_urls, seat_names

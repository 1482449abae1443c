"""The archive format: the log of a finished game frozen in one value, the table's
``<prefix>:{id}:archive`` string (the stream costs about 27 bytes an entry more): its first
seq (4 bytes, big-endian), then each entry's LogRecord (gateway/log_record.py) after its
length (2 bytes); entries committed after the game ended are appended. A log with an entry
over 64 KB stays a stream.

The commit script writes it (``FREEZE_LOG``, in gateway/commit_script.py) and
``archived_entries`` reads it. Here too is what the store and the long-term archive
(gateway/archive.py, gateway/archiver.py) hand each other: a finished table as Redis holds
it, what the store reads from the archive, and the outbox of tables whose copy is due.
"""

from dataclasses import dataclass
from typing import Protocol

from tavola.store.v1 import store_pb2

# Part of the commit script (its locals ``log_key`` and ``archive_key``): a finished log
# gets no more entries (but for the odd one, appended): its stream's entries move into the
# archive, each under 64 KB (its length takes 2 bytes there) and their seqs following on
# each other; else the stream stays.
FREEZE_LOG = """
local entries = redis.call('XRANGE', log_key, '-', '+')
local parts, next_seq = {}, nil
for _, entry in ipairs(entries) do
  local seq = tonumber(string.match(entry[1], '^(%d+)%-0$'))
  local record = entry[2][2]
  if not seq or (next_seq and seq ~= next_seq) or #record > 65535 then
    parts = nil
    break
  end
  if not next_seq and redis.call('EXISTS', archive_key) == 0 then parts[1] = struct.pack('>I4', seq) end
  next_seq = seq + 1
  parts[#parts + 1] = struct.pack('>I2', #record) .. record
end
if parts and next_seq then
  redis.call('APPEND', archive_key, table.concat(parts))
  redis.call('DEL', log_key)
end
"""


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


# Deletes a finished table's keys once the archive holds its version (gateway/archiver.py).
TRIM = """
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

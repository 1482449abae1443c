"""The archive: every finished table in PostgreSQL, for as long as the site lasts.

Redis holds live tables; once a game is over, gateway/archiver.py copies the table here
(its record, log, seats with their results and rating changes) and, after the retry
window, deletes it from Redis. Reads of a table Redis no longer holds fall through to
here (TableStore.use_archive): the archive keeps the TableRecord, its "types" field and
every LogRecord as the bytes Redis held, so GetTable, GetReplay, ListMyTables and
``services.verify`` answer for an archived table exactly as they did before.

The schema is under Alembic migrations (gateway/migrations); ``migrate`` brings a
database to the newest, and the gateway runs it as it starts. The driver is psycopg 3,
through its asynchronous connection pool.
"""

import json
from collections.abc import Sequence
from pathlib import Path

import grpc
import psycopg
import structlog
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from common import ratings
from common.errors import RETRY_UNAVAILABLE_SECONDS, ApiError
from gateway.archive_format import FinishedTable
from gateway.chat_store import ArchivedMessage
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2

log = structlog.get_logger()

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# The name a deleted account's seats take in archived games (gateway/leaving.py).
DELETED_NAME = "deleted player"


def sqlalchemy_url(url: str) -> str:
    """A ``postgresql://`` URL as SQLAlchemy names the psycopg 3 driver (for Alembic)."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("postgresql", "postgres"):
        raise ValueError("TAVOLA_DATABASE_URL must be a postgresql:// URL")
    return f"postgresql+psycopg://{rest}"


def migrate(url: str) -> None:
    """Brings the database at ``url`` to the newest schema (idempotent)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # configparser reads "%" as interpolation: a password's escapes stay as they are.
    config.set_main_option("sqlalchemy.url", sqlalchemy_url(url).replace("%", "%%"))
    command.upgrade(config, "head")


def unavailable(error: Exception) -> ApiError:
    return ApiError(
        grpc.StatusCode.UNAVAILABLE,
        "DEPENDENCY_UNAVAILABLE",
        "the archive of finished tables is unavailable",
        retry_after=RETRY_UNAVAILABLE_SECONDS,
        cause=type(error).__name__,
    )


def results(table: gw.Table) -> dict:
    outcome = table.outcome
    return {"winners": list(outcome.winners), "scores": list(outcome.scores), "summary": outcome.summary}


def _renamed(text: str, names: set[str]) -> str:
    for name in sorted(names, key=len, reverse=True):  # "ada b" before "ada"
        text = text.replace(name, DELETED_NAME)
    return text


def _scrub_event(stored: store_pb2.StoredEvent, seats: set[int], names: set[str]) -> None:
    """A game event's phrase names no one (a seat is an argument, named from the seat
    names as it is read); a platform event's text was written with names."""
    if stored.table_event:
        event = gw.TableEvent.FromString(stored.table_event)
        event.text = _renamed(event.text, names)
        if event.HasField("seat_taken") and event.seat_taken.seat in seats:
            event.seat_taken.display_name = DELETED_NAME
        stored.table_event = event.SerializeToString()


def scrub(
    data: bytes, types: bytes, entries: list[tuple[int, bytes]], player_id: str
) -> tuple[bytes, bytes, list[tuple[int, bytes]]]:
    """A table's record, "types" field and log without the player: their seats' names
    (everywhere the log writes them) become DELETED_NAME and their player id goes.
    Returns the record, the types and the entries that changed."""
    record = store_pb2.TableRecord.FromString(data)
    seats = {seat.seat for seat in record.table.seats if seat.player_id == player_id}
    listed = store_pb2.TypeUrls.FromString(types)
    names = {record.table.seats[seat].display_name for seat in seats}
    names |= {item.names[seat] for item in listed.seat_names for seat in seats if seat < len(item.names)}
    names.discard("")
    for seat in seats:
        record.table.seats[seat].display_name = DELETED_NAME
        record.table.seats[seat].player_id = ""
    for item in listed.seat_names:
        for seat in seats:
            if seat < len(item.names):
                item.names[seat] = DELETED_NAME
    changed = []
    for seq, entry in entries:
        log_record = store_pb2.LogRecord.FromString(entry)
        _scrub_event(log_record.public, seats, names)
        for seat_event in log_record.seats:
            _scrub_event(seat_event.event, seats, names)
        scrubbed = log_record.SerializeToString()
        if scrubbed != entry:
            changed.append((seq, scrubbed))
    return record.SerializeToString(), listed.SerializeToString(), changed


class Archive:
    """The archive's tables, through a pool of connections (``open`` before use)."""

    def __init__(self, url: str, max_connections: int = 8, timeout: float = 5.0):
        self.pool = AsyncConnectionPool(
            url, min_size=1, max_size=max_connections, timeout=timeout, open=False, kwargs={"autocommit": True}
        )

    async def open(self) -> None:
        # Not waiting for a connection: a gateway starts while PostgreSQL is away, and
        # the pool keeps trying in the background.
        await self.pool.open(wait=False)

    async def close(self) -> None:
        await self.pool.close()

    async def _rows(self, query: str, params: Sequence) -> list[tuple]:
        try:
            async with self.pool.connection() as connection:
                cursor = await connection.execute(query, params)
                return await cursor.fetchall()
        except (psycopg.Error, PoolTimeout) as error:
            log.warning("archive_unavailable", error=str(error)[:200])
            raise unavailable(error) from None

    # -- reads (TableStore's fall-through: store.ArchivedTables) ------------------------

    async def stored(self, table_id: str) -> tuple[bytes | None, bytes | None]:
        rows = await self._rows("SELECT record, types FROM archived_tables WHERE table_id = %s", (table_id,))
        return (bytes(rows[0][0]), bytes(rows[0][1])) if rows else (None, None)

    async def records(self, table_ids: list[str]) -> dict[str, bytes]:
        rows = await self._rows("SELECT table_id, record FROM archived_tables WHERE table_id = ANY(%s)", (table_ids,))
        return {table_id: bytes(record) for table_id, record in rows}

    async def log(self, table_id: str, after_seq: int, count: int) -> tuple[bytes, list[tuple[int, bytes]]]:
        rows = await self._rows(
            "SELECT t.types, l.seq, l.entry FROM archived_tables t "
            "LEFT JOIN LATERAL (SELECT seq, entry FROM archived_log WHERE table_id = t.table_id AND seq > %s "
            "ORDER BY seq LIMIT %s) l ON true WHERE t.table_id = %s",
            (after_seq, count, table_id),
        )
        if not rows:
            return b"", []
        return bytes(rows[0][0]), [(seq, bytes(entry)) for _, seq, entry in rows if seq is not None]

    async def version(self, table_id: str) -> int | None:
        """The version of the table the archive holds, None if none (raises if away)."""
        rows = await self._rows("SELECT version FROM archived_tables WHERE table_id = %s", (table_id,))
        return int(rows[0][0]) if rows else None

    # -- writes (gateway/archiver.py) ----------------------------------------------------

    async def chat(self, table_id: str) -> list[ArchivedMessage]:
        """An archived table's chat (both channels: a row with a seat is the players')."""
        rows = await self._rows(
            "SELECT seat, player_id, extract(epoch FROM sent_at), body FROM archived_chat "
            "WHERE table_id = %s ORDER BY seq",
            (table_id,),
        )
        return [ArchivedMessage(seat, player_id or "", float(sent_at), body) for seat, player_id, sent_at, body in rows]

    async def copy(
        self, finished: FinishedTable, rating_changes: dict[int, float], chat: Sequence[ArchivedMessage] = ()
    ) -> bool:
        """Writes the table and its chat, in one transaction, unless the archive holds this
        version or a later one already (a copy made before a crash, or by another gateway).
        Whether it wrote. Raises psycopg's errors (the archiver tries again later)."""
        table = finished.record.table
        record = finished.record
        places = ratings.places(table)
        data, types, entries = finished.data, finished.types, finished.entries
        async with self.pool.connection() as connection, connection.transaction():
            players = [seat.player_id for seat in table.seats if seat.player_id]
            gone = await connection.execute(
                "SELECT player_id FROM deleted_players WHERE player_id = ANY(%s)", (players,)
            )
            deleted = {player_id for (player_id,) in await gone.fetchall()}
            for player_id in deleted:  # left before the table was archived: archived without them
                data, types, changed = scrub(data, types, entries, player_id)
                entries = sorted({**dict(entries), **dict(changed)}.items())
            cursor = await connection.execute(
                """
                INSERT INTO archived_tables (table_id, game_id, version, last_seq, finish_time, rated,
                    replay_mode, player_count, options, seed, seed_salt, seed_commitment, outcome, results,
                    record, types)
                VALUES (%s, %s, %s, %s, to_timestamp(%s::double precision / 1e9), %s, %s, %s, %s, %s, %s, %s,
                    %s, %s, %s, %s)
                ON CONFLICT (table_id) DO UPDATE SET version = EXCLUDED.version, last_seq = EXCLUDED.last_seq,
                    record = EXCLUDED.record, types = EXCLUDED.types, archived_at = now()
                    WHERE archived_tables.version < EXCLUDED.version
                RETURNING (xmax = 0) AS inserted
                """,
                (
                    table.table_id,
                    table.game_id,
                    finished.version,
                    table.last_seq,
                    _finish_ns(finished),
                    table.rated,
                    table.replay_mode,
                    table.player_count,
                    json.dumps(dict(table.options)),
                    record.seed,
                    record.seed_salt,
                    table.seed_commitment,
                    table.outcome.SerializeToString(),
                    json.dumps(results(table)),
                    data,
                    types,
                ),
            )
            written = await cursor.fetchone()
            if written is None:  # this version or a later one is there
                return False
            if not written[0]:  # a newer version of a table copied before: its log again
                await connection.execute("DELETE FROM archived_log WHERE table_id = %s", (table.table_id,))
                await connection.execute("DELETE FROM archived_seats WHERE table_id = %s", (table.table_id,))
                await connection.execute("DELETE FROM archived_chat WHERE table_id = %s", (table.table_id,))
            async with connection.cursor() as seats:
                await seats.executemany(
                    "INSERT INTO archived_seats (table_id, seat, player_id, display_name, kind, place, rating_change) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    [
                        (
                            table.table_id,
                            seat.seat,
                            None if seat.player_id in deleted else seat.player_id or None,
                            DELETED_NAME if seat.player_id in deleted else seat.display_name,
                            gw.SeatKind.Name(seat.kind),
                            places[seat.seat],
                            None if seat.player_id in deleted else rating_changes.get(seat.seat),
                        )
                        for seat in table.seats
                    ],
                )
            async with (
                connection.cursor() as cursor,
                cursor.copy("COPY archived_log (table_id, seq, entry) FROM STDIN") as copy,
            ):
                copy.set_types(["text", "int8", "bytea"])
                for seq, entry in entries:
                    await copy.write_row((table.table_id, seq, entry))
            async with connection.cursor() as rows:
                await rows.executemany(
                    "INSERT INTO archived_chat (table_id, seq, seat, player_id, sent_at, body) "
                    "VALUES (%s, %s, %s, %s, to_timestamp(%s), %s)",
                    [
                        (table.table_id, seq, message.seat, message.player_id or None, message.sent_at, message.text)
                        for seq, message in enumerate(chat, 1)
                        if message.player_id not in deleted
                    ],
                )
        return True

    async def forget_player(self, player_id: str) -> int:
        """A deleted account: its seats in archived games renamed DELETED_NAME (record, log
        and seats), its rating changes and chat removed, and the tables archived later
        archived without it, in one transaction. Returns how many archived tables it sat at."""
        try:
            return await self._forget_player(player_id)
        except (psycopg.OperationalError, PoolTimeout) as error:
            raise unavailable(error) from None

    async def _forget_player(self, player_id: str) -> int:
        async with self.pool.connection() as connection, connection.transaction():
            await connection.execute(
                "INSERT INTO deleted_players (player_id) VALUES (%s) ON CONFLICT DO NOTHING", (player_id,)
            )
            found = await connection.execute(
                "SELECT table_id, record, types FROM archived_tables WHERE table_id IN "
                "(SELECT table_id FROM archived_seats WHERE player_id = %s) ORDER BY table_id FOR UPDATE",
                (player_id,),
            )
            tables = await found.fetchall()
            for table_id, data, types in tables:
                log_rows = await connection.execute(
                    "SELECT seq, entry FROM archived_log WHERE table_id = %s ORDER BY seq", (table_id,)
                )
                entries = [(seq, bytes(entry)) for seq, entry in await log_rows.fetchall()]
                data, types, changed = scrub(bytes(data), bytes(types), entries, player_id)
                await connection.execute(
                    "UPDATE archived_tables SET record = %s, types = %s WHERE table_id = %s", (data, types, table_id)
                )
                async with connection.cursor() as cursor:
                    await cursor.executemany(
                        "UPDATE archived_log SET entry = %s WHERE table_id = %s AND seq = %s",
                        [(entry, table_id, seq) for seq, entry in changed],
                    )
            await connection.execute(
                "UPDATE archived_seats SET player_id = NULL, display_name = %s, rating_change = NULL "
                "WHERE player_id = %s",
                (DELETED_NAME, player_id),
            )
            await connection.execute("DELETE FROM archived_chat WHERE player_id = %s", (player_id,))
        return len(tables)


def _finish_ns(finished: FinishedTable) -> int:
    """When the game ended: the time of its last command (the table's update time)."""
    stamp = finished.record.table.update_time
    return stamp.seconds * 1_000_000_000 + stamp.nanos

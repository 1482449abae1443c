"""Open data: a game's finished tables of one month from the archive, as JSON Lines.

python -m gateway.export <game> <YYYY-MM> [--database URL] [--out FILE]

One line per table finished that month (UTC), in the order they finished, holding what
``python -m services.verify --export FILE`` needs to check it without any server: the
seed's commitment and reveal, options, actions in order, the game events every viewer was
shown, and the outcome; the seats' display names and places. Nothing private is in it:
no player id, no token, no chat; a deleted account's seats carry the name
``deleted player``. Bytes (game events, actions, the seed's salt and commitment) are
base64 or hex, as each field's name says.

Line format (one JSON object)::

    {"table_id", "game_id", "finish_time" (RFC 3339), "player_count", "options" {},
     "replay_mode", "rated",
     "seed", "seed_salt_hex", "seed_commitment_hex",
     "seats": [{"seat", "kind", "display_name", "place"}],
     "outcome": {"winners": [], "scores": [], "summary"},
     "actions": [{"seat", "type_url", "value_b64"}],
     "shown": {"spectator" | "<seat>": [{"type_url", "value_b64"}]}}
"""

import argparse
import base64
import contextlib
import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime

import psycopg

from common import settings
from gateway.log_record import StoredEntry, decode_types
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2


def _month(text: str) -> tuple[datetime, datetime]:
    try:
        start = datetime.strptime(text, "%Y-%m").replace(tzinfo=UTC)
    except ValueError:
        raise argparse.ArgumentTypeError("a month is YYYY-MM") from None
    end = start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1)
    return start, end


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def game_line(
    record_data: bytes, types: bytes, entries: list[tuple[int, bytes]], seats: list[tuple], finish_time: datetime
) -> dict:
    """One exported table, from the archive's rows (``seats``: seat, kind, display_name, place)."""
    record = store_pb2.TableRecord.FromString(record_data)
    table = record.table
    type_urls, names = decode_types(types)
    stored = [StoredEntry(seq=seq, data=data, type_urls=type_urls, names=names) for seq, data in entries]
    actions = []
    for entry in stored:
        if entry.action:
            taken = store_pb2.SeatAction.FromString(entry.action)
            actions.append(
                {"seat": taken.seat, "type_url": taken.action.type_url, "value_b64": _b64(taken.action.value)}
            )
    shown: dict[str, list[dict]] = {}
    for viewer in (None, *range(table.player_count)):
        events = []
        for entry in stored:
            data = entry.for_viewer(viewer)
            if data:
                event = gw.TableEvent.FromString(data)
                if event.HasField("game_event"):
                    events.append({"type_url": event.game_event.type_url, "value_b64": _b64(event.game_event.value)})
        shown["spectator" if viewer is None else str(viewer)] = events
    outcome = table.outcome
    return {
        "table_id": table.table_id,
        "game_id": table.game_id,
        "finish_time": finish_time.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "player_count": table.player_count,
        "options": dict(sorted(table.options.items())),
        "replay_mode": table.replay_mode,
        "rated": table.rated,
        "seed": record.seed,
        "seed_salt_hex": record.seed_salt.hex(),
        "seed_commitment_hex": table.seed_commitment.hex(),
        "seats": [
            {"seat": seat, "kind": kind, "display_name": name, "place": place} for seat, kind, name, place in seats
        ],
        "outcome": {"winners": list(outcome.winners), "scores": list(outcome.scores), "summary": outcome.summary},
        "actions": actions,
        "shown": shown,
    }


def export(database_url: str, game_id: str, month: tuple[datetime, datetime]) -> Iterator[dict]:
    """The month's finished tables of ``game_id``, each as its line's object."""
    with psycopg.connect(database_url) as connection, connection.cursor(name="month") as tables:
        # A server-side cursor: a month of a busy game is read a batch at a time.
        tables.execute(
            "SELECT table_id, record, types, finish_time FROM archived_tables "
            "WHERE game_id = %s AND finish_time >= %s AND finish_time < %s ORDER BY finish_time, table_id",
            (game_id, month[0], month[1]),
        )
        for table_id, record, types, finish_time in tables:
            entries = connection.execute(
                "SELECT seq, entry FROM archived_log WHERE table_id = %s ORDER BY seq", (table_id,)
            ).fetchall()
            seats = connection.execute(
                "SELECT seat, kind, display_name, place FROM archived_seats WHERE table_id = %s ORDER BY seat",
                (table_id,),
            ).fetchall()
            yield game_line(
                bytes(record), bytes(types), [(seq, bytes(entry)) for seq, entry in entries], seats, finish_time
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Export a game's finished tables of one month as JSON Lines.")
    parser.add_argument("game_id")
    parser.add_argument("month", type=_month, help="YYYY-MM (UTC)")
    parser.add_argument("--database", default=settings.text("TAVOLA_DATABASE_URL"), help="TAVOLA_DATABASE_URL")
    parser.add_argument("--out", help="a file to write (default: standard output)")
    args = parser.parse_args(argv)
    if not args.database:
        print("set TAVOLA_DATABASE_URL or --database to the archive's PostgreSQL", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as files:
        out = files.enter_context(open(args.out, "w", encoding="utf-8")) if args.out else sys.stdout
        count = 0
        for line in export(args.database, args.game_id, args.month):
            out.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")
            count += 1
    print(f"exported {count} tables", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

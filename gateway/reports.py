"""Chat moderation for operators: the reports players filed, and shadow mutes.

    python -m gateway.reports                       # the newest reports, one a line
    python -m gateway.reports list --count 50 --json
    python -m gateway.reports replay REPORT_ID > replay.bin   # the attached GetReplayResponse
    python -m gateway.reports shadow-mute PLAYER_ID   # their messages seen by themselves alone
    python -m gateway.reports unshadow PLAYER_ID
    python -m gateway.reports shadow-muted            # who is

It reads REDIS_URL and TAVOLA_KEY_PREFIX as the gateway does (docs/operators.md). A report
holds the reporter, the reported player, the table, the channel, the message as kept, the
reporter's words and their seat, and the table's log as that seat saw it when the report
was filed (a GetReplayResponse, base64; a spectator's when the reporter held no seat).
"""

import argparse
import base64
import json
import sys

from common import redis_client, settings
from common.settings import exit_on_bad_config


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def reports(client, prefix: str, count: int) -> list[dict]:
    found = []
    for entry_id, fields in client.xrevrange(f"{prefix}:chat:reports", count=count):
        report = json.loads(fields[b"r"])
        found.append({"report_id": _text(entry_id), **report})
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gateway.reports", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command")
    listing = commands.add_parser("list", help="the newest reports (the default)")
    listing.add_argument("--count", type=int, default=20)
    listing.add_argument("--json", action="store_true", help="one JSON object a line, replays included")
    commands.add_parser("replay", help="a report's attached replay, as bytes").add_argument("report_id")
    commands.add_parser("shadow-mute", help="a player's messages seen by themselves alone").add_argument("player_id")
    commands.add_parser("unshadow", help="undo shadow-mute").add_argument("player_id")
    commands.add_parser("shadow-muted", help="the players shadow-muted")
    args = parser.parse_args(argv)
    with exit_on_bad_config():
        client = redis_client.connect(redis_client.redis_url())
        prefix = settings.text("TAVOLA_KEY_PREFIX")
    shadow_key = f"{prefix}:chat:shadow-muted"
    try:
        if args.command == "shadow-mute":
            client.sadd(shadow_key, args.player_id)
            print(f"shadow-muted {args.player_id}")
        elif args.command == "unshadow":
            client.srem(shadow_key, args.player_id)
            print(f"no longer shadow-muted: {args.player_id}")
        elif args.command == "shadow-muted":
            for player_id in sorted(_text(each) for each in client.smembers(shadow_key)):
                print(player_id)
        elif args.command == "replay":
            found = client.xrange(f"{prefix}:chat:reports", args.report_id, args.report_id)
            if not found:
                print(f"no report {args.report_id}", file=sys.stderr)
                return 1
            sys.stdout.buffer.write(base64.b64decode(json.loads(found[0][1][b"r"])["replay"]))
        else:
            count = getattr(args, "count", 20)
            for report in reports(client, prefix, count):
                if getattr(args, "json", False):
                    print(json.dumps(report))
                    continue
                where = report["table_id"] or "lobby"
                print(
                    f"{report['report_id']}  {where} {report['channel']}  {report['reported']} said "
                    f"{report['text']!r}  reported by {report['reporter']}: {report['reason']!r}"
                )
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Check a finished table's randomness:
python -m services.verify <table_id> [--gateway host:port] [--commitment <hex recorded at the deal>]
python -m services.verify --export <file of JSON Lines from python -m gateway.export>

Every table commits to its seed before the deal (``Table.seed_commitment``, SHA-256 of a
salt and the seed) and reveals both in its last event (``GameFinished.seed_reveal``).
``verify_table`` fetches, through the public API, the log as every seat and a spectator
saw it with the actions taken, checks the commitment, then replays the game on the open
engine from the revealed seed and those actions and compares every event each viewer was
shown (every deal, roll and draw) and the outcome. It needs nothing but the gateway's
public door and this repository's engines. With ``--commitment``, the table's commitment
must also be the one a player wrote down when the deal was shown, so a gateway that
changed both its commitment and its log afterwards is caught too.
"""

import argparse
import asyncio
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import grpc

from common import defaults
from common.commitment import commitment

if TYPE_CHECKING:
    from tavola.rules.v1 import rules_pb2


@dataclass
class Verdict:
    table_id: str
    problems: list[str] = field(default_factory=list)
    actions: int = 0
    events: int = 0
    replay_mode: bool = False
    commitment: bytes = b""

    @property
    def ok(self) -> bool:
        return not self.problems


def _expected(projected, viewers: list[int | None]) -> dict[int | None, list]:
    """Each viewer's game events among rules ProjectedEvents, as the gateway logs them."""
    seen: dict[int | None, list] = {viewer: [] for viewer in viewers}
    for item in projected:
        own = {seat_event.seat: seat_event for seat_event in item.seats}
        for viewer in viewers:
            if viewer in own:
                if own[viewer].HasField("event"):
                    seen[viewer].append(own[viewer].event)
            elif item.HasField("spectator"):
                seen[viewer].append(item.spectator)
    return seen


class ReplayRefused(Exception):
    """The rules refused to deal or to apply a logged action: the log is not the game of
    the revealed seed."""


class _InProcess:
    """The call context the rules servicer gets when the verifier runs it in process: a
    refusal raises ReplayRefused with the rules' own words."""

    async def abort_with_status(self, status: grpc.Status) -> None:
        raise ReplayRefused(status.details)


async def _replay(table, seed: int, actions) -> tuple[dict[int | None, list], "rules_pb2.GameStatus"]:
    """Replays the game in process with the rules service's own code; returns each viewer's
    game events and the final status."""
    from services.registry import get_game
    from services.rules_server import RulesServicer
    from tavola.rules.v1 import rules_pb2

    rules = RulesServicer(get_game(table.game_id))
    viewers: list[int | None] = [None, *range(table.player_count)]
    try:
        dealt = await rules.NewGame(
            rules_pb2.NewGameRequest(player_count=table.player_count, options=dict(table.options), seed=seed),
            _InProcess(),
        )
    except ReplayRefused as refused:
        raise ReplayRefused(f"the table's options deal no game: {refused}") from None
    projected, state, status = list(dealt.events), dealt.state, dealt.status
    for number, (seat, action) in enumerate(actions, 1):
        try:
            applied = await rules.ApplyAction(
                rules_pb2.ApplyActionRequest(state=state, seat=seat, action=action), _InProcess()
            )
        except ReplayRefused as refused:
            raise ReplayRefused(
                f"logged action {number} of {len(actions)} (seat {seat}) is not legal in the game dealt "
                f"from the revealed seed: {refused}"
            ) from None
        projected += applied.events
        state, status = applied.state, applied.status
    return _expected(projected, viewers), status


def verify_table(address: str, table_id: str, timeout: float = 30.0, recorded: bytes | None = None) -> Verdict:
    """Checks a finished table through the gateway at ``address``; see the module's doc.
    ``recorded``: the commitment the caller wrote down at the deal, which the table's must be."""
    from tavola.gateway.v1 import gateway_pb2 as gw
    from tavola.gateway.v1 import gateway_pb2_grpc

    verdict = Verdict(table_id)
    with grpc.insecure_channel(address) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        spectator = stub.GetReplay(gw.GetReplayRequest(table_id=table_id), timeout=timeout)
        table = spectator.table
        verdict.replay_mode = table.replay_mode
        if table.status != gw.TABLE_STATUS_FINISHED:
            verdict.problems.append("the game is not over: its seed is still secret")
            return verdict
        replays: dict[int | None, gw.GetReplayResponse] = {None: spectator}
        for seat in range(table.player_count):
            replays[seat] = stub.GetReplay(gw.GetReplayRequest(table_id=table_id, seat=seat), timeout=timeout)

    events = [step.event for step in spectator.steps if step.HasField("event")]
    started = [event.table_started for event in events if event.HasField("table_started")]
    finished = [event.game_finished for event in events if event.HasField("game_finished")]
    if len(started) != 1 or len(finished) != 1:
        verdict.problems.append("the log lacks its start or its end")
        return verdict
    actions = [(step.actor, step.action) for step in spectator.steps if step.HasField("actor")]
    shown = {
        viewer: [step.event.game_event for step in replay.steps if step.event.HasField("game_event")]
        for viewer, replay in replays.items()
    }
    return check_game(verdict, table, finished[0].seed_reveal, started[0].seed_commitment, actions, shown, recorded)


def check_game(
    verdict: Verdict,
    table,
    reveal,
    published: bytes,
    actions: list,
    shown: dict[int | None, list],
    recorded: bytes | None = None,
) -> Verdict:
    """The checks themselves, on a finished ``table`` (a gateway.v1.Table), its ``reveal``
    (a SeedReveal), the commitment ``published`` at the deal, the logged ``actions``
    ((seat, Any) in order) and the game events ``shown`` to each viewer (None: spectators);
    the same whether they came through the gateway or from an export (gateway/export.py)."""
    verdict.replay_mode = table.replay_mode
    verdict.commitment = table.seed_commitment
    if recorded is not None and recorded != table.seed_commitment:
        verdict.problems.append(
            f"the table's commitment {table.seed_commitment.hex()} is not the one you recorded ({recorded.hex()})"
        )
    if not (commitment(reveal.seed, reveal.salt) == table.seed_commitment == published):
        verdict.problems.append("the revealed seed and salt do not match the commitment published before the deal")
    verdict.actions = len(actions)

    try:
        expected, status = asyncio.run(_replay(table, reveal.seed, actions))
    except ReplayRefused as refused:
        verdict.problems.append(str(refused)[:400])
        return verdict
    except Exception as error:  # e.g. an action of another game's type: the log was altered
        verdict.problems.append(
            f"the logged actions cannot be replayed from the revealed seed ({type(error).__name__}: {error})"[:400]
        )
        return verdict
    for viewer, events in shown.items():
        verdict.events += len(events)
        if events != expected.get(viewer):
            who = "the spectators" if viewer is None else f"seat {viewer}"
            verdict.problems.append(f"the events shown to {who} differ from the replay from the revealed seed")
    if not status.finished or status.outcome != table.outcome:
        verdict.problems.append("the replay does not end with the published outcome")
    return verdict


def verify_exported(line: dict) -> Verdict:
    """Checks one line of an export (gateway/export.py) without any server."""
    import base64

    from google.protobuf import any_pb2

    from tavola.gateway.v1 import gateway_pb2 as gw

    def packed(item: dict) -> any_pb2.Any:
        return any_pb2.Any(type_url=item["type_url"], value=base64.b64decode(item["value_b64"]))

    verdict = Verdict(str(line.get("table_id", "")))
    try:
        table = gw.Table(
            table_id=line["table_id"],
            game_id=line["game_id"],
            player_count=line["player_count"],
            options=line["options"],
            replay_mode=line["replay_mode"],
            seed_commitment=bytes.fromhex(line["seed_commitment_hex"]),
        )
        table.outcome.winners.extend(line["outcome"]["winners"])
        table.outcome.scores.extend(line["outcome"]["scores"])
        table.outcome.summary = line["outcome"]["summary"]
        reveal = gw.SeedReveal(seed=line["seed"], salt=bytes.fromhex(line["seed_salt_hex"]))
        actions = [(item["seat"], packed(item)) for item in line["actions"]]
        shown = {
            None if viewer == "spectator" else int(viewer): [packed(item) for item in events]
            for viewer, events in line["shown"].items()
        }
    except (KeyError, TypeError, ValueError) as error:
        verdict.problems.append(f"not an exported table: {type(error).__name__}: {error}"[:400])
        return verdict
    if set(shown) != {None, *range(table.player_count)}:
        verdict.problems.append("the export lacks what some viewer was shown")
        return verdict
    return check_game(verdict, table, reveal, table.seed_commitment, actions, shown)


def _verify_export_file(path: str) -> int:
    import json

    failed = checked = 0
    with open(path, encoding="utf-8") as lines:
        for number, text in enumerate(lines, 1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
            except ValueError:
                print(f"line {number}: FAILED: not JSON")
                failed += 1
                continue
            verdict = verify_exported(line)
            checked += 1
            for problem in verdict.problems:
                print(f"line {number}, table {verdict.table_id}: FAILED: {problem}")
            failed += not verdict.ok
    print(f"{checked - failed} of {checked} exported tables verify")
    return 1 if failed else 0


def _hex(text: str) -> bytes:
    try:
        value = bytes.fromhex(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError("a commitment is 64 hex digits") from None
    if len(value) != 32:
        raise argparse.ArgumentTypeError("a commitment is 64 hex digits (32 bytes)")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check a finished table's seed commitment and replay its deals.")
    parser.add_argument("table_id", nargs="?", help="a table to check through a gateway")
    parser.add_argument("--export", metavar="FILE", help="check every table of an export instead (gateway/export.py)")
    parser.add_argument("--gateway", default=defaults.GATEWAY_ADDRESS, help="host:port of a tavola gateway")
    parser.add_argument(
        "--commitment",
        type=_hex,
        help="the seed commitment you recorded at the deal (64 hex digits, as clients show it): the table's must be it",
    )
    args = parser.parse_args(argv)
    if args.export:
        return _verify_export_file(args.export)
    if not args.table_id:
        parser.error("name a table_id, or --export FILE")
    try:
        verdict = verify_table(args.gateway, args.table_id, recorded=args.commitment)
    except grpc.RpcError as error:
        print(f"cannot read table {args.table_id}: {error.code().name} {error.details()}", file=sys.stderr)
        return 2
    if verdict.replay_mode:
        print("note: a replay-mode table; its creator chose the seed")
    if verdict.ok:
        recorded = " (the one you recorded)" if args.commitment is not None else ""
        print(
            f"table {args.table_id}: OK: the seed matches its commitment {verdict.commitment.hex()}{recorded} "
            f"and replays {verdict.actions} actions into the {verdict.events} events every viewer was shown"
        )
        return 0
    for problem in verdict.problems:
        print(f"table {args.table_id}: FAILED: {problem}")
    return 1


if __name__ == "__main__":
    sys.exit(main())

"""python -m clients.terminal: play a hosted game in the terminal (see --help)."""

import argparse
import contextlib
import os
import secrets
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from clients.terminal import language
from clients.terminal.app import Plan, TableApp
from clients.terminal.session import default_gateway
from common import generated
from tavola.gateway.v1 import gateway_pb2 as gw

POLICIES = {"bot": gw.TIMEOUT_POLICY_BOT_TAKES_SEAT, "random": gw.TIMEOUT_POLICY_RANDOM_ACTION}


def split_bots(text: str) -> list[str]:
    """ "ismcts:budget_ms=50,c=0.5,random" -> two bots: an item with "=" and no ":" belongs
    to the previous bot's options (the gateway's syntax, see BotSeat.bot)."""
    bots: list[str] = []
    for item in (part.strip() for part in text.split(",")):
        if item and "=" in item and ":" not in item and bots:
            bots[-1] += f",{item}"
        elif item:
            bots.append(item)
    return bots


def answers(address: str, timeout: float = 2.0) -> bool:
    with grpc.insecure_channel(address) as channel:
        try:
            stub = health_pb2_grpc.HealthStub(channel)
            # The stubs declare HealthStub's methods nowhere; __init__ sets them at run time.
            reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=timeout)  # type: ignore[attr-defined]
        except grpc.RpcError:
            return False
    return reply.status == health_pb2.HealthCheckResponse.SERVING


def seat_number(text: str) -> int:
    """A seat as people number it, from 1."""
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError("seats are counted from 1")
    return number


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m clients.terminal",
        description="Play a hosted game in the terminal: against bots, at an open table, as a spectator.",
    )
    parser.add_argument("--gateway", default=default_gateway(), help="host:port (TAVOLA_GATEWAY, or TAVOLA_PORT)")
    parser.add_argument("--game", default="borgia", help="game id (default borgia)")
    parser.add_argument("--players", type=int, default=3, help="seats at a new table, yours included (default 3)")
    parser.add_argument(
        "--bots",
        default="ismcts",
        help="bots for the other seats in order, the last repeating: 'ismcts:budget_ms=50,random'"
        " (default ismcts: the search bot with its defaults)",
    )
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="table option, repeatable")
    parser.add_argument("--name", default=os.environ.get("USER") or "player", help="your display name")
    parser.add_argument(
        "--timer", type=int, default=300, metavar="SECONDS", help="decision time per human decision; 0: none (300)"
    )
    parser.add_argument("--timer-policy", choices=sorted(POLICIES), default="bot", help="when it runs out (bot)")
    parser.add_argument(
        "--seed",
        type=int,
        help="create the table in replay mode with this seed: every random draw fixed (the same seed"
        " deals the same game), the seed known to you and so every secret, the table unrated and"
        " marked REPLAY MODE to everyone at it",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--join", metavar="TABLE_ID", help="take a free seat of an open table")
    where.add_argument("--spectate", metavar="TABLE_ID", help="watch a table")
    where.add_argument("--rejoin", metavar="TABLE_ID", help="take back your seat with its saved token")
    where.add_argument(
        "--replay",
        metavar="TABLE_ID",
        help="step through a table's replay: as your saved seat, as --seat after the end, else as a spectator",
    )
    parser.add_argument(
        "--seat",
        type=seat_number,
        help="with --replay: whose replay (anyone's once the game is over), seats counted from 1",
    )
    parser.add_argument(
        "--lang",
        default=language.from_environment(),
        help="the language the games' events read in: it, de or en (default: LANG, else English)",
    )
    parser.add_argument(
        "--start-stack",
        action="store_true",
        help="when no gateway answers, start a private platform for the game and stop it on exit",
    )
    args = parser.parse_args(argv)
    for item in args.option:
        if "=" not in item:
            parser.error(f"--option takes NAME=VALUE, not {item!r}")
    return args


def plan_of(args: argparse.Namespace) -> Plan:
    mode, table_id = "create", ""
    for name in ("join", "spectate", "rejoin", "replay"):
        if getattr(args, name):
            mode, table_id = name, getattr(args, name)
    return Plan(
        mode=mode,
        game=args.game,
        players=args.players,
        bots=split_bots(args.bots),
        options=dict(item.split("=", 1) for item in args.option),
        name=args.name,
        timer_seconds=args.timer,
        timer_policy=POLICIES[args.timer_policy],
        seed=args.seed,
        table_id=table_id,
        seat=None if args.seat is None else args.seat - 1,  # people count from 1, the API from 0
    )


def main(argv: list[str] | None = None) -> int:
    generated.check()
    args = parse_args(argv)
    language.LANGUAGE = args.lang
    plan = plan_of(args)
    address = args.gateway
    if plan.mode == "rejoin" and "--gateway" not in (argv or sys.argv):
        from clients.terminal.session import SavedSeat

        try:
            address = SavedSeat.load(plan.table_id).gateway
        except LookupError as error:
            print(f"tavola: {error}", file=sys.stderr)
            return 1
    stack = None
    if not answers(address):
        if not args.start_stack or plan.mode != "create":
            print(
                f"tavola: no gateway answers at {address}.\n"
                "Start one with `make run` in another terminal (or `make play`, which starts a private one),\n"
                "or point --gateway or TAVOLA_GATEWAY at a running gateway.",
                file=sys.stderr,
            )
            return 1
        from deploy.stack import Stack  # only for a private platform

        print(f"No gateway answers at {address}: starting a private platform for {plan.game}…", flush=True)
        # Its keys under a prefix of this run's, deleted as it stops: its tables end with it.
        stack = Stack(games=(plan.game,), key_prefix=f"tavola-play-{secrets.token_hex(4)}", table_ttl_seconds=3600)
        try:
            stack.start()
        except (RuntimeError, OSError) as error:
            print(f"tavola: could not start a private platform: {error}", file=sys.stderr)
            return 1
        address = stack.gateway_address
        plan.private_platform = True
    try:
        app = TableApp(address, plan)
        code = app.run()
    finally:
        if stack is not None:
            with contextlib.suppress(OSError):  # the terminal may be gone (its window closed)
                print("Stopping the private platform…", flush=True)
            with contextlib.suppress(Exception):  # a Redis gone already keeps nothing anyway
                stack.delete_keys()
            stack.stop()
    return code if isinstance(code, int) else app.return_code or 0


if __name__ == "__main__":
    sys.exit(main())

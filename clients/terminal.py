"""Play any hosted game in a terminal against bots, through the public gateway API.

The client knows no game: it shows the view the gateway sends, lists the seat's legal
actions by their labels, submits the one chosen (with expected_version and a request id)
and prints the seat's events from WatchTable while others decide.

    make run                        # in one terminal
    make play GAME=borgia PLAYERS=3 # in another
"""

import argparse
import importlib
import sys
import threading

import grpc
from google.protobuf import text_format
from google.protobuf.any_pb2 import Any

from common import auth
from common.errors import reason_of
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


def readable(packed: Any) -> str:
    """An Any as text, decoded with this project's generated game messages."""
    name = packed.type_url.rsplit("/", 1)[-1]
    package, _, message_name = name.rpartition(".")
    try:
        module = importlib.import_module(f"{package}.{package.split('.')[1]}_pb2")
        message = getattr(module, message_name)()
        packed.Unpack(message)
    except (ImportError, AttributeError, IndexError):
        return f"<{name}>"
    return text_format.MessageToString(message, as_one_line=True)


def describe_event(event: gw.TableEvent) -> str:
    body = event.WhichOneof("body")
    text = (
        readable(event.game_event)
        if body == "game_event"
        else text_format.MessageToString(getattr(event, body), as_one_line=True)
    )
    return f"[{event.seq}] {body}: {text}"


def choose(count: int, read) -> int:
    while True:
        line = read()
        if not line:
            raise EOFError
        line = line.strip()
        if line.isdigit() and 1 <= int(line) <= count:
            return int(line) - 1
        print(f"  type a number from 1 to {count}")


class EventPrinter(threading.Thread):
    """Prints the seat's events as they arrive and remembers the last sequence number."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream = stream
        self.last_seq = 0
        self.changed = threading.Condition()

    def run(self) -> None:
        try:
            for message in self.stream:
                print(describe_event(message.event))
                with self.changed:
                    self.last_seq = message.event.seq
                    self.changed.notify_all()
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                print(f"event stream ended: {error.code().name}")

    def wait_past(self, seq: int, timeout: float) -> None:
        """Until an event after ``seq`` was printed (or the timeout: some entries are not ours)."""
        with self.changed:
            self.changed.wait_for(lambda: self.last_seq >= seq, timeout)


def play(address: str, game: str, players: int, options: dict[str, str], seed: int | None, read=sys.stdin.readline):
    with grpc.insecure_channel(address) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        request = gw.CreateTableRequest(
            game_id=game,
            player_count=players,
            options=options,
            bot_seats=[gw.BotSeat(seat=seat, bot="random") for seat in range(1, players)],
            auto_start=True,
        )
        if seed is not None:
            request.seed = seed
        table = stub.CreateTable(request).table
        seat = stub.TakeSeat(gw.TakeSeatRequest(table_id=table.table_id, seat=0, display_name="you"))
        token = auth.metadata(seat.seat_token)
        print(f"table {table.table_id}: {game}, {players} players; you are seat 0, bots hold the others")
        printer = EventPrinter(stub.WatchTable(gw.WatchTableRequest(table_id=table.table_id), metadata=token))
        printer.start()
        decisions = 0
        while True:
            view = stub.GetView(gw.GetViewRequest(table_id=table.table_id), metadata=token)
            if view.table.status == gw.TABLE_STATUS_FINISHED:
                printer.join(timeout=10)  # the stream ends after the game's last event
                print(f"game over: {view.table.outcome.summary}")
                print(f"your final view: {readable(view.view)}")
                return view.table.outcome
            if not view.must_decide:
                printer.wait_past(view.table.last_seq + 1, timeout=5)
                continue
            printer.wait_past(view.table.last_seq, timeout=0.5)
            print(f"\nyour view: {readable(view.view)}")
            for number, legal in enumerate(view.legal_actions, start=1):
                print(f"  {number:3d}. {legal.label}")
            picked = view.legal_actions[choose(len(view.legal_actions), read)]
            try:
                stub.SubmitAction(
                    gw.SubmitActionRequest(
                        table_id=table.table_id,
                        action=picked.action,
                        expected_version=view.table.version,
                        request_id=f"terminal-{decisions}",
                    ),
                    metadata=token,
                )
            except grpc.RpcError as error:  # e.g. ABORTED when the table moved on: look again
                print(f"  not taken: {error.code().name} {reason_of(error)}")
            decisions += 1


def main() -> int:
    parser = argparse.ArgumentParser(description="Play a hosted game in the terminal against bots")
    parser.add_argument("--gateway", default="127.0.0.1:50051")
    parser.add_argument("--game", default="borgia")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--option", action="append", default=[], help="name=value, repeatable")
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    options = dict(item.split("=", 1) for item in args.option)
    try:
        play(args.gateway, args.game, args.players, options, args.seed)
    except EOFError:
        print("\nleft the table")
        return 1
    except grpc.RpcError as error:
        print(f"gateway said {error.code().name} {reason_of(error)}: {error.details()}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Chat's figures:  python -m bench.chat [--messages 300] [--watchers 8]

A table of ``--watchers`` seated players, each watching the players' channel
(``WatchChat``); seat after seat sends ``--messages`` messages in turn, each sent when the
previous one has reached every watcher. Printed: SendChat's latency and the time from
a send's start to the last watcher's copy (p50, p99), beside a GetTable call in the same
run (a unary call of one Redis read: the floor of any call to the gateway).

A private stack (deploy/stack.py, no bot worker) on the Redis at REDIS_URL, under a key
prefix of its own, deleted at the end; the chat quotas off.
"""

import argparse
import logging
import queue
import secrets
import threading
import time

import grpc
import structlog

from bench.watchers import percentile
from common import auth
from deploy.stack import Stack
from tavola.gateway.v1 import chat_pb2 as chat
from tavola.gateway.v1 import chat_pb2_grpc, gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl


def _watch(stub, table_id: str, token: str, arrived: "queue.Queue[tuple[str, float]]") -> None:
    request = chat.WatchChatRequest(table_id=table_id, channel=chat.CHAT_CHANNEL_PLAYERS)
    try:
        for response in stub.WatchChat(request, metadata=auth.metadata(token)):
            now = time.perf_counter()
            for message in response.messages:
                arrived.put((message.text, now))
    except grpc.RpcError:
        pass  # cancelled at the end


def measure(address: str, messages: int, watchers: int) -> dict[str, float]:
    with grpc.insecure_channel(address) as channel:
        gateway = gateway_pb2_grpc.GatewayServiceStub(channel)
        players = players_pb2_grpc.PlayerServiceStub(channel)
        stub = chat_pb2_grpc.ChatServiceStub(channel)
        table_id = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=watchers)).table.table_id
        tokens = []
        for seat in range(watchers):
            made = players.CreatePlayer(pl.CreatePlayerRequest(display_name=f"bench {secrets.token_hex(4)}"))
            gateway.TakeSeat(
                gw.TakeSeatRequest(table_id=table_id, seat=seat), metadata=auth.metadata(made.player_token)
            )
            tokens.append(made.player_token)
        arrived: queue.Queue[tuple[str, float]] = queue.Queue()
        for token in tokens:
            threading.Thread(target=_watch, args=(stub, table_id, token, arrived), daemon=True).start()
        sends, deliveries, reads = [], [], []
        for number in range(messages + 20):  # the first 20 warm up
            token = tokens[number % watchers]
            text = f"message {number}"
            started = time.perf_counter()
            request = chat.SendChatRequest(table_id=table_id, channel=chat.CHAT_CHANNEL_PLAYERS, text=text)
            stub.SendChat(request, metadata=auth.metadata(token))
            sent = time.perf_counter()
            last = 0.0
            for _ in range(watchers):
                got, when = arrived.get(timeout=30)
                assert got == text, (got, text)
                last = max(last, when)
            read_start = time.perf_counter()
            gateway.GetTable(gw.GetTableRequest(table_id=table_id))
            read_end = time.perf_counter()
            if number >= 20:
                sends.append(sent - started)
                deliveries.append(last - started)
                reads.append(read_end - read_start)
    return {
        "send_p50_ms": percentile(sends, 0.5) * 1000,
        "send_p99_ms": percentile(sends, 0.99) * 1000,
        "delivered_p50_ms": percentile(deliveries, 0.5) * 1000,
        "delivered_p99_ms": percentile(deliveries, 0.99) * 1000,
        "get_table_p50_ms": percentile(reads, 0.5) * 1000,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.chat", description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=300)
    parser.add_argument("--watchers", type=int, default=6, help="seats, each watching (2 to 6: Borgia's seats)")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    with Stack(
        games=("borgia",),
        with_worker=False,
        key_prefix=f"bench-chat-{secrets.token_hex(3)}",
        gateway_env={"TAVOLA_CHAT_PER_MINUTE": "0", "TAVOLA_QUOTA_PLAYERS_PER_MINUTE": "0"},
    ) as stack:
        try:
            figures = measure(stack.gateway_address, args.messages, args.watchers)
        finally:
            stack.delete_keys()
    print(
        f"chat, {args.watchers} seats watching, {args.messages} messages: "
        f"SendChat p50 {figures['send_p50_ms']:.2f} ms, p99 {figures['send_p99_ms']:.2f} ms; "
        f"delivered to every seat p50 {figures['delivered_p50_ms']:.2f} ms, p99 {figures['delivered_p99_ms']:.2f} ms; "
        f"beside GetTable p50 {figures['get_table_p50_ms']:.2f} ms "
        f"(delivery / GetTable: {figures['delivered_p50_ms'] / figures['get_table_p50_ms']:.1f}x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

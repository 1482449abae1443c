"""A bot task lost between a commit and its enqueue is enqueued again by the sweep."""

import time

import grpc
import redis

from deploy.stack import Stack
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc


def test_the_sweep_enqueues_again_the_task_of_a_quiet_table(redis_url, key_prefix, tmp_path):
    prefix = f"{key_prefix}-sweep"
    stack = Stack(
        redis_url=redis_url,
        key_prefix=prefix,
        games=("borgia",),
        bots=("held",),  # no worker serves bots.held: its tasks stay in the queue to be counted
        with_worker=False,
        gateway_env={"TAVOLA_SWEEP_SECONDS": "1"},
        log_dir=tmp_path,
    )
    client = redis.Redis.from_url(redis_url)
    queue = f"{prefix}:celery:bots.held"
    try:
        with stack, grpc.insecure_channel(stack.gateway_address) as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            stub.CreateTable(
                gw.CreateTableRequest(
                    game_id="borgia",
                    player_count=2,
                    bot_seats=[gw.BotSeat(seat=0, bot="held"), gw.BotSeat(seat=1, bot="held")],
                    auto_start=True,
                    seed=3,
                )
            )
            assert client.llen(queue) == 1
            client.delete(queue)  # the task is lost
            deadline = time.monotonic() + 20
            while client.llen(queue) == 0 and time.monotonic() < deadline:
                time.sleep(0.2)
            assert client.llen(queue) >= 1, "the sweep did not enqueue the lost task again"
    finally:
        stack.delete_keys()
        client.close()

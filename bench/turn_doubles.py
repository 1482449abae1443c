"""Stand-ins for a browser and a push service, and a two-player table played by hand: what
the turn tests (tests/integration/test_turns.py) and the turn bench (bench/turns.py) share.
A push service on this machine records what is posted to it; a subscription of our own
holds the keys that decrypt it (RFC 8291 through http_ece)."""

import base64
import json
import queue
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from common import auth
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import turns_pb2 as tn


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class PushService:
    """A push service on this machine: records each POST; /gone/ answers 410. With
    ``hold``, each answer waits until that event is set (a send left in flight)."""

    def __init__(self, hold: threading.Event | None = None) -> None:
        self.received: queue.Queue = queue.Queue()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                gone = self.path.startswith("/gone/")
                owner.received.put((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if hold is not None:
                    hold.wait(30)
                self.send_response(410 if gone else 201)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.server.shutdown()


class Browser:
    """A subscription of our own: its ECDH key pair and auth secret decrypt what is pushed."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = secrets.token_bytes(16)
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.request = tn.AddPushSubscriptionRequest(endpoint=endpoint, p256dh=b64url(point), auth=b64url(self.auth))

    def decrypt(self, body: bytes) -> dict:
        return json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"))


def new_player(players, stem: str) -> tuple[str, str]:
    created = players.CreatePlayer(pl.CreatePlayerRequest(display_name=f"{stem} {secrets.token_hex(4)}"))
    return created.player.player_id, created.player_token


class Duel:
    """A two-seat borgia table: seat 0 a player's, seat 1 another player's; the test plays both."""

    def __init__(self, gateway, token0: str, token1: str, seed: int):
        created = gateway.CreateTable(gw.CreateTableRequest(game_id="borgia", player_count=2, seed=seed))
        self.gateway = gateway
        self.table_id = created.table.table_id
        self.tokens = {}
        for seat, token in enumerate((token0, token1)):
            taken = gateway.TakeSeat(
                gw.TakeSeatRequest(table_id=self.table_id, seat=seat), metadata=auth.metadata(token)
            )
            self.tokens[seat] = taken.seat_token
        self.table = gateway.StartTable(
            gw.StartTableRequest(table_id=self.table_id), metadata=auth.metadata(created.host_token)
        ).table

    def act(self, seat: int) -> gw.Table:
        view = self.gateway.GetView(
            gw.GetViewRequest(table_id=self.table_id), metadata=auth.metadata(self.tokens[seat])
        )
        request = gw.SubmitActionRequest(table_id=self.table_id, action=view.legal_actions[0].action)
        self.table = self.gateway.SubmitAction(request, metadata=auth.metadata(self.tokens[seat])).table
        return self.table

    def until_turn_of(self, seat: int) -> gw.Table:
        """Plays the other seat until ``seat`` must decide again (first ending its own turn)."""
        if seat in self.table.deciding_seats:
            self.act(seat)
        while seat not in self.table.deciding_seats:
            assert self.table.status == gw.TABLE_STATUS_IN_PROGRESS
            self.act(self.table.deciding_seats[0])
        return self.table

"""The digest's mail (gateway/digest.py): what it says, the addresses it takes, and its
SMTP sender speaking to a server on this machine (a minimal one, here)."""

import socketserver
import threading
from email import message_from_bytes

import grpc
import pytest

from common.errors import ApiError
from gateway.digest import DigestSettings, FileSender, SmtpSender, check_email, compose
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl


class _Smtp(socketserver.StreamRequestHandler):
    """Just enough SMTP for one plain message: every mail's data kept in ``received``."""

    received: list[bytes] = []

    def reply(self, line: str) -> None:
        self.wfile.write(f"{line}\r\n".encode())

    def handle(self) -> None:
        self.reply("220 here")
        while line := self.rfile.readline():
            verb = line[:4].upper()
            if verb == b"DATA":
                self.reply("354 go on")
                data = b""
                while (chunk := self.rfile.readline()) != b".\r\n":
                    data += chunk
                self.received.append(data)
                self.reply("250 kept")
            elif verb == b"QUIT":
                self.reply("221 bye")
                return
            else:
                self.reply("250 ok")


def waiting_table() -> pl.MyTable:
    table = gw.Table(table_id="0123456789abcdef", game_id="borgia")
    for seat, name in enumerate(["Ada", "Bruno", "Carla"]):
        table.seats.add(seat=seat, display_name=name)
    return pl.MyTable(table=table, seat=0, your_turn=True, game_name="House of Borgia")


def test_a_digest_lists_each_waiting_table_by_names_and_link():
    config = DigestSettings(site_url="https://tables.example")
    mail = compose(config, "ada@example.org", "Ada", [waiting_table()])
    assert mail["Subject"] == "tavola: 1 table waiting for you" and mail["To"] == "ada@example.org"
    assert "- House of Borgia with Bruno, Carla: https://tables.example/#/table/0123456789abcdef" in mail.get_content()


@pytest.mark.parametrize(
    "address", ["", "ada", "ada@", "@example.org", "Ada <ada@example.org>", "ada@example.org\nBcc: x@y.z", "a b@c.de"]
)
def test_an_address_that_is_not_plain_is_refused(address):
    with pytest.raises(ApiError) as caught:
        check_email(address)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT and caught.value.reason == "BAD_EMAIL"


def test_the_smtp_sender_and_the_file_sender_send_the_same_mail(tmp_path):
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Smtp)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    mail = compose(DigestSettings(), "ada@example.org", "Ada", [waiting_table()])
    try:
        config = DigestSettings(
            sender="smtp", smtp_host="127.0.0.1", smtp_port=server.server_address[1], smtp_starttls=False
        )
        SmtpSender(config).send(mail)
    finally:
        server.shutdown()
        server.server_close()
    FileSender(str(tmp_path)).send(mail)
    (written,) = tmp_path.glob("*.eml")
    by_smtp, by_file = message_from_bytes(_Smtp.received[-1]), message_from_bytes(written.read_bytes())
    assert by_smtp["To"] == by_file["To"] == "ada@example.org"
    assert by_smtp.get_payload(decode=True).replace(b"\r\n", b"\n") == by_file.get_payload(decode=True)

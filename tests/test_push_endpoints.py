"""A push endpoint is an address a client chooses for the gateway to POST to: outside
development only https on a public address passes (gateway/push.py check_endpoint)."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import grpc
import pytest

from common.errors import ApiError
from gateway.push import ANSWER_BYTES, _PushSession, check_endpoint, new_vapid_keys


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://push.example.org/x",  # not https
        "https://127.0.0.1/x",
        "https://localhost/x",
        "https://push.localhost/x",
        "https://10.1.2.3/x",
        "https://192.168.0.1/x",
        "https://172.16.5.5/x",
        "https://169.254.169.254/latest/meta-data",  # a cloud's metadata service
        "https://[::1]/x",
        "https://[fd00::1]/x",
        "https://[::ffff:127.0.0.1]/x",  # IPv4-mapped loopback
        "https://0.0.0.0/x",
        "https://2130706433/x",  # 127.0.0.1 as one number: resolved, then refused
        "https://100.64.0.1/x",  # shared address space
        "https://8.8.8.8:8443/x",  # another port
        "https://user:secret@8.8.8.8/x",
        "https://8.8.8.8/x\r\nHost: evil",
        "",
        "https://",
        "not a url",
    ],
)
def test_an_endpoint_the_gateway_must_not_reach_is_refused(endpoint):
    with pytest.raises(ApiError) as caught:
        check_endpoint(endpoint, allow_private=False)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT and caught.value.reason == "BAD_PUSH_ENDPOINT"


def test_a_public_https_endpoint_passes_and_development_allows_local_ones():
    check_endpoint("https://8.8.8.8/push/abc", allow_private=False)
    check_endpoint("https://[2001:4860:4860::8888]/push/abc", allow_private=False)
    check_endpoint("http://127.0.0.1:8099/push", allow_private=True)
    with pytest.raises(ApiError):
        check_endpoint("ftp://127.0.0.1/push", allow_private=True)


def test_vapid_keys_are_a_p256_pair_in_base64url():
    private, public = new_vapid_keys()
    assert len(private) == 43 and len(public) == 87 and "=" not in private + public


class _Answers(BaseHTTPRequestHandler):
    """/moved redirects to /elsewhere; /big answers 1 MB; every path taken is noted."""

    taken: list[str] = []

    def do_POST(self):
        self.taken.append(self.path)
        self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.path == "/moved":
            self.send_response(307)
            self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b"x" * 1_000_000 if self.path == "/big" else b""
        self.send_response(400 if body else 201)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_push_service_is_never_followed_elsewhere_nor_read_past_a_bound():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with _PushSession() as session:
            moved = session.post(f"{base}/moved", data=b"push", timeout=5)
            big = session.post(f"{base}/big", data=b"push", timeout=5)
    finally:
        server.shutdown()
    assert moved.status_code == 307 and _Answers.taken == ["/moved", "/big"]  # never /elsewhere
    assert big.status_code == 400 and len(big.content) == ANSWER_BYTES

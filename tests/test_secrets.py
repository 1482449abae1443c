"""The platform's secret keys every bot key, seat token and timer credential: a gateway
refuses one with fewer than 32 random bytes or a published placeholder, and says how to
make a good one."""

import secrets

import pytest

from common import auth, defaults


@pytest.mark.parametrize(
    "secret",
    [
        "",
        "change-me",
        "CHANGE-ME",
        "x",
        "a" * 200,  # long, but one character
        "0123456789abcdef" * 2,  # 32 hex characters: 16 bytes
        "random 16 bytes, hex",
        "random 16 bytes, base64",
        "correct horse battery staple",
    ],
)
def test_weak_secrets_are_refused_with_how_to_make_one(secret):
    # Drawn in the test, not in its id: the ids are the same in every test process.
    secret = {"random 16 bytes, hex": secrets.token_hex(16), "random 16 bytes, base64": secrets.token_urlsafe(16)}.get(
        secret, secret
    )
    problem = auth.secret_problem(secret)
    assert problem is not None
    assert "openssl rand -hex 32" in problem


def test_the_development_secret_is_a_known_placeholder():
    assert "placeholder" in (auth.secret_problem(defaults.DEV_BOT_SECRET, frozenset({defaults.DEV_BOT_SECRET})) or "")


@pytest.mark.parametrize("make", [secrets.token_hex, secrets.token_urlsafe], ids=["hex", "base64"])
@pytest.mark.parametrize("size", [32, 48])
def test_32_random_bytes_are_accepted(make, size):
    for _ in range(200):  # whatever characters a draw happens to use
        assert auth.secret_problem(make(size)) is None

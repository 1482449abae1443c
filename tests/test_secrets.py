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
        secrets.token_hex(16),
        secrets.token_urlsafe(16),
        "correct horse battery staple",
    ],
)
def test_weak_secrets_are_refused_with_how_to_make_one(secret):
    problem = auth.secret_problem(secret)
    assert problem is not None
    assert "openssl rand -hex 32" in problem


def test_the_development_secret_is_a_known_placeholder():
    assert "placeholder" in (auth.secret_problem(defaults.DEV_BOT_SECRET, frozenset({defaults.DEV_BOT_SECRET})) or "")


@pytest.mark.parametrize("secret", [secrets.token_hex(32), secrets.token_urlsafe(32), secrets.token_hex(48)])
def test_32_random_bytes_are_accepted(secret):
    assert auth.secret_problem(secret) is None

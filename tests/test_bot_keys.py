"""Minting a bot's key for its author's worker: from TAVOLA_BOT_SECRET or from the secret
file ``make run`` writes (readable by its owner only)."""

import stat

import pytest

from common import auth
from deploy.run import write_secret


def test_a_key_is_minted_from_the_secret_file_make_run_writes(tmp_path, capsys, monkeypatch):
    secret = "ab" * 32
    path = write_secret(secret, tmp_path / "run" / "bot-secret")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    monkeypatch.delenv("TAVOLA_BOT_SECRET", raising=False)
    auth.main(["lazy", "--secret-file", str(path)])
    assert capsys.readouterr().out.strip() == auth.bot_key(secret, "lazy")
    monkeypatch.setenv("TAVOLA_BOT_SECRET", secret)
    auth.main(["lazy:eager=false"])  # a bot's key is its queue's: options do not change it
    assert capsys.readouterr().out.strip() == auth.bot_key(secret, "lazy")


def test_no_secret_says_where_to_find_one(monkeypatch, capsys):
    monkeypatch.delenv("TAVOLA_BOT_SECRET", raising=False)
    with pytest.raises(SystemExit):
        auth.main(["lazy"])
    assert "--secret-file" in capsys.readouterr().err

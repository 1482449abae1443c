"""A bad setting ends a process in one line that names the variable, with no traceback
(once, TAVOLA_PORT=abc printed 20 lines of Python before its reason, and
TAVOLA_SWEEP_SECONDS=x said "could not convert string to float" without saying which)."""

import json
import os
import subprocess
import sys

import pytest

from common.settings import ConfigError, env_bool, env_float, env_int, env_port


def test_readers_name_the_variable():
    env = {"A": "abc", "B": "-3", "C": "maybe", "D": "nan", "E": "70000", "F": " 7 ", "G": ""}
    with pytest.raises(ConfigError, match=r"A='abc' is not a whole number"):
        env_int("A", 1, env=env)
    with pytest.raises(ConfigError, match=r"B='-3': at least 0"):
        env_int("B", 1, 0, env=env)
    with pytest.raises(ConfigError, match=r"C='maybe' is neither true nor false"):
        env_bool("C", False, env=env)
    with pytest.raises(ConfigError, match=r"D='nan' is not a finite number"):
        env_float("D", 1.0, env=env)
    with pytest.raises(ConfigError, match=r"E=70000: a port is 0 to 65535"):
        env_port("E", 1, env=env)
    assert env_int("F", 1, env=env) == 7
    assert env_int("G", 5, env=env) == 5  # empty: the default
    assert env_bool("missing", True, env=env) is True
    for spelling in ("true", "TRUE", "1", "yes", "on"):
        assert env_bool("X", False, env={"X": spelling}) is True
    for spelling in ("false", "0", "no", "Off"):
        assert env_bool("X", True, env={"X": spelling}) is False


@pytest.mark.parametrize(
    ("module", "variable", "value", "words"),
    [
        ("gateway", "TAVOLA_PORT", "abc", "TAVOLA_PORT='abc' is not a whole number"),
        ("gateway", "TAVOLA_REDIS_CONNECTIONS", "x", "TAVOLA_REDIS_CONNECTIONS='x' is not a whole number"),
        ("gateway", "TAVOLA_SWEEP_SECONDS", "x", "TAVOLA_SWEEP_SECONDS='x' is not a number"),
        ("gateway", "TAVOLA_QUOTA_STREAMS", "-1", "TAVOLA_QUOTA_STREAMS='-1': at least 0"),
        ("gateway", "TAVOLA_DEVELOPMENT", "maybe", "TAVOLA_DEVELOPMENT='maybe' is neither true nor false"),
        ("services.rules_server", "TAVOLA_PORT", "abc", "TAVOLA_PORT='abc' is not a whole number"),
    ],
)
def test_a_process_with_a_bad_setting_says_so_in_one_line(module, variable, value, words, redis_url):
    env = {**os.environ, "REDIS_URL": redis_url, "TAVOLA_DEVELOPMENT": "true", variable: value}
    argv = [sys.executable, "-m", module, *(["borgia"] if module == "services.rules_server" else [])]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [line["event"] for line in lines if line["level"] == "critical"] == ["bad_configuration"], lines
    assert words in next(line["error"] for line in lines if line["event"] == "bad_configuration")
    assert "Traceback" not in done.stdout + done.stderr

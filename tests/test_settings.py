"""A bad setting ends a process in one line that names the variable, with no traceback
(once, TAVOLA_PORT=abc printed 20 lines of Python before its reason, and
TAVOLA_SWEEP_SECONDS=x said "could not convert string to float" without saying which)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from common import settings
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
        # A setting the process itself does not read stops it all the same: one environment
        # file feeds every process, and its mistake is told at the first one that starts.
        ("services.rules_server", "TAVOLA_BOT_CHAIN", "x", "TAVOLA_BOT_CHAIN='x' is not a whole number"),
        ("bots.worker", "TAVOLA_WORKER_TIMERS", "maybe", "TAVOLA_WORKER_TIMERS='maybe' is neither true nor false"),
        ("bots.worker", "TAVOLA_BOT_STREAMS", "-1", "TAVOLA_BOT_STREAMS='-1': at least 0"),
        ("bots.worker", "TAVOLA_BOT_WALL_CEILING", "0.5", "TAVOLA_BOT_WALL_CEILING=0.5: 0 (none) or a multiple"),
        ("bots.worker", "TAVOLA_TASK_EVENTS", "sometimes", "TAVOLA_TASK_EVENTS='sometimes' is neither true nor false"),
        ("bots.worker.ladder", "TAVOLA_LADDER_TABLES", "two", "TAVOLA_LADDER_TABLES='two' is not a whole number"),
        ("deploy.run", "TAVOLA_WEB_PORT", "70000", "TAVOLA_WEB_PORT=70000: a port is 0 to 65535"),
        ("deploy.run", "GATEWAYS", "0", "GATEWAYS='0': at least 1"),
    ],
)
def test_a_process_with_a_bad_setting_says_so_in_one_line(module, variable, value, words, redis_url, tmp_path):
    env = {**os.environ, "REDIS_URL": redis_url, "TAVOLA_DEVELOPMENT": "true", variable: value}
    env["TAVOLA_RUN_DIR"] = str(tmp_path)  # deploy.run: never the repository's own run directory
    argv = [sys.executable, "-m", module, *(["borgia"] if module == "services.rules_server" else [])]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [line["event"] for line in lines if line["level"] == "critical"] == ["bad_configuration"], lines
    assert words in next(line["error"] for line in lines if line["event"] == "bad_configuration")
    assert "Traceback" not in done.stdout + done.stderr


def test_a_declared_setting_reads_as_its_type_with_its_default():
    assert settings.integer("TAVOLA_QUOTA_STREAMS", {}) == 20
    assert settings.integer("TAVOLA_QUOTA_STREAMS", {"TAVOLA_QUOTA_STREAMS": " 7 "}) == 7
    assert settings.number("TAVOLA_SWEEP_SECONDS", {}) == 30.0
    assert settings.flag("TAVOLA_UVLOOP", {"TAVOLA_UVLOOP": "Off"}) is False
    assert settings.optional_flag("TAVOLA_WORKER_RATINGS", {}) is None
    assert settings.port("TAVOLA_PORT", 50061, {}) == 50061
    assert settings.port("TAVOLA_WEB_PORT", env={}) is None
    assert settings.text("TAVOLA_KEY_PREFIX", {"TAVOLA_KEY_PREFIX": ""}) == "tavola"
    # Empty is not unset where empty means "none": the web port's static directory.
    assert settings.optional_text("TAVOLA_WEB_STATIC", {"TAVOLA_WEB_STATIC": ""}) == ""
    assert settings.optional_text("TAVOLA_WEB_STATIC", {}) is None
    # Absent is not the default where a process tells the two apart (a bot key's command
    # wants the platform's secret given, never the development one).
    assert settings.optional_text("TAVOLA_BOT_SECRET", {}) is None
    assert settings.text("TAVOLA_BOT_SECRET", {}) == settings.DECLARED["TAVOLA_BOT_SECRET"].default
    with pytest.raises(ConfigError, match=r"TAVOLA_QUOTA_STREAMS='-1': at least 0"):
        settings.integer("TAVOLA_QUOTA_STREAMS", {"TAVOLA_QUOTA_STREAMS": "-1"})
    with pytest.raises(TypeError, match="TAVOLA_SWEEP_SECONDS is declared float"):
        settings.integer("TAVOLA_SWEEP_SECONDS", {})
    with pytest.raises(KeyError):  # read only what is declared
        settings.text("TAVOLA_NOT_DECLARED", {})
    with pytest.raises(ConfigError, match=r"TAVOLA_REUSEPORT='2' is neither true nor false"):
        settings.check({"TAVOLA_REUSEPORT": "2"})


def test_every_declared_default_reads_back_as_its_type():
    """A default of the wrong type would pass unnoticed until a process used it."""
    types = {"str": str, "int": int, "float": float, "bool": bool, "port": int}
    for variable in settings.VARIABLES:
        assert variable.default is None or type(variable.default) is types[variable.kind], variable.name
        assert variable.minimum is None or variable.kind in ("int", "float"), variable.name
        assert variable.used_by and variable.doc and "\n" not in variable.doc, variable.name
    assert len(settings.DECLARED) == len(settings.VARIABLES)  # each declared once


ROOT = Path(__file__).resolve().parents[1]
# Who may read the environment itself: the settings, OpenTelemetry's own variables (as its
# SDK spells them), and the launcher that hands its environment on to the processes it starts.
READ_THE_ENVIRONMENT = {"common/settings/__init__.py", "common/tracing.py", "deploy/stack.py"}


def test_only_the_settings_read_the_environment():
    readers = sorted(
        str(path.relative_to(ROOT))
        for folder in ("gateway", "common", "bots", "services", "deploy", "clients")
        for path in (ROOT / folder).rglob("*.py")
        if re.search(r"os\.environ|os\.getenv|environ\.get", path.read_text())
        and str(path.relative_to(ROOT)) not in READ_THE_ENVIRONMENT
    )
    # The terminal client's user name, language (LANG, LC_ALL) and XDG directory are the
    # system's, not settings.
    assert readers == ["clients/terminal/__main__.py", "clients/terminal/language.py", "clients/terminal/session.py"], (
        readers
    )
    for path in readers:
        assert "TAVOLA_" not in "".join(
            line for line in (ROOT / path).read_text().splitlines() if re.search(r"os\.environ|os\.getenv", line)
        )


def test_the_terminal_client_finds_the_gateway_of_make_run(monkeypatch):
    """TAVOLA_GATEWAY when set, else the loopback port make run serves (TAVOLA_PORT): the
    workers' default address is not the client's."""
    from clients.terminal.__main__ import default_gateway

    monkeypatch.delenv("TAVOLA_GATEWAY", raising=False)
    monkeypatch.setenv("TAVOLA_PORT", "50999")
    assert default_gateway() == "127.0.0.1:50999"
    monkeypatch.setenv("TAVOLA_GATEWAY", "gateway.example:443")
    assert default_gateway() == "gateway.example:443"

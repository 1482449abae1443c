"""Reading a process's settings from its environment: typed, each value checked as it is
read, and a bad one told in one line that names the variable (no traceback).

``ConfigError`` is what every reader raises; ``exit_on_bad_config`` turns it, raised while a
process starts, into one critical JSON log line (``bad_configuration``) and exit status 2.
Booleans have one spelling: true/false (also 1/0, yes/no, on/off), case-insensitive.
"""

import contextlib
import os
from collections.abc import Iterator, Mapping

import structlog

log = structlog.get_logger()

TRUE = frozenset(("1", "true", "yes", "on"))
FALSE = frozenset(("0", "false", "no", "off"))


class ConfigError(ValueError):
    """A setting that cannot be used, in words that name it."""


def _raw(name: str, env: Mapping[str, str] | None) -> str | None:
    value = (os.environ if env is None else env).get(name)
    return None if value is None or value.strip() == "" else value.strip()


def env_int(name: str, default: int, minimum: int | None = None, env: Mapping[str, str] | None = None) -> int:
    raw = _raw(name, env)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a whole number") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name}={raw!r}: at least {minimum}")
    return value


def env_float(name: str, default: float, minimum: float | None = None, env: Mapping[str, str] | None = None) -> float:
    raw = _raw(name, env)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ConfigError(f"{name}={raw!r} is not a finite number")
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name}={raw!r}: at least {minimum:g}")
    return value


def env_bool(name: str, default: bool, env: Mapping[str, str] | None = None) -> bool:
    raw = _raw(name, env)
    if raw is None:
        return default
    if raw.lower() in TRUE:
        return True
    if raw.lower() in FALSE:
        return False
    raise ConfigError(f"{name}={raw!r} is neither true nor false")


def env_port(name: str, default: int, env: Mapping[str, str] | None = None) -> int:
    port = env_int(name, default, 0, env)
    if port > 65535:
        raise ConfigError(f"{name}={port}: a port is 0 to 65535")
    return port


@contextlib.contextmanager
def exit_on_bad_config() -> Iterator[None]:
    """Around a process's start: a ConfigError ends it with one line and status 2."""
    try:
        yield
    except ConfigError as error:
        log.critical("bad_configuration", error=str(error))
        raise SystemExit(2) from None

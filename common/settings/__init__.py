"""Every setting of every tavola process, declared once: its environment variable, type,
default, the processes that read it and what it does (``VARIABLES``). Processes read their
settings through it (``text``, ``integer``, ``number``, ``flag``, ``port``), each value checked
as it is read, and a bad one told in one line that names the variable (no traceback).

``ConfigError`` is what every reader raises; ``exit_on_bad_config`` turns it, raised while a
process starts, into one critical JSON log line (``bad_configuration``) and exit status 2;
each process calls ``check()`` once its logging is set up, which reads every declared
variable that is set, so a bad one stops it whether or not this process reads it. Booleans have one spelling:
true/false (also 1/0, yes/no, on/off), case-insensitive.

The declarations are grouped by the part of tavola they configure, a module each: ``store``
(Redis, the archive), ``gateway``, ``bots`` (the workers, the ladder), ``players`` (push,
digests, chat, ratings, quick play) and ``processes`` (what every process shares); this
module, the one that reads the environment, puts them together in ``VARIABLES``.

The Configuration table of docs/operators.md is generated from ``VARIABLES``:
``python -m common.settings --markdown`` writes it between its markers.
"""

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TypeVar

import structlog

from common.settings import bots, gateway, players, processes, store
from common.settings.variable import Kind, Value, Variable

log = structlog.get_logger()

TRUE = frozenset(("1", "true", "yes", "on"))
FALSE = frozenset(("0", "false", "no", "off"))

T = TypeVar("T")


class ConfigError(ValueError):
    """A setting that cannot be used, in words that name it."""


VARIABLES: tuple[Variable, ...] = (
    store.VARIABLES + gateway.VARIABLES + bots.VARIABLES + players.VARIABLES + processes.VARIABLES
)
DECLARED = {variable.name: variable for variable in VARIABLES}


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


def value(name: str, env: Mapping[str, str] | None = None) -> Value:
    """The declared variable ``name`` as its type, its default when unset or empty."""
    variable = DECLARED[name]  # a KeyError here is a variable nobody declared
    if _raw(name, env) is None:
        return variable.default
    minimum = variable.minimum
    if variable.kind == "int":
        return env_int(name, 0, None if minimum is None else int(minimum), env)
    if variable.kind == "float":
        return env_float(name, 0.0, minimum, env)
    if variable.kind == "bool":
        return env_bool(name, False, env)
    if variable.kind == "port":
        return env_port(name, 0, env)
    return _raw(name, env)


def _typed(name: str, kinds: tuple[Kind, ...], env: Mapping[str, str] | None, kind: type[T]) -> T | None:
    if DECLARED[name].kind not in kinds:
        raise TypeError(f"{name} is declared {DECLARED[name].kind}, not {'/'.join(kinds)}")
    read = value(name, env)
    assert read is None or isinstance(read, kind), name
    return read


def text(name: str, env: Mapping[str, str] | None = None) -> str:
    """A text setting; "" when unset and declared without a default."""
    return _typed(name, ("str",), env, str) or ""


def optional_text(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """A text setting as set, even empty; None when absent, whatever its default: where
    empty means "none", or unset means something else than the default."""
    _typed(name, ("str",), {}, str)  # declared, as text
    raw = (os.environ if env is None else env).get(name)
    return None if raw is None else raw.strip()


def integer(name: str, env: Mapping[str, str] | None = None) -> int:
    read = _typed(name, ("int",), env, int)
    assert read is not None, f"{name} has no default: optional_integer"
    return read


def optional_integer(name: str, env: Mapping[str, str] | None = None) -> int | None:
    return _typed(name, ("int",), env, int)


def number(name: str, env: Mapping[str, str] | None = None) -> float:
    read = _typed(name, ("float",), env, float)
    assert read is not None, name
    return read


def flag(name: str, env: Mapping[str, str] | None = None) -> bool:
    read = _typed(name, ("bool",), env, bool)
    assert read is not None, f"{name} has no default: optional_flag"
    return read


def optional_flag(name: str, env: Mapping[str, str] | None = None) -> bool | None:
    return _typed(name, ("bool",), env, bool)


def port(name: str, default: int | None = None, env: Mapping[str, str] | None = None) -> int | None:
    """A port setting; ``default`` where its declaration leaves the port to the process."""
    read = _typed(name, ("port",), env, int)
    return default if read is None else read


def check(env: Mapping[str, str] | None = None) -> None:
    """Reads every declared variable that is set, so a bad one stops a process as it starts."""
    for name in DECLARED:
        value(name, env)


@contextlib.contextmanager
def exit_on_bad_config() -> Iterator[None]:
    """Around a process's start: a ConfigError ends it with one line and status 2."""
    try:
        yield
    except ConfigError as error:
        log.critical("bad_configuration", error=str(error))
        raise SystemExit(2) from None


# The generated table's place in docs/operators.md.
BEGIN = "<!-- variables: generated by `python -m common.settings --markdown`; edit common/settings/ -->"
END = "<!-- end of variables -->"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "operators.md"


def markdown() -> str:
    """The Configuration table: a row a variable, or one for consecutive variables that share
    their processes and description (``TAVOLA_HOST``, ``TAVOLA_PORT``)."""
    rows: list[tuple[list[str], str, str]] = []
    for variable in VARIABLES:
        shown = f"`{variable.name}`" + (f" {variable.also}" if variable.also else "")
        if rows and rows[-1][1:] == (variable.used_by, variable.doc):
            rows[-1][0].append(shown)
        else:
            rows.append(([shown], variable.used_by, variable.doc))
    lines = ["| variable | used by | default |", "| --- | --- | --- |"]
    lines += [f"| {', '.join(names)} | {used_by} | {doc} |" for names, used_by, doc in rows]
    return "\n".join(lines) + "\n"


def with_table(page: str) -> str:
    """``page`` with the generated table between its markers."""
    before, begin, rest = page.partition(BEGIN)
    _, end, after = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"docs/operators.md lacks the markers {BEGIN!r} and {END!r}")
    return f"{before}{BEGIN}\n{markdown()}{END}{after}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--markdown", action="store_true", help="write the table into docs/operators.md")
    args = parser.parse_args(argv)
    if args.markdown:
        DOCS.write_text(with_table(DOCS.read_text()))
    else:
        sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

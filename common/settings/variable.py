"""A declared setting: its environment variable, type, default, readers and description."""

from dataclasses import dataclass
from typing import Literal

Kind = Literal["str", "int", "float", "bool", "port"]
Value = str | int | float | bool | None


@dataclass(frozen=True)
class Variable:
    name: str
    kind: Kind
    default: Value  # None: unset, which the reader's process gives its own meaning
    used_by: str  # the processes that read it, as the docs name them
    doc: str  # the docs' third column: its default, then what it does (Markdown, one line)
    minimum: float | None = None
    also: str = ""  # said after the name in the docs (a variable of another library)

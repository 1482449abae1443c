"""How many bytes each public call's request may have.

Every request a client may send is small: the largest is a CreateTable with every option
at its longest (32 options of 64 + 256 bytes and 7 bot seats of 200, about 11 KB). gRPC's
own default (4 MB) let any anonymous client make the gateway hold megabytes per refused
call. So the server refuses a message over the largest limit before any Python runs, and
each method's handler refuses what is over its own limit before decoding it.

TAVOLA_MAX_REQUEST_BYTES sets the default limit; TAVOLA_REQUEST_LIMITS sets some methods'
own ("CreateTable=16384,SubmitAction=8192").
"""

from collections.abc import Mapping

# Methods whose requests may be longer than the default: every option of a table.
DEFAULT_BYTES = 4096
METHOD_BYTES = {"CreateTable": 16384, "FindGame": 16384}


def parse_limits(text: str) -> dict[str, int]:
    """'CreateTable=16384,SubmitAction=8192' -> {'CreateTable': 16384, 'SubmitAction': 8192}."""
    limits: dict[str, int] = {}
    for item in (item.strip() for item in text.split(",")):
        if not item:
            continue
        method, separator, value = item.partition("=")
        if not separator or not value.strip().isdigit() or int(value) <= 0:
            raise ValueError(f"TAVOLA_REQUEST_LIMITS: {item!r} is not Method=bytes (a positive number)")
        limits[method.strip()] = int(value)
    return limits


class RequestLimits:
    def __init__(self, default: int = DEFAULT_BYTES, methods: Mapping[str, int] | None = None):
        if default <= 0:
            raise ValueError("TAVOLA_MAX_REQUEST_BYTES must be a positive number of bytes")
        self.default = default
        self.methods = {**METHOD_BYTES, **(methods or {})}

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "RequestLimits":
        return cls(
            int(env.get("TAVOLA_MAX_REQUEST_BYTES", DEFAULT_BYTES)),
            parse_limits(env.get("TAVOLA_REQUEST_LIMITS", "")),
        )

    def of(self, method: str) -> int:
        return self.methods.get(method, self.default)

    def largest(self) -> int:
        """The server-wide receive limit: no method accepts more."""
        return max(self.default, *self.methods.values())

    def __str__(self) -> str:
        return f"default={self.default} " + " ".join(f"{name}={size}" for name, size in sorted(self.methods.items()))

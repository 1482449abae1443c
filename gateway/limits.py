"""What a client may send: how many bytes each public call's request may have, and the
bounds on its fields, so that every answer (and log line) stays small.

Every request a client may send is small: the largest is a CreateTable with every option
at its longest (32 options of 64 + 256 bytes and 7 bot seats of 200, about 11 KB). gRPC's
own default (4 MB) let any anonymous client make the gateway hold megabytes per refused
call. So the server refuses a message over the largest limit before any Python runs, and
each method's handler refuses what is over its own limit before decoding it.

TAVOLA_MAX_REQUEST_BYTES sets the default limit; TAVOLA_REQUEST_LIMITS sets some methods'
own ("CreateTable=16384,SubmitAction=8192").
"""

from collections.abc import Mapping

from common import settings
from common.errors import invalid
from common.shapes import MAX_BOT
from gateway.clocks import check_clock
from tavola.gateway.v1 import gateway_pb2 as gw

MAX_ID = 64  # table_id, game_id, option names
MAX_OPTIONS = 32
MAX_OPTION_VALUE = 256
MAX_TIMER_SECONDS = 24 * 3600
MAX_REQUEST_ID = 128
MAX_PAGE_SIZE = 100
MAX_PAGE_OFFSET = 100_000

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
    def from_env(cls, env: Mapping[str, str] | None = None) -> "RequestLimits":
        return cls(
            settings.integer("TAVOLA_MAX_REQUEST_BYTES", env),
            parse_limits(settings.text("TAVOLA_REQUEST_LIMITS", env)),
        )

    def of(self, method: str) -> int:
        return self.methods.get(method, self.default)

    def largest(self) -> int:
        """The server-wide receive limit: no method accepts more."""
        return max(self.default, *self.methods.values())

    def __str__(self) -> str:
        return f"default={self.default} " + " ".join(f"{name}={size}" for name, size in sorted(self.methods.items()))


def check_table_request(request: gw.CreateTableRequest) -> None:
    """Bounds on a new table's settings; the rules service checks their meaning."""
    if len(request.game_id) > MAX_ID:
        raise invalid("UNKNOWN_GAME", f"a game_id has at most {MAX_ID} characters")
    if len(request.options) > MAX_OPTIONS:
        raise invalid("BAD_OPTION", f"at most {MAX_OPTIONS} options")
    for name, value in request.options.items():
        if len(name) > MAX_ID or len(value) > MAX_OPTION_VALUE:
            raise invalid("BAD_OPTION", f"option names have at most {MAX_ID} characters, values {MAX_OPTION_VALUE}")
    if len(request.bot_seats) > max(request.player_count, 0):
        raise invalid("BAD_SEAT", "more bot seats than seats")
    if any(len(bot_seat.bot) > MAX_BOT for bot_seat in request.bot_seats):
        raise invalid("UNKNOWN_BOT", f"a bot is named in at most {MAX_BOT} characters")
    if request.rated and request.replay_mode:
        raise invalid("RATED_REPLAY", "a rated table is never in replay mode: its creator would know every secret")
    check_clock(request)
    timer = request.decision_timer
    if not 0 <= timer.seconds <= MAX_TIMER_SECONDS or (
        timer.seconds > 0 and timer.policy == gw.TIMEOUT_POLICY_UNSPECIFIED
    ):
        raise invalid("BAD_TIMER", f"a decision timer needs 0 to {MAX_TIMER_SECONDS} seconds and a policy")

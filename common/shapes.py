"""The shape of every id and token a client sends, as the platform mints it.

Ids and tokens name Redis keys (``player:<id>``, ``{<table id>}:table``...), reach logs
and are compared, so each is checked here by its alphabet and length before the gateway
does anything with it: an id carrying key characters (``<id>:tables``, ``{tag}``, ``*``)
would otherwise be read as another key, and text outside ASCII would reach logs and
comparisons made for ASCII. The gateway's handlers check every request by its fields' names
(``check_request``) and every call's ``authorization`` token (common/auth.py
``token_from``, with ``token``), so a new request message is checked by what its fields
are called.

A bad id is INVALID_ARGUMENT with its field's reason (BAD_TABLE_ID, BAD_PLAYER_ID,
UNKNOWN_GAME, BAD_REQUEST_ID, BAD_PAGE); a bad token is UNAUTHENTICATED: PLAYER_TOKEN_INVALID
for one that starts as a player token does (``p.``), else TOKEN_MALFORMED. The bad value
itself is never echoed in the error or the log. A well-formed id of nothing is still
NOT_FOUND where it is looked up.
"""

import re
from collections.abc import Callable

import grpc
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from common.errors import ApiError, invalid

# secrets.token_hex(8): table ids (gateway/commands.py), player ids (gateway/players.py)
# search ids (gateway/matchmaking/) and invitation ids (gateway/social.py).
HEX_ID = re.compile(r"[0-9a-f]{16}")
_URLSAFE = "A-Za-z0-9_-"  # base64's URL-safe alphabet, as secrets.token_urlsafe writes it
# secrets.token_urlsafe(24) (common/auth.py new_token): seat and host tokens.
SEAT_TOKEN = re.compile(f"[{_URLSAFE}]{{32}}")
# An HMAC-SHA256 in unpadded URL-safe base64 (common/auth.py _mac): bot seat and timer tokens.
DERIVED_TOKEN = re.compile(f"[{_URLSAFE}]{{43}}")
PLAYER_TOKEN_PREFIX = "p."
# p.<player id>.<secrets.token_urlsafe(24)> (gateway/players.py).
PLAYER_TOKEN = re.compile(f"p\\.([0-9a-f]{{16}})\\.([{_URLSAFE}]{{32}})")
# A game's or a bot's name: what the registries accept (services/bot_specs.py's names).
_NAME = "[a-z0-9][a-z0-9_-]{0,63}"
GAME_ID = re.compile(_NAME)
# A bot's rated player, ``bot:`` and its bot string in canonical form (BotCatalog.check):
# its name, then ``key=value`` options, comma-separated; a value as BotOption.format writes
# it (an int, a float's repr, true/false, an enum choice).
BOT_PREFIX = "bot:"
MAX_BOT = 200  # characters of a bot string (CreateTable's bot seats too: gateway/limits.py)
_BOT_OPTION = "[a-z0-9_-]{1,64}=[A-Za-z0-9_.+-]{1,64}"
BOT_PLAYER_ID = re.compile(f"bot:{_NAME}(?::{_BOT_OPTION}(?:,{_BOT_OPTION})*)?")
# Chosen by clients (a UUID, "bot-0-12"): printable ASCII without spaces.
REQUEST_ID = re.compile(r"[!-~]{1,128}")
# ListTables' next_page_token: an offset.
PAGE_TOKEN = re.compile(r"[0-9]{1,6}")


def player_token_invalid() -> ApiError:
    """A player token that is not one: forged (of no player, or not its secret), revoked
    (replaced by ReissuePlayerToken), or not even of a player token's shape."""
    return ApiError(
        grpc.StatusCode.UNAUTHENTICATED, "PLAYER_TOKEN_INVALID", "this player token is not valid (forged or revoked)"
    )


def token(value: str) -> str:
    """``value`` when it has the shape of a token the platform issues (a seat or host
    token, a bot seat's or timer's, a player's); else UNAUTHENTICATED."""
    if value.startswith(PLAYER_TOKEN_PREFIX):
        player_token(value)
    elif not (SEAT_TOKEN.fullmatch(value) or DERIVED_TOKEN.fullmatch(value)):
        raise ApiError(
            grpc.StatusCode.UNAUTHENTICATED,
            "TOKEN_MALFORMED",
            "this is not a token the platform issues; send one it gave",
        )
    return value


def player_token(value: str) -> tuple[str, str]:
    """(player id, secret) of a player token's shape; else UNAUTHENTICATED (PLAYER_TOKEN_INVALID)."""
    match = PLAYER_TOKEN.fullmatch(value)
    if match is None:
        raise player_token_invalid()
    return match.group(1), match.group(2)


def is_bot_player(value: str) -> bool:
    return value.startswith(BOT_PREFIX)


def _is_player_id(value: str) -> bool:
    if is_bot_player(value):
        return len(value) <= len(BOT_PREFIX) + MAX_BOT and BOT_PLAYER_ID.fullmatch(value) is not None
    return HEX_ID.fullmatch(value) is not None


def table_id(value: str) -> str:
    if not HEX_ID.fullmatch(value):
        raise invalid("BAD_TABLE_ID", "a table_id is 16 lowercase hexadecimal digits, as CreateTable gave it")
    return value


def player_id(value: str) -> str:
    if not _is_player_id(value):
        raise invalid(
            "BAD_PLAYER_ID", "a player_id is 16 lowercase hexadecimal digits, or bot:<bot> for a bot, as given"
        )
    return value


def game_id(value: str) -> str:
    if not GAME_ID.fullmatch(value):
        raise invalid("UNKNOWN_GAME", "a game_id is 1 to 64 lowercase letters, digits, '-' and '_'")
    return value


def request_id(value: str) -> str:
    if not REQUEST_ID.fullmatch(value):
        raise invalid("BAD_REQUEST_ID", "a request_id is 1 to 128 printable ASCII characters, without spaces")
    return value


def invitation_id(value: str) -> str:
    if not HEX_ID.fullmatch(value):
        raise invalid("BAD_INVITATION_ID", "an invitation_id is one an invitation gave")
    return value


def page_offset(value: str) -> int:
    """The offset a page token stands for (0 for none)."""
    if value and not PAGE_TOKEN.fullmatch(value):
        raise invalid("BAD_PAGE", "a page_token is one a response gave")
    return int(value or 0)


# The request fields that carry ids, by name, each with its check. An empty field is left
# to the method (a required id is refused there, an optional one means "none").
FIELD_CHECKS: dict[str, Callable[[str], object]] = {
    "table_id": table_id,
    "player_id": player_id,
    "around_player_id": player_id,
    "game_id": game_id,
    "request_id": request_id,
    "page_token": page_offset,
    "invitation_id": invitation_id,
}
# A message type's fields to check (name, check), found once per type.
_CHECKED: dict[str, tuple[tuple[str, Callable[[str], object]], ...]] = {}


def _checked_fields(request: Message) -> tuple[tuple[str, Callable[[str], object]], ...]:
    descriptor = request.DESCRIPTOR
    found = _CHECKED.get(descriptor.full_name)
    if found is None:
        found = _CHECKED[descriptor.full_name] = tuple(
            (field.name, FIELD_CHECKS[field.name])
            for field in descriptor.fields
            if field.name in FIELD_CHECKS and field.type == FieldDescriptor.TYPE_STRING and not field.is_repeated
        )
    return found


def check_request(request: Message) -> None:
    """Every id of a request (its top-level fields named in FIELD_CHECKS) by its shape;
    raises INVALID_ARGUMENT with the field's reason, and its name in the metadata ``field``."""
    for name, check in _checked_fields(request):
        value = getattr(request, name)
        if value:
            try:
                check(value)
            except ApiError as error:
                error.metadata["field"] = name  # which of them (around_player_id or player_id)
                raise

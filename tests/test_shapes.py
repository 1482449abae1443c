"""The shapes of ids and tokens (common/shapes.py): every id and token the platform mints
has its shape, and nothing with a key character, a character outside ASCII or the wrong
length does; every id field of a public request is checked by its name."""

import secrets

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import given
from hypothesis import strategies as st

from common import auth, shapes
from common.errors import ApiError
from gateway.bots import BotCatalog
from gateway.players import PlayerStore
from services.bot_specs import load_bots
from services.registry import game_ids
from tavola.gateway.v1 import actions_pb2, chat_pb2
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl
from tavola.gateway.v1 import turns_pb2 as tn

KEY_CHARACTERS = set(":{}*?[]\\ .\x00\n")


def refused(check, value: str) -> tuple[str, str]:
    with pytest.raises(ApiError) as caught:
        check(value)
    return caught.value.code.name, caught.value.reason


def test_every_minted_id_and_token_has_its_shape():
    secret = secrets.token_hex(32)
    for _ in range(200):
        minted_id = secrets.token_hex(8)  # as tables, players and searches are named
        assert shapes.table_id(minted_id) == shapes.player_id(minted_id) == minted_id
        for token in (auth.new_token(), auth.bot_token(auth.bot_key(secret, "random"), minted_id, 3)):
            assert shapes.token(token) == token
        assert shapes.token(auth.timer_token(secret, minted_id))
        player_token, _ = PlayerStore._new_token(minted_id)
        assert shapes.token(player_token) == player_token
        assert shapes.player_token(player_token)[0] == minted_id


def test_every_bot_string_a_table_may_seat_is_a_bot_players_id():
    """Each registered bot's canonical strings (its presets, every option at its choices,
    bounds and default, at each game it plays) as rated players, ``bot:<bot>``."""
    catalog = BotCatalog()
    checked = 0
    for name, spec in load_bots().items():
        texts = [name, *catalog.preset_bots(name)]
        for option in spec.options:
            values = [*option.choices, option.default]
            values += [str(bound) for bound in (option.minimum, option.maximum) if bound is not None]
            if option.kind == "int":
                values = [str(int(float(value))) for value in values]
            texts += [f"{name}:{option.name}={value}" for value in values]
        for game_id in spec.games or game_ids():
            assert shapes.game_id(game_id) == game_id
            for text in texts:
                try:
                    canonical = catalog.check(game_id, text)
                except ApiError:
                    continue  # a combination the bot refuses
                assert shapes.player_id(f"bot:{canonical}"), canonical
                checked += 1
    assert checked > 50


@pytest.mark.parametrize(
    "value",
    [
        "0123456789abcdef:tables",
        "0123456789abcdef:tables.secret",
        "{0123456789abcdef}",
        "*",
        "0123456789ABCDEF",
        "0123456789abcdef0",
        "0123456789abcde",
        "",
        "\x00" * 16,
        "0123456789abcdeï",
        "\uff10123456789abcdef",  # a full-width digit
        "bot:x:tables",
        "bot:ismcts:level=3:tables",
        "bot:ïsmcts",
        "bot:" + "a" * 300,
    ],
)
def test_ids_that_name_other_keys_are_refused(value):
    assert refused(shapes.table_id, value) == ("INVALID_ARGUMENT", "BAD_TABLE_ID")
    assert refused(shapes.player_id, value) == ("INVALID_ARGUMENT", "BAD_PLAYER_ID")


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("p.0123456789abcdef:tables." + "s" * 32, "PLAYER_TOKEN_INVALID"),
        ("p.0123456789abcdef." + "s" * 32 + ".x", "PLAYER_TOKEN_INVALID"),
        ("p.ïd.sécret", "PLAYER_TOKEN_INVALID"),
        ("p.bot:random." + "s" * 32, "PLAYER_TOKEN_INVALID"),
        ("p.", "PLAYER_TOKEN_INVALID"),
        ("sécret", "TOKEN_MALFORMED"),
        ("s" * 31, "TOKEN_MALFORMED"),
        ("s" * 33, "TOKEN_MALFORMED"),
        ("s" * 31 + "=", "TOKEN_MALFORMED"),
        ("s" * 31 + "\x00", "TOKEN_MALFORMED"),
        ("0123456789abcdef", "TOKEN_MALFORMED"),  # an id is no token
    ],
)
def test_tokens_of_no_issued_shape_are_unauthenticated(value, reason):
    assert refused(shapes.token, value) == ("UNAUTHENTICATED", reason)


@given(st.text(max_size=80))
def test_no_accepted_id_or_token_holds_a_key_character_or_leaves_ascii(text):
    for check, allowed in (
        (shapes.table_id, set()),
        (shapes.token, {"."}),
        (shapes.game_id, set()),
        (shapes.player_id, {":"}),  # a bot's: bot:<name>:<key>=<value>,...
    ):
        try:
            check(text)
        except ApiError as error:
            assert error.code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.UNAUTHENTICATED)
            continue
        assert text.isascii() and text.isprintable()
        assert not (set(text) & KEY_CHARACTERS) - allowed, (check.__name__, text)


@given(st.text(max_size=200))
def test_a_request_id_is_printable_ascii_without_spaces(text):
    try:
        shapes.request_id(text)
    except ApiError as error:
        assert error.reason == "BAD_REQUEST_ID"
        assert not text or len(text) > 128 or any(not "!" <= char <= "~" for char in text)
    else:
        assert 1 <= len(text) <= 128 and all("!" <= char <= "~" for char in text)


# String fields of public requests that are no id: checked elsewhere for what they are.
NOT_IDS = {
    "display_name",  # a person's name (gateway/players.py check_display_name)
    "seat_token",  # SubmitActionsRequest's, checked as a token per message (gateway/service.py)
    # TurnService's: a push endpoint, its keys (gateway/push.py check_endpoint, check_keys)
    # and an email address (gateway/digest.py check_email).
    "endpoint",
    "p256dh",
    "auth",
    "email",
    "text",  # a chat message (gateway/chat_policy.py ChatSettings.clean)
    "reason",  # a chat report's words, by the same policy
    "after_id",  # a chat message's id, by its pattern before it names a key (gateway/chat.py)
    "message_id",  # the same
}
PUBLIC = [
    gw.DESCRIPTOR.services_by_name["GatewayService"],
    gw.DESCRIPTOR.services_by_name["TimerService"],
    pl.DESCRIPTOR.services_by_name["PlayerService"],
    actions_pb2.DESCRIPTOR.services_by_name["ActionService"],
    tn.DESCRIPTOR.services_by_name["TurnService"],
    chat_pb2.DESCRIPTOR.services_by_name["ChatService"],
]


def test_every_string_field_of_a_request_is_an_id_checked_by_its_name_or_known_not_to_be_one():
    seen = set()
    for service in PUBLIC:
        for method in service.methods:
            for field in method.input_type.fields:
                if field.type == FieldDescriptor.TYPE_STRING:
                    seen.add(field.name)
                    assert field.name in shapes.FIELD_CHECKS or field.name in NOT_IDS, (method.name, field.name)
    assert {"table_id", "player_id", "around_player_id", "game_id", "request_id", "page_token"} <= seen


def test_a_request_is_checked_field_by_field_and_names_the_field():
    shapes.check_request(gw.SubmitActionRequest(table_id="0123456789abcdef", request_id="bot-0-12"))
    shapes.check_request(pl.GetPlayerRequest())  # empty: the method decides what it means
    for request, reason, field in (
        (gw.GetTableRequest(table_id="x:tables"), "BAD_TABLE_ID", "table_id"),
        (pl.ListLeaderboardRequest(game_id="borgia", around_player_id="*"), "BAD_PLAYER_ID", "around_player_id"),
        (gw.ListBotsRequest(game_id="Borgia"), "UNKNOWN_GAME", "game_id"),
        (gw.SubmitActionRequest(table_id="0123456789abcdef", request_id="a b"), "BAD_REQUEST_ID", "request_id"),
        (gw.ListTablesRequest(page_token="-1"), "BAD_PAGE", "page_token"),
    ):
        with pytest.raises(ApiError) as caught:
            shapes.check_request(request)
        assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, reason)
        assert caught.value.metadata == {"field": field}  # never the bad value itself

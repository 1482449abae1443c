"""The one name policy (common/name_rules.py): what a name becomes, what is refused and
why, and which names look alike."""

import grpc
import pytest

from common.errors import ApiError
from common.name_rules import MAX_CHARACTERS, check_not_reserved, clean_name, reserved_as, skeleton, skeletons


def refusal(raw: str) -> ApiError:
    with pytest.raises(ApiError) as caught:
        clean_name(raw)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.reason == "BAD_DISPLAY_NAME"
    return caught.value


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ("\u202egnp.exe", "U+202E RIGHT-TO-LEFT OVERRIDE (a format character)"),
        ("Nora\u200b Newcomer", "U+200B ZERO WIDTH SPACE (a format character)"),
        ("\u200d", "U+200D ZERO WIDTH JOINER (a format character)"),
        ("Ada\u200dBea", "U+200D ZERO WIDTH JOINER (a format character)"),
        ("\u2066Ada\u2069", "U+2066 LEFT-TO-RIGHT ISOLATE (a format character)"),
        ("\ufeffAda", "U+FEFF ZERO WIDTH NO-BREAK SPACE (a format character)"),
        ("Ada\nBea", "U+000A LINE FEED (a control character)"),
        ("Ada\x00", "U+0000 NULL (a control character)"),
        ("Ada\x07", "U+0007 BELL (a control character)"),
        ("\x1b[2J", "U+001B ESCAPE (a control character)"),
        ("\x1b]0;title\x07", "U+001B ESCAPE (a control character)"),
        ("Ada\x9b2J", "U+009B CONTROL SEQUENCE INTRODUCER (a control character)"),
        ("Ada\u2028Bea", "U+2028 LINE SEPARATOR (a line separator)"),
        ("Ada\u2029", "U+2029 PARAGRAPH SEPARATOR (a paragraph separator)"),
        ("Ada\ue000", "U+E000 (a private-use character)"),
        ("Ada\U000e0001", "U+E0001 LANGUAGE TAG (a format character)"),
        ("Ada\u0378", "U+0378 (an unassigned code point)"),
        ("\u3164", "U+1160 HANGUL JUNGSEONG FILLER (an invisible character)"),
        ("Ada\u2800", "U+2800 BRAILLE PATTERN BLANK (an invisible character)"),
        ("\u0301Ada", "may not begin with U+0301 COMBINING ACUTE ACCENT (a combining mark)"),
        ("Z\u0335\u0336\u0337\u0338", "at most 3 combining marks on one letter"),
    ],
)
def test_a_name_may_not_hold_what_draws_nothing_or_moves_the_text_and_is_told_which(raw, said):
    error = refusal(raw)
    assert said in error.message
    assert error.message.startswith("a name ")


def test_a_name_is_normalized_and_its_spaces_collapsed():
    assert clean_name("  \uff2e\uff4f\uff52\uff41 \u3000 \u00a0Newcomer  ") == "Nora Newcomer"
    assert clean_name("\ufb01nn") == "finn"
    assert clean_name("   ") == ""
    # Accents, other scripts and emoji sequences are names like any other.
    assert clean_name("Zoë 李雷") == "Zoë 李雷"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert clean_name(f"{family} Ada") == f"{family} Ada"


def test_a_name_has_at_most_64_characters_and_64_columns():
    assert clean_name("x" * MAX_CHARACTERS) == "x" * MAX_CHARACTERS
    assert "at most 64 characters (this one 65)" in refusal("x" * 65).message
    assert clean_name("李" * 32) == "李" * 32
    assert "at most 64 columns wide (this one 66" in refusal("李" * 33).message


def test_names_that_look_alike_have_one_skeleton():
    nora = skeleton("Nora Newcomer")
    for look_alike in (
        "N\u043era Newcomer",
        "NORA  newcomer",
        "N0ra Newcomer",
        "\uff2eora Newcomer",
        "\u2115ora Newcomer",
    ):
        assert skeleton(clean_name(look_alike)) == nora, look_alike
    assert skeleton("paypaI") == skeleton("paypal") == skeleton("PAYPA1")
    # Case: "ISMCTS" reads its I as l before folding case; its lowercase's skeleton is shared.
    assert skeletons("ISMCTS") & skeletons("ismcts") and skeletons("Ian") & skeletons("lan")
    assert not skeletons("Ann") & skeletons("Anne")
    assert skeleton("Nora") != skeleton("Nina") and skeleton("Ada") != skeleton("Adá")


def test_seat_labels_bot_names_and_you_are_reserved():
    bots = ("random", "ismcts", "heuristic")
    for name in ("Seat 2", "seat 12", "Player 3", "S\u0435at 1", "random", "Random 2", "ismcts L8", "ISMCTS", "You"):
        assert reserved_as(name, bots), name
    for name in ("Seatbelt", "Randomness", "Sir Random", "Ada", "Player One Ready", "Yours"):
        assert not reserved_as(name, bots), name
    for name in ("ismcts L8", "Bob seat 3", "seat 12 wins"):  # "seat 3": how game text names a seat
        with pytest.raises(ApiError) as caught:
            check_not_reserved(name, bots)
        assert caught.value.reason == "RESERVED_DISPLAY_NAME", name
    check_not_reserved("Bob Seat 3rd", bots)

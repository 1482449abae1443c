"""Seats named to people (common.names): a bot by its name and level, names written into
game text, and each viewer's words of a text's choices."""

from common.names import bot_display_name, for_viewer, seat_label, seat_names, with_names, with_names_marked
from tavola.gateway.v1 import gateway_pb2 as gw


def test_a_bot_is_named_by_its_name_and_level_never_its_options():
    assert bot_display_name("ismcts:belief=inferred,paired=8,rollout=sharp") == "ismcts"
    assert bot_display_name("ismcts:level=8,budget_ms=50") == "ismcts L8"
    assert bot_display_name("random") == "random"


def test_seats_of_one_name_are_told_apart():
    seats = [
        gw.Seat(seat=0, kind=gw.SEAT_KIND_HUMAN, display_name="Ada", taken=True),
        gw.Seat(seat=1, kind=gw.SEAT_KIND_BOT, bot="ismcts:rollout=sharp", display_name="x", taken=True),
        gw.Seat(seat=2, kind=gw.SEAT_KIND_BOT, bot="ismcts:paired=8", display_name="y", taken=True),
        gw.Seat(seat=3, kind=gw.SEAT_KIND_HUMAN),
    ]
    # People count seats from 1: seat 3 is "Seat 4", seats 1 and 2 "ismcts 2" and "ismcts 3".
    assert seat_names(seats) == {0: "Ada", 1: "ismcts 2", 2: "ismcts 3", 3: "Seat 4"}


def test_a_seat_without_a_name_reads_from_1_and_is_not_named_twice():
    seats = [gw.Seat(seat=0, kind=gw.SEAT_KIND_HUMAN, taken=True), gw.Seat(seat=1, kind=gw.SEAT_KIND_HUMAN)]
    names = seat_names(seats)
    assert names == {0: "Seat 1", 1: "Seat 2"} and seat_label(0) == "Seat 1"
    told = with_names("seat 0 bids; seat 1 calls.", names)
    assert told == "Seat 1 bids; Seat 2 calls."
    assert with_names(told, names) == told  # a client writing names in again changes nothing


def test_each_viewer_reads_its_own_words_and_names_cannot_forge_a_choice():
    text = with_names("{2|You bid|seat 2 bids} 3 x Bribe; seat 0 allows.", {0: "A|b}", 2: "Bea"})
    assert text == "{2|You bid|Bea bids} 3 x Bribe; A/b) allows."
    assert for_viewer(text, 2) == "You bid 3 x Bribe; A/b) allows."
    assert for_viewer(text, 0) == for_viewer(text, None) == "Bea bids 3 x Bribe; A/b) allows."


def test_the_end_of_a_game_names_its_reader_you():
    names = {0: "Ada", 1: "B|o}b", 2: "Cy"}
    text = f"Game over: {with_names_marked('seat 0, seat 1 reached 8 sesterces', names)}."
    assert for_viewer(text, 0) == "Game over: Ada (you), B/o)b reached 8 sesterces."
    assert for_viewer(text, 1) == "Game over: Ada, B/o)b (you) reached 8 sesterces."
    assert for_viewer(text, 2) == for_viewer(text, None) == "Game over: Ada, B/o)b reached 8 sesterces."

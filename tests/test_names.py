"""Seats named to people (common.names): a bot by its name and level, names written into
game text, and each viewer's words of a text's choices."""

from common.names import (
    bot_display_name,
    for_viewer,
    has_choices,
    seat_label,
    seat_names,
    with_names,
    with_names_marked,
)
from gateway.text import platform_text
from tavola.gateway.v1 import gateway_pb2 as gw


def test_a_bot_is_named_by_its_name_and_level_never_its_options():
    assert bot_display_name("ismcts:belief=inferred,paired=8,rollout=sharp") == "ismcts"
    assert bot_display_name("ismcts:level=8,budget_ms=50") == "ismcts L8"
    assert bot_display_name("random") == "random"


def test_seats_of_one_name_are_told_apart():
    seats = [
        gw.Seat(seat=0, kind=gw.SEAT_KIND_HUMAN, display_name="Ada", taken=True),
        gw.Seat(seat=1, kind=gw.SEAT_KIND_BOT, bot="ismcts:rollout=sharp", display_name="ismcts", taken=True),
        gw.Seat(seat=2, kind=gw.SEAT_KIND_BOT, bot="ismcts:paired=8", display_name="ismcts", taken=True),
        gw.Seat(seat=3, kind=gw.SEAT_KIND_HUMAN),
    ]
    # People count seats from 1: seat 3 is "Seat 4", seats 1 and 2 "ismcts 2" and "ismcts 3".
    assert seat_names(seats) == {0: "Ada", 1: "ismcts 2", 2: "ismcts 3", 3: "Seat 4"}


def test_a_seat_a_bot_took_over_keeps_its_persons_name():
    """The decision timer gave Ada's seat to a bot: the table once listed her as "random"."""
    seats = [
        gw.Seat(seat=0, kind=gw.SEAT_KIND_BOT, bot="random", display_name="Ada", taken=True),
        gw.Seat(seat=1, kind=gw.SEAT_KIND_BOT, bot="random", display_name="random", taken=True),
    ]
    assert seat_names(seats) == {0: "Ada (random)", 1: "random"}


def test_a_seat_without_a_name_reads_from_1_and_is_not_named_twice():
    seats = [gw.Seat(seat=0, kind=gw.SEAT_KIND_HUMAN, taken=True), gw.Seat(seat=1, kind=gw.SEAT_KIND_HUMAN)]
    names = seat_names(seats)
    assert names == {0: "Seat 1", 1: "Seat 2"} and seat_label(0) == "Seat 1"
    told = with_names("seat 0 bids; seat 1 calls.", names)
    assert told == "Seat 1 bids; Seat 2 calls."
    assert with_names(told, names) == told  # a client writing names in again changes nothing


def test_each_viewer_reads_its_own_words_and_names_cannot_forge_a_choice():
    text = with_names("{2|You bid|seat 2 bids} 3 x Bribe; seat 0 allows.", {0: "A|b}", 2: "Bea"})
    assert for_viewer(text, 2) == "You bid 3 x Bribe; A|b} allows."
    assert for_viewer(text, 0) == for_viewer(text, None) == "Bea bids 3 x Bribe; A|b} allows."


def test_the_end_of_a_game_names_its_reader_you():
    names = {0: "Ada", 1: "B|o}b", 2: "Cy"}
    text = f"Game over: {with_names_marked('seat 0, seat 1 reached 8 sesterces', names)}."
    assert for_viewer(text, 0) == "Game over: Ada (you), B|o}b reached 8 sesterces."
    assert for_viewer(text, 1) == "Game over: Ada, B|o}b (you) reached 8 sesterces."
    assert for_viewer(text, 2) == for_viewer(text, None) == "Game over: Ada, B|o}b reached 8 sesterces."


HOSTILE = [
    "{1|YOU WON THE GAME|Eve}",
    "{0|a|b}{1|c|d}",
    "{{1|x|y}}",
    "}{1|x|",
    "|",
    "{",
    "}",
    "a|||b",
    "{|}",
    "seat 3",
    "Seat 2",
    "<img src=x onerror=alert(1)>",
    "\x1b[2J\x1b]0;title\x07",
    "\\{1|x|y}",
]


def test_a_name_reads_as_itself_to_every_viewer_whatever_it_holds():
    """A name is data: written into the game's words, into a choice's words, marked
    "(you)", or into the platform's sentences, every viewer reads it as it is, and it
    changes nothing of the sentence around it."""
    for name in HOSTILE:
        names = {0: "Ada", 1: name, 2: "Cy"}
        game = with_names("{1|You bid|seat 1 bids}; seat 1 and {2|you|seat 2} call seat 1.", names)
        assert for_viewer(game, 1) == f"You bid; {name} and Cy call {name}.", name
        assert for_viewer(game, 2) == f"{name} bids; {name} and you call {name}.", name
        assert for_viewer(game, None) == for_viewer(game, 0) == f"{name} bids; {name} and Cy call {name}.", name
        marked = with_names_marked("seat 1 and seat 0 won", names)
        assert for_viewer(marked, 1) == f"{name} (you) and Ada won", name
        assert for_viewer(marked, None) == f"{name} and Ada won", name
        assert has_choices(marked) and not has_choices(with_names("seat 1 sits down.", names))
        assert with_names(game, names) == game  # written in once: a name's own "seat 3" stays


def test_a_seat_named_like_a_choice_sits_down_under_its_name_for_everyone():
    """The issue's case: a seat named "{1|YOU WON THE GAME|Eve}" read "YOU WON THE GAME
    sits down." to seat 1 and "Eve sits down." to everyone else."""
    name = "{1|YOU WON THE GAME|Eve}"
    seats = [
        gw.Seat(seat=0, kind=gw.SEAT_KIND_HUMAN, display_name="Ada", taken=True),
        gw.Seat(seat=1, kind=gw.SEAT_KIND_HUMAN, display_name=name, taken=True),
    ]
    names = seat_names(seats)
    sits = platform_text(names, seat_taken=gw.SeatTaken(seat=1, kind=gw.SEAT_KIND_HUMAN, display_name=name))
    late = platform_text(names, decision_expired=gw.DecisionExpired(seat=1))
    for viewer in (None, 0, 1):
        assert for_viewer(sits, viewer) == f"{name} sits down.", viewer
        assert for_viewer(late, viewer).startswith(f"{name}'s decision time ran out"), viewer

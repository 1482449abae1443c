"""Whose turn a commit begins, and the words a push and a page say it in (gateway/turns.py)."""

from gateway.turns import new_turns, turn_text
from tavola.gateway.v1 import gateway_pb2 as gw


def table_of(names: list[str], deciding: list[int], kinds: dict[int, int] | None = None) -> gw.Table:
    table = gw.Table(status=gw.TABLE_STATUS_IN_PROGRESS, deciding_seats=deciding)
    for seat, name in enumerate(names):
        kind = (kinds or {}).get(seat, gw.SEAT_KIND_HUMAN)
        table.seats.add(seat=seat, display_name=name, kind=kind, player_id=f"p{seat}" if name else "")
    return table


def test_the_words_name_the_game_and_the_other_players():
    table = table_of(["Me", "Ada", "Bo", "Cy"], [0])
    assert turn_text("House of Borgia", table, 0) == "Your turn at House of Borgia with Ada, Bo and Cy."
    assert turn_text("Pecunia", table_of(["Me", "Ada"], [0]), 0) == "Your turn at Pecunia with Ada."


def test_a_turn_begins_for_a_players_seat_that_did_not_decide_before():
    table = table_of(["Me", "Ada", "", "Bot"], [0, 1, 2, 3], kinds={3: gw.SEAT_KIND_BOT})
    # Seat 1 decided already; seat 2 is a guest's (no player to tell); seat 3 a bot's.
    assert new_turns(table, deciding_before=(1,)) == [0]
    table.status = gw.TABLE_STATUS_FINISHED
    assert new_turns(table, deciding_before=()) == []

"""The bot-reply bench (bench/replies.py) against the real stack: paced clients play, the
bot answers, and every reply is measured from the gateway's own commit stamps. Only
counts and orderings are checked here, never a time."""

from bench.replies import bot_replies


def test_paced_clients_get_answers_and_each_is_measured(stack):
    figures = bot_replies(stack.gateway_address, tables=3, seconds=4.0, think=0.2)
    assert figures.moves >= 3  # every table's client moved
    assert figures.replies_ms, "no bot reply was measured"
    assert len(figures.replies_ms) <= figures.moves  # at most one reply measured per move
    assert all(ms >= 0 for ms in figures.replies_ms)  # the reply commits after the move
    assert figures.percentile(0.5) <= figures.percentile(0.99)

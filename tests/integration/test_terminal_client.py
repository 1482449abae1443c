"""The terminal client knows no game, yet plays each one to the end through the gateway."""

import pytest

from clients import terminal
from tests.integration.games import CASES


@pytest.mark.parametrize("game", sorted(CASES))
def test_the_terminal_client_plays_a_game_to_the_end(stack, game, capsys):
    answers = iter(["9999\n", "x\n"] + ["1\n"] * 20_000)  # two bad answers are asked again
    outcome = terminal.play(stack.gateway_address, game, 3, {}, seed=5, read=lambda: next(answers))
    printed = capsys.readouterr().out
    assert outcome.summary and f"game over: {outcome.summary}" in printed
    assert "type a number from 1 to" in printed

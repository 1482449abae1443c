"""The terminal's help panel states the rules as tavola plays them (RULINGS.md). It once
said Borgia's pope was the highest cardinal on the ladder, never said a rumor eliminates,
and said Mortadella's Rats hurt others."""

from clients.terminal.renderers.borgia import BorgiaRenderer
from clients.terminal.renderers.mortadella import MortadellaRenderer


def words(text: str) -> str:
    return " ".join(text.split())


def test_borgia_help_states_the_scoring_of_b9():
    """B9: the remaining dice add 2 influence each to the puppet, a rumor naming a player's
    own puppet eliminates them, the most influence wins, ties go higher on the ladder."""
    text = words(BorgiaRenderer.help_text)
    assert "highest cardinal on the ladder is pope" not in text
    assert "the cardinal with the most influence is pope (a tie: the one higher on the ladder)" in text
    assert "each die a player keeps gives their puppet 2 influence" in text
    assert "rumor names their own puppet is eliminated" in text
    assert "a variant may soften that" in text  # B10, B13: Flame of Thy Tongue, Poisoned Dice


def test_mortadella_help_says_rats_hurt_everyone_m7():
    """M7: Plague and Black Death hit every player still in the game, the active player included."""
    text = words(MortadellaRenderer.help_text)
    assert "hurt others" not in text
    assert "Rats hurt every player, you too" in text

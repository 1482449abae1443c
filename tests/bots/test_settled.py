"""No move its own view refutes (bots/lab/settled.py): in Borgia a bid the bot's own dice
already make true is allowed, and one its own dice and every die it cannot see could not
make true is called, however its playouts fall; in Mortadella and Pecunia a win its own
view proves is never given away. The full count (200 positions at the
default budget) is ``python -m bots.lab.settled --positions 200 --clock cpu``."""

import pytest

from bots.borgia.endgame import end_is_lost
from bots.borgia.odds import settled_answer
from bots.lab.settled import positions, refuted
from services.borgia.model import Allow, Call, Face, Phase
from services.pecunia.model import RemoveMarkers
from services.registry import get_game


def test_the_answers_its_view_settles_are_the_true_answers():
    """B4: checked against every die in the true state; but for the allow that keeps going
    a game whose end a call would bring, lost (B8, B9: ``bots.borgia.endgame``)."""
    game = get_game("borgia")
    found = positions("borgia", 200, seed=3)
    assert {type(p.answer) for p in found} == {Allow, Call}
    for position in found:
        state = position.state
        bid = state.bid
        matching = sum(1 for dice in state.dice for face in dice if face in (bid.action, Face.FATE))
        going_on = len(state.dice[state.active]) == 1 and end_is_lost(
            game.engine.view(state, position.seat), position.seat
        )
        assert (matching >= bid.count or going_on) == (type(position.answer) is Allow)
        assert position.answer in game.engine.legal_actions(state, position.seat)


def test_nothing_is_settled_where_the_unseen_dice_could_go_either_way():
    game = get_game("borgia")
    engine = game.engine
    state, _ = engine.new_game(2, {}, 5)
    bidder = engine.deciders(state)[0]
    state, _ = engine.apply(state, bidder, engine.legal_actions(state, bidder)[0])  # a bid of 1
    responder = engine.deciders(state)[0]
    view = engine.view(state, responder)
    assert view.phase == Phase.RESPOND and view.bid.count == 1
    legal = engine.legal_actions(state, responder)
    own = sum(1 for face in view.seats[responder].dice if face in (view.bid.action, Face.FATE))
    assert settled_answer(game, view, responder, legal) == (Allow() if own >= 1 else None)


@pytest.mark.parametrize(
    "bot",
    [
        # Playouts alone, few of them: before the settled answers were played unsearched
        # this refuted its own view in 19 of 200 positions, the default in 4 of 200.
        "ismcts:iterations=16,budget_ms=0,overrule=0",
        "ismcts:iterations=16,budget_ms=0,paired=8,rollout=sharp,belief=inferred",
    ],
)
def test_the_search_bot_never_plays_a_move_its_own_view_refutes(bot):
    found = positions("borgia", 60, seed=1)
    assert refuted(bot, "borgia", found) == []


# --------------------------------------------------------------------------- Mortadella and Pecunia


def test_m19_a_guess_of_the_only_role_the_deal_leaves_is_settled_and_wins():
    """Seat 0 guessed wrong twice (its removed LORD and CAPTAIN are its own to see) and once
    named CARDINAL for seat 1's card: seat 1 holds RECTOR, the only role left to it."""
    from bots.mortadella.settled import settled_answer as mortadella_settled
    from services.mortadella.model import GuessRole, Role, WrongGuess
    from tests.mortadella.builders import make_state

    game = get_game("mortadella")
    state = make_state(
        2,
        roles=(Role.PRINCE, Role.RECTOR),
        removed_roles=((Role.LORD, Role.CAPTAIN), ()),
        undealt=(Role.CARDINAL,),
        wrong_guesses=(WrongGuess(0, 1, 1, 0, Role.CARDINAL),),
    )
    legal = game.engine.legal_actions(state, 0)
    answer = mortadella_settled(game, game.engine.view(state, 0), 0, legal)
    assert answer == GuessRole(1, Role.RECTOR)
    assert game.engine.apply(state, 0, answer)[0].winners == (0,)
    unsettled = make_state(2)
    assert mortadella_settled(game, game.engine.view(unsettled, 0), 0, game.engine.legal_actions(unsettled, 0)) is None


@pytest.mark.parametrize("game_id", ["mortadella", "pecunia"])
def test_m15_p4_p7_the_answers_its_view_settles_are_certain_wins_and_a_refuted_move_is_legal(game_id):
    """Mortadella: a die resolved that completes its own row wins at once (M15). Pecunia:
    collecting, or the Castor oil before it, reaches the target (P4, P7); collecting first
    gives that win away."""
    from bots.lab.settled import is_right

    game = get_game(game_id)
    engine = game.engine
    found = positions(game_id, 20, seed=2)
    assert len(found) == 20
    for position in found:
        after, _ = engine.apply(position.state, position.seat, position.answer)
        legal = engine.legal_actions(position.state, position.seat)
        assert position.answer in legal
        assert any(not is_right(game_id, position.state, position.seat, position.answer, a) for a in legal)
        if game_id == "mortadella":
            assert after.winners == (position.seat,)
        else:  # a Castor oil: collecting after it reaches the target
            assert after.winners == (position.seat,) or engine.apply(after, position.seat, RemoveMarkers())[
                0
            ].winners == (position.seat,)


@pytest.mark.parametrize("game_id", ["mortadella", "pecunia"])
def test_the_search_bot_never_gives_away_a_win_its_own_view_proves(game_id):
    found = positions(game_id, 20, seed=1)
    tree = "ismcts:iterations=8,budget_ms=0,overrule=0,rollout=random,paired=0,belief=uniform"
    for bot in (tree, "ismcts:iterations=8,budget_ms=0"):
        assert refuted(bot, game_id, found) == [], bot


@pytest.mark.parametrize("game_id", ["borgia", "mortadella", "pecunia"])
def test_a_slip_never_plays_a_move_its_own_view_refutes(game_id):
    """slips=1 plays every unsettled decision at random, and still every settled one right."""
    found = positions(game_id, 20, seed=3)
    assert refuted("ismcts:iterations=1,budget_ms=0,slips=1", game_id, found) == []

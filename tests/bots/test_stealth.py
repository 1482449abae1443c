"""The Borgia policy that keeps its puppet hidden from readers (bots/borgia/stealth.py), and
``ismcts:self_read=on``, whose own seat plays out and ranks its candidates by it. A reader
names a player's puppet in a rumor once that player's performs (B5, public) point at it, and
a matching rumor eliminates the player (B9)."""

import random

from bots.borgia.probes import borgia_honest_reader_policy
from bots.borgia.puppets import borgia_sharp_policy, puppet_odds
from bots.borgia.stealth import REVEAL_AT, borgia_stealth_policy, exposure, read_of, stealth_candidates, trailing
from bots.lab.offline import play
from bots.worker.registry import make_strategy
from services.borgia import GAME
from services.borgia.model import Bid, Bribe, Direction, Face, JudgementPair, Phase, Poison, Rumor
from tests.borgia.test_rules import LADDER, MEDICI, ORSINI, SFORZA, make_state

ENGINE = GAME.engine
TOP, BOTTOM = Direction.TOP, Direction.BOTTOM


def bribing(dice_each: int, performed=((), ()), influence=(3, 2, 4, 5, 2, 2)):
    """Two players; seat 0 (puppet MEDICI, third on the ladder, 4 influence) performs a
    BRIBE; its rival ORSINI leads with 5. The obvious perform is MEDICI to the top."""
    faces = (Face.BRIBE, Face.POISON, Face.JUDGEMENT, Face.ACCUSATION, Face.RUMOR, Face.FATE)
    return make_state(
        2,
        phase=Phase.PERFORM,
        bid=Bid(1, Face.BRIBE),
        dice=(faces[:dice_each], faces[1 : dice_each + 1]),
        ladder=LADDER,
        influence=influence,
        performed=performed,
    )


def choices(policy, state, seat=0, seeds=range(8)):
    legal, view = ENGINE.legal_actions(state, seat), ENGINE.view(state, seat)
    return {policy(GAME, view, seat, legal, random.Random(s)) for s in seeds}


def test_b5_a_perform_that_raises_the_puppet_exposes_it_one_that_lowers_a_rival_does_not():
    view = ENGINE.view(bribing(4), 0)
    assert exposure(view, 0, Bribe(MEDICI, TOP), set()) > 1
    assert exposure(view, 0, Bribe(ORSINI, BOTTOM), set()) <= 1
    assert exposure(view, 0, Poison(ORSINI, SFORZA), set()) <= 1
    weights = read_of(view, 0, JudgementPair(ORSINI, MEDICI))
    assert max(weights, key=weights.__getitem__) == MEDICI


def test_b5_b9_with_rounds_left_it_does_not_point_a_reader_at_its_puppet():
    state = bribing(4)
    assert choices(borgia_sharp_policy, state) == {Bribe(MEDICI, TOP)}
    hidden = choices(borgia_stealth_policy, state)
    view = ENGINE.view(state, 0)
    assert all(exposure(view, 0, action, set()) < 1 for action in hidden), hidden
    # A reader that sees it next reads no MEDICI from it.
    after = ENGINE.apply(state, 0, hidden.pop())[0]
    assert puppet_odds(ENGINE.view(after, 1), 1, 0)[MEDICI] < 0.5


def test_b5_b9_once_its_puppet_shows_it_raises_a_decoy_above_it():
    """Its earlier performs raised MEDICI twice: every bribe now leaves MEDICI first in a
    reader's eyes but one, which lifts another cardinal as high (or as near as it can)."""
    state = bribing(4, performed=((Bribe(MEDICI, TOP),), ()))
    view = ENGINE.view(state, 0)
    legal = ENGINE.legal_actions(state, 0)
    least = min(exposure(view, 0, action, set()) for action in legal)
    for action in choices(borgia_stealth_policy, state):
        assert exposure(view, 0, action, set()) <= least + 1e-9
        assert type(action) is Bribe and action.direction == TOP and action.cardinal != MEDICI


def test_b8_with_a_player_on_its_last_dice_it_raises_its_puppet_openly():
    """The game ends when a player has no dice (B8): a rumor may not come in time."""
    state = bribing(REVEAL_AT)
    assert choices(borgia_stealth_policy, state) == choices(borgia_sharp_policy, state) == {Bribe(MEDICI, TOP)}


def test_b9_a_puppet_behind_even_with_its_dice_bonus_is_raised_openly():
    """Hiding lets the others climb: once its puppet, with what its place brings over the
    horizon and two per die it holds (B9), would still finish behind another cardinal, it
    plays the open perform, or a cardinal that is no one's puppet may be elected (nobody wins)."""
    ahead = bribing(4)
    assert not trailing(ENGINE.view(ahead, 0), 0, (MEDICI,))
    behind = bribing(4, influence=(3, 2, 4, 20, 2, 2))
    assert trailing(ENGINE.view(behind, 0), 0, (MEDICI,))
    assert choices(borgia_stealth_policy, behind) == choices(borgia_sharp_policy, behind)
    view = ENGINE.view(behind, 0)
    assert any(exposure(view, 0, action, set()) > 1 for action in choices(borgia_stealth_policy, behind))


def test_it_bids_and_answers_as_the_sharp_policy_and_aims_rumors_where_it_reads():
    bidding = make_state(2)
    assert choices(borgia_stealth_policy, bidding) == choices(borgia_sharp_policy, bidding)
    rumoring = make_state(
        2, phase=Phase.PERFORM, bid=Bid(2, Face.RUMOR), performed=((), (Bribe(ORSINI, TOP), Bribe(ORSINI, TOP)))
    )
    assert choices(borgia_stealth_policy, rumoring) == {Rumor(ORSINI, 1, None)}


def test_the_search_compares_the_open_perform_and_the_hiding_ones():
    state = bribing(4)
    legal, view = ENGINE.legal_actions(state, 0), ENGINE.view(state, 0)
    found = stealth_candidates(GAME, view, 0, legal, random.Random(0))
    assert found[0] == Bribe(MEDICI, TOP) and len(found) > 1 and set(found) <= set(legal)
    bidding = make_state(2)
    assert stealth_candidates(GAME, ENGINE.view(bidding, 0), 0, ENGINE.legal_actions(bidding, 0), None) == []


def test_b9_against_an_honest_reader_it_is_named_less_often_than_the_sharp_policy():
    """Over a few whole games against the reading probe, the rumor in front of the stealth
    policy names its puppet at the end less often than the one in front of the sharp policy."""

    def named(policy) -> int:
        count = 0
        for seed in range(12):
            rng = random.Random(seed)
            state, _ = ENGINE.new_game(2, {}, seed)
            while deciders := ENGINE.deciders(state):
                seat = deciders[0]
                mover = policy if seat == 0 else borgia_honest_reader_policy
                state, _ = ENGINE.apply(
                    state, seat, mover(GAME, ENGINE.view(state, seat), seat, ENGINE.legal_actions(state, seat), rng)
                )
            count += bool(set(state.rumors[0]) & set(state.puppets[0]))
        return count

    assert named(borgia_stealth_policy) < named(borgia_sharp_policy)


def test_self_read_plays_whole_games_with_the_stealth_policy():
    bot = make_strategy("ismcts:self_read=on,iterations=4,budget_ms=0", "borgia")
    assert play(GAME, [bot, make_strategy("borgia-honest-reader", "borgia")], {}, seed=5) is not None


def test_b5_b9_self_read_searches_by_the_stealth_policy_and_keeps_the_puppet_hidden():
    """ismcts:self_read=on's settings for Borgia (the reader models the other seat, the
    stealth policy plays and ranks its own, the open perform is compared too): with rounds
    left and a reader to bid next, it plays a perform that leaves its puppet unnamed."""
    from bots.borgia.odds import settled_answer
    from bots.borgia.puppets import puppet_belief
    from bots.search.ismcts import search

    state = bribing(2)
    legal, view = ENGINE.legal_actions(state, 0), ENGINE.view(state, 0)
    for seed in (0, 1):
        chosen = search(
            GAME,
            view,
            0,
            legal,
            random.Random(seed),
            iterations=200,
            budget_ms=0,
            rollout=borgia_stealth_policy,
            opponent=borgia_sharp_policy,
            prior=borgia_stealth_policy,
            overrule=2.0,
            paired=8,
            belief=puppet_belief,
            certain=settled_answer,
            extra=stealth_candidates,
        ).action
        assert exposure(view, 0, chosen, set()) < 1, chosen

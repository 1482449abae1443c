"""The probe bots (bots/borgia/probes.py) each play one fixed way, and the arena's gauntlet plays
strong bots against every one of them."""

import random

import pytest

from bots.borgia.odds import own_matching
from bots.borgia.probes import (
    borgia_always_allow_policy,
    borgia_always_call_policy,
    borgia_decoy_policy,
    borgia_honest_reader_policy,
    decoy_cardinal,
)
from bots.borgia.puppets import puppet_deceit, puppet_odds, puppet_weights, wary_puppet_weights
from bots.lab import arena
from bots.lab.offline import play
from bots.search.policy import random_policy
from bots.search.strategies import random_legal
from bots.worker.registry import make_strategy
from services.borgia.model import Allow, Bid, Call, Phase
from services.bot_specs import load_bots
from services.registry import game_ids, get_game


def test_every_probe_is_registered():
    names = {"first-legal", "borgia-decoy", "borgia-honest-reader", "borgia-always-call", "borgia-always-allow"}
    assert {p.name for p in arena.probes()} == names and names <= set(load_bots())


@pytest.mark.parametrize("probe", [p.name for p in arena.probes()])
def test_each_probe_plays_whole_games_of_its_games(probe):
    for game_id in game_ids():
        if load_bots()[probe].plays(game_id):
            assert play(get_game(game_id), [make_strategy(probe, game_id), random_legal], {}, seed=2) is not None


def _decisions(policy, games: int, players: int = 2):
    """(view, seat, legal, choice) of seat 0 playing ``policy`` against random seats."""
    game = get_game("borgia")
    engine = game.engine
    for seed in range(games):
        rng = random.Random(seed)
        state, _ = engine.new_game(players, {}, seed)
        while deciders := engine.deciders(state):
            seat = rng.choice(deciders)
            view, legal = engine.view(state, seat), engine.legal_actions(state, seat)
            choice = (policy if seat == 0 else random_policy)(game, view, seat, legal, rng)
            if seat == 0:
                yield state, view, legal, choice
            state, _ = engine.apply(state, seat, choice)


def test_the_decoy_is_read_as_backing_its_decoy_after_its_first_performs():
    """Its first two performs point a reader (bots.borgia.puppets) at the decoy, not its puppet."""
    fooled = read = 0
    for state, view, _, _ in _decisions(borgia_decoy_policy, 30):
        if len(view.seats[0].performed) == 2:
            odds = puppet_odds(get_game("borgia").engine.view(state, 1), 1, 0)
            decoy, puppet = decoy_cardinal(view, 0), view.seats[0].puppets[0]
            assert decoy != puppet
            fooled += odds[decoy] > odds[puppet]
            read += 1
    assert read >= 10 and fooled >= 0.7 * read, (fooled, read)


def test_the_honest_reader_bids_only_what_its_dice_make_true_where_it_can():
    bids = 0
    for _, view, legal, choice in _decisions(borgia_honest_reader_policy, 10):
        if view.phase == Phase.BID:
            own = own_matching(view.seats[0].dice)
            if any(type(a) is Bid and own[a.action] >= a.count for a in legal):
                assert own[choice.action] >= choice.count
                bids += 1
    assert bids > 10


@pytest.mark.parametrize(("policy", "answer"), [(borgia_always_call_policy, Call), (borgia_always_allow_policy, Allow)])
def test_always_call_and_always_allow_answer_every_bid_so(policy, answer):
    answered = 0
    for _, view, legal, choice in _decisions(policy, 5):
        if view.phase == Phase.RESPOND and answer() in legal:
            assert type(choice) is answer
            answered += 1
    assert answered > 5


def test_the_gauntlet_plays_each_strong_bot_against_each_probe_of_the_game(capsys):
    assert arena.main(["--gauntlet", "--game", "mortadella", "--bots", "random", "--games", "2", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("mortadella")]
    assert len(rows) == 1 and "first-legal" in rows[0], out


def test_a_wary_reading_sees_through_the_decoy_once_its_later_play_contradicts_it():
    """bots.borgia.puppets.wary_puppet_weights: after the decoy's opening performs and two
    performs for its puppet, the wary reading names the puppet likelier than the decoy
    more often than the honest reading does, and grows its weight on deceit."""
    engine = get_game("borgia").engine
    honest_right = wary_right = seen = 0
    deceit_before, deceit_after = [], []
    for state, view, _, _ in _decisions(borgia_decoy_policy, 40):
        performed = len(view.seats[0].performed)
        reader_view = engine.view(state, 1)
        decoy, puppet = decoy_cardinal(view, 0), view.seats[0].puppets[0]
        if decoy in (reader_view.seats[1].puppets or ()):
            continue  # the reader knows its own puppet is nobody else's
        if performed == 2:
            deceit_before.append(puppet_deceit(reader_view, 1, 0))
        if performed == 4:
            honest, wary = puppet_weights(reader_view, 1, 0), wary_puppet_weights(reader_view, 1, 0)
            honest_right += honest[puppet] > honest[decoy]
            wary_right += wary[puppet] > wary[decoy]
            deceit_after.append(puppet_deceit(reader_view, 1, 0))
            seen += 1
    assert seen >= 8
    assert wary_right > honest_right, (wary_right, honest_right, seen)
    assert sum(deceit_after) / len(deceit_after) > sum(deceit_before) / len(deceit_before)


def test_a_wary_reading_of_an_honest_player_keeps_the_honest_reading():
    engine = get_game("borgia").engine
    agree = seen = 0
    for state, view, _, _ in _decisions(borgia_honest_reader_policy, 20):
        if len(view.seats[0].performed) == 3:
            reader_view = engine.view(state, 1)
            honest, wary = puppet_weights(reader_view, 1, 0), wary_puppet_weights(reader_view, 1, 0)
            agree += max(honest, key=honest.get) == max(wary, key=wary.get)
            seen += 1
    assert seen >= 5 and agree >= 0.8 * seen, (agree, seen)


def test_the_sly_bot_plays_the_stealth_policy_and_whole_games():
    from bots.borgia.stealth import borgia_stealth_policy

    assert sum(1 for _ in _decisions(borgia_stealth_policy, 2)) > 0
    assert play(get_game("borgia"), [make_strategy("borgia-sly", "borgia"), random_legal], {}, seed=4) is not None


def _normalised(weights):
    total = sum(weights.values())
    return {c: w / total for c, w in weights.items()}


def test_b5_the_wary_reading_learns_a_decoy_from_its_performs_and_its_weight_on_the_puppet_recovers():
    """A player (seat 0, puppet MEDICI) opens with two performs for SFORZA, then plays two
    for MEDICI. At first the wary reading (bots.borgia.puppets.wary_puppet_weights) is
    fooled as the honest one is; once the later performs contradict the opening, the weight
    of the deceptive model, learned from these performs alone, rises and its weight on
    MEDICI recovers, while the honest reading is left torn between the two. The search's
    belief (wary_puppet_belief) draws MEDICI as often as the weights say."""
    from collections import Counter

    from bots.borgia.puppets import wary_puppet_belief
    from bots.search.determinizations import sampler
    from services.borgia.model import Bribe, Direction
    from tests.borgia.test_rules import MEDICI, SFORZA, make_state

    engine = get_game("borgia").engine
    top = Direction.TOP
    opening = (Bribe(SFORZA, top), Bribe(SFORZA, top))
    later = (*opening, Bribe(MEDICI, top), Bribe(MEDICI, top))
    views = {n: engine.view(make_state(2, performed=(later[:n], ())), 1) for n in (2, 4)}
    wary = {n: _normalised(wary_puppet_weights(v, 1, 0)) for n, v in views.items()}
    honest = {n: _normalised(puppet_weights(v, 1, 0)) for n, v in views.items()}
    assert wary[2][MEDICI] < 0.05 and honest[2][MEDICI] < 0.05, "fooled by the opening, both"
    assert puppet_deceit(views[4], 1, 0) > 0.5 > puppet_deceit(views[2], 1, 0)
    assert wary[4][MEDICI] > 0.7 and wary[4][MEDICI] > 2 * wary[4][SFORZA], wary[4]
    assert honest[4][MEDICI] < 0.55, honest[4]
    draw = sampler(get_game("borgia"), views[4], 1, random.Random(1), wary_puppet_belief)
    drawn = Counter(draw().puppets[0][0] for _ in range(1000))
    assert drawn[MEDICI] > 600, drawn


def test_b5_the_wary_reading_reads_an_honest_player_as_fast_as_the_inferred_one():
    """An honest player's performs for its puppet: the wary reading names the same likeliest
    cardinal as the honest (``inferred``) reading from the first perform on, its weight on
    it within 0.05 of the honest one's, and its weight on deceit falls."""
    from services.borgia.model import Bribe, Direction, JudgementPair
    from tests.borgia.test_rules import BORGIA, MEDICI, make_state

    engine = get_game("borgia").engine
    performs = (Bribe(MEDICI, Direction.TOP), JudgementPair(BORGIA, MEDICI), Bribe(MEDICI, Direction.TOP))
    deceit = []
    for n in range(1, len(performs) + 1):
        view = engine.view(make_state(2, performed=(performs[:n], ())), 1)
        wary, honest = _normalised(wary_puppet_weights(view, 1, 0)), _normalised(puppet_weights(view, 1, 0))
        assert max(wary, key=wary.get) == max(honest, key=honest.get) == MEDICI
        assert honest[MEDICI] - wary[MEDICI] < 0.05, (n, wary[MEDICI], honest[MEDICI])
        deceit.append(puppet_deceit(view, 1, 0))
    assert deceit == sorted(deceit, reverse=True) and deceit[-1] < 0.01, deceit

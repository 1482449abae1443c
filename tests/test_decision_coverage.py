"""Random legal play, which is what the random bot does, reaches every kind of decision
of every game: each field of the game's Action oneof is played in some random playout."""

import random

import pytest

from services.registry import game_ids, get_game, player_counts

# Decisions that random play cannot be relied on to reach, each covered by a rule test.
RARE = {
    "borgia": {"perform_nothing"},  # an action with no possible target (B5): tests/borgia/test_rules.py
}


@pytest.mark.parametrize("game_id", game_ids())
def test_random_play_reaches_every_kind_of_decision(game_id):
    game = get_game(game_id)
    engine, codec = game.engine, game.codec
    kinds = {field.name for field in codec.action_type().DESCRIPTOR.oneofs_by_name["kind"].fields}
    played: set[str] = set()
    chooser = random.Random(0)
    for seed in range(300):
        counts = player_counts(game_id)
        players = counts[seed % len(counts)]
        state, _ = engine.new_game(players, {}, seed)
        while deciders := engine.deciders(state):
            seat = chooser.choice(deciders)
            action = chooser.choice(list(engine.legal_actions(state, seat)))
            played.add(codec.action_to_proto(action).WhichOneof("kind"))
            state, _ = engine.apply(state, seat, action)
        if played >= kinds - RARE.get(game_id, set()):
            break
    assert kinds - RARE.get(game_id, set()) <= played, f"never played: {sorted(kinds - played)}"

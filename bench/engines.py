"""Random playouts per second of each pure engine, on one core (this process)."""

import random
import time

from services.rules_server import load_game


def playouts_per_second(game_id: str, player_counts: range, seconds: float, options=None) -> tuple[float, float, int]:
    """(playouts/s, actions/s, playouts) of random legal playouts over the player counts."""
    engine = load_game(game_id).engine
    chooser = random.Random(1)
    playouts = actions = 0
    started = time.perf_counter()
    seed = 0
    while time.perf_counter() - started < seconds:
        seed += 1
        players = player_counts[seed % len(player_counts)]
        state, _ = engine.new_game(players, options or {}, seed)
        while True:
            deciders = engine.deciders(state)
            if not deciders:
                break
            seat = chooser.choice(deciders)
            state, _ = engine.apply(state, seat, chooser.choice(list(engine.legal_actions(state, seat))))
            actions += 1
        playouts += 1
    elapsed = time.perf_counter() - started
    return playouts / elapsed, actions / elapsed, playouts

"""Random playouts per second of each pure engine, on one core (this process), and how
often a bot strategy wins against random bots."""

import random
import time

from services.registry import get_game


def playouts_per_second(game_id: str, player_counts: range, seconds: float, options=None) -> tuple[float, float, int]:
    """(playouts/s, actions/s, playouts) of random legal playouts over the player counts."""
    engine = get_game(game_id).engine
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


def decisions_per_cpu_second(game_id: str, player_counts: range, seconds: float) -> tuple[float, int]:
    """(decisions per CPU second, playouts) of random legal playouts of a tavola engine."""
    engine = get_game(game_id).engine
    chooser = random.Random(1)
    decisions = playouts = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        playouts += 1
        state, _ = engine.new_game(player_counts[playouts % len(player_counts)], {}, playouts)
        while deciders := engine.deciders(state):
            # Like OpenSpiel's loop below: the one seat to decide is taken, not drawn; the
            # legal actions as the engine lists them (a fresh list, as OpenSpiel's).
            seat = deciders[0] if len(deciders) == 1 else chooser.choice(deciders)
            state, _ = engine.apply(state, seat, chooser.choice(engine.legal_actions(state, seat)))
            decisions += 1
    return decisions / (time.process_time() - started), playouts


def openspiel_decisions_per_cpu_second(name: str, seconds: float) -> float | None:
    """The same for an OpenSpiel game (chance outcomes drawn, not counted); None without
    the [openspiel] extra."""
    try:
        import pyspiel
        from open_spiel.python import games  # noqa: F401  registers the python_* games
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    chooser = random.Random(1)
    decisions = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(chooser.choices(outcomes, weights)[0])
            else:
                state.apply_action(chooser.choice(state.legal_actions()))
                decisions += 1
    return decisions / (time.process_time() - started)


# OpenSpiel's games the engines are measured beside: the first is every ratio's reference.
REFERENCES = ("python_liars_poker", "python_kuhn_poker")


def interleaved_rounds(games: list[str], rounds: int, seconds: float) -> list[dict[str, float]]:
    """``rounds`` rounds, each a sample of ``seconds`` CPU seconds of every tavola engine and
    of every OpenSpiel reference in turn (the order reversed every other round, so a load
    that drifts weighs on each alike): each round's decisions per CPU second by name (the
    references left out without the [openspiel] extra)."""
    from services.registry import player_counts

    names = [REFERENCES[0], *games, *REFERENCES[1:]]
    for name in names:  # warm up: the first playouts build an engine's caches (and import OpenSpiel)
        if name in REFERENCES:
            openspiel_decisions_per_cpu_second(name, 0.05)
        else:
            decisions_per_cpu_second(name, player_counts(name), 0.05)
    samples: list[dict[str, float]] = []
    for number in range(rounds):
        sample: dict[str, float] = {}
        for name in names if number % 2 == 0 else names[::-1]:
            if name in REFERENCES:
                rate = openspiel_decisions_per_cpu_second(name, seconds)
                if rate is not None:
                    sample[name] = rate
            else:
                sample[name] = decisions_per_cpu_second(name, player_counts(name), seconds)[0]
        samples.append(sample)
    return samples


def round_ratios(samples: list[dict[str, float]], name: str, reference: str = REFERENCES[0]) -> list[float]:
    """``name``'s rate over the reference's, round by round (the rounds that have both)."""
    return [sample[name] / sample[reference] for sample in samples if sample.get(reference) and name in sample]

"""Random legal playouts over any engine, checking the invariants every game shares.

Game-specific property tests call ``random_playout`` and add their own checks through
``on_step``. Randomness for choosing actions comes from a seeded ``random.Random`` so a
failing playout is reproduced by its seed.
"""

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from services.engine.api import Game, Outcome


@dataclass
class Playout:
    state: Any
    outcome: Outcome | None
    steps: int
    actions: list[tuple[int, Any]] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)


StepHook = Callable[[Any, Any, int, Any, list[Any]], None]  # (before, after, seat, action, events)


def random_playout(
    game: Game,
    player_count: int,
    options: Mapping[str, str],
    seed: int,
    *,
    max_steps: int = 20_000,
    on_step: StepHook | None = None,
    check_views: bool = False,
    check_codec: bool = False,
) -> Playout:
    engine, codec = game.engine, game.codec
    chooser = random.Random(seed)
    state, events = engine.new_game(player_count, options, seed)
    playout = Playout(state=state, outcome=None, steps=0, events=list(events))
    viewers: list[int | None] = [None, *range(player_count)]
    for _ in range(max_steps):
        deciders = engine.deciders(state)
        outcome = engine.outcome(state)
        assert (outcome is None) == bool(deciders), "deciders must be empty exactly when the game is over"
        if check_views:
            for viewer in viewers:
                codec.view_to_proto(engine.view(state, viewer))
        if check_codec:
            assert codec.state_from_proto(codec.state_to_proto(state)) == state, "state must round-trip"
        if outcome is not None:
            playout.outcome = outcome
            playout.state = state
            return playout
        seat = chooser.choice(deciders)
        legal = engine.legal_actions(state, seat)
        assert legal, f"seat {seat} must decide but has no legal action"
        action = chooser.choice(list(legal))
        if check_codec:
            assert codec.action_from_proto(codec.action_to_proto(action)) == action, "action must round-trip"
        before = state
        state, events = engine.apply(state, seat, action)
        assert before is not state, "apply must return a new state"
        for event in events:
            for viewer in viewers:
                projected = engine.project_event(event, viewer)
                if projected is not None and check_views:
                    codec.event_to_proto(projected)
        if on_step is not None:
            on_step(before, state, seat, action, events)
        playout.actions.append((seat, action))
        playout.events.extend(events)
        playout.steps += 1
    playout.state = state
    return playout


def replay(game: Game, player_count: int, options: Mapping[str, str], seed: int, actions: list[tuple[int, Any]]):
    """Replays (seed, actions) and returns the final state and every event, for golden tests."""
    state, events = game.engine.new_game(player_count, options, seed)
    all_events = list(events)
    for seat, action in actions:
        state, events = game.engine.apply(state, seat, action)
        all_events.extend(events)
    return state, all_events


def told(game, projection, viewer: int | None) -> str:
    """A game's words for one viewer's projection of an event, in English as that viewer
    reads them, seats named "seat N" (as the gateway tells them before writing names in)."""
    from common.phrases import as_seats, english

    return english(game.words.catalog).tell(game.words.event_phrase(projection, viewer), as_seats(), viewer)

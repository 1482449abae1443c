"""Hidden roles (M18, M8, M16, M19): what each seat and a spectator may see.

The secrets are the role cards: a seat sees its own role, everyone sees the face-up
Brigand, and nobody sees another role (current, removed in a 2-player game, or undealt)
in a view, a projected event, a legal-action list or an error before the game ends;
at the end every dealt role is revealed. Checked on the engine values and on the
encoded protos of random playouts, and by scrambling the roles a viewer may not see:
everything that viewer receives must stay byte-for-byte the same.
"""

import random
from dataclasses import replace

import pytest

from services.engine.errors import EngineError
from services.mortadella import CODEC, ENGINE, GAME
from services.mortadella.model import (
    ROLE_INFO,
    ChooseTarget,
    GameEnded,
    GuessMade,
    GuessRole,
    Phase,
    RoleDealt,
    RoleReplaced,
    RollDice,
    State,
    StealFrom,
)
from tests.engine_harness import random_playout
from tests.mortadella.builders import make_state
from tests.scale import games

ROLE_PB_UNSPECIFIED = 0


def visible(state: State, viewer: int | None, seat: int) -> bool:
    return viewer == seat or ROLE_INFO[state.roles[seat]].face_up


def scramble(state: State, viewer: int | None, rng: random.Random) -> State:
    """Reassign every role card ``viewer`` may not see (other seats' current and removed
    cards and the undealt ones) at random, keeping the shape of the deal."""
    n = state.player_count
    hidden = [s for s in range(n) if not visible(state, viewer, s)]
    pool = [state.roles[s] for s in hidden]
    pool += [r for s in range(n) if s != viewer for r in state.removed_roles[s]]
    pool += list(state.undealt)
    rng.shuffle(pool)
    roles = list(state.roles)
    for s in hidden:
        roles[s] = pool.pop()
    removed = list(state.removed_roles)
    for s in range(n):
        if s != viewer:
            removed[s] = tuple(pool.pop() for _ in state.removed_roles[s])
    return replace(state, roles=tuple(roles), removed_roles=tuple(removed), undealt=tuple(sorted(pool)))


def received(state: State, viewer: int | None, events) -> tuple:
    """Every byte ``viewer`` gets from ``state`` and ``events``: view, legal actions, events."""
    view = CODEC.view_to_proto(ENGINE.view(state, viewer)).SerializeToString(deterministic=True)
    legal = ()
    if viewer is not None:
        legal = tuple(
            (CODEC.action_to_proto(a).SerializeToString(deterministic=True), ENGINE.describe_action(a))
            for a in ENGINE.legal_actions(state, viewer)
        )
    seen = []
    for event in events:
        projected = ENGINE.project_event(event, viewer)
        if projected is not None:
            seen.append(CODEC.event_to_proto(projected).SerializeToString(deterministic=True))
    return view, legal, tuple(seen)


def check_no_foreign_role(state: State, events) -> None:
    over = state.phase is Phase.OVER
    for viewer in (None, *range(state.player_count)):
        view = ENGINE.view(state, viewer)
        message = CODEC.view_to_proto(view)
        for s, (seat_view, seat_message) in enumerate(zip(view.seats, message.seats, strict=True)):
            if over or visible(state, viewer, s):
                assert seat_view.role == state.roles[s] and seat_message.role == int(state.roles[s])
            else:
                assert seat_view.role is None and seat_message.role == ROLE_PB_UNSPECIFIED
            if over or viewer == s:
                assert seat_view.removed_roles == state.removed_roles[s]
            else:
                assert seat_view.removed_roles == () and not seat_message.removed_roles
            assert seat_view.removed_role_count == len(state.removed_roles[s])
        for event in events:
            projected = ENGINE.project_event(event, viewer)
            assert projected is not None
            if isinstance(projected, RoleDealt):
                shown = viewer == projected.seat or ROLE_INFO[event.role].face_up
                assert projected.role == (event.role if shown else None)
                encoded = CODEC.event_to_proto(projected).role_dealt
                assert encoded.role == (int(event.role) if shown else ROLE_PB_UNSPECIFIED)
            elif isinstance(projected, RoleReplaced):
                if viewer == projected.seat:
                    assert projected == event
                else:
                    assert projected.old_role is None and projected.new_role is None
                    encoded = CODEC.event_to_proto(projected).role_replaced
                    assert encoded.old_role == encoded.new_role == ROLE_PB_UNSPECIFIED
            elif isinstance(projected, GameEnded):
                assert over and projected.roles == state.roles  # all revealed at the end
            elif isinstance(projected, GuessMade) and not projected.correct:
                # A wrong guess tells only that the named role is not the target's.
                assert projected.role != state.roles[projected.target]


@pytest.mark.parametrize("n", range(2, 8))
def test_no_view_or_event_shows_another_seats_role(n):
    def on_step(before, after, seat, action, events):
        check_no_foreign_role(after, events)

    for seed in range(games(10, 25)):
        state, events = ENGINE.new_game(n, {"max_turns": "50"}, seed)
        check_no_foreign_role(state, events)
        random_playout(GAME, n, {"max_turns": "50"}, seed, on_step=on_step)


@pytest.mark.parametrize("n", range(2, 8))
def test_what_a_seat_receives_does_not_depend_on_roles_it_cannot_see(n):
    rng = random.Random(n)
    checked = 0

    def on_step(before, after, seat, action, events):
        nonlocal checked
        if after.phase is Phase.OVER or rng.random() > 0.3:
            return
        for viewer in (None, *range(n)):
            other = scramble(after, viewer, rng)
            assert received(after, viewer, events) == received(other, viewer, events)
            checked += 1

    for seed in range(games(8, 15)):
        random_playout(GAME, n, {"max_turns": "50"}, 500 + seed, on_step=on_step)
    assert checked > 100


def test_guess_events_are_the_same_whatever_the_target_really_holds():
    """M16/M19: the event of a wrong guess names the guessed role, never the true one."""

    def on_step(before, after, seat, action, events):
        for event in events:
            if isinstance(event, GuessMade) and not event.correct:
                assert event.role != before.roles[event.target]
                assert all(ENGINE.project_event(event, v) == event for v in (None, 0, 1))

    for seed in range(200):
        random_playout(GAME, 2, {"max_turns": "30"}, 900 + seed, on_step=on_step)


def test_errors_do_not_depend_on_hidden_roles():
    rng = random.Random(5)
    for seed in range(40):
        playout = random_playout(GAME, 5, {"max_turns": "20"}, 700 + seed)
        state = playout.state
        if state.phase is Phase.OVER:
            continue
        for seat in range(5):
            for action in (RollDice(False), ChooseTarget(seat), StealFrom(4)):
                messages = []
                for candidate in (state, scramble(state, seat, rng)):
                    try:
                        ENGINE.apply(candidate, seat, action)
                        messages.append("ok")
                    except EngineError as error:
                        messages.append(f"{type(error).__name__}: {error}")
                assert messages[0] == messages[1]


def test_spectators_see_no_role_but_the_brigands():
    state, events = ENGINE.new_game(7, {}, 11)
    view = ENGINE.view(state, None)
    brigand = state.roles.index(max(state.roles))  # Role.BRIGAND is the highest number
    assert [s.role for s in view.seats] == [state.roles[s] if s == brigand else None for s in range(7)]
    spectator_events = [ENGINE.project_event(e, None) for e in events]
    assert [e.role for e in spectator_events if isinstance(e, RoleDealt)] == [
        state.roles[s] if s == brigand else None for s in range(7)
    ]


def test_every_role_is_revealed_at_the_end():
    state = make_state(2, removed_roles=((), ()))
    over, events = ENGINE.apply(state, 0, GuessRole(1, state.roles[1]))  # M19: a right guess
    assert over.phase is Phase.OVER
    for viewer in (None, 0, 1):
        assert [s.role for s in ENGINE.view(over, viewer).seats] == list(over.roles)
    (ended,) = [e for e in events if isinstance(e, GameEnded)]
    assert ENGINE.project_event(ended, None).roles == over.roles

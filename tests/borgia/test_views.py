"""Hidden information (lead decision 8, B2, B9): what each seat and a spectator may see.

Secrets are a seat's own dice faces (until a call reveals every die, B4) and its puppet(s)
(until the end, B9). Undealt puppet cards are seen by nobody, ever. Checked by walking
random playouts and inspecting both the engine values and the encoded protos, and by
scrambling other seats' secrets: a viewer's encoded view must not change.
"""

from dataclasses import replace

import pytest

from services.borgia import GAME
from services.borgia.model import (
    CARDINALS,
    BorgiaState,
    Call,
    DiceRevealed,
    Face,
    GameEnded,
    Phase,
    PuppetsDealt,
    RollOff,
    RoundStarted,
)
from services.engine.errors import EngineError
from tests.borgia.test_playouts import CONFIGS
from tests.engine_harness import random_playout

ENGINE, CODEC = GAME.engine, GAME.codec


def viewers(state: BorgiaState):
    return [None, *range(state.player_count)]


def dice_public(state: BorgiaState) -> bool:
    return state.called or state.phase == Phase.OVER


def scramble(state: BorgiaState, keep: int | None) -> BorgiaState:
    """Change every secret ``keep`` may not see: other seats' faces and puppets."""
    n = state.player_count
    dice = state.dice
    if not dice_public(state):
        dice = tuple(
            d if s == keep else tuple(Face.FATE if f != Face.FATE else Face.BRIBE for f in d)
            for s, d in enumerate(dice)
        )
    puppets = state.puppets
    if state.phase != Phase.OVER:
        others = [s for s in range(n) if s != keep]
        kept = set(state.puppets[keep]) if keep is not None else set()
        pool = [c for c in CARDINALS if c not in kept]
        # rotate the cards of the other seats through every card they could hold
        pool = pool[1:] + pool[:1]
        per = len(state.puppets[0])
        new = list(puppets)
        for i, s in enumerate(others):
            new[s] = tuple(sorted(pool[i * per : (i + 1) * per]))
        puppets = tuple(new)
    return replace(state, dice=dice, puppets=puppets)


def check_state_views(state: BorgiaState) -> None:
    over = state.phase == Phase.OVER
    for viewer in viewers(state):
        view = ENGINE.view(state, viewer)
        message = CODEC.view_to_proto(view)
        assert message.HasField("viewer_seat") == (viewer is not None)
        for seat_view, seat_message in zip(view.seats, message.seats, strict=True):
            s = seat_view.seat
            own = s == viewer
            if own or dice_public(state):
                assert seat_view.dice == state.dice[s]
                assert list(seat_message.dice) == [int(f) + 1 for f in state.dice[s]] and not seat_message.dice_hidden
            else:
                assert seat_view.dice is None and seat_message.dice_hidden and not seat_message.dice
            if own or over:
                assert seat_view.puppets == state.puppets[s] and not seat_message.puppets_hidden
            else:
                assert seat_view.puppets is None and seat_message.puppets_hidden and not seat_message.puppets
            assert seat_message.dice_count == len(state.dice[s])
        assert message.HasField("result") == over
        # Nothing in the view may depend on secrets the viewer may not see.
        other = scramble(state, viewer)
        if other != state:
            assert CODEC.view_to_proto(ENGINE.view(other, viewer)).SerializeToString(
                deterministic=True
            ) == message.SerializeToString(deterministic=True), "a view leaks another seat's secret"


def check_events(state: BorgiaState, events) -> None:
    for event in events:
        for viewer in viewers(state):
            projected = ENGINE.project_event(event, viewer)
            assert projected is not None
            message = CODEC.event_to_proto(projected)
            if isinstance(event, PuppetsDealt):
                for s, puppets in enumerate(projected.puppets):
                    assert puppets == (event.puppets[s] if s == viewer else None)
                    assert message.puppets_dealt.seats[s].hidden == (s != viewer)
                    assert bool(message.puppets_dealt.seats[s].puppets) == (s == viewer)
            elif isinstance(event, RoundStarted):
                for s, dice in enumerate(projected.dice):
                    assert dice == (event.dice[s] if s == viewer else None)
                    seat_dice = message.round_started.dice[s]
                    assert seat_dice.hidden == (s != viewer) and seat_dice.count == event.dice_counts[s]
                    assert bool(seat_dice.faces) == (s == viewer and bool(event.dice[s]))
            else:
                # Every other event is public: the roll-off (B11), a reveal after a call (B4),
                # the end of the game (B9); all others carry no secret at all.
                assert projected == event


def check_errors_leak_nothing(state: BorgiaState) -> None:
    """Error messages never depend on secrets (dice, puppets)."""
    if state.phase == Phase.OVER:
        return
    for viewer in range(state.player_count):
        other = scramble(state, viewer)
        for action in [*ENGINE.legal_actions(state, (state.active + 1) % state.player_count)[:3], object()]:
            messages = []
            for candidate in (state, other):
                try:
                    ENGINE.apply(candidate, viewer, action)
                    messages.append(None)
                except EngineError as error:
                    messages.append((type(error), str(error)))
            if messages[0] is not None:
                assert messages[0] == messages[1]


def walk(players, options, seed):
    state, events = ENGINE.new_game(players, options, seed)
    check_state_views(state)
    check_events(state, events)

    def on_step(before, after, seat, action, step_events):
        check_state_views(after)
        check_events(after, step_events)
        check_errors_leak_nothing(after)

    return random_playout(GAME, players, options, seed, on_step=on_step)


@pytest.mark.parametrize(("players", "options"), CONFIGS, ids=[f"{p}p-{'-'.join(o) or 'base'}" for p, o in CONFIGS])
def test_no_view_or_event_leaks_another_seats_secrets(players, options):
    for seed in range(4):
        playout = walk(players, options, seed)
        assert playout.outcome is not None


def test_secret_events_are_redacted_for_spectators():
    state, events = ENGINE.new_game(4, {}, seed=9)
    dealt = next(e for e in events if isinstance(e, PuppetsDealt))
    started = next(e for e in events if isinstance(e, RoundStarted))
    assert ENGINE.project_event(dealt, None).puppets == (None,) * 4
    assert ENGINE.project_event(started, None).dice == (None,) * 4
    assert ENGINE.project_event(started, None).dice_counts == (5,) * 4
    roll_off = next(e for e in events if isinstance(e, RollOff))
    assert ENGINE.project_event(roll_off, None) == roll_off  # B11: the roll-off is open
    view = ENGINE.view(state, None)
    assert all(s.dice is None and s.puppets is None for s in view.seats)


def test_everything_is_revealed_at_the_end_but_undealt_puppets():
    for players, options in CONFIGS:
        playout = random_playout(GAME, players, options, 5)
        state = playout.state
        ended = next(e for e in playout.events if isinstance(e, GameEnded))
        dealt = {c for seat in state.puppets for c in seat}
        for viewer in viewers(state):
            view = ENGINE.view(state, viewer)
            assert tuple(s.puppets for s in view.seats) == state.puppets
            assert tuple(s.dice for s in view.seats) == state.dice
            assert view.result == ended.result
            assert ENGINE.project_event(ended, viewer) == ended
            message = CODEC.view_to_proto(view)
            shown = {c for seat in message.seats for c in seat.puppets}
            shown |= {c for seat in message.result.puppets for c in seat.puppets}
            assert shown == {int(c) + 1 for c in dealt}, "only dealt puppets are ever shown"


def test_dice_are_public_after_a_call_and_private_again_after_the_reroll():
    for seed in range(40):
        state, _ = ENGINE.new_game(3, {}, seed)
        state, _ = ENGINE.apply(state, state.active, ENGINE.legal_actions(state, state.active)[0])  # bid 1 BRIBE
        state, events = ENGINE.apply(state, state.responder, Call())
        revealed = next(e for e in events if isinstance(e, DiceRevealed))
        if state.phase != Phase.PERFORM:
            continue  # no BRIBE and no FATE at all: try another seed
        for viewer in viewers(state):
            assert tuple(s.dice for s in ENGINE.view(state, viewer).seats) == revealed.dice
        state, _ = ENGINE.apply(state, state.active, ENGINE.legal_actions(state, state.active)[0])
        assert state.round_number == 2 and not state.called
        assert all(s.dice is None for s in ENGINE.view(state, None).seats)
        return
    pytest.fail("no true bid was called in 40 games")


def test_the_view_names_the_standing_bids_bidder_also_after_an_allow():
    """B4: after an allow the bidder performs, then the seat that allowed bids next: the bid
    on the table is still the first bidder's while the allower decides."""
    from services.borgia.model import Allow, Bid

    state, _ = ENGINE.new_game(3, {}, 5)
    bidder = state.active
    assert ENGINE.view(state, None).bidder is None  # no bid yet
    state, _ = ENGINE.apply(state, bidder, Bid(1, Face.BRIBE))
    assert state.phase == Phase.RESPOND
    assert ENGINE.view(state, None).bidder == bidder
    allower = state.responder
    state, _ = ENGINE.apply(state, allower, Allow())
    assert state.phase == Phase.PERFORM and ENGINE.view(state, allower).bidder == bidder
    state, _ = ENGINE.apply(state, bidder, ENGINE.legal_actions(state, bidder)[0])
    assert state.phase == Phase.BID and state.active == allower
    for viewer in viewers(state):
        view = ENGINE.view(state, viewer)
        assert view.bidder == bidder != view.active
        message = CODEC.view_to_proto(view)
        assert message.bidder_seat == bidder and message.HasField("bidder_seat")
        assert CODEC.view_from_proto(message) == view

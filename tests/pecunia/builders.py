"""Literal Pecunia non olet states for the tests, and the invariants every state keeps.

Card ids are those of the default deck (``services/pecunia/decks/default.json``), in file
order; ``test_rules.test_default_deck_is_pecunia_deck_md`` pins the layout these names use.
Every card not placed explicitly goes to its draw pile, so a built state holds all 70 Roman
and 40 action cards.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from services.pecunia import ENGINE
from services.pecunia.model import (
    NEIGHBOURS,
    PecuniaState,
    Phase,
    RomanKind,
    Seated,
    SeatPos,
)

DECK = ENGINE.deck()
L, M, R = SeatPos.LEFT, SeatPos.MIDDLE, SeatPos.RIGHT

# Roman cards of the default deck: KIND_ROUNDS_SESTERCES -> ids.
SENATOR_1_3 = (0, 1, 2)
SENATOR_1_4 = (3, 4)
SENATOR_2_4 = (5, 6, 7, 8)
SENATOR_2_5 = (9, 10, 11)
SENATOR_3_5 = (12, 13, 14)
CITIZEN_1_2 = (15, 16, 17, 18)
CITIZEN_2_2 = (19, 20, 21, 22)
CITIZEN_2_3 = (23, 24, 25, 26, 27)
CITIZEN_3_3 = (28, 29, 30, 31)
CITIZEN_3_4 = (32, 33, 34)
WOMAN_1_1 = (35, 36, 37)
WOMAN_1_2 = (38, 39, 40, 41)
WOMAN_2_2 = (42, 43, 44, 45)
WOMAN_2_3 = (46, 47, 48, 49)
SLAVE_3_1 = (50, 51, 52, 53, 54)
SLAVE_3_2 = (55, 56, 57)
SLAVE_4_1 = (58, 59, 60, 61)
SLAVE_4_2 = (62, 63, 64, 65)
SLAVE_5_2 = (66, 67, 68, 69)

# Action cards of the default deck.
VILLA = (0, 1, 2, 3)
QUEUE_JUMPER = (4, 5, 6, 7, 8, 9)
CASTOR = (10, 11, 12, 13, 14)
FISH = (15, 16, 17, 18, 19)
TAX = (20, 21, 22, 23)
POACHING = (24, 25, 26, 27)
SWAP = (28, 29, 30, 31)
SENATE = (32, 33, 34)
REORDERING = (35, 36, 37)
EVICTION = (38, 39)

ROMANS = 70
ACTIONS = 40

SeatSpec = Sequence[Sequence[tuple[int, int]]]  # LEFT, MIDDLE, RIGHT: (card, markers) bottom first


def build(
    *,
    players: int = 2,
    seats: Mapping[int, SeatSpec] | None = None,
    queues: Mapping[int, Sequence[int]] | None = None,
    hands: Mapping[int, Sequence[int]] | None = None,
    coins: Sequence[int] | None = None,
    active: int = 0,
    phase: Phase = Phase.MARKERS,
    villa: bool = False,
    reorder: int | None = None,
    roman_pile: Sequence[int] | None = None,
    roman_discard: Sequence[int] = (),
    action_pile: Sequence[int] | None = None,
    action_discard: Sequence[int] = (),
    target: int = 30,
    turn: int = 0,
    turn_limit: int = 1000,
    rng: int = 12345,
) -> PecuniaState:
    seats = seats or {}
    queues = queues or {}
    hands = hands or {}
    seat_tuples = tuple(
        tuple(tuple(Seated(card, markers) for card, markers in stack) for stack in seats.get(p, ((), (), ())))
        for p in range(players)
    )
    queue_tuples = tuple(tuple(queues.get(p, ())) for p in range(players))
    hand_tuples = tuple(tuple(sorted(hands.get(p, ()))) for p in range(players))
    used_romans = {r.card for latrine in seat_tuples for stack in latrine for r in stack}
    used_romans |= {c for q in queue_tuples for c in q} | set(roman_discard)
    if roman_pile is None:
        roman_pile = tuple(sorted(set(range(ROMANS)) - used_romans, reverse=True))
    used_actions = {c for h in hand_tuples for c in h} | set(action_discard)
    if action_pile is None:
        action_pile = tuple(sorted(set(range(ACTIONS)) - used_actions, reverse=True))
    return PecuniaState(
        deck=DECK,
        target=target,
        turn_limit=turn_limit,
        start_player=0,
        seats=seat_tuples,
        queues=queue_tuples,
        hands=hand_tuples,
        coins=tuple(coins) if coins is not None else (0,) * players,
        roman_pile=tuple(roman_pile),
        roman_discard=tuple(roman_discard),
        action_pile=tuple(action_pile),
        action_discard=tuple(action_discard),
        active=active,
        phase=phase,
        villa=villa,
        reorder=reorder,
        turn=turn,
        rng=rng,
    )


def roman_cards(state: PecuniaState) -> list[int]:
    """Every Roman card of the state, wherever it is (duplicates kept)."""
    cards = list(state.roman_pile) + list(state.roman_discard)
    for queue in state.queues:
        cards.extend(queue)
    for latrine in state.seats:
        for stack in latrine:
            cards.extend(r.card for r in stack)
    return cards


def action_cards(state: PecuniaState) -> list[int]:
    cards = list(state.action_pile) + list(state.action_discard)
    for hand in state.hands:
        cards.extend(hand)
    return cards


def assert_cards_accounted(state: PecuniaState) -> None:
    """All 70 Roman and 40 action cards, each exactly once, across piles, queues, seats, hands."""
    assert sorted(roman_cards(state)) == list(range(len(state.deck.romans)))
    assert len(state.deck.romans) == ROMANS
    assert sorted(action_cards(state)) == list(range(len(state.deck.actions)))
    assert len(state.deck.actions) == ACTIONS


def senator_slave_pairs(state: PecuniaState, player: int) -> set[tuple[int, int]]:
    """P2: (senator card, slave card) seated on adjacent seats of ``player``'s latrine."""
    romans = state.deck.romans
    latrine = state.seats[player]
    pairs = set()
    for seat, stack in enumerate(latrine):
        for neighbour in NEIGHBOURS[seat]:
            for a in stack:
                for b in latrine[neighbour]:
                    if romans[a.card].kind is RomanKind.SENATOR and romans[b.card].kind is RomanKind.SLAVE:
                        pairs.add((a.card, b.card))
    return pairs


def assert_seats_well_formed(state: PecuniaState) -> None:
    """P1: three seats; one Roman each, or two women stacked."""
    romans = state.deck.romans
    for latrine in state.seats:
        assert len(latrine) == 3
        for stack in latrine:
            assert len(stack) <= 2
            if len(stack) == 2:
                assert all(romans[r.card].kind is RomanKind.WOMAN for r in stack)
            assert all(r.markers >= 0 for r in stack)


def ids(cards: Iterable) -> list[int]:
    return [card.id for card in cards]

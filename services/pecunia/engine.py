"""Pecunia non olet rules engine (rulebook pecunia.txt, rulings P1-P8 in RULINGS.md).

Pure: imports only the standard library, ``services.engine`` and this package's own value
and deck modules. The state is an immutable ``PecuniaState``; ``apply`` returns a new one.
All randomness comes from ``Rng`` whose state is ``PecuniaState.rng``. The deck (70 Roman
cards, 40 action cards) is data, loaded from ``decks/<name>.json`` (table option ``deck``)
and carried inside the state.

A turn is a chain of small decisions of the active player (nobody else ever decides):

- MARKERS: play action cards, or ``RemoveMarkers`` = steps 1 and 2 (P4).
- REFILL: ``SeatRoman`` (the start of the queue onto a free seat, or a woman onto a lone
  woman, or two women together, P3), play action cards, or ``EndRefill`` once the start of
  the queue fits no free seat (P3).
- DRAW: play action cards, or ``DrawActionCard`` = step 4, which ends the turn (P4).
- Reordering in progress: ``PickNext`` places the queue one card at a time.

Project decision: a decision with exactly one legal action is taken automatically, but only
when the player holds no action card (e.g. the turn of a player with an empty hand and a forced
refill runs by itself). P7: hands are secret and hand sizes public, so a player holding cards is
asked even when none of them can be played: a turn that ran by itself would tell everybody so.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, cast

from services.engine.api import GameInfo, OptionSpec, Outcome, parse_options
from services.engine.errors import IllegalAction, MalformedAction, NotYourDecision
from services.engine.rng import Rng
from services.pecunia.deck import DECKS_DIR, DEFAULT_DECK, available_decks, load_deck
from services.pecunia.model import (
    ACTION_TYPES,
    NEIGHBOURS,
    PLAY_KINDS,
    SHUNS,
    ActionCardPlayed,
    ActionCardsDrawn,
    ActionKind,
    Deck,
    DrawActionCard,
    EndReason,
    EndRefill,
    GameEnded,
    GameStarted,
    MarkersChanged,
    MarkersRemoved,
    PecuniaAction,
    PecuniaEvent,
    PecuniaState,
    PecuniaView,
    Phase,
    PickNext,
    Pile,
    PileReshuffled,
    PlayCastorOil,
    PlayerView,
    PlayEviction,
    PlayFishPoisoning,
    PlayPoaching,
    PlayQueueJumper,
    PlayReordering,
    PlaySenateMeeting,
    PlaySpecialTax,
    PlaySwap,
    PlayVillaDixius,
    QueueChanged,
    QueueDealt,
    RefillEnded,
    RemoveMarkers,
    RomanKind,
    RomanPaid,
    RomanRemoved,
    RomanSeated,
    SeatedView,
    SeatPos,
    SeatRoman,
    SesterceTaxed,
    Stack,
    TurnStarted,
    turn_number,
)
from services.pecunia.model import (
    Seated as S,
)
from services.pecunia.words import action_label

OPTION_TARGET = "target"
OPTION_DECK = "deck"
OPTION_TURN_LIMIT = "turn_limit"

# P7: the rulebook's recommended targets by player count.
DEFAULT_TARGETS = {2: 30, 3: 25, 4: 20, 5: 20, 6: 20}
SEAT_CARDS = 2  # P6: LEFT and RIGHT start occupied
QUEUE_CARDS = 5  # P5, P6
HAND_CARDS = 2  # P6
TAX = 2  # Special tax
FISH = 2  # Fish poisoning
CASTOR_MAX = 2  # Castor oil: "up to 2"
# P8: the rules can loop forever (colluding players can keep each other's Romans seated with
# Fish poisoning while the middle seat stays blocked by P2), so a table has a limit on
# completed turns (table option, 0: none); at the limit the most sesterces win (ties share).
# Random play ends far below it (see tests/pecunia/test_playouts.py).
DEFAULT_TURN_LIMIT = 1000

_SENATOR = RomanKind.SENATOR
_WOMAN = RomanKind.WOMAN

_MARKERS, _REFILL, _DRAW, _OVER = Phase.MARKERS, Phase.REFILL, Phase.DRAW, Phase.OVER
_REMOVE = RemoveMarkers()
_END_REFILL = EndRefill()
_DRAW_CARD = DrawActionCard()
_VILLA = PlayVillaDixius()
_REORDERING = PlayReordering()
_SEATS = (SeatPos.LEFT, SeatPos.MIDDLE, SeatPos.RIGHT)
# Enum members as module names: a class attribute lookup costs more, on the path of every
# decision's legal actions.
_KIND_VILLA, _KIND_JUMPER, _KIND_CASTOR = ActionKind.VILLA_DIXIUS, ActionKind.QUEUE_JUMPER, ActionKind.CASTOR_OIL
_KIND_FISH, _KIND_TAX, _KIND_POACHING = ActionKind.FISH_POISONING, ActionKind.SPECIAL_TAX, ActionKind.POACHING
_KIND_SWAP, _KIND_SENATE, _KIND_REORDERING = ActionKind.SWAP, ActionKind.SENATE_MEETING, ActionKind.REORDERING
_KIND_EVICTION = ActionKind.EVICTION
_ROMAN_PILE, _ACTION_PILE = Pile.ROMAN, Pile.ACTION


def make_info(decks: tuple[str, ...]) -> GameInfo:
    return GameInfo(
        game_id="pecunia",
        display_name="Pecunia non olet",
        min_players=2,
        max_players=6,
        summary=(
            "Seat Romans on your latrine, collect their sesterces when they leave, and be first "
            "to the target sum; action cards bend the queues."
        ),
        options=(
            OptionSpec(
                name=OPTION_TARGET,
                description="Sesterces that win; 0: the rulebook's 30 for 2 players, 25 for 3, 20 for 4-6.",
                kind="int",
                default="0",
                minimum=0,
                maximum=500,
            ),
            OptionSpec(
                name=OPTION_DECK,
                description="The cards to play with, by the name of their deck.",
                kind="enum",
                default=DEFAULT_DECK,
                choices=decks,
            ),
            OptionSpec(
                name=OPTION_TURN_LIMIT,
                description=(
                    "Limit on completed turns, since the rules alone can loop forever; at the limit "
                    "the most sesterces win; 0: no limit."
                ),
                kind="int",
                default=str(DEFAULT_TURN_LIMIT),
                minimum=0,
                maximum=1_000_000,
            ),
        ),
    )


class _Work:
    """The state being changed inside ``apply`` and ``new_game`` (it never escapes them).

    It holds the fields of ``PecuniaState`` (defined once, in model.py) by reference. A tuple
    is copied into a list only when an effect changes it (copy on write: ``_list``, ``_row``,
    ``_stack``), and ``freeze`` turns only those lists back into tuples. An action so costs
    what it touches, not the size of the whole state, and the state passed in never changes.
    """

    # PecuniaState's fields, which __init__ copies in, declared for the type checker. A tuple
    # field may be a list by now (copy on write), hence Sequence.
    deck: Deck
    target: int
    turn_limit: int
    start_player: int
    seats: Sequence[Sequence[Sequence[S]]]
    queues: Sequence[Sequence[int]]
    hands: Sequence[Sequence[int]]
    coins: Sequence[int]
    roman_pile: Sequence[int]
    roman_discard: Sequence[int]
    action_pile: Sequence[int]
    action_discard: Sequence[int]
    active: int
    phase: Phase
    villa: bool
    reorder: int | None
    turn: int
    winners: tuple[int, ...]
    end_reason: EndReason

    # The instance dict holds exactly PecuniaState's fields; what is _Work's own is in slots.
    # (The ``rng`` property wins over the dict entry of the same name: it is the Rng, not the int.)
    __slots__ = ("__dict__", "_rng", "copied", "events")

    def __init__(self, s: PecuniaState):
        self.__dict__ = s.__dict__.copy()
        self._rng: Rng | None = None
        self.events: list[PecuniaEvent] = []
        # Where the lists are: (container, key) with the container (this dict, a per-player
        # list, a latrine) listed before anything inside it.
        self.copied: list[tuple[Any, Any]] = []

    @property
    def rng(self) -> Rng:
        """The state's Rng, made at the first draw (most actions draw nothing)."""
        rng = self._rng
        if rng is None:
            rng = self._rng = Rng(self.__dict__["rng"])
        return rng

    def freeze(self) -> PecuniaState:
        """The new state; this _Work hands it its fields and is done."""
        values = self.__dict__
        for container, key in reversed(self.copied):  # the innermost lists first
            container[key] = tuple(container[key])
        if self._rng is not None:
            values["rng"] = self._rng.state
        # The generated __init__ of a frozen dataclass sets every field one by one; the
        # dict already holds exactly PecuniaState's fields, so the state just takes it.
        state = object.__new__(PecuniaState)
        object.__setattr__(state, "__dict__", values)
        self.__dict__ = {}
        return state


def _list(w: _Work, name: str) -> list:
    """The field ``name`` (a flat or per-player tuple), as _Work's own list."""
    value = w.__dict__[name]
    if type(value) is not list:
        value = w.__dict__[name] = list(value)
        w.copied.append((w.__dict__, name))
    return value


def _row(w: _Work, name: str, player: int) -> list:
    """``player``'s entry of a per-player field (queues, hands, seats), as _Work's own list."""
    rows = w.__dict__[name]
    if type(rows) is not list:
        rows = _list(w, name)
    row = rows[player]
    if type(row) is not list:
        row = rows[player] = list(row)
        w.copied.append((rows, player))
    return row


def _stack(w: _Work, player: int, seat: int) -> list:
    """One latrine seat of ``player``, as _Work's own list."""
    latrine = w.seats[player]
    if type(latrine) is not list:
        latrine = _row(w, "seats", player)
    stack = latrine[seat]
    if type(stack) is not list:
        stack = latrine[seat] = list(stack)
        w.copied.append((latrine, seat))
    return stack


# ---------------------------------------------------------------------------------------
# Legal actions. These read either a PecuniaState or a _Work (same attribute names).


# Legal actions are listed again at every decision, and a frozen dataclass is slow to build,
# so each distinct action, or run of actions, is built once and shared (actions are
# immutable values).
_seat_roman_action = cache(SeatRoman)
_castor_oil = cache(PlayCastorOil)
_special_tax = cache(PlaySpecialTax)
_poaching = cache(PlayPoaching)
_senate_meeting = cache(PlaySenateMeeting)


@cache
def _queue_jumpers(queue_size: int) -> tuple[PlayQueueJumper, ...]:
    return tuple(PlayQueueJumper(i) for i in range(1, queue_size))


@cache
def _pick_nexts(placed: int, queue_size: int) -> tuple[PickNext, ...]:
    return tuple(PickNext(i) for i in range(placed, queue_size))


@cache
def _seated_targets(kind: type, target: int, stack_sizes: tuple[int, ...]) -> tuple[PecuniaAction, ...]:
    """Fish poisoning or Eviction on each Roman seated with ``target``."""
    return tuple(kind(target, _SEATS[seat], slot) for seat, size in enumerate(stack_sizes) for slot in range(size))


@cache
def _opponents(player: int, players: int) -> tuple[int, ...]:
    """The other seats, clockwise from ``player``."""
    return tuple((player + k) % players for k in range(1, players))


@cache
def _swaps(queue_size: int, target: int, target_size: int) -> tuple[PlaySwap, ...]:
    return tuple(PlaySwap(i, target, j) for i in range(queue_size) for j in range(target_size))


def _fits(s, player: int, seat: int, card: int) -> bool:
    """P2: may ``card`` sit alone on the free ``seat``? Senators never beside slaves, unless
    a Villa Dixius played this turn is in force."""
    if s.villa:
        return True
    romans = s.deck.romans
    shunned = SHUNS.get(romans[card].kind)
    if shunned is None:
        return True
    latrine = s.seats[player]
    for neighbour in NEIGHBOURS[seat]:
        for seated in latrine[neighbour]:
            if romans[seated.card].kind is shunned:
                return False
    return True


def _refill_options(s, player: int) -> tuple[list[PecuniaAction], bool]:
    """P3: the placements of the start of the queue, and whether one of them is compulsory
    (the head fits a free seat; then refilling may not stop)."""
    queue = s.queues[player]
    if not queue:
        return [], False
    romans = s.deck.romans
    head = queue[0]
    woman = romans[head].kind is _WOMAN
    pair = woman and len(queue) > 1 and romans[queue[1]].kind is _WOMAN
    options: list[PecuniaAction] = []
    compulsory = False
    for seat, stack in enumerate(s.seats[player]):
        if not stack:
            if _fits(s, player, seat, head):
                compulsory = True
                options.append(_seat_roman_action(_SEATS[seat], False))
                if pair:
                    options.append(_seat_roman_action(_SEATS[seat], True))
        elif woman and len(stack) == 1 and romans[stack[0].card].kind is _WOMAN:
            # P3 / Special rule 2: a woman may join a lone woman (optional).
            options.append(_seat_roman_action(_SEATS[seat], False))
    return options, compulsory


def _plays_of(s, player: int, kind: ActionKind) -> list[PecuniaAction]:
    """Every way to play an action card of ``kind`` now (the card held or not).
    pecunia-deck.md: playing a card that has no legal target is not allowed."""
    own_queue = s.queues[player]
    if kind is _KIND_VILLA:
        # Project decision: not while one is already in force (it would do nothing).
        return [] if s.villa else [_VILLA]
    if kind is _KIND_JUMPER:
        # Project decision: the card moved must not already be at the start.
        return list(_queue_jumpers(len(own_queue)))
    if kind is _KIND_REORDERING:
        # Project decision: a queue of fewer than two cards has no order to choose.
        return [_REORDERING] if len(own_queue) > 1 else []
    plays: list[PecuniaAction] = []
    if kind is _KIND_CASTOR:
        # Project decision: "up to 2" lets the player choose 1 or 2 (never more than there are).
        for seat, stack in enumerate(s.seats[player]):
            for slot, seated in enumerate(stack):
                for amount in range(1, min(CASTOR_MAX, seated.markers) + 1):
                    plays.append(_castor_oil(_SEATS[seat], slot, amount))
        return plays
    opponents = _opponents(player, len(s.coins))
    if kind is _KIND_FISH or kind is _KIND_EVICTION:
        play = PlayFishPoisoning if kind is _KIND_FISH else PlayEviction
        for target in opponents:
            left, middle, right = s.seats[target]
            plays.extend(_seated_targets(play, target, (len(left), len(middle), len(right))))
    elif kind is _KIND_TAX:
        # Project decision: an opponent without sesterces is no legal target.
        plays.extend(_special_tax(t) for t in opponents if s.coins[t] > 0)
    elif kind is _KIND_POACHING:
        plays.extend(_poaching(t) for t in opponents if s.queues[t])
    elif kind is _KIND_SWAP:
        for target in opponents:
            plays.extend(_swaps(len(own_queue), target, len(s.queues[target])))
    elif kind is _KIND_SENATE:
        romans = s.deck.romans
        for target in opponents:
            if _seats_a_senator(romans, s.seats[target]):
                plays.append(_senate_meeting(target))
    return plays


def _seats_a_senator(romans, latrine) -> bool:
    """Whether a Senator sits on this latrine (plain loops: see ``_is_one_of``)."""
    for stack in latrine:
        for seated in stack:
            if romans[seated.card].kind is _SENATOR:
                return True
    return False


def _held_kinds(s, player: int) -> list[ActionKind]:
    hand = s.hands[player]
    if len(hand) < 2:  # no set to sort
        return [s.deck.actions[card].kind for card in hand]
    actions = s.deck.actions
    return sorted({actions[card].kind for card in hand})


def _card_plays(s, player: int) -> list[PecuniaAction]:
    """P4: every action card in hand that has a legal target now, with each target."""
    plays: list[PecuniaAction] = []
    for kind in _held_kinds(s, player):
        plays.extend(_plays_of(s, player, kind))
    return plays


def _turn_actions(s) -> list[PecuniaAction]:
    """The legal actions other than playing an action card (reordering aside)."""
    phase = s.phase
    if phase is _MARKERS:
        return [_REMOVE]
    if phase is _REFILL:
        legal, compulsory = _refill_options(s, s.active)
        if not compulsory:
            legal.append(_END_REFILL)
        return legal
    return [_DRAW_CARD]


def _legal(s, turn: list[PecuniaAction] | None = None) -> list[PecuniaAction]:
    """``turn``: ``_turn_actions(s)``, when already listed (see ``_run_forced``)."""
    if s.phase is _OVER:
        return []
    player = s.active
    if s.reorder is not None:
        return list(_pick_nexts(s.reorder, len(s.queues[player])))
    legal = _turn_actions(s) if turn is None else list(turn)  # extended below: not the kept list
    if s.hands[player]:
        legal.extend(_card_plays(s, player))
    return legal


def _is_legal(s, action: PecuniaAction) -> bool:
    """``action in _legal(s)``, computing only the part of the list it could be in."""
    if s.phase is _OVER:
        return False
    player = s.active
    kind = type(action)
    if s.reorder is not None:
        return isinstance(action, PickNext) and s.reorder <= action.index < len(s.queues[player])
    card_kind = PLAY_KINDS.get(kind)
    if card_kind is None:
        return action in _turn_actions(s)
    actions = s.deck.actions
    if not any(actions[card].kind is card_kind for card in s.hands[player]):
        return False
    return action in _plays_of(s, player, card_kind)


def _is_one_of(action: PecuniaAction, actions: list[PecuniaAction]) -> bool:
    """``action`` is one of these very objects (equality would also admit look-alikes that
    ``_check_shape`` refuses, such as a plain 0 for SeatPos.LEFT). A plain loop: any() over a
    generator costs more than the search itself on these short lists."""
    for candidate in actions:  # noqa: SIM110
        if candidate is action:
            return True
    return False


# ---------------------------------------------------------------------------------------
# Effects, on a _Work.


def _draw(w: _Work, pile_kind: Pile, count: int) -> list[int]:
    """P5: draw up to ``count`` cards; an empty draw pile is replaced by the shuffled discard
    pile as soon as it runs out. Project decision: with both piles empty, fewer cards come."""
    if pile_kind is _ROMAN_PILE:
        pile, discard = _list(w, "roman_pile"), "roman_discard"
    else:
        pile, discard = _list(w, "action_pile"), "action_discard"
    drawn: list[int] = []
    for _ in range(count):
        if not pile:
            _reshuffle(w, pile_kind, pile, discard)
            if not pile:
                break
        drawn.append(pile.pop())
    if not pile:
        _reshuffle(w, pile_kind, pile, discard)
    return drawn


def _reshuffle(w: _Work, pile_kind: Pile, pile: list[int], discard_name: str) -> None:
    discard = w.__dict__[discard_name]
    if not discard:
        return
    pile.extend(discard)
    w.__dict__[discard_name] = ()
    w.rng.shuffle(pile)
    w.events.append(PileReshuffled(pile_kind, len(pile)))


def _fill_queue(w: _Work, player: int) -> None:
    """P5: an empty queue is refilled with 5 new cards at once (project decision: the moment
    it empties, whoever's queue it is; if the piles are exhausted, it is retried at its
    owner's refill step)."""
    if w.queues[player]:
        return
    cards = _draw(w, _ROMAN_PILE, QUEUE_CARDS)
    if cards:
        _list(w, "queues")[player] = tuple(cards)
        romans = w.deck.romans
        w.events.append(QueueDealt(player, tuple(map(romans.__getitem__, cards))))


def _roman_leaves(w: _Work, player: int, seat: int, slot: int) -> int:
    card = _stack(w, player, seat).pop(slot).card
    _list(w, "roman_discard").append(card)
    return card


def _end_game(w: _Work, winners: tuple[int, ...], reason: EndReason) -> None:
    w.phase = _OVER
    w.reorder = None
    w.villa = False
    w.winners = winners
    w.end_reason = reason
    w.events.append(GameEnded(winners, reason, tuple(w.coins)))


def _remove_markers_and_collect(w: _Work) -> None:
    """P4 steps 1 and 2. Project decision: they run as one step (no action card could change
    anything between them). Payment order: LEFT, MIDDLE, RIGHT, the bottom woman first; P7:
    the game ends the moment the target is reached, so later Romans stay seated."""
    player = w.active
    latrine = _row(w, "seats", player)
    for seat in range(3):
        if latrine[seat]:
            latrine[seat] = [S(r.card, r.markers - 1) if r.markers else r for r in latrine[seat]]
            w.copied.append((latrine, seat))
    w.events.append(MarkersRemoved(player))
    romans = w.deck.romans
    for seat in range(3):
        stack = latrine[seat]
        slot = 0
        while slot < len(stack):
            if stack[slot].markers:
                slot += 1
                continue
            card = romans[_roman_leaves(w, player, seat, slot)]
            coins = _list(w, "coins")
            coins[player] += card.sesterces
            w.events.append(RomanPaid(player, _SEATS[seat], card, card.sesterces, coins[player]))
            if coins[player] >= w.target:
                _end_game(w, (player,), EndReason.TARGET_REACHED)
                return
    w.phase = _REFILL
    _fill_queue(w, player)


def _seat_roman(w: _Work, action: SeatRoman) -> None:
    player = w.active
    queue = _row(w, "queues", player)
    stack = _stack(w, player, action.seat)
    romans = w.deck.romans
    for _ in range(2 if action.pair else 1):
        card = romans[queue.pop(0)]
        stack.append(S(card.id, card.rounds))
        w.events.append(RomanSeated(player, action.seat, card, card.rounds))
    _fill_queue(w, player)


def _end_refill(w: _Work) -> None:
    player = w.active
    empty = tuple([_SEATS[i] for i, stack in enumerate(w.seats[player]) if not stack])
    w.events.append(RefillEnded(player, empty))
    w.phase = _DRAW


def _draw_and_end_turn(w: _Work) -> None:
    """P4 step 4: draw one action card; the turn ends; the next player clockwise starts."""
    player = w.active
    drawn = _draw(w, _ACTION_PILE, 1)
    if drawn:
        hands = _list(w, "hands")
        hands[player] = tuple(sorted((*hands[player], *drawn)))
    actions = w.deck.actions
    w.events.append(ActionCardsDrawn(player, len(drawn), tuple(map(actions.__getitem__, drawn))))
    w.villa = False
    w.turn += 1
    if w.turn_limit and w.turn >= w.turn_limit:  # P8: the player(s) with the most sesterces win
        best = max(w.coins)
        _end_game(w, tuple(p for p, c in enumerate(w.coins) if c == best), EndReason.TURN_LIMIT)
        return
    w.active = (player + 1) % len(w.coins)
    w.phase = _MARKERS
    w.events.append(TurnStarted(w.active, w.turn))


def _queue_changed(w: _Work, player: int) -> None:
    romans = w.deck.romans
    w.events.append(QueueChanged(player, tuple(map(romans.__getitem__, w.queues[player]))))


def _play(w: _Work, action: PecuniaAction) -> None:
    """Plays one action card of the active player (pecunia-deck.md). Project decision: of
    several cards of its kind in hand (cards of a kind are alike), the one that leaves the hand
    is drawn at random. P7: its number is public, so a fixed choice would reveal the hand (the
    lowest-numbered rule: playing the highest-numbered copy means no other copy is held)."""
    player = w.active
    kind = PLAY_KINDS[type(action)]
    actions = w.deck.actions
    hand = _row(w, "hands", player)
    copies = [c for c in hand if actions[c].kind is kind]
    # One draw per play, however many copies are held: later shuffles must not depend on it.
    card = copies[w.rng.below(len(copies))]
    hand.remove(card)
    _list(w, "action_discard").append(card)
    w.events.append(ActionCardPlayed(player, actions[card], action))
    romans = w.deck.romans
    # One action type per card kind (PLAY_KINDS), so the type says the kind.
    if isinstance(action, PlayVillaDixius):
        w.villa = True  # P2: for the rest of this turn
    elif isinstance(action, PlayQueueJumper):
        queue = _row(w, "queues", player)
        queue.insert(0, queue.pop(action.index))
        _queue_changed(w, player)
    elif isinstance(action, PlayCastorOil):
        stack = _stack(w, player, action.seat)
        seated = stack[action.slot]
        stack[action.slot] = S(seated.card, seated.markers - action.amount)
        w.events.append(MarkersChanged(player, action.seat, romans[seated.card], seated.markers - action.amount))
    elif isinstance(action, PlayFishPoisoning):
        stack = _stack(w, action.target, action.seat)
        seated = stack[action.slot]
        stack[action.slot] = S(seated.card, seated.markers + FISH)
        w.events.append(MarkersChanged(action.target, action.seat, romans[seated.card], seated.markers + FISH))
    elif isinstance(action, PlaySpecialTax):
        coins = _list(w, "coins")
        amount = min(TAX, coins[action.target])
        coins[action.target] -= amount
        w.events.append(SesterceTaxed(action.target, amount, coins[action.target]))
    elif isinstance(action, PlayPoaching):
        _row(w, "queues", player).insert(0, _row(w, "queues", action.target).pop(0))
        _queue_changed(w, action.target)
        _queue_changed(w, player)
        _fill_queue(w, action.target)  # P5
    elif isinstance(action, PlaySwap):
        # Project decision: the two Romans take each other's places in the queues.
        own, theirs = _row(w, "queues", player), _row(w, "queues", action.target)
        own[action.index], theirs[action.target_index] = theirs[action.target_index], own[action.index]
        _queue_changed(w, player)
        _queue_changed(w, action.target)
    elif isinstance(action, PlaySenateMeeting):
        for seat in range(3):
            seated_here = w.seats[action.target][seat]
            if seated_here and romans[seated_here[0].card].kind is _SENATOR:
                card = _roman_leaves(w, action.target, seat, 0)
                w.events.append(RomanRemoved(action.target, _SEATS[seat], romans[card]))
    elif isinstance(action, PlayReordering):
        w.reorder = 0
    elif isinstance(action, PlayEviction):
        card = _roman_leaves(w, action.target, action.seat, action.slot)
        w.events.append(RomanRemoved(action.target, action.seat, romans[card]))


def _pick_next(w: _Work, action: PickNext) -> None:
    player = w.active
    queue = _row(w, "queues", player)
    placed = w.reorder
    assert placed is not None  # PickNext is legal only while reordering
    queue.insert(placed, queue.pop(action.index))
    placed += 1
    if placed >= len(queue) - 1:
        w.reorder = None
        _queue_changed(w, player)
    else:
        w.reorder = placed


def _step(w: _Work, action: PecuniaAction) -> None:
    if isinstance(action, RemoveMarkers):
        _remove_markers_and_collect(w)
    elif isinstance(action, SeatRoman):
        _seat_roman(w, action)
    elif isinstance(action, EndRefill):
        _end_refill(w)
    elif isinstance(action, DrawActionCard):
        _draw_and_end_turn(w)
    elif isinstance(action, PickNext):
        _pick_next(w, action)
    else:
        _play(w, action)


def _run_forced(w: _Work) -> list[PecuniaAction] | None:
    """Project decision: take every decision that has exactly one legal action, i.e. when
    the active player holds no action card and one turn action is legal (never while
    reordering: at least two cards are left to place then). P7: whether a decision is taken
    automatically may depend only on public facts; the hand's size is public, its cards are
    not, so a player holding only unplayable cards is still asked.

    Returns the legal turn actions of the decision it stops at when it listed them (an empty
    hand): the next ``legal_actions`` takes them rather than listing them again."""
    while w.phase is not _OVER:
        if w.reorder is not None or w.hands[w.active]:
            return None
        turn = _turn_actions(w)
        if len(turn) != 1:
            return turn
        _step(w, turn[0])
    return None


# ---------------------------------------------------------------------------------------
# Checking the shape of an action (MalformedAction) before its legality (IllegalAction).


def _is_int(value: object, low: int, high: int | None = None) -> bool:
    return type(value) is int and value >= low and (high is None or value <= high)


def _is_seat(value: object) -> bool:
    return isinstance(value, SeatPos)


def _check_shape(action: object, players: int) -> None:
    kind = type(action)
    if kind not in ACTION_TYPES:
        raise MalformedAction(f"not a Pecunia non olet action: {kind.__name__}")
    # The type is exactly one of ACTION_TYPES now, so isinstance matches that type alone.
    ok = True
    if isinstance(action, SeatRoman):
        ok = _is_seat(action.seat) and type(action.pair) is bool
    elif isinstance(action, (PickNext, PlayQueueJumper)):
        ok = _is_int(action.index, 0)
    elif isinstance(action, PlayCastorOil):
        ok = _is_seat(action.seat) and _is_int(action.slot, 0, 1) and _is_int(action.amount, 1, CASTOR_MAX)
    elif isinstance(action, (PlayFishPoisoning, PlayEviction)):
        ok = _is_int(action.target, 0, players - 1) and _is_seat(action.seat) and _is_int(action.slot, 0, 1)
    elif isinstance(action, (PlaySpecialTax, PlayPoaching, PlaySenateMeeting)):
        ok = _is_int(action.target, 0, players - 1)
    elif isinstance(action, PlaySwap):
        ok = _is_int(action.index, 0) and _is_int(action.target, 0, players - 1) and _is_int(action.target_index, 0)
    if not ok:
        raise MalformedAction(f"malformed {kind.__name__}: {action!r}")


def _target_sum(players: int, option: int) -> int:
    return option or DEFAULT_TARGETS[players]


class PecuniaEngine:
    """The Engine protocol for Pecunia non olet. ``decks_dir`` holds the deck data files."""

    def __init__(self, decks_dir: Path | str = DECKS_DIR):
        self.decks_dir = Path(decks_dir)
        self.info = make_info(available_decks(self.decks_dir) or (DEFAULT_DECK,))
        self._decks: dict[str, Deck] = {}
        # The last answer of legal_actions. A caller (bot, playout, rules service) usually applies
        # one of those very actions next; ``apply`` then recognises it by identity instead of
        # listing the legal actions a second time. Identity with a state it holds cannot be wrong.
        self._last_legal: tuple[PecuniaState | None, list[PecuniaAction]] = (None, [])
        # The turn actions of the decision the last new_game or apply stopped at, when it listed
        # them (``_run_forced``), for the legal_actions of that very state.
        self._next_turn: tuple[PecuniaState | None, list[PecuniaAction] | None] = (None, None)

    def deck(self, name: str = DEFAULT_DECK) -> Deck:
        """The named deck, loaded and checked once (InvalidConfig for a bad one)."""
        deck = self._decks.get(name)
        if deck is None:
            deck = self._decks[name] = load_deck(name, self.decks_dir)
        return deck

    # -- the Engine protocol ------------------------------------------------------------

    def new_game(
        self, player_count: int, options: Mapping[str, str], seed: int
    ) -> tuple[PecuniaState, list[PecuniaEvent]]:
        parsed = parse_options(self.info, player_count, options)
        deck = self.deck(str(parsed[OPTION_DECK]))
        target = _target_sum(player_count, int(parsed[OPTION_TARGET]))
        turn_limit = int(parsed[OPTION_TURN_LIMIT])
        rng = Rng.from_seed(seed)
        # Setup (P6). Project decision: the starting player is drawn at random.
        start = rng.below(player_count)
        romans = [card.id for card in deck.romans]
        actions = [card.id for card in deck.actions]
        rng.shuffle(romans)
        rng.shuffle(actions)
        blank = PecuniaState(
            deck=deck,
            target=target,
            turn_limit=turn_limit,
            start_player=start,
            seats=tuple(((), (), ()) for _ in range(player_count)),
            queues=tuple(() for _ in range(player_count)),
            hands=tuple(() for _ in range(player_count)),
            coins=(0,) * player_count,
            roman_pile=tuple(romans),
            roman_discard=(),
            action_pile=tuple(actions),
            action_discard=(),
            active=start,
            phase=_MARKERS,
            villa=False,
            reorder=None,
            turn=0,
            rng=rng.state,
        )
        w = _Work(blank)
        w.events.append(GameStarted(player_count, start, target, turn_limit, deck.name))
        # Project decision: the deal runs in seat order from seat 0: first everybody's LEFT and
        # RIGHT Romans, then everybody's queue of 5, then everybody's 2 action cards (P6).
        for player in range(player_count):
            for seat in (SeatPos.LEFT, SeatPos.RIGHT):
                card = deck.romans[_list(w, "roman_pile").pop()]
                _stack(w, player, seat).append(S(card.id, card.rounds))
                w.events.append(RomanSeated(player, seat, card, card.rounds))
        for player in range(player_count):
            _fill_queue(w, player)
        for player in range(player_count):
            drawn = _draw(w, Pile.ACTION, HAND_CARDS)
            _list(w, "hands")[player] = tuple(sorted(drawn))
            w.events.append(ActionCardsDrawn(player, len(drawn), tuple(deck.actions[c] for c in drawn)))
        w.events.append(TurnStarted(start, 0))
        return self._settle(w)

    def player_count(self, state: PecuniaState) -> int:
        return len(state.seats)

    def deciders(self, state: PecuniaState) -> tuple[int, ...]:
        return () if state.phase is _OVER else (state.active,)

    def legal_actions(self, state: PecuniaState, seat: int) -> list[PecuniaAction]:
        if state.phase is _OVER or seat != state.active:
            return []
        listed, turn = self._next_turn
        self._next_turn = (None, None)
        legal = _legal(state, turn if listed is state else None)
        self._last_legal = (state, legal)
        return legal.copy()  # the caller's to change

    def apply(self, state: PecuniaState, seat: int, action: PecuniaAction) -> tuple[PecuniaState, list[PecuniaEvent]]:
        if state.phase is _OVER or seat != state.active:
            raise NotYourDecision(f"seat {seat} need not decide now")
        listed, legal = self._last_legal
        if listed is not state or not _is_one_of(action, legal):
            _check_shape(action, state.player_count)
            if not _is_legal(state, action):
                raise IllegalAction(f"{self.describe_action(action)} is not allowed now")
        w = _Work(state)
        _step(w, action)
        return self._settle(w)

    def _settle(self, w: _Work) -> tuple[PecuniaState, list[PecuniaEvent]]:
        """Takes the forced decisions that follow; the new state, and what came to pass."""
        turn = _run_forced(w)
        state = w.freeze()
        self._next_turn = (state, turn)
        return state, w.events

    def view(self, state: PecuniaState, seat: int | None) -> PecuniaView:
        romans, actions = state.deck.romans, state.deck.actions
        roman, action = romans.__getitem__, actions.__getitem__
        # Lists and map() rather than generator expressions: a view is built at every
        # decision of a search, and a generator costs more than these few items.
        players = tuple(
            [
                PlayerView(
                    seat=p,
                    sesterces=state.coins[p],
                    latrine=tuple(
                        [tuple([SeatedView(romans[r.card], r.markers) for r in stack]) for stack in state.seats[p]]
                    ),
                    queue=tuple(map(roman, state.queues[p])),
                    hand_count=len(state.hands[p]),
                    # P7 / issue item 3: a hand is its owner's secret (also after the end:
                    # project decision, the rules never reveal hands).
                    hand=tuple(map(action, state.hands[p])) if p == seat else None,
                )
                for p in range(state.player_count)
            ]
        )
        return PecuniaView(
            viewer=seat,
            deck_name=state.deck.name,
            target=state.target,
            turn_limit=state.turn_limit,
            start_player=state.start_player,
            turn=_turn_in_play(state),
            active=state.active,
            phase=state.phase,
            villa=state.villa,
            reorder=state.reorder,
            players=players,
            roman_pile_count=len(state.roman_pile),
            roman_discard=tuple(map(roman, state.roman_discard)),
            action_pile_count=len(state.action_pile),
            action_discard=tuple(map(action, state.action_discard)),
            winners=state.winners,
            end_reason=state.end_reason,
        )

    def sample(self, view: PecuniaView, seat: int, rng: Rng) -> PecuniaState:
        """Determinization: a full state drawn uniformly among those consistent with ``view``.

        P7: seats, queues, sesterces and both face-up discard piles are public and the viewer
        sees its own hand, so only the other hands (their sizes are public) and the order and
        content of both draw piles are unknown. Every card nobody has seen is dealt at random
        into those hidden places, and the state's RNG is drawn from ``rng`` (future shuffles
        and random card choices must not follow the true game's).
        """
        if view.viewer != seat:
            raise ValueError(f"the view is seat {view.viewer}'s, not seat {seat}'s")
        deck = self.deck(view.deck_name)
        # A latrine has its three seats (LEFT, MIDDLE, RIGHT) in the view as in the state.
        seats = cast(
            "tuple[tuple[Stack, Stack, Stack], ...]",
            tuple(
                [
                    tuple([tuple([S(r.card.id, r.markers) for r in stack]) for stack in player.latrine])
                    for player in view.players
                ]
            ),
        )
        queues = tuple([tuple([card.id for card in player.queue]) for player in view.players])
        seen_romans = {card.id for card in view.roman_discard}
        for queue in queues:
            seen_romans.update(queue)
        seen_romans.update([r.card for latrine in seats for stack in latrine for r in stack])
        roman_pile = [card.id for card in deck.romans if card.id not in seen_romans]
        if len(roman_pile) != view.roman_pile_count:
            raise ValueError("the view's Roman cards do not add up to its deck")
        seen_actions = {card.id for card in view.action_discard}
        for player in view.players:
            seen_actions.update(card.id for card in player.hand or ())
        unseen_actions = [card.id for card in deck.actions if card.id not in seen_actions]
        rng.permute(roman_pile)
        rng.permute(unseen_actions)
        hands = []
        for player in view.players:
            if player.hand is not None:
                hands.append(tuple(card.id for card in player.hand))
            else:
                dealt, unseen_actions = unseen_actions[: player.hand_count], unseen_actions[player.hand_count :]
                hands.append(tuple(sorted(dealt)))
        if len(unseen_actions) != view.action_pile_count or any(
            len(hand) != player.hand_count for hand, player in zip(hands, view.players, strict=True)
        ):
            raise ValueError("the view's action cards do not add up to its deck")
        return PecuniaState(
            deck=deck,
            target=view.target,
            turn_limit=view.turn_limit,
            start_player=view.start_player,
            seats=seats,
            queues=queues,
            hands=tuple(hands),
            coins=tuple(player.sesterces for player in view.players),
            roman_pile=tuple(roman_pile),
            roman_discard=tuple(card.id for card in view.roman_discard),
            action_pile=tuple(unseen_actions),
            action_discard=tuple(card.id for card in view.action_discard),
            active=view.active,
            phase=view.phase,
            villa=view.villa,
            reorder=view.reorder,
            turn=_completed_turns(view),
            rng=rng.next_u64(),
            winners=view.winners,
            end_reason=view.end_reason,
        )

    def project_event(self, event: PecuniaEvent, seat: int | None) -> PecuniaEvent | None:
        if type(event) is ActionCardsDrawn and event.player != seat and event.cards:
            return ActionCardsDrawn(event.player, event.count)
        return event

    def outcome(self, state: PecuniaState) -> Outcome | None:
        if state.phase is not _OVER:
            return None
        names = ", ".join(f"seat {p}" for p in state.winners)
        if state.end_reason is EndReason.TARGET_REACHED:
            summary = f"{names} reached {state.target} sesterces"
        else:
            summary = f"turn limit {state.turn_limit} reached; most sesterces: {names}"
        return Outcome(winners=state.winners, summary=summary, scores=state.coins)

    def describe_action(self, action: PecuniaAction) -> str:
        return describe_action(action)


def _turn_in_play(state: PecuniaState) -> int:
    """The view's turn: the one in play, or at the end the last one played (a game ended
    by the turn limit ended as its last turn was completed)."""
    if state.phase is _OVER and state.end_reason is EndReason.TURN_LIMIT:
        return state.turn
    return turn_number(state.turn)


def _completed_turns(view: PecuniaView) -> int:
    """``_turn_in_play`` undone: the state's count of completed turns."""
    if view.phase is _OVER and view.end_reason is EndReason.TURN_LIMIT:
        return view.turn
    return view.turn - 1


def describe_action(action: PecuniaAction) -> str:
    """The action's label, in the game's words (services/pecunia/words.py): an action reads
    the same among a seat's choices as in the event that tells it."""
    if not isinstance(action, typing.get_args(PecuniaAction)):
        raise MalformedAction("not a Pecunia non olet action")
    return action_label(action)

"""House of Borgia rules engine (rulebook borgia.txt, rulings B1-B13 in RULINGS.md).

Pure: imports only the standard library and ``services.engine``. The state is an immutable
``BorgiaState``; ``apply`` returns a new one. All randomness comes from ``Rng`` whose state
is ``BorgiaState.rng``.

Flow of a round (Project decision, lead 1):
BID (bidder) -> RESPOND (next seat, B4) -> ALLOW: PERFORM (bidder), then BID by the seat
that allowed; CALL: reveal; true bid: PERFORM (bidder) then the caller loses a die; false
bid: the bidder loses a die. After a call: rally (B7), then the game ends if a player has
no dice (B8) or a new round starts with the player who just lost a die.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from itertools import combinations
from typing import cast

from services.borgia.model import (
    ACTION_TYPES,
    BID_FACES,
    CARDINAL_NAMES,
    CARDINALS,
    FACES,
    Accuse,
    ActionPerformed,
    Allow,
    Allowed,
    Bid,
    BidMade,
    BorgiaAction,
    BorgiaEvent,
    BorgiaState,
    BorgiaView,
    Bribe,
    Call,
    Called,
    Cardinal,
    DiceRevealed,
    DieLost,
    Direction,
    Face,
    FinalResult,
    GameEnded,
    GameStarted,
    InfluenceChange,
    JudgementPair,
    JudgementSplit,
    PerformNothing,
    Phase,
    Poison,
    PuppetsDealt,
    Rallied,
    RollOff,
    RollOffRound,
    RoundStarted,
    Rumor,
    SeatRoll,
    SeatView,
)
from services.borgia.words import action_label
from services.engine.api import GameInfo, OptionSpec, Outcome, parse_options
from services.engine.errors import IllegalAction, InvalidConfig, MalformedAction, NotYourDecision
from services.engine.rng import Rng

# B2: dice per player by player count.
DICE_PER_PLAYER = {2: 6, 3: 5, 4: 5, 5: 4, 6: 4}
# B7 / Project decision (lead 5): rally gains by ladder position.
RALLY_GAINS = {2: (3, 2, 1), 3: (3, 2, 1), 4: (3, 2, 1), 5: (3, 2, 2, 1), 6: (3, 2, 2, 1)}
START_INFLUENCE = 2  # B1
DIE_BONUS = 2  # B9: per remaining die

OPTION_SHADOW_PUPPETS = "shadow_puppets"
OPTION_FLAME = "flame_of_thy_tongue"
OPTION_POISONED_DICE = "poisoned_dice"

# B10 / Project decision (lead 7): three independent bool table options, default false.
INFO = GameInfo(
    game_id="borgia",
    display_name="House of Borgia",
    min_players=2,
    max_players=6,
    options=(
        OptionSpec(
            name=OPTION_SHADOW_PUPPETS,
            description="Two players only: two secret puppets each, up to two rumors each.",
            kind="bool",
            default="false",
        ),
        OptionSpec(
            name=OPTION_FLAME,
            description="A rumor naming its holder's puppet costs that cardinal one influence per player "
            "instead of eliminating.",
            kind="bool",
            default="false",
        ),
        OptionSpec(
            name=OPTION_POISONED_DICE,
            description="A rumor naming its holder's puppet makes each remaining die worth -2 to that cardinal "
            "instead of +2, and eliminates nobody.",
            kind="bool",
            default="false",
        ),
    ),
    summary="Bluff with hidden dice to push your secret cardinal to the papacy.",
)

# Shared immutable action objects, so legal lists are cheap to build.
_BIDS: dict[tuple[int, Face], Bid] = {}
_CALL = Call()
_ALLOW = Allow()
_NOTHING = PerformNothing()
_BRIBES = {(c, d): Bribe(c, d) for c in CARDINALS for d in Direction}
_POISONS = {(a, b): Poison(a, b) for a in CARDINALS for b in CARDINALS if a <= b}
_PAIRS = {(a, b): JudgementPair(a, b) for a in CARDINALS for b in CARDINALS if a != b}
_ACCUSE = {c: Accuse(c) for c in CARDINALS}
_SPLITS = {
    (sources, targets): JudgementSplit(sources, targets)
    for sources in combinations(CARDINALS, 2)
    for targets in combinations(CARDINALS, 2)
    if not set(sources) & set(targets)
}
_BID_LISTS: dict[tuple[int, int], tuple[Bid, ...]] = {}


def _bid(count: int, face: Face) -> Bid:
    key = (count, face)
    bid = _BIDS.get(key)
    if bid is None:
        bid = _BIDS[key] = Bid(count, face)
    return bid


def _name(cardinal: Cardinal | None) -> str:
    return "nobody" if cardinal is None else CARDINAL_NAMES[Cardinal(cardinal)]


def _roll(rng: Rng, count: int) -> tuple[Face, ...]:
    # The order of dice behind a screen carries no information: store them sorted.
    return tuple([FACES[f] for f in sorted(rng.roll(count, 6))])


def _change(influence: list[int], cardinal: Cardinal, delta: int, changes: list[InfluenceChange]) -> None:
    """Add ``delta`` to a cardinal, clamped at 0 (Project decision (lead 6)), recording the real change."""
    before = influence[cardinal]
    after = max(0, before + delta)
    influence[cardinal] = after
    if after != before:
        changes.append(InfluenceChange(cardinal, after - before, after))


# --------------------------------------------------------------------------- perform options


def _perform_options(state: BorgiaState, seat: int) -> list[BorgiaAction]:
    """Every legal parameter choice for the bid action (B5, B6, Project decision (lead 4))."""
    bid = state.bid
    assert bid is not None  # PERFORM carries out the round's bid
    kind = bid.action
    antipope = state.antipope
    influence = state.influence
    options: list[BorgiaAction]
    if kind == Face.BRIBE:
        # B5: a cardinal has to move: not to the top when already on top, nor to the bottom.
        top, bottom = state.ladder[0], state.ladder[-1]
        options = []
        for c in CARDINALS:
            if c != top:
                options.append(_BRIBES[c, Direction.TOP])
            if c != bottom:
                options.append(_BRIBES[c, Direction.BOTTOM])
    elif kind == Face.POISON:
        # B5/B6: never below 0; the Antipope cannot lose influence, so it is never a target.
        able = [c for c in CARDINALS if c != antipope and influence[c] >= 1]
        options = [_POISONS[a, b] for i, a in enumerate(able) for b in able[i:]]
    elif kind == Face.JUDGEMENT:
        # B5/B6: exactly 2 move; the Antipope neither gives nor receives; a cardinal that
        # loses in the action cannot gain in it.
        eligible = [c for c in CARDINALS if c != antipope]
        options = [_PAIRS[a, b] for a in eligible if influence[a] >= 2 for b in eligible if b != a]
        givers = [c for c in eligible if influence[c] >= 1]
        for sources in combinations(givers, 2):
            rest = [c for c in eligible if c not in sources]
            for targets in combinations(rest, 2):
                options.append(_SPLITS[sources, targets])
    elif kind == Face.ACCUSATION:
        options = [_ACCUSE[c] for c in CARDINALS if c != antipope]
    else:
        options = _rumor_options(state, seat)
    return options or [_NOTHING]


def _rumor_holder(state: BorgiaState, card: Cardinal) -> int | None:
    for s, held in enumerate(state.rumors):
        if card in held:
            return s
    return None


def _rumor_options(state: BorgiaState, seat: int) -> list[BorgiaAction]:
    """B5 RUMOR; B10 Shadow Puppets: up to two each, never one's own puppet on the opponent."""
    options: list[BorgiaAction] = []
    own_puppets = state.puppets[seat]
    for card in CARDINALS:
        holder = _rumor_holder(state, card)
        if holder == seat:
            continue  # B5: a player never removes a rumor in front of themself
        if state.shadow_puppets and card in own_puppets:
            continue  # B10
        for target in range(state.player_count):
            if target in (seat, holder):
                continue  # never on oneself; the target must not already hold the card
            held = state.rumors[target]
            if state.shadow_puppets and len(held) >= 2:
                options.extend(Rumor(card, target, old) for old in held)
            else:
                options.append(Rumor(card, target, None))
    return options


# --------------------------------------------------------------------------- scoring


def score(state: BorgiaState) -> FinalResult:
    """B9 / B10 / Project decision (lead 6), in order: dice bonus, rumors, pope, winners."""
    n = state.player_count
    influence = list(state.influence)
    antipope = state.antipope
    flame, poisoned = state.flame_of_thy_tongue, state.poisoned_dice
    penalising = flame or poisoned  # B10, B13: penalties instead of eliminations and removals

    matched: list[tuple[Cardinal, ...]] = [tuple(p for p in state.puppets[s] if p in state.rumors[s]) for s in range(n)]

    # (a) remaining dice: +2 each to the puppet(s); Poisoned Dice: -2 for a matching puppet.
    bonuses: list[InfluenceChange] = []
    for s in range(n):
        dice = len(state.dice[s])
        for puppet in state.puppets[s]:
            if puppet == antipope:  # B6: no bonus, no penalty
                continue
            per_die = -DIE_BONUS if poisoned and puppet in matched[s] else DIE_BONUS
            _change(influence, puppet, per_die * dice, bonuses)

    # (b) rumors naming one's own puppet.
    penalties: list[InfluenceChange] = []
    eliminated: list[int] = []
    removed: list[Cardinal] = []
    for s in range(n):
        if not matched[s]:
            continue
        if flame:
            for puppet in matched[s]:
                if puppet != antipope:  # B6
                    _change(influence, puppet, -n, penalties)
        if penalising:
            continue
        # Project decision: leaving the ladder is not an influence loss, so B6 does not
        # protect an Antipope puppet from it.
        removed.extend(matched[s])
        if not state.shadow_puppets or len(matched[s]) == len(state.puppets[s]):
            eliminated.append(s)

    ladder = tuple(c for c in state.ladder if c not in removed)
    # (c) most influence; ties go to the cardinal higher on the ladder.
    pope: Cardinal | None = None
    for c in ladder:
        if pope is None or influence[c] > influence[pope]:
            pope = c
    winners = tuple(s for s in range(n) if pope is not None and pope in state.puppets[s] and s not in eliminated)
    # Project decision (lead 10): a seat's score is its puppet(s)' final influence; a cardinal that
    # left the ladder, or an eliminated seat, scores 0 (Project decision for the former).
    scores = tuple(
        0 if s in eliminated else sum(influence[p] for p in state.puppets[s] if p in ladder) for s in range(n)
    )
    return FinalResult(
        puppets=state.puppets,
        dice_counts=tuple(len(d) for d in state.dice),
        bonuses=tuple(bonuses),
        penalties=tuple(penalties),
        eliminated=tuple(eliminated),
        removed=tuple(sorted(removed)),
        influence=tuple(influence),
        ladder=ladder,
        pope=pope,
        winners=winners,
        scores=scores,
    )


def summarize(result: FinalResult) -> str:
    """Project decision (lead 10): "Medici elected pope; seat 2 wins" (0-based seats)."""
    head = "no pope elected" if result.pope is None else f"{_name(result.pope)} elected pope"
    if result.winners:
        return f"{head}; seat {result.winners[0]} wins"
    return f"{head}; nobody wins"


# --------------------------------------------------------------------------- transitions


def _bidder(state: BorgiaState) -> int | None:
    """Who made the round's standing bid. The bidder answers for it until it is performed
    (RESPOND, PERFORM); after an allow the seat that allowed bids next (B4), so in BID the
    bid on the table is the previous seat's: the responder is always the next seat (B4)."""
    if state.bid is None or state.phase == Phase.OVER:
        return None
    if state.phase == Phase.BID:
        return (state.active - 1) % state.player_count
    return state.active


def _decider(state: BorgiaState) -> int | None:
    """The one seat that decides now (None: the game is over)."""
    phase = state.phase
    if phase == Phase.RESPOND:
        return (state.active + 1) % state.player_count
    if phase == Phase.OVER:
        return None
    return state.active


def _call(s: BorgiaState, caller: int, events: list) -> BorgiaState:
    bid = s.bid
    assert bid is not None  # a call answers the round's bid
    face = bid.action
    matching = sum(1 for dice in s.dice for f in dice if f == face or f == Face.FATE)
    truthful = matching >= bid.count
    events.append(Called(caller))
    events.append(DiceRevealed(s.dice, s.active, caller, bid, matching, truthful))
    if truthful:
        return BorgiaState(
            s.player_count, s.shadow_puppets, s.flame_of_thy_tongue, s.poisoned_dice, s.rng, s.ladder,
            s.influence, s.antipope, s.puppets, s.dice, s.rumors, Phase.PERFORM, s.round_number,
            s.round_starter, s.active, bid, True, s.performed,
        )  # fmt: skip
    return _lose_die(s, s.active, events, s.influence, s.ladder, s.antipope, s.rumors, s.performed)


def _perform(state: BorgiaState, seat: int, action: BorgiaAction, events: list):
    """The bid action's effect: (influence, ladder, antipope, rumors) after it."""
    influence = list(state.influence)
    changes: list[InfluenceChange] = []
    ladder, antipope, rumors = state.ladder, state.antipope, state.rumors
    if isinstance(action, Bribe):
        rest = tuple(c for c in ladder if c != action.cardinal)
        ladder = (action.cardinal, *rest) if action.direction == Direction.TOP else (*rest, action.cardinal)
    elif isinstance(action, Poison):
        if action.first == action.second:
            _change(influence, action.first, -2, changes)  # takes what there is (B5)
        else:
            _change(influence, action.first, -1, changes)
            _change(influence, action.second, -1, changes)
    elif isinstance(action, JudgementPair):
        _change(influence, action.source, -2, changes)
        _change(influence, action.target, 2, changes)
    elif isinstance(action, JudgementSplit):
        for c in action.sources:
            _change(influence, c, -1, changes)
        for c in action.targets:
            _change(influence, c, 1, changes)
    elif isinstance(action, Accuse):
        antipope = action.cardinal
    elif isinstance(action, Rumor):
        updated = [list(held) for held in rumors]
        for held in updated:
            if action.card in held:
                held.remove(action.card)
        target = updated[action.target]
        if action.returned is not None:
            target.remove(action.returned)  # B10 Shadow Puppets: the named one returns
        elif not state.shadow_puppets and target:
            target.clear()  # B5: one rumor per player, the old one returns to the centre
        target.append(action.card)
        rumors = tuple(tuple(sorted(held)) for held in updated)
    events.append(ActionPerformed(seat, action, tuple(changes), ladder, antipope, rumors))
    return (tuple(influence) if changes else state.influence), ladder, antipope, rumors


def _lose_die(s: BorgiaState, loser: int, events: list, influence, ladder, antipope, rumors, performed) -> BorgiaState:
    """B4 die loss, then B7 rally, then B8 end of round. Only ever after a call."""
    dice = list(s.dice)
    dice[loser] = dice[loser][:-1]  # Project decision: drop the last of the sorted, just revealed dice
    events.append(DieLost(loser, len(dice[loser])))
    # B7 rally by ladder position; the Antipope gains nothing. Project decision: its share
    # is not passed on to the next cardinal down.
    influence = list(influence)
    gains: list[InfluenceChange] = []
    for cardinal, gain in zip(ladder, RALLY_GAINS[s.player_count], strict=False):
        if cardinal != antipope:
            _change(influence, cardinal, gain, gains)
    events.append(Rallied(tuple(gains)))
    influence = tuple(influence)
    if not all(dice):
        # B8: a player without dice ends the game; B9 scoring.
        state = BorgiaState(
            s.player_count, s.shadow_puppets, s.flame_of_thy_tongue, s.poisoned_dice, s.rng, ladder,
            influence, antipope, s.puppets, tuple(dice), rumors, Phase.OVER, s.round_number,
            s.round_starter, s.active, s.bid, True, performed,
        )  # fmt: skip
        events.append(GameEnded(score(state)))
        return state
    # B8: the player who just lost a die starts; everyone re-rolls.
    return _start_round(s, loser, [len(d) for d in dice], events, influence, ladder, antipope, rumors, performed)


def _start_round(
    s: BorgiaState,
    starter: int,
    counts: list[int],
    events: list,
    influence,
    ladder=None,
    antipope=None,
    rumors=None,
    performed=None,
) -> BorgiaState:
    """A new round: everyone rolls their remaining dice; ``starter`` bids first."""
    if ladder is None:  # the first round: nothing changed since the setup
        ladder, antipope, rumors, performed = s.ladder, s.antipope, s.rumors, s.performed
    rng = Rng(s.rng)
    dice = tuple([_roll(rng, k) for k in counts])
    round_number = s.round_number + 1
    state = BorgiaState(
        s.player_count, s.shadow_puppets, s.flame_of_thy_tongue, s.poisoned_dice, rng.state, ladder,
        influence, antipope, s.puppets, dice, rumors, Phase.BID, round_number,
        starter, starter, None, False, performed,
    )  # fmt: skip
    events.append(RoundStarted(round_number, starter, tuple(counts), dice))
    return state


# --------------------------------------------------------------------------- determinization


def excluded_puppets(view: BorgiaView, seat: int) -> frozenset[Cardinal]:
    """Cardinals that the view proves are not ``seat``'s puppets, though no puppet shows them.

    B10 Shadow Puppets: a player never places a rumor naming their own puppet on the opponent,
    and with two players every rumor in front of a seat was placed there by the other one.
    """
    if not view.shadow_puppets:
        return frozenset()
    return frozenset(c for s in view.seats if s.seat != seat for c in s.rumors)


_Puppets = tuple[tuple[Cardinal, ...], ...]


def _sample_puppets(view: BorgiaView, rng: Rng) -> _Puppets:
    per_seat = 2 if view.shadow_puppets else 1
    shown = {c for s in view.seats if s.puppets is not None for c in s.puppets}
    pool = [c for c in CARDINALS if c not in shown]
    hidden = [s.seat for s in view.seats if s.puppets is None]
    puppets = [s.puppets for s in view.seats]  # None where hidden: every such seat is dealt below
    excluded = {s: excluded_puppets(view, s) for s in hidden}
    if any(excluded.values()):
        # Few enough deals to list them all (two seats at most): pick one uniformly.
        deals = _deals(pool, hidden, per_seat, excluded)
        if deals:  # always, for a reachable view
            for s, cards in zip(hidden, deals[rng.below(len(deals))], strict=True):
                puppets[s] = cards
            return cast(_Puppets, tuple(puppets))
    rng.permute(pool)
    for i, s in enumerate(hidden):
        puppets[s] = tuple(sorted(pool[i * per_seat : (i + 1) * per_seat]))
    return cast(_Puppets, tuple(puppets))


def _deals(pool, seats, per_seat, excluded) -> list[tuple[tuple[Cardinal, ...], ...]]:
    """Every way to deal ``per_seat`` cards of ``pool`` to each of ``seats``, avoiding exclusions."""
    if not seats:
        return [()]
    first, rest = seats[0], seats[1:]
    deals: list[tuple[tuple[Cardinal, ...], ...]] = []
    for cards in combinations([c for c in pool if c not in excluded[first]], per_seat):
        left = [c for c in pool if c not in cards]
        deals.extend((cards, *others) for others in _deals(left, rest, per_seat, excluded))
    return deals


# --------------------------------------------------------------------------- engine


class BorgiaEngine:
    info = INFO

    def __init__(self) -> None:
        # (state, seat, perform options) of the last PERFORM legal_actions call.
        self._last_perform: tuple[BorgiaState, int, list[BorgiaAction]] | None = None

    # ----------------------------------------------------------------- setup

    def new_game(self, player_count: int, options: Mapping[str, str], seed: int):
        opts = parse_options(INFO, player_count, options)
        shadow = bool(opts[OPTION_SHADOW_PUPPETS])
        if shadow and player_count != 2:  # Project decision (lead 7)
            raise InvalidConfig("shadow_puppets is a two-player variant (B10)", reason="BAD_OPTION")
        rng = Rng.from_seed(seed)

        # Setup step 1: shuffle the puppet cards and deal one (Shadow Puppets: two) to each
        # player. Project decision: dealt in seat order from the top of the shuffled deck.
        deck = list(CARDINALS)
        rng.shuffle(deck)
        per_seat = 2 if shadow else 1
        puppets = tuple(tuple(sorted(deck[s * per_seat : (s + 1) * per_seat])) for s in range(player_count))
        # Setup step 2 / Project decision (lead 11): the ladder order is shuffled.
        ladder = list(CARDINALS)
        rng.shuffle(ladder)
        dice_count = DICE_PER_PLAYER[player_count]

        # B11 / Project decision (lead 3): roll-off on FATE faces, ties re-roll among the tied.
        contenders = list(range(player_count))
        rounds: list[RollOffRound] = []
        while True:
            rolls = tuple(SeatRoll(s, _roll(rng, dice_count)) for s in contenders)
            rounds.append(RollOffRound(rolls))
            fates = {r.seat: r.faces.count(Face.FATE) for r in rolls}
            best = max(fates.values())
            contenders = [s for s in contenders if fates[s] == best]
            if len(contenders) == 1:
                break
        starter = contenders[0]

        state = BorgiaState(
            player_count=player_count,
            shadow_puppets=shadow,
            flame_of_thy_tongue=bool(opts[OPTION_FLAME]),
            poisoned_dice=bool(opts[OPTION_POISONED_DICE]),
            rng=rng.state,
            ladder=tuple(ladder),
            influence=(START_INFLUENCE,) * len(CARDINALS),
            antipope=None,
            puppets=puppets,
            dice=tuple(() for _ in range(player_count)),
            rumors=tuple(() for _ in range(player_count)),
            phase=Phase.BID,
            round_number=0,
            round_starter=starter,
            active=starter,
            bid=None,
            called=False,
            performed=tuple(() for _ in range(player_count)),
        )
        events: list[BorgiaEvent] = [
            GameStarted(
                player_count=player_count,
                shadow_puppets=state.shadow_puppets,
                flame_of_thy_tongue=state.flame_of_thy_tongue,
                poisoned_dice=state.poisoned_dice,
                ladder=state.ladder,
                dice_counts=(dice_count,) * player_count,
            ),
            PuppetsDealt(puppets),
            RollOff(tuple(rounds), starter),
        ]
        # Project decision (lead 3): round 1 is a fresh roll of everyone's dice.
        state = _start_round(state, starter, [dice_count] * player_count, events, state.influence)
        return state, events

    # ----------------------------------------------------------------- queries

    def player_count(self, state: BorgiaState) -> int:
        return state.player_count

    def deciders(self, state: BorgiaState) -> tuple[int, ...]:
        decider = _decider(state)
        return () if decider is None else (decider,)

    def legal_actions(self, state: BorgiaState, seat: int) -> list[BorgiaAction]:
        if seat != _decider(state):
            return []
        phase = state.phase
        total = state.total_dice
        if phase == Phase.BID:
            # B3, B12 / Project decision (lead 2): 1 <= count <= dice in play, strictly above the last bid.
            low = 1 if state.bid is None else state.bid.count + 1
            bids = _BID_LISTS.get((low, total))
            if bids is None:
                bids = _BID_LISTS[low, total] = tuple(
                    _bid(count, face) for count in range(low, total + 1) for face in BID_FACES
                )
            return list(bids)
        if phase == Phase.RESPOND:
            # B12 / Project decision (lead 2): at the highest possible count an allow would leave no bid.
            bid = state.bid
            assert bid is not None  # RESPOND answers the round's bid
            if bid.count >= total:
                return [_CALL]
            return [_CALL, _ALLOW]
        options = _perform_options(state, seat)
        # apply() usually follows on this very state: keep the list so it need not build it again.
        self._last_perform = (state, seat, options)
        return list(options)

    def outcome(self, state: BorgiaState) -> Outcome | None:
        if state.phase != Phase.OVER:
            return None
        result = score(state)
        return Outcome(winners=result.winners, summary=summarize(result), scores=result.scores)

    # ----------------------------------------------------------------- apply

    def apply(self, state: BorgiaState, seat: int, action: BorgiaAction):
        if not isinstance(action, ACTION_TYPES):
            raise MalformedAction("not a House of Borgia action")
        if not isinstance(seat, int) or seat != _decider(state):
            raise NotYourDecision(f"seat {seat} need not decide now")
        phase = state.phase
        events: list[BorgiaEvent] = []
        # New states are built field by field (in BorgiaState order): much cheaper than replace().
        s = state
        if phase == Phase.BID:
            if not isinstance(action, Bid):
                raise IllegalAction("a bid is expected")
            if not isinstance(action.count, int) or isinstance(action.count, bool):
                raise MalformedAction("a bid count is an integer")
            if action.action not in BID_FACES:
                raise IllegalAction("FATE cannot be bid; a bid names BRIBE, POISON, JUDGEMENT, ACCUSATION or RUMOR")
            low = 1 if s.bid is None else s.bid.count + 1
            total = s.total_dice
            if not low <= action.count <= total:
                raise IllegalAction(f"the bid count must be between {low} and {total}")
            bid = _bid(action.count, Face(action.action))
            events.append(BidMade(seat, bid.count, bid.action))
            state = BorgiaState(
                s.player_count, s.shadow_puppets, s.flame_of_thy_tongue, s.poisoned_dice, s.rng, s.ladder,
                s.influence, s.antipope, s.puppets, s.dice, s.rumors, Phase.RESPOND, s.round_number,
                s.round_starter, s.active, bid, s.called, s.performed,
            )  # fmt: skip
            return state, events
        if phase == Phase.RESPOND:
            if isinstance(action, Allow):
                assert s.bid is not None  # RESPOND answers the round's bid
                if s.bid.count >= s.total_dice:
                    raise IllegalAction("the bid is at the highest count: it can only be called")
                events.append(Allowed(seat))
                state = BorgiaState(
                    s.player_count, s.shadow_puppets, s.flame_of_thy_tongue, s.poisoned_dice, s.rng, s.ladder,
                    s.influence, s.antipope, s.puppets, s.dice, s.rumors, Phase.PERFORM, s.round_number,
                    s.round_starter, s.active, s.bid, s.called, s.performed,
                )  # fmt: skip
                return state, events
            if isinstance(action, Call):
                return _call(s, seat, events), events
            raise IllegalAction("call or allow is expected")
        # PERFORM
        last = self._last_perform
        legal = last[2] if last is not None and last[0] is s and last[1] == seat else _perform_options(s, seat)
        for option in legal:
            if option is action:
                break
        else:
            try:
                action = legal[legal.index(action)]  # canonical enum-typed copy
            except ValueError:
                raise IllegalAction("that is not a legal way to perform the bid action") from None
        influence, ladder, antipope, rumors = _perform(s, seat, action, events)
        by_seat = list(s.performed)
        by_seat[seat] = (*by_seat[seat], action)  # public history (the view shows it)
        performed = tuple(by_seat)
        if s.called:
            # B4: a true bid was called; the caller loses a die after the action.
            return _lose_die(s, s.responder, events, influence, ladder, antipope, rumors, performed), events
        # B4 / Project decision (lead 1): after an allow, the seat that allowed bids next.
        state = BorgiaState(
            s.player_count, s.shadow_puppets, s.flame_of_thy_tongue, s.poisoned_dice, s.rng, ladder,
            influence, antipope, s.puppets, s.dice, rumors, Phase.BID, s.round_number,
            s.round_starter, s.responder, s.bid, s.called, performed,
        )  # fmt: skip
        return state, events

    # ----------------------------------------------------------------- views and events

    def view(self, state: BorgiaState, seat: int | None) -> BorgiaView:
        """Project decision (lead 8): a seat sees its own dice faces and puppet(s); everyone sees
        dice counts, ladder, influence, Antipope, rumors and bids; every die after a call
        (B4); every dealt puppet and the scoring at the end (B9). Undealt puppets: nobody."""
        over = state.phase == Phase.OVER
        revealed = state.called  # every die is public after a call (B4)
        held = {c for cards in state.rumors for c in cards}
        seats = tuple(
            [  # a list, not a generator: cheaper for these few seats, at every decision of a search
                SeatView(
                    seat=s,
                    dice_count=len(state.dice[s]),
                    dice=state.dice[s] if (revealed or over or s == seat) else None,
                    puppets=state.puppets[s] if (over or s == seat) else None,
                    rumors=state.rumors[s],
                    performed=state.performed[s],
                )
                for s in range(state.player_count)
            ]
        )
        return BorgiaView(
            viewer=seat,
            player_count=state.player_count,
            shadow_puppets=state.shadow_puppets,
            flame_of_thy_tongue=state.flame_of_thy_tongue,
            poisoned_dice=state.poisoned_dice,
            phase=state.phase,
            round_number=state.round_number,
            round_starter=state.round_starter,
            active=state.active,
            responder=state.responder if state.phase == Phase.RESPOND else None,
            bid=state.bid,
            called=state.called,
            ladder=state.ladder,
            influence=state.influence,
            antipope=state.antipope,
            centre_rumors=tuple([c for c in CARDINALS if c not in held]),
            seats=seats,
            result=score(state) if over else None,
            bidder=_bidder(state),
        )

    # ----------------------------------------------------------------- determinization

    def sample(self, view: BorgiaView, seat: int | None, rng: Rng) -> BorgiaState:
        """A full state drawn uniformly among those consistent with ``view``.

        Hidden dice are re-rolled (B2: each seat keeps its dice count); dice the view shows
        (one's own; every die after a call, B4; all at the end) are kept. Hidden puppets are
        dealt again, distinct, from the cardinals no visible puppet names (setup step 1; two
        each in Shadow Puppets, B10). The RNG state is drawn from ``rng``, so future rolls never
        come from the true state's RNG. ``seat`` is implied by the view (None: a spectator)."""
        dice = tuple([_roll(rng, s.dice_count) if s.dice is None else s.dice for s in view.seats])
        return BorgiaState(
            player_count=view.player_count,
            shadow_puppets=view.shadow_puppets,
            flame_of_thy_tongue=view.flame_of_thy_tongue,
            poisoned_dice=view.poisoned_dice,
            rng=rng.next_u64(),
            ladder=view.ladder,
            influence=view.influence,
            antipope=view.antipope,
            puppets=_sample_puppets(view, rng),
            dice=dice,
            rumors=tuple([s.rumors for s in view.seats]),
            phase=view.phase,
            round_number=view.round_number,
            round_starter=view.round_starter,
            active=view.active,
            bid=view.bid,
            called=view.called,
            performed=tuple([s.performed for s in view.seats]),
        )

    def project_event(self, event: BorgiaEvent, seat: int | None) -> BorgiaEvent | None:
        """Project decision (lead 8, 9): only the deal and the round's roll carry secrets."""
        if isinstance(event, PuppetsDealt):
            return PuppetsDealt(tuple(p if s == seat else None for s, p in enumerate(event.puppets)))
        if isinstance(event, RoundStarted):
            dice = tuple([d if s == seat else None for s, d in enumerate(event.dice)])
            return RoundStarted(event.round_number, event.starter, event.dice_counts, dice)
        return event  # every other event is public

    def describe_action(self, action: BorgiaAction) -> str:
        """The action's label, in the game's words (services/borgia/words.py): an action
        reads the same among a seat's choices as in the event that tells it."""
        if not isinstance(action, typing.get_args(BorgiaAction)):
            raise MalformedAction("not a House of Borgia action")
        return action_label(action)

"""House of Borgia in words: each event as one viewer's projection of it reads, as a phrase
of the game's catalog (``catalog/<locale>.po``, see ``common.phrases``). Only what the
projection holds is told: a seat's own dice and puppet, everyone's once revealed. The labels
of the legal actions are phrases too (``action_phrase``): an action reads the same in a
seat's choices as in the event that tells it was performed."""

from common.phrases import Phrase, Seat, Term, items, phrase
from services.borgia.model import (
    Accuse,
    ActionPerformed,
    Allow,
    Allowed,
    Bid,
    BidMade,
    BorgiaAction,
    BorgiaEvent,
    Bribe,
    Call,
    Called,
    Cardinal,
    DiceRevealed,
    DieLost,
    Direction,
    Face,
    GameEnded,
    GameStarted,
    JudgementPair,
    JudgementSplit,
    PerformNothing,
    Poison,
    PuppetsDealt,
    Rallied,
    RollOff,
    RoundStarted,
    Rumor,
)
from services.engine.words import GameWords

WORDS = GameWords(__file__)
VARIANTS = ("shadow_puppets", "flame_of_thy_tongue", "poisoned_dice")


def cardinal(value: Cardinal) -> Term:
    return Term(f"borgia.cardinal.{Cardinal(value).name.lower()}")


def face(value: Face) -> Term:
    return Term(f"borgia.face.{Face(value).name.lower()}")


def bid(count: int, action: Face) -> Phrase:
    """ "3 x Bribe"."""
    return phrase("borgia.bid", count, face(action))


def perform(action: BorgiaAction) -> Phrase:
    """A bid's action, as a clause ("Bribe: Medici to the top"): what a seat performed, and
    the label of that action among a seat's choices (``action_phrase``)."""
    if isinstance(action, Bribe):
        where = "top" if action.direction == Direction.TOP else "bottom"
        return phrase(f"borgia.bribe.{where}", cardinal(action.cardinal))
    if isinstance(action, Poison):
        if action.first == action.second:
            return phrase("borgia.poison.two", cardinal(action.first))
        return phrase("borgia.poison", cardinal(action.first), cardinal(action.second))
    if isinstance(action, JudgementPair):
        return phrase("borgia.judgement.pair", cardinal(action.source), cardinal(action.target))
    if isinstance(action, JudgementSplit):
        (a, b), (c, d) = action.sources, action.targets
        return phrase("borgia.judgement.split", cardinal(a), cardinal(b), cardinal(c), cardinal(d))
    if isinstance(action, Accuse):
        return phrase("borgia.accuse", cardinal(action.cardinal))
    if isinstance(action, Rumor):
        if action.returned is None:
            return phrase("borgia.rumor", cardinal(action.card), Seat(action.target))
        return phrase("borgia.rumor.returned", cardinal(action.card), Seat(action.target), cardinal(action.returned))
    if isinstance(action, PerformNothing):
        return phrase("borgia.nothing")
    if isinstance(action, Bid):
        return phrase("borgia.bid.action", bid(action.count, action.action))
    return phrase(type(action).__name__)


def action_phrase(action: BorgiaAction) -> Phrase:
    """A legal action's label: "bid 3 x Poison", "call", "allow", or the action a bid
    performs as events tell it ("Bribe: Medici to the top")."""
    if isinstance(action, Call):
        return phrase("borgia.call")
    if isinstance(action, Allow):
        return phrase("borgia.allow")
    return perform(action)


def action_label(action: BorgiaAction) -> str:
    """The label in English, seats written "seat N" (``Engine.describe_action``)."""
    return WORDS.english(action_phrase(action))


def _changes(changes):
    """ "Medici +1, Sforza -2", each change that is one; None when none is."""
    told = [phrase("borgia.change", cardinal(c.cardinal), c.delta) for c in changes if c.delta]
    return items(told, "unit") if told else None


def event_phrase(event: BorgiaEvent, viewer: int | None) -> Phrase:
    if isinstance(event, BidMade):
        return phrase("borgia.bid-made", Seat(event.seat), bid(event.count, event.action))
    if isinstance(event, Allowed):
        return phrase("borgia.allowed", Seat(event.seat))
    if isinstance(event, Called):
        return phrase("borgia.called", Seat(event.seat))
    if isinstance(event, ActionPerformed):
        changes = _changes(event.influence_changes)
        if changes is None:
            return phrase("borgia.performed", Seat(event.seat), perform(event.action))
        return phrase("borgia.performed.changes", Seat(event.seat), perform(event.action), changes)
    if isinstance(event, DieLost):
        return phrase("borgia.die-lost", Seat(event.seat), event.remaining)
    if isinstance(event, RoundStarted):  # each seat sees its own dice on its board, not here
        return phrase("borgia.round-started", Seat(event.starter), event.round_number)
    if isinstance(event, DiceRevealed):
        counts = items(
            (
                phrase("borgia.seat-count", Seat(s), sum(1 for f in faces if f in (event.bid.action, Face.FATE)))
                for s, faces in enumerate(event.dice)
            ),
            "unit",
        )
        whose = phrase("borgia.bid-of", Seat(event.bidder), bid(event.bid.count, event.bid.action))
        truth = Term("borgia.true" if event.truthful else "borgia.bluff")
        return phrase("borgia.dice-revealed", event.matching, face(event.bid.action), counts, whose, truth)
    if isinstance(event, Rallied):
        gains = _changes(event.gains)
        return phrase("borgia.rallied", gains) if gains else phrase("borgia.rallied.none")
    if isinstance(event, GameStarted):
        dice_each = items((int(count) for count in sorted({str(count) for count in event.dice_counts})), "unit")
        variants = [Term(f"borgia.variant.{name}") for name in VARIANTS if getattr(event, name)]
        if variants:
            return phrase("borgia.game-started.variants", event.player_count, dice_each, items(variants, "unit"))
        return phrase("borgia.game-started", event.player_count, dice_each)
    if isinstance(event, PuppetsDealt):
        own = event.puppets[viewer] if viewer is not None and viewer < len(event.puppets) else None
        if own:
            return phrase("borgia.puppets-dealt.own", items(cardinal(c) for c in own))
        return phrase("borgia.puppets-dealt")
    if isinstance(event, RollOff):
        if len(event.rounds) > 1:
            return phrase("borgia.roll-off.again", Seat(event.starter), len(event.rounds))
        return phrase("borgia.roll-off", Seat(event.starter))
    if isinstance(event, GameEnded):
        return _game_ended(event)
    return phrase(type(event).__name__)


def _game_ended(event: GameEnded) -> Phrase:
    """Why the game ended as it did, step by step as B9/B10 score it: one line a step."""
    result = event.result
    lines = [phrase("borgia.ended")]
    puppets = (
        phrase("borgia.puppets-of", Seat(s), items(cardinal(c) for c in cards))
        for s, cards in enumerate(result.puppets)
    )
    lines.append(phrase("borgia.puppets-revealed", items(puppets, "semicolon")))
    if result.bonuses:
        bonuses = _changes(result.bonuses)
        lines.append(phrase("borgia.bonuses", bonuses) if bonuses else phrase("borgia.bonuses.none"))
    if result.penalties:
        lines.append(phrase("borgia.penalties", _changes(result.penalties) or ""))
    lines += [phrase("borgia.eliminated", Seat(s)) for s in result.eliminated]
    if result.removed:
        lines.append(phrase("borgia.removed", items(cardinal(c) for c in result.removed)))
    if result.pope is None:
        lines.append(phrase("borgia.no-pope"))
    else:
        pope, influence = cardinal(result.pope), result.influence[result.pope]
        if len(result.winners) == 1:
            lines.append(phrase("borgia.pope.winner", Seat(result.winners[0]), pope, influence))
        elif result.winners:
            lines.append(phrase("borgia.pope.winners", pope, influence, items(Seat(s) for s in result.winners)))
        else:
            lines.append(phrase("borgia.pope.nobody", pope, influence))
    return phrase("lines", items(lines, "lines"))


class BorgiaWords:
    catalog = WORDS.folder

    def event_phrase(self, event: BorgiaEvent, viewer: int | None) -> Phrase:
        return event_phrase(event, viewer)

    def action_phrase(self, action: BorgiaAction) -> Phrase:
        return action_phrase(action)

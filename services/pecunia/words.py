"""Pecunia non olet in words: each event as one viewer's projection of it reads (see
``services.engine.words``). Hands are secret (P7): the cards a seat draws are named only
in that seat's own text."""

from services.engine.words import Voice, join, plural
from services.pecunia.model import (
    ACTION_LABELS,
    ActionCardPlayed,
    ActionCardsDrawn,
    EndReason,
    GameEnded,
    GameStarted,
    MarkersChanged,
    MarkersRemoved,
    PecuniaEvent,
    Pile,
    PileReshuffled,
    PlayCastorOil,
    PlayEviction,
    PlayFishPoisoning,
    PlayPoaching,
    PlayQueueJumper,
    PlaySenateMeeting,
    PlaySpecialTax,
    PlaySwap,
    QueueChanged,
    QueueDealt,
    RefillEnded,
    RomanCard,
    RomanKind,
    RomanPaid,
    RomanRemoved,
    RomanSeated,
    SeatPos,
    SesterceTaxed,
    TurnStarted,
)


def roman(card: RomanCard) -> str:
    """ "Senator 3r/5s": its kind, the rounds it sits and the sesterces it pays."""
    return f"{RomanKind(card.kind).name.title()} {card.rounds}r/{card.sesterces}s"


def position(value: SeatPos) -> str:
    return SeatPos(value).name.lower()


def _played(event: ActionCardPlayed, voice: Voice) -> str:
    action = event.action
    label = ACTION_LABELS.get(event.card.kind, "an action card")
    detail = ""
    if isinstance(action, PlayQueueJumper):
        detail = f": queue card {action.index + 1} to the start"
    elif isinstance(action, PlayCastorOil):
        detail = f": -{plural(action.amount, 'round marker')} on the {position(action.seat)} seat"
    elif isinstance(action, (PlayFishPoisoning, PlayEviction)):
        detail = f" on {voice.whose(action.target, start=False)} {position(action.seat)} seat"
    elif isinstance(action, (PlaySpecialTax, PlayPoaching, PlaySenateMeeting)):
        detail = f" on {voice.whom(action.target)}"
    elif isinstance(action, PlaySwap):
        theirs = f"{voice.whose(action.target, start=False)} card {action.target_index + 1}"
        detail = f": queue card {action.index + 1} for {theirs}"
    return f"{voice.does(event.player, 'play')} {label}{detail}."


def event_text(event: PecuniaEvent, viewer: int | None) -> str:
    voice = Voice(viewer)
    if isinstance(event, MarkersRemoved):
        latrine = f"{voice.their(event.player)} latrine"
        return f"{voice.does(event.player, 'take')} a round marker off each Roman on {latrine}."
    if isinstance(event, RomanPaid):
        return (
            f"{voice.whose(event.player)} {roman(event.card)} on the {position(event.seat)} seat pays"
            f" {event.amount} and leaves ({plural(event.sesterces, 'sesterce')} now)."
        )
    if isinstance(event, RomanSeated):
        return (
            f"{voice.does(event.player, 'seat')} {roman(event.card)} on the {position(event.seat)} seat"
            f" ({plural(event.markers, 'round marker')})."
        )
    if isinstance(event, RefillEnded):
        empty = f"; empty: {join(position(p) for p in event.empty_seats)}" if event.empty_seats else ""
        return f"{voice.does(event.player, 'stop')} refilling{empty}."
    if isinstance(event, ActionCardsDrawn):
        cards = f": {join(ACTION_LABELS[c.kind] for c in event.cards)}" if event.cards else ""
        return f"{voice.does(event.player, 'draw')} {plural(event.count, 'action card')}{cards}."
    if isinstance(event, TurnStarted):
        return f"Turn {event.turn + 1}: {voice.whose(event.player, start=False)} turn."
    if isinstance(event, ActionCardPlayed):
        return _played(event, voice)
    if isinstance(event, MarkersChanged):
        return (
            f"{voice.whose(event.player)} {roman(event.card)} on the {position(event.seat)} seat"
            f" now has {plural(event.markers, 'round marker')}."
        )
    if isinstance(event, SesterceTaxed):
        return f"{voice.does(event.player, 'pay')} {event.amount} in tax ({plural(event.sesterces, 'sesterce')} left)."
    if isinstance(event, RomanRemoved):
        where = f"{roman(event.card)} on the {position(event.seat)} seat"
        return f"{voice.whose(event.player)} {where} is sent away without pay."
    if isinstance(event, QueueChanged):
        queue = ", ".join(roman(card) for card in event.cards) or "empty"
        return f"{voice.whose(event.player)} queue is now: {queue}."
    if isinstance(event, QueueDealt):
        queue = ", ".join(roman(card) for card in event.cards)
        return f"{voice.whose(event.player)} queue: {queue}."
    if isinstance(event, PileReshuffled):
        pile = "Roman" if event.pile is Pile.ROMAN else "action card"
        return f"The {pile} discards are shuffled into a new draw pile of {event.size}."
    if isinstance(event, GameStarted):
        limit = f", at most {event.turn_limit} turns" if event.turn_limit else ""
        return (
            f"Pecunia non olet, {event.player_count} players: first to {event.target} sesterces wins{limit}."
            f" {voice.does(event.start_player, 'start', start=True)}."
        )
    if isinstance(event, GameEnded):
        winners = join(voice.whom(s) for s in event.winners) or "nobody"
        if event.reason is EndReason.TARGET_REACHED:
            why = "reached the target"
        else:
            why = "held the most sesterces at the turn limit"
        wins = voice.verb(event.winners[0], "win") if len(event.winners) == 1 else "win"
        held = ", ".join(f"{voice.who(s)} {amount}" for s, amount in enumerate(event.sesterces))
        return f"The game ends: {winners} {why} and {wins}. Sesterces: {held}."
    return type(event).__name__


class PecuniaWords:
    def event_text(self, event: PecuniaEvent, viewer: int | None) -> str:
        return event_text(event, viewer)

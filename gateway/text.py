"""The text of each TableEvent (``TableEvent.text``). A game event's is the game's own
words for that viewer, from that viewer's projection, with the seats' names written in:
told when the event is read (``game_words``), from the event the log keeps and the names
the seats had when it was logged, so the log stores no text (a finished Borgia table held
about 7 KB of it). The platform's events are told here when they are logged (a few a
game); the game's end writes each seat of its outcome as a choice, so that its reader
reads "Ada (you)". Every client reads the same sentence, and replays keep it.

A game whose words the gateway does not have (a rules service in another language) has
the rules service's text stored with each event instead, as made on the command's path.
"""

from collections.abc import Callable
from functools import cache

import structlog

from common.names import in_text, seat_label, seat_names, with_names, with_names_marked
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2

log = structlog.get_logger()

# An event's serialized message and whose projection it is (None: the spectators') -> the
# game's words for it, seats written "seat N" and the reader's choices unmade.
Teller = Callable[[bytes, int | None], str]


@cache
def _tellers() -> dict[str, Teller]:
    """Every registered game with words, by the full name of its Event message."""
    from services.registry import load_games  # the gateway's games: loaded once, on first use

    tellers: dict[str, Teller] = {}
    for game in load_games().values():
        words, codec = game.words, game.codec
        decode = getattr(codec, "event_from_bytes", None)
        event_type = getattr(codec, "event_type", None)
        if words is None or decode is None or event_type is None:
            continue

        def tell(data: bytes, viewer: int | None, words=words, decode=decode) -> str:
            return words.event_text(decode(data), viewer)

        tellers[event_type().DESCRIPTOR.full_name] = tell
    return tellers


def teller(type_url: str) -> Teller | None:
    """How the game whose events have ``type_url`` tells them; None: the gateway has no
    words for it (their text is stored, as the rules service made it)."""
    return _tellers().get(type_url.rpartition("/")[2])


def game_words(type_url: str, data: bytes, viewer: int | None) -> str:
    """The game's words for one logged event (``viewer``: whose projection it is), "seat N"
    and choices left in; "" for a game without words here, or an event they cannot read
    (logged, since the log was written by the same games)."""
    tell = teller(type_url)
    if tell is None:
        return ""
    try:
        return tell(data, viewer)
    except Exception:  # a damaged entry, or an engine changed since: the event goes without text
        log.exception("event_text_failed", type_url=type_url)
        return ""


def names_list(table: gw.Table) -> list[str]:
    """The seats' names in seat order, as the log keeps them for its readers."""
    named = seat_names(table.seats)
    return [named[seat.seat] for seat in table.seats]


def names(table: gw.Table) -> dict[int, str]:
    """The seats' names as the text uses them (a bot by its name and level)."""
    return seat_names(table.seats)


def game_text(text: str, names: dict[int, str]) -> str:
    """A game's words for one viewer, "seat N" replaced by the seat's name."""
    return with_names(text, names)


def platform_text(names: dict[int, str], **body) -> str:
    """A platform event (the body of a TableEvent other than a game event) in words; each
    name written in as ``in_text`` writes it, so that it never makes a choice."""
    if "seat_taken" in body:
        taken: gw.SeatTaken = body["seat_taken"]
        return f"{in_text(names.get(taken.seat, taken.display_name))} sits down."
    if "table_started" in body:
        started: gw.TableStarted = body["table_started"]
        commitment = started.seed_commitment.hex()
        return f"The game begins. Seed commitment (SHA-256): {commitment}." if commitment else "The game begins."
    if "decision_expired" in body:
        expired: gw.DecisionExpired = body["decision_expired"]
        who = in_text(names.get(expired.seat, seat_label(expired.seat)))
        if expired.policy == gw.TIMEOUT_POLICY_BOT_TAKES_SEAT:
            return f"{who}'s decision time ran out: a bot takes the seat."
        return f"{who}'s decision time ran out: a random action is played."
    if "table_abandoned" in body:
        abandoned: gw.TableAbandoned = body["table_abandoned"]
        waited = duration_text(abandoned.idle_seconds)
        if abandoned.reason == gw.TableAbandoned.REASON_NEVER_STARTED:
            return f"The table is closed: nobody started it in the {waited} since it was opened."
        return f"The table is ended: nobody played for {waited}. Nobody wins, and it is not rated."
    if "game_finished" in body:
        finished: gw.GameFinished = body["game_finished"]
        return f"Game over: {outcome_text(finished.outcome, names)}. The seed is revealed: {finished.seed_reveal.seed}."
    return ""


def duration_text(seconds: int) -> str:
    """45 -> "45 seconds", 600 -> "10 minutes", 86400 -> "24 hours"."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= 2 * size:
            return f"{seconds // size} {unit}s"
    return f"{seconds} second{'' if seconds == 1 else 's'}"


def outcome_text(outcome: rules_pb2.GameOutcome, names: dict[int, str]) -> str:
    """The game's summary of its outcome, with names, each seat's marked "(you)" to its
    reader (a choice, made as the event is sent); who won when it does not say."""
    summary = with_names_marked(outcome.summary, names)
    if summary:
        return summary
    winners = [
        with_names_marked(f"seat {seat}", names) if seat in names else seat_label(seat) for seat in outcome.winners
    ]
    return f"{' and '.join(winners)} won" if winners else "nobody won"

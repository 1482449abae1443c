"""The text of each TableEvent (``TableEvent.text``), made once when the event is logged:
a game event's is the game's own words for that viewer (the rules service's, from that
viewer's projection) with the seats' names written in; the platform's events are told
here. Every viewer and every client then reads the same sentence, and replays keep it."""

from common.names import seat_names, with_names
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2


def names(table: gw.Table) -> dict[int, str]:
    """The seats' names as the text uses them (a bot by its name and level)."""
    return seat_names(table.seats)


def game_text(text: str, names: dict[int, str]) -> str:
    """A game's words for one viewer, "seat N" replaced by the seat's name."""
    return with_names(text, names)


def platform_text(names: dict[int, str], **body) -> str:
    """A platform event (the body of a TableEvent other than a game event) in words."""
    if "seat_taken" in body:
        taken: gw.SeatTaken = body["seat_taken"]
        return f"{names.get(taken.seat, taken.display_name)} sits down."
    if "table_started" in body:
        started: gw.TableStarted = body["table_started"]
        commitment = started.seed_commitment.hex()
        return f"The game begins. Seed commitment (SHA-256): {commitment}." if commitment else "The game begins."
    if "decision_expired" in body:
        expired: gw.DecisionExpired = body["decision_expired"]
        who = names.get(expired.seat, f"seat {expired.seat}")
        if expired.policy == gw.TIMEOUT_POLICY_BOT_TAKES_SEAT:
            return f"{who}'s decision time ran out: a bot takes the seat."
        return f"{who}'s decision time ran out: a random action is played."
    if "game_finished" in body:
        finished: gw.GameFinished = body["game_finished"]
        return f"Game over: {outcome_text(finished.outcome, names)}. The seed is revealed: {finished.seed_reveal.seed}."
    return ""


def outcome_text(outcome: rules_pb2.GameOutcome, names: dict[int, str]) -> str:
    """The game's summary of its outcome, with names; who won when it does not say."""
    summary = with_names(outcome.summary, names)
    if summary:
        return summary
    winners = [names.get(seat, f"seat {seat}") for seat in outcome.winners]
    return f"{' and '.join(winners)} won" if winners else "nobody won"

"""The text of each TableEvent (``TableEvent.text``), told from phrases and catalogs: the
gateway holds no game's code and no game's words of its own.

A game event's words are the phrase the rules service made from that viewer's projection
(``tavola.rules.v1.Phrase``), which the log keeps; they are told when the event is read, in
the reader's language, from the catalogs the game's rules service serves with DescribeGame
(``learn``), with the names the seats had when it was logged. The platform's events are
told from the platform's catalog (``common/catalog``) as they are logged (a few a game); the
game's end writes each seat of its outcome as a choice, so that its reader reads "Ada
(you)". Every client reads the same sentence, and replays keep it.
"""

from collections.abc import Mapping, Sequence

import structlog
from babel.units import format_unit
from google.protobuf.message import DecodeError

from common import help
from common.names import for_viewer, in_text, seat_label, seat_names, with_names_marked
from common.phrase_wire import from_proto
from common.phrases import FALLBACK, Catalogs, Phrase, Seat, Teller, as_seats, items, language_of, phrase
from gateway.locale import READER
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2

log = structlog.get_logger()
_TYPE_PREFIX = "type.googleapis.com/"

# Each game's catalogs, by the full name of its Event message (GameDescription.event_type).
_catalogs: dict[str, Catalogs] = {}
_tellers: dict[tuple[str, str], Teller] = {}
_unknown: set[str] = set()  # the event types told without a catalog, once logged
_event_types: dict[str, str] = {}  # each game's event type, by its game id


def learn(description: rules_pb2.GameDescription, catalogs) -> None:
    """A game's catalogs (DescribeGameResponse.catalogs), as its rules service served them."""
    if not description.event_type:
        return
    _catalogs[description.event_type] = Catalogs.from_po_texts((c.locale, c.po) for c in catalogs)
    _event_types[description.game_id] = description.event_type
    _unknown.discard(_TYPE_PREFIX + description.event_type)
    for key in [key for key in _tellers if key[0] == description.event_type]:
        del _tellers[key]


def teller(type_url: str, locale: str = FALLBACK) -> Teller | None:
    """How the game whose events have ``type_url`` is told in ``locale``; None: the gateway
    has not learned its catalogs (its rules service has not answered DescribeGame yet)."""
    event_type = type_url.rpartition("/")[2]
    found = _tellers.get((event_type, locale))
    if found is None:
        catalogs = _catalogs.get(event_type)
        if catalogs is None:
            return None
        found = _tellers[(event_type, locale)] = Teller(locale, catalogs)
    return found


def help_entries(description: rules_pb2.GameDescription, locale: str | None = None) -> list[tuple[str, str]]:
    """A game's help (``common.help``), told in ``locale`` (else the reader's); none for a
    game whose catalogs the gateway has not learned."""
    catalogs = _catalogs.get(description.event_type)
    return help.help_entries(catalogs, locale or READER.get()) if catalogs is not None else []


def described(description: rules_pb2.GameDescription) -> rules_pb2.GameDescription:
    """A game's description in the reader's language: its summary ("game.summary"), and each
    option's label ("option.<name>") and description ("option.<name>.about") from the game's
    catalog, where it has them; as the rules service described it otherwise."""
    say = teller(description.event_type, READER.get())
    if say is None:
        return description
    told = rules_pb2.GameDescription()
    told.CopyFrom(description)
    told.summary = say.message("game.summary") or description.summary
    for option in told.options:
        option.label = say.message(f"option.{option.name}") or ""
        option.description = say.message(f"option.{option.name}.about") or option.description
    return told


def platform_teller(locale: str = FALLBACK) -> Teller:
    found = _tellers.get(("", locale))
    if found is None:
        found = _tellers[("", locale)] = Teller(locale)
    return found


def read_phrase(data: bytes) -> Phrase | None:
    try:
        return from_proto(rules_pb2.Phrase.FromString(data))
    except DecodeError:
        log.warning("phrase_unreadable")
        return None


def seats_in(said: Phrase) -> set[int]:
    """Every seat a phrase names, at any depth: the viewers who read it their own way."""
    found: set[int] = set()
    stack: list = list(said.args)
    while stack:
        arg = stack.pop()
        if isinstance(arg, Seat):
            found.add(arg.number)
        elif isinstance(arg, Phrase):
            stack.extend(arg.args)
        elif hasattr(arg, "values"):
            stack.extend(arg.values)
    return found


def tell(type_url: str, said: Phrase, names: Mapping[int, str], viewer: int | None, locale: str | None = None) -> str:
    """A game's phrase in words as ``viewer`` reads it, in ``locale`` (else the reader's,
    gateway/locale.py); "" for a game whose catalogs the gateway has not learned, or words
    that cannot be told (logged)."""
    found = teller(type_url, locale or READER.get())
    if found is None:
        if type_url not in _unknown:  # said once: an offline reader (the export) has none
            _unknown.add(type_url)
            log.warning("no_catalog", type_url=type_url)
        return ""
    try:
        return found.tell(said, names, viewer)
    except Exception:  # a damaged entry: the event goes without text
        log.exception("event_text_failed", type_url=type_url)
        return ""


def label_phrases_wanted() -> bool:
    """Whether the reader's labels are told from their phrases: a reader of another
    language than English; an English reader's views are asked without them (half the bytes)."""
    return language_of(READER.get()) != FALLBACK


def labels_told(game_id: str, legal: Sequence[bytes], phrased: bool = True) -> Sequence[bytes]:
    """A view's legal actions (serialized LegalActions) with each ``label`` told from its
    ``label_phrase`` in the reader's language (gateway/locale.py), seats written "seat N"
    as in the English label; as they are for English, or a game without phrases. No
    client reads the phrase: it is sent no further. ``phrased``: the actions may carry
    phrases (False: they were asked without, and go as they are)."""
    if not phrased or not legal:
        return legal
    locale = READER.get()
    event_type = _event_types.get(game_id)
    found = teller(event_type, locale) if event_type and language_of(locale) != FALLBACK else None
    told = []
    for data in legal:
        item = rules_pb2.LegalAction.FromString(data)
        if item.HasField("label_phrase"):
            if found is not None:
                try:
                    item.label = found.tell(from_proto(item.label_phrase), as_seats())
                except Exception:  # a damaged phrase: the English label stays
                    log.exception("label_text_failed", game_id=game_id)
            item.ClearField("label_phrase")
            data = item.SerializeToString()
        told.append(data)
    return told


def names_list(table: gw.Table) -> list[str]:
    """The seats' names in seat order, as the log keeps them for its readers."""
    named = seat_names(table.seats)
    return [named[seat.seat] for seat in table.seats]


def names(table: gw.Table) -> dict[int, str]:
    """The seats' names as the text uses them (a bot by its name and level)."""
    return seat_names(table.seats)


def platform_read(
    event: gw.TableEvent, names: Sequence[tuple[int, Sequence[str]]], seq: int, viewer: int | None
) -> str:
    """A logged platform event's words as ``viewer`` reads them: told again in the reader's
    language (gateway/locale.py) when it is not English, as it was logged otherwise; each
    seat named as it was when the event was logged (``names``: TableRecord.seat_names), else
    as the game began, and "(you)" marked for the reader's own seat. The game's end names
    its winners there (the game's own words of why are its last event: the rules service
    sums the outcome up in English only)."""
    text = event.text
    body = event.WhichOneof("body")
    locale = READER.get()
    if body and language_of(locale) != FALLBACK:
        named = [list(listed) for from_seq, listed in names if from_seq <= seq] or [
            list(listed) for _, listed in names[:1]
        ]
        seats = dict(enumerate(named[-1])) if named else {}
        if body == "game_finished":
            finished = event.game_finished
            winners = [Seat(seat) for seat in finished.outcome.winners]
            said = phrase("platform.won", items(winners)) if winners else phrase("platform.nobody-won")
            said = phrase("platform.finished", said, str(finished.seed_reveal.seed))
            return platform_teller(locale).tell(said, seats, viewer, marked=True)
        text = platform_text(seats, locale, **{body: getattr(event, body)}) or text
    return for_viewer(text, viewer) if "{" in text else text


def platform_text(names: dict[int, str], locale: str = FALLBACK, **body) -> str:
    """A platform event (the body of a TableEvent other than a game event) in words, from
    the platform's catalog, in ``locale`` (English as it is logged); each name written in as
    ``in_text`` writes it, so that it never makes a choice."""
    say = platform_teller(locale)
    if "seat_taken" in body:
        taken: gw.SeatTaken = body["seat_taken"]
        who = in_text(names.get(taken.seat, taken.display_name))
        return say.tell(phrase("platform.seat-taken", who), {})
    if "table_started" in body:
        started: gw.TableStarted = body["table_started"]
        commitment = started.seed_commitment.hex()
        if commitment:
            return say.tell(phrase("platform.started.commitment", commitment), {})
        return say.tell(phrase("platform.started"), {})
    if "decision_expired" in body:
        expired: gw.DecisionExpired = body["decision_expired"]
        who = in_text(names.get(expired.seat, seat_label(expired.seat)))
        bot = expired.policy == gw.TIMEOUT_POLICY_BOT_TAKES_SEAT
        return say.tell(phrase("platform.expired.bot" if bot else "platform.expired.random", who), {})
    if "table_abandoned" in body:
        abandoned: gw.TableAbandoned = body["table_abandoned"]
        waited = duration_text(abandoned.idle_seconds, locale)
        never = abandoned.reason == gw.TableAbandoned.REASON_NEVER_STARTED
        return say.tell(phrase("platform.abandoned.never-started" if never else "platform.abandoned.idle", waited), {})
    if "game_finished" in body:
        finished: gw.GameFinished = body["game_finished"]
        outcome = outcome_text(finished.outcome, names)
        return say.tell(phrase("platform.finished", outcome, str(finished.seed_reveal.seed)), {})
    return ""


def duration_text(seconds: int, locale: str = FALLBACK) -> str:
    """45 -> "45 seconds", 600 -> "10 minutes", 86400 -> "24 hours" (other languages as
    CLDR writes the unit: "24 Stunden", "24 ore")."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= 2 * size and language_of(locale) != FALLBACK:
            return format_unit(seconds // size, f"duration-{unit}", length="long", locale=locale)
    if language_of(locale) != FALLBACK:
        return format_unit(seconds, "duration-second", length="long", locale=locale)
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
    say = platform_teller()
    return (
        say.tell(phrase("platform.won", " and ".join(winners)), {})
        if winners
        else say.tell(phrase("platform.nobody-won"), {})
    )

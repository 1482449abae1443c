"""What a quick-play search asks for and holds: its ticket, the pool it waits in, the
settings that match it, and the seat released when its searcher is not told."""

import hashlib
import json
from collections.abc import Mapping, Set
from dataclasses import dataclass

from common import ratings, settings
from common.errors import invalid
from gateway.limits import MAX_ID, MAX_OPTION_VALUE, MAX_OPTIONS
from gateway.players import text
from gateway.rules import RulesDirectory
from tavola.gateway.v1 import players_pb2 as pl
from tavola.rules.v1 import rules_pb2

MAX_PLAYERS = 8


@dataclass(frozen=True)
class Release:
    """A seat to give to a bot: the player's at the table (quick play's untold seat)."""

    table_id: str
    player_id: str
    game_id: str
    rating: float
    since: float
    # Its member of the releases set, as written ("table|player|game|rating|since").
    entry: str

    @classmethod
    def of(cls, table_id: str, player_id: str, game_id: str, rating: float, since: float) -> "Release":
        return cls(table_id, player_id, game_id, rating, since, f"{table_id}|{player_id}|{game_id}|{rating}|{since}")

    @classmethod
    def parse(cls, entry: object) -> "Release":
        table_id, player_id, game_id, rating, since = text(entry).split("|")
        return cls(table_id, player_id, game_id, float(rating), float(since), text(entry))


# Quick play fills seats with the search bot's levels (its spec's presets, as the gateway's
# bot catalog holds them: the gateway loads no bot code), each a rated player
# (``bot:ismcts:level=N``); until one has played a rated game, with level 4, a middle level
# and a cheap one (16 paired rounds a searched decision, a quarter of them played at random).
SEARCH_BOT = "ismcts"
DEFAULT_FILL = "ismcts:level=4"


@dataclass(frozen=True)
class Settings:
    bot_fill_seconds: float = 20.0
    timeout_seconds: float = 120.0
    # The rating window either side of a searcher's rating: base, widened per second waited.
    window_base: float = 100.0
    window_per_second: float = 50.0
    # A decision timer for quick-play tables: a silent seat is taken over by a bot.
    decision_seconds: int = 120
    # The bots that may fill seats (those the gateway accepts for the game count): the search
    # bot's levels when empty; when the gateway accepts none of them, every bot it accepts.
    fill_bots: tuple[str, ...] = ()
    # The one that fills seats while none of them has a rating at the game yet.
    fill_default: str = DEFAULT_FILL

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        return cls(
            bot_fill_seconds=settings.number("TAVOLA_QUICKPLAY_BOT_FILL_SECONDS", env),
            timeout_seconds=settings.number("TAVOLA_QUICKPLAY_TIMEOUT_SECONDS", env),
            window_base=settings.number("TAVOLA_QUICKPLAY_WINDOW", env),
            window_per_second=settings.number("TAVOLA_QUICKPLAY_WINDOW_PER_SECOND", env),
            decision_seconds=settings.integer("TAVOLA_QUICKPLAY_DECISION_SECONDS", env),
            fill_bots=tuple(b.strip() for b in settings.text("TAVOLA_QUICKPLAY_BOTS", env).split(";") if b.strip()),
            fill_default=settings.text("TAVOLA_QUICKPLAY_DEFAULT_BOT", env) or DEFAULT_FILL,
        )

    def window(self, waited: float) -> float:
        return self.window_base + self.window_per_second * max(waited, 0.0)


@dataclass
class Ticket:
    search_id: str
    player_id: str
    name: str
    rating: float
    low: int
    high: int
    since: float
    bot_fill: bool
    home: str
    # The player's record (rated games, of them finished) and the share it asks of others.
    games: int = 0
    finished: int = 0
    min_reputation: float = 0.0

    def accepts(self, other: "Ticket") -> bool:
        """Whether this searcher's min_reputation lets ``other`` sit with it."""
        return ratings.reputable(other.games, other.finished, self.min_reputation)

    @classmethod
    def of(cls, search_id: str, fields: dict) -> "Ticket | None":
        try:
            return cls(
                search_id,
                text(fields[b"player"]),
                text(fields[b"name"]),
                float(fields[b"rating"]),
                int(fields[b"low"]),
                int(fields[b"high"]),
                float(fields[b"since"]),
                fields[b"fill"] == b"1",
                text(fields[b"home"]),
                int(fields.get(b"rg", 0)),
                int(fields.get(b"rf", 0)),
                float(fields.get(b"minrep", 0.0)),
            )
        except KeyError:
            return None


def pooled_options(description: rules_pb2.GameDescription, options: dict[str, str]) -> dict[str, str]:
    """Every option of the game, as given or its default, in one spelling (booleans and
    integers as the rules service writes them), so searchers who mean the same table share a
    pool whether they send a default or leave it out. The rules service has accepted
    ``options`` already (an unknown name or a bad value was refused)."""
    pooled = {}
    for spec in description.options:
        value = options.get(spec.name, spec.default_value).strip()
        if spec.kind == rules_pb2.OPTION_KIND_BOOL:  # the spellings the engines accept
            value = "true" if value.lower() in ("true", "1", "yes", "on") else "false"
        elif spec.kind == rules_pb2.OPTION_KIND_INT:
            value = str(int(value))
        pooled[spec.name] = value
    return pooled


def pool_of(game_id: str, rated: bool, options: dict[str, str]) -> str:
    spec = json.dumps([game_id, rated, sorted(options.items())], separators=(",", ":"))
    return hashlib.sha256(spec.encode()).hexdigest()[:24]


async def requested_counts(request: pl.FindGameRequest, rules: RulesDirectory) -> tuple[int, int]:
    """The request's player counts, after the rules service has accepted the game,
    the options and both counts (and its min_reputation checked)."""
    if not 0.0 <= request.min_reputation <= 1.0:  # NaN too
        raise invalid("BAD_MIN_REPUTATION", "min_reputation is a share, from 0 to 1")
    if not request.game_id or len(request.game_id) > MAX_ID:
        raise invalid("UNKNOWN_GAME", f"a game_id has 1 to {MAX_ID} characters")
    if len(request.options) > MAX_OPTIONS or any(
        len(name) > MAX_ID or len(value) > MAX_OPTION_VALUE for name, value in request.options.items()
    ):
        raise invalid("BAD_OPTION", f"at most {MAX_OPTIONS} options of {MAX_ID}/{MAX_OPTION_VALUE} characters")
    low = request.min_players
    high = request.max_players or low
    if not 2 <= low <= high <= MAX_PLAYERS:
        raise invalid("BAD_PLAYER_COUNT", f"min_players 2 to {MAX_PLAYERS}, max_players 0 or at least min_players")
    for count in sorted({low, high}):
        await rules.call(
            request.game_id,
            "NewGame",
            rules_pb2.NewGameRequest(player_count=count, options=dict(request.options), seed=1),
        )
    return low, high


def group_for(
    anchor: Ticket,
    tickets: list[Ticket],
    now: float,
    settings: Settings,
    blocked: Set[frozenset[str]] = frozenset(),
) -> tuple[list[Ticket], int] | None:
    """The anchor's table: its people and its player count, or None (wait on)."""
    window = settings.window(now - anchor.since)
    near = sorted(
        (t for t in tickets if t is not anchor and abs(t.rating - anchor.rating) <= window),
        key=lambda t: abs(t.rating - anchor.rating),
    )
    group, low, high = [anchor], anchor.low, anchor.high
    for other in near:
        new_low, new_high = max(low, other.low), min(high, other.high)
        if new_low > new_high or len(group) >= new_high:
            continue
        if any(frozenset((member.player_id, other.player_id)) in blocked for member in group):
            continue  # one of them blocked the other (gateway/social.py)
        if not all(member.accepts(other) and other.accepts(member) for member in group):
            continue  # a record below what one of them asks (FindGameRequest.min_reputation)
        group.append(other)
        low, high = new_low, new_high
    if len(group) >= low:
        return group[:high], min(len(group), high)
    if anchor.bot_fill and now - anchor.since >= settings.bot_fill_seconds:
        return group, low
    return None

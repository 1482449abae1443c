"""Ratings: what the gateway (which reads them and queues updates) and the rating task
(which writes them) share: the Redis layout, the scale, the finishing order of a table and
the one script that applies an update.

Skill is OpenSkill's Weng-Lin model with Plackett-Luce (the ``openskill`` package): every
player has a mean ``mu`` and an uncertainty ``sigma`` per game, and a free-for-all result
of 2 to 7 seats updates everyone at once. Shown on a scale where a new player has 1500
(``mu`` and ``sigma`` times 60); leaderboards sort by the conservative rating,
``rating - 3 * uncertainty``.

Every key lives under one hash tag, ``<prefix>:{ratings}:...``, so the update script may
touch all of them on a Redis Cluster:

- ``jobs`` (hash: table id -> RatingJob) and ``pending`` (sorted set: table id -> when
  to send its task again): the finished rated tables whose update is not applied yet;
- ``done:<table id>``: the table's update was applied (kept 30 days);
- ``p:<game>:<player>`` (hash: mu, sigma, games, wins, q, v, d): a player's rating; ``q``
  counts its qualifying games (below); ``v`` counts its updates, the compare-and-set
  version of the script; ``d``, for a bot, the
  digest of the settings its rating was earned with (``services.bot_specs.settings_digest``):
  when the bot's settings change (a level's preset moves), its rating starts again;
- ``board:<game>`` (sorted set: player -> conservative rating): the leaderboard, holding
  every rated player and bot; a provisional one's score is ``PROVISIONAL_BELOW`` lower, so
  that they are listed (and marked, when it is read) below every established one;
- ``recent:<player>`` (list of JSON): the player's latest rated tables;
  ``games:<player>`` (set): the games the player has a rating at;
- ``bots:<game>`` (set): the bot settings rated at the game, for ListBots.

Rated play is open to anyone who makes players, so one player could beat many fresh
accounts of its own. Two rules keep that cheap farm off the leaderboard:

- a player is *established* at a game after ``provisional_games()`` qualifying games: games
  with at least one opponent that counts fully for it (``counts_fully``: an established
  opponent, or, for a bot, another bot: bots play the platform's code, which no account
  steers, so their games among themselves root the rest). The leaderboard lists the others
  too, marked provisional, below every established player: a farm never tops it;
- a result moves a rating by its full OpenSkill update only against opponents that count
  fully; against the others (provisional players) its mean moves by ``PROVISIONAL_WEIGHT``
  of the update and its uncertainty not at all (``shares``, ``damped``). So beating fresh
  accounts moves a rating little, and however many of them a player beats, it is never
  established by them.
"""

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from common import settings
from tavola.gateway.v1 import gateway_pb2 as gw

RATINGS_QUEUE = "ratings"
RATING_TASK = "tavola.ratings.update"  # (table_id,): apply a finished rated table's result
SCALE = 60.0
DEFAULT_MU = 25.0
DEFAULT_SIGMA = DEFAULT_MU / 3
RECENT_KEPT = 50
DONE_TTL_SECONDS = 30 * 24 * 3600
BOT_PREFIX = "bot:"
# The share of its full update a result moves a rating by against opponents that do not
# count fully (provisional players): a tenth, so a win over a fresh account is worth a
# tenth of one over an established player of the same rating.
PROVISIONAL_WEIGHT = 0.1
# How much lower a provisional player's leaderboard score is than its conservative rating:
# more than any rating spans, so the board lists them after every established player.
PROVISIONAL_BELOW = 1_000_000.0


def provisional_games() -> int:
    """Qualifying games a player plays before it is established, and on the leaderboard
    (TAVOLA_PROVISIONAL_GAMES)."""
    return settings.integer("TAVOLA_PROVISIONAL_GAMES")


def is_bot(player_id: str) -> bool:
    return player_id.startswith(BOT_PREFIX)


def counts_fully(player_id: str, opponent_id: str, opponent_established: bool) -> bool:
    """Whether a result against ``opponent_id`` moves ``player_id``'s rating in full and
    counts toward its establishment: an established opponent, or a bot for a bot."""
    return opponent_established or (is_bot(player_id) and is_bot(opponent_id))


@dataclass(frozen=True)
class Share:
    """How much of its OpenSkill update one player's rating takes at a table."""

    mean: float  # the share of the change of its mean
    certainty: float  # the share of the change of its variance: its opponents counting fully

    @property
    def qualifies(self) -> bool:
        """Whether the game counts toward the player's establishment."""
        return self.certainty > 0


def shares(player_ids: Sequence[str], established: Sequence[bool]) -> list[Share]:
    """Each player's share of its update at one rated table. For the mean, each opponent
    weighs 1 when it counts fully, else PROVISIONAL_WEIGHT, and the share is their mean;
    for the variance, only opponents that count fully weigh: games against provisional
    players make nobody's rating surer (else a farm's many games would narrow its
    uncertainty, raising its conservative rating, win or lose)."""
    result = []
    for index, player_id in enumerate(player_ids):
        full = [
            counts_fully(player_id, other, established[other_index])
            for other_index, other in enumerate(player_ids)
            if other_index != index
        ]
        if not full:
            result.append(Share(1.0, 0.0))
            continue
        mean = sum(1.0 if each else PROVISIONAL_WEIGHT for each in full) / len(full)
        result.append(Share(mean, sum(full) / len(full)))
    return result


def damped(mu: float, sigma: float, new_mu: float, new_sigma: float, share: Share) -> tuple[float, float]:
    """``share`` of an update from (mu, sigma) to (new_mu, new_sigma): the mean moves by
    its ``mean`` share of the change, the variance by its ``certainty`` share."""
    variance = (1 - share.certainty) * sigma**2 + share.certainty * new_sigma**2
    return mu + share.mean * (new_mu - mu), math.sqrt(variance)


class Keys:
    def __init__(self, key_prefix: str):
        self.base = f"{key_prefix}:{{ratings}}"
        self.jobs = f"{self.base}:jobs"
        self.pending = f"{self.base}:pending"

    def done(self, table_id: str) -> str:
        return f"{self.base}:done:{table_id}"

    def rating(self, game_id: str, player_id: str) -> str:
        return f"{self.base}:p:{game_id}:{player_id}"

    def board(self, game_id: str) -> str:
        return f"{self.base}:board:{game_id}"

    def recent(self, player_id: str) -> str:
        return f"{self.base}:recent:{player_id}"

    def games(self, player_id: str) -> str:
        return f"{self.base}:games:{player_id}"

    def bots(self, game_id: str) -> str:
        """The bot settings rated at a game (a set of bot strings)."""
        return f"{self.base}:bots:{game_id}"


def participant(seat: gw.Seat) -> str | None:
    """Who a seat's result belongs to: its player (even when a bot took the seat over, so a
    player who left keeps the loss), else its bot's own player, else nobody (a guest)."""
    if seat.player_id:
        return seat.player_id
    if seat.kind == gw.SEAT_KIND_BOT and seat.bot:
        return f"{BOT_PREFIX}{seat.bot}"
    return None


def left_early(seat: gw.Seat) -> bool:
    """A player's seat that a bot took over before the end (after a timeout, or after timing
    out repeatedly): its player left the game, and is scored last."""
    return seat.kind == gw.SEAT_KIND_BOT and bool(seat.player_id)


def places(table: gw.Table) -> list[int]:
    """Each seat's place, 1 for the best: the winners first, then by score where the game
    keeps one; seats level on both share a place. Nobody winning and no scores: all tied.
    A seat whose player left early comes after all the others, whatever its bot made of it
    (the quitters share the last place)."""
    outcome = table.outcome
    winners = set(outcome.winners)
    scores = list(outcome.scores) if len(outcome.scores) == len(table.seats) else [0] * len(table.seats)
    keys = [
        (True, True, 0) if left_early(table.seats[seat]) else (False, seat not in winners, -scores[seat])
        for seat in range(len(table.seats))
    ]
    order = sorted(set(keys))
    return [order.index(key) + 1 for key in keys]


@dataclass(frozen=True)
class Standing:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    games: int = 0
    wins: int = 0
    version: int = 0
    settings: str = ""  # a bot's settings digest; "" for a person
    qualified: int = 0  # qualifying games (a rating written before they were counted: 0)
    left: int = 0  # games left to a bot before their end

    @classmethod
    def of(cls, fields: list) -> "Standing":
        """From HMGET mu sigma games wins v d q l (all None for a new player)."""
        mu, sigma, games, wins, version, settings, qualified, left = fields
        if mu is None:
            return cls(version=int(version or 0), settings=_text(settings))
        return cls(
            float(mu),
            float(sigma),
            int(games or 0),
            int(wins or 0),
            int(version or 0),
            _text(settings),
            int(qualified or 0),
            int(left or 0),
        )

    def restarted(self, settings: str) -> "Standing":
        """A new player's standing for new settings, keeping the version (the script's
        compare-and-set counts on, never back)."""
        return Standing(version=self.version, settings=settings)

    @property
    def established(self) -> bool:
        return self.qualified >= provisional_games()

    @property
    def rating(self) -> float:
        return self.mu * SCALE

    @property
    def uncertainty(self) -> float:
        return self.sigma * SCALE

    @property
    def conservative(self) -> float:
        return (self.mu - 3 * self.sigma) * SCALE


def strength_hint(rating: float, uncertainty: float) -> int:
    """0 to 100: the chance in percent, by the Plackett-Luce model's curve (openskill's beta,
    half the default sigma), that a player at ``rating`` +- ``uncertainty`` beats
    a settled player rated at a new player's 1500 head to head."""
    beta = DEFAULT_SIGMA / 2
    width = SCALE * math.sqrt((uncertainty / SCALE) ** 2 + 2 * beta**2)
    return round(100 / (1 + math.exp(-(rating - DEFAULT_MU * SCALE) / width)))


def _text(value: bytes | str | None) -> str:
    return value.decode() if isinstance(value, bytes) else value or ""


FIELDS = ["mu", "sigma", "games", "wins", "v", "d", "q", "l"]

# A player with fewer rated games than this has no record of finishing yet: their reputation
# counts as whole (quick play's min_reputation lets them through).
REPUTATION_GAMES = 5


def reputation(standings: list["Standing"]) -> tuple[int, int]:
    """(rated games, of them finished) over a player's standings at every game."""
    games = sum(standing.games for standing in standings)
    return games, games - sum(standing.left for standing in standings)


def reputable(games: int, finished: int, wanted: float) -> bool:
    """Whether a player with this record meets a searcher's ``min_reputation``."""
    return wanted <= 0 or games < REPUTATION_GAMES or finished >= wanted * games


# KEYS: done, jobs, pending, board, then per participant its rating, recent and games keys.
# ARGV: table id, done TTL, provisional games, game id, recent kept, then per participant:
# player id, expected version, mu, sigma, won (0/1), recent entry, conservative rating,
# settings digest ("" for a person), restart (1: a bot whose settings changed: its games,
# wins and qualifying games start again, provisional anew), qualifying (1: the game counts
# toward establishment), left (1: the player left the game to a bot before its end: counted
# in 'l', and never a win). The leaderboard holds every rated player from its first rated
# game on, a provisional one PROVISIONAL_BELOW lower. Returns 1 applied, 0 applied
# before (the job is cleared), -1 a rating moved since it was read (nothing written: read
# again and recompute).
APPLY_SCRIPT = f"""
local per = 11
local count = (#ARGV - 5) / per
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return 0
end
for i = 0, count - 1 do
  local version = redis.call('HGET', KEYS[5 + 3 * i], 'v') or '0'
  if version ~= ARGV[7 + per * i] then return -1 end
end
local provisional = tonumber(ARGV[3])
for i = 0, count - 1 do
  local a = 6 + per * i
  local rating = KEYS[5 + 3 * i]
  if ARGV[a + 8] == '1' then
    redis.call('HSET', rating, 'games', 0, 'wins', 0, 'q', 0, 'l', 0)
  end
  if ARGV[a + 7] ~= '' then redis.call('HSET', rating, 'd', ARGV[a + 7]) end
  redis.call('HSET', rating, 'mu', ARGV[a + 2], 'sigma', ARGV[a + 3])
  redis.call('HINCRBY', rating, 'games', 1)
  local qualified = redis.call('HINCRBY', rating, 'q', tonumber(ARGV[a + 9]))
  redis.call('HINCRBY', rating, 'wins', tonumber(ARGV[a + 4]))
  redis.call('HINCRBY', rating, 'l', tonumber(ARGV[a + 10]))
  redis.call('HINCRBY', rating, 'v', 1)
  redis.call('LPUSH', KEYS[6 + 3 * i], ARGV[a + 5])
  redis.call('LTRIM', KEYS[6 + 3 * i], 0, tonumber(ARGV[5]) - 1)
  redis.call('SADD', KEYS[7 + 3 * i], ARGV[4])
  local score = tonumber(ARGV[a + 6])
  if qualified < provisional then score = score - {PROVISIONAL_BELOW!r} end
  redis.call('ZADD', KEYS[4], score, ARGV[a])
end
redis.call('SET', KEYS[1], '1', 'EX', tonumber(ARGV[2]))
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
"""


# A bot's rating earned with other settings starts again, before any table needs it (the
# rating worker runs it at its start for every rated bot). KEYS: the rating, the board.
# ARGV: the bot's player id, its settings digest now, the mu and sigma it starts from (a new
# player's, or its settings' calibration: ``starting``), its board score. Returns 1
# restarted (back on the board as a new, provisional player), 0 current or no rating.
RESTART_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], 'd') == ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'mu', ARGV[3], 'sigma', ARGV[4], 'games', 0, 'wins', 0, 'q', 0, 'd', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
return 1
"""


def starting(calibrated: tuple[float, float] | None = None) -> Standing:
    """Where a rating starts: a new player's, or, for a bot setting calibrated offline (its
    (rating, uncertainty) on this scale: bots/lab/calibrate.py), there."""
    if calibrated is None:
        return Standing()
    rating, uncertainty = calibrated
    return Standing(mu=rating / SCALE, sigma=uncertainty / SCALE)


def restart_args(player_id: str, settings: str, start: Standing) -> list[object]:
    """RESTART_SCRIPT's ARGV for a bot starting again from ``start``."""
    return [player_id, settings, repr(start.mu), repr(start.sigma), repr(start.conservative - PROVISIONAL_BELOW)]


def recent_entry(table: gw.Table, place: int, change: float, finish_ns: int) -> str:
    return json.dumps(
        {"t": table.table_id, "g": table.game_id, "p": place, "n": len(table.seats), "d": change, "f": finish_ns},
        separators=(",", ":"),
    )

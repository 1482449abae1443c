"""The rating task: apply one finished rated table's result to its players' ratings,
exactly once.

The gateway writes the table's RatingJob to Redis when the game ends and sends this task
(common/ratings.py has the layout). The task checks the job (a rated table, never in replay
mode, finished, and its revealed seed opening its commitment), reads the players' ratings,
computes the new ones with OpenSkill's Plackett-Luce model, each taken by its share against
provisional opponents (``bots.worker.rating_model.rate_table``, the rule in common/ratings.py), and
writes them with one Lua script, which also marks the table done and clears its job. So:

- a worker killed (even kill -9) before the script ran wrote nothing: the job is still
  pending, and the gateway's rating sweep sends the task again;
- killed after it: the script has run whole, and a task sent again finds the table done
  and writes nothing;
- two tables sharing a player, updated at once: the script compares each rating's version
  with the one read, and the loser reads again and recomputes, so no update is lost.

A bot's rating belongs to its settings, not its string: ``ismcts:level=4`` stands for other
options when its level's preset moves. Each bot's rating keeps the digest of the settings it
was earned with; one earned with other settings starts again, as a new player's, at the
bot's next rated table, and at the start of every worker that applies ratings
(``restart_stale_bots``), so neither quick play nor ``ListBots`` goes on using it.

A bot setting calibrated offline (a level of ``ismcts`` whose settings are the ones its
game's calibration measured: ``services.bot_specs.calibration``) starts there, its rating and
uncertainty the calibration's, rather than where a new player does: at its first rated game
and whenever its rating starts again.
"""

import dataclasses
import time

import structlog
from openskill.models import PlackettLuce

from bots.worker.app import app
from bots.worker.rating_model import rate_table
from common import ratings
from common.commitment import commitment
from common.redis_client import connect
from common.settings import number, text
from services import bot_specs
from services.registry import game_ids
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import ratings_pb2

log = structlog.get_logger()

MAX_ATTEMPTS = 50
_model = PlackettLuce()
_clients: dict[str, object] = {}
_scripts: dict[tuple[int, str], object] = {}


def redis_client():
    url = text("REDIS_URL")
    if url not in _clients:
        _clients[url] = connect(url)
    return _clients[url]


def rating_keys() -> ratings.Keys:
    return ratings.Keys(text("TAVOLA_KEY_PREFIX"))


def _script(redis, source: str):
    """A script run by its SHA (EVALSHA), loaded once per client."""
    script = _scripts.get((id(redis), source))
    if script is None:
        script = _scripts[(id(redis), source)] = redis.register_script(source)
    return script


def settings_of(bot: str, game_id: str) -> str:
    """The digest of a bot's settings at a game; "" for a bot this worker does not know (its
    rating is then kept as it is)."""
    try:
        return bot_specs.settings_digest(bot, game_id)
    except bot_specs.BotError:
        return ""


def start_of(who: str, game_id: str) -> ratings.Standing:
    """Where a participant's rating starts at ``game_id``: a calibrated bot setting at its
    calibration, anyone else where a new player does."""
    if not ratings.is_bot(who):
        return ratings.starting()
    found = bot_specs.calibration(who.removeprefix(ratings.BOT_PREFIX), game_id)
    return ratings.starting(None if found is None else (found.rating, found.uncertainty))


def started(who: str, game_id: str, standing: ratings.Standing) -> ratings.Standing:
    """The standing a table updates: a bot with no rated game yet (new, or started again)
    from its start (``start_of``); every other as read."""
    if standing.games or not ratings.is_bot(who):
        return standing
    start = start_of(who, game_id)
    return dataclasses.replace(standing, mu=start.mu, sigma=start.sigma)


def restart_stale_bots(redis, keys: ratings.Keys) -> list[tuple[str, str]]:
    """Starts again every rated bot's rating earned with settings other than the bot's now;
    returns (game, bot) of each one restarted."""
    restarted = []
    for game_id in game_ids():
        for raw in sorted(redis.smembers(keys.bots(game_id))):
            bot = raw.decode()
            settings = settings_of(bot, game_id)
            if not settings:
                continue
            who = ratings.BOT_PREFIX + bot
            script_keys = [keys.rating(game_id, who), keys.board(game_id)]
            args = ratings.restart_args(who, settings, start_of(who, game_id))
            if _script(redis, ratings.RESTART_SCRIPT)(keys=script_keys, args=args) == 1:
                log.warning("bot_rating_restarted", game=game_id, bot=bot, reason="its settings changed")
                restarted.append((game_id, bot))
    return restarted


def refusal(job: ratings_pb2.RatingJob) -> str | None:
    """Why the job's result must not count, or None."""
    table = job.table
    if not table.rated:
        return "not a rated table"
    if table.replay_mode:
        return "a table in replay mode"
    if table.status != gw.TABLE_STATUS_FINISHED:
        return "not finished"
    if commitment(job.seed, job.seed_salt) != table.seed_commitment:
        return "its revealed seed does not open its commitment"
    return None


def apply(redis, keys: ratings.Keys, table_id: str, pause_seconds: float = 0.0) -> str:
    """Applies the table's pending job; returns what happened (for the log and tests)."""
    data = redis.hget(keys.jobs, table_id)
    if data is None:
        return "no job"
    job = ratings_pb2.RatingJob.FromString(data)
    table = job.table
    reason = refusal(job)
    if reason is not None:
        log.error("rating_refused", table_id=table_id, reason=reason)
        redis.hdel(keys.jobs, table_id)
        redis.zrem(keys.pending, table_id)
        return "refused"
    seat_places = ratings.places(table)
    winners = set(table.outcome.winners)
    seen: dict[str, int] = {}
    for seat_summary in table.seats:
        who = ratings.participant(seat_summary)
        if who is not None:
            seen[who] = seen.get(who, 0) + 1
    # A participant at two seats (one bot spec twice) would play itself: those seats count
    # for nobody.
    rated = [
        (summary.seat, who)
        for summary in table.seats
        if (who := ratings.participant(summary)) is not None and seen[who] == 1
    ]
    if len(rated) < 2:
        rated = []
    finish_ns = table.update_time.ToNanoseconds() or time.time_ns()
    bots = [who[len(ratings.BOT_PREFIX) :] for _, who in rated if who.startswith(ratings.BOT_PREFIX)]
    if bots:  # listed before the update (a set: a task sent again adds nothing)
        redis.sadd(keys.bots(table.game_id), *bots)
    settings = [
        settings_of(who[len(ratings.BOT_PREFIX) :], table.game_id) if who.startswith(ratings.BOT_PREFIX) else ""
        for _, who in rated
    ]
    for _ in range(MAX_ATTEMPTS):
        with redis.pipeline(transaction=False) as pipe:
            for _, who in rated:
                pipe.hmget(keys.rating(table.game_id, who), ratings.FIELDS)
            read = [ratings.Standing.of(fields) for fields in pipe.execute()] if rated else []
        # A bot's rating earned with other settings counts as a new player's.
        restart = [bool(now) and standing.settings != now for standing, now in zip(read, settings, strict=True)]
        players = [who for _, who in rated]
        standings = [
            started(who, table.game_id, standing.restarted(now) if again else standing)
            for who, standing, now, again in zip(players, read, settings, restart, strict=True)
        ]
        new = rate_table(_model, players, standings, [seat_places[seat] for seat, _ in rated]) if rated else []
        script_keys = [keys.done(table_id), keys.jobs, keys.pending, keys.board(table.game_id)]
        args: list[object] = [table_id, ratings.DONE_TTL_SECONDS, ratings.provisional_games(), table.game_id]
        args.append(ratings.RECENT_KEPT)
        for (seat, who), old, (mu, sigma, qualifies), now, again in zip(
            rated, standings, new, settings, restart, strict=True
        ):
            updated = ratings.Standing(mu, sigma)
            script_keys += [keys.rating(table.game_id, who), keys.recent(who), keys.games(who)]
            change = round(updated.rating - old.rating, 1)
            entry = ratings.recent_entry(table, seat_places[seat], change, finish_ns)
            left = ratings.left_early(table.seats[seat])
            args += [who, old.version, repr(mu), repr(sigma), int(seat in winners and not left), entry]
            args += [repr(updated.conservative), now, int(again), int(qualifies), int(left)]
        if pause_seconds:  # tests: a window in which to kill the worker mid-update
            log.warning("rating_paused", table_id=table_id, seconds=pause_seconds)
            time.sleep(pause_seconds)
        result = _script(redis, ratings.APPLY_SCRIPT)(keys=script_keys, args=args)
        if result == 1:
            log.info("rating_applied", table_id=table_id, game=table.game_id, players=len(rated))
            return "applied"
        if result == 0:
            return "applied before"
    log.error("rating_contention", table_id=table_id)
    raise RuntimeError(f"the ratings of table {table_id} kept moving; the sweep sends it again")


@app.task(name=ratings.RATING_TASK, acks_late=True, ignore_result=True)
def update_ratings(table_id: str) -> str:
    pause = number("TAVOLA_RATING_PAUSE_SECONDS")
    return apply(redis_client(), rating_keys(), table_id, pause)

"""Which bot fills quick play's empty seats: the candidate whose rating at the game is
nearest the people's; and a released seat (an untold searcher's) given to it."""

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

import structlog

from common import ratings
from common.errors import ApiError, failed
from gateway.bots import BotCatalog
from gateway.matchmaking.scripts import RELEASE_PATIENCE_SECONDS
from gateway.matchmaking.tickets import SEARCH_BOT, Release, Settings
from gateway.ratings import Ratings

if TYPE_CHECKING:
    from gateway.matchmaking.matchmaker import Matchmaker

log = structlog.get_logger()


def accepted(bots_catalog: BotCatalog, game_id: str, bots: Iterable[str]) -> list[str]:
    """The canonical form of each of ``bots`` that the gateway accepts for ``game_id``."""
    accepted: list[str] = []
    for spec in bots:
        try:
            bot = bots_catalog.check(game_id, spec)
        except ApiError:
            continue
        if bot not in accepted:
            accepted.append(bot)
    return accepted


async def fill_bots(
    bots_catalog: BotCatalog, ratings_book: Ratings, quick: Settings, game_id: str, rating: float, count: int
) -> list[str]:
    """``count`` seats of the bot whose rating at ``game_id`` is nearest ``rating`` (the
    people's mean) among the candidates (TAVOLA_QUICKPLAY_BOTS, by default the search
    bot's levels) rated there; with none rated yet, the default one
    (TAVOLA_QUICKPLAY_DEFAULT_BOT, else the first candidate). When the gateway accepts
    no candidate for the game, every bot it accepts is one."""
    candidates = accepted(bots_catalog, game_id, quick.fill_bots or bots_catalog.preset_bots(SEARCH_BOT))
    if not candidates:
        candidates = accepted(bots_catalog, game_id, (b.name for b in bots_catalog.describe(game_id)))
    if not candidates:
        raise failed("NO_BOTS", f"no bot may fill a seat of {game_id}")
    standings = await ratings_book.standings(game_id, [ratings.BOT_PREFIX + bot for bot in candidates])
    rated = [(bot, standing) for bot, standing in zip(candidates, standings, strict=True) if standing.games]
    if rated:
        chosen = min(rated, key=lambda pair: abs(pair[1].rating - rating))[0]
    else:
        default = accepted(bots_catalog, game_id, [quick.fill_default])
        chosen = default[0] if default else candidates[0]
    return [chosen] * count


async def give_to_bot(matchmaker: "Matchmaker", release: Release) -> int:
    """Gives the released seat to a bot; drops the queued release once done, or once the
    table has not appeared in RELEASE_PATIENCE_SECONDS (else it is tried again)."""
    try:
        bot = (await matchmaker.fill_bots(release.game_id, release.rating, 1))[0]
        given = await matchmaker.core.release_seat(release.table_id, release.player_id, bot)
    except Exception as error:
        # Tried again once its lease lapses (a table not made yet, contention, Redis away).
        given_up = time.time() - release.since > RELEASE_PATIENCE_SECONDS
        reason = error.reason if isinstance(error, ApiError) else type(error).__name__
        if given_up:
            await matchmaker.redis.zrem(matchmaker.releases, release.entry)
        if given_up or reason != "TABLE_NOT_FOUND":
            log.error(
                "release_failed",
                table_id=release.table_id,
                player_id=release.player_id,
                reason=reason,
                given_up=given_up,
            )
        return 0
    await matchmaker.redis.zrem(matchmaker.releases, release.entry)
    if given:
        log.info("untold_seat_released", table_id=release.table_id, player_id=release.player_id, bot=bot)
    return int(given)

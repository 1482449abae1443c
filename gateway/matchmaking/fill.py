"""Which bot fills quick play's empty seats: the candidate whose rating at the game is
nearest the people's."""

from collections.abc import Iterable

from common import ratings
from common.errors import ApiError, failed
from gateway.bots import BotCatalog
from gateway.matchmaking.tickets import SEARCH_BOT, Settings
from gateway.ratings import Ratings


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

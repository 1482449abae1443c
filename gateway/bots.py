"""The bots a table may seat, learnt from the ``tavola.bots`` registry
(``services/bot_specs.py``), the same one workers and ``make run`` read: the bots' specs
alone, with none of their code (no search, no OpenSpiel) loaded into the gateway.

``TAVOLA_BOTS`` (optional) narrows the list: only the bots it names are accepted. A name
there that this gateway's registry does not know is a bot whose worker runs elsewhere
(its package is installed only on that worker): it is accepted by name, without options.

A bot whose worker runs elsewhere may also be declared: ``TAVOLA_BOT_SPECS`` names a JSON
file of declarations (``python -m services.bot_specs <bot>`` prints one from the bot's
package), each its name, games, options and strength, none of its code. A declared bot is
accepted with its options checked like a registered one's, and ListBots shows them.
"""

import json
from collections.abc import Sequence
from pathlib import Path

import grpc

from common import ratings
from common.errors import ApiError
from services import bot_specs
from tavola.gateway.v1 import gateway_pb2 as gw


def read_declarations(path: str | Path) -> tuple[bot_specs.BotSpec, ...]:
    """The bots declared in a TAVOLA_BOT_SPECS file (a JSON list); raises ValueError."""
    try:
        declared = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"TAVOLA_BOT_SPECS: {path} is not a readable JSON file ({error})") from None
    if not isinstance(declared, list):
        raise ValueError(f"TAVOLA_BOT_SPECS: {path} must hold a JSON list of bot declarations")
    try:
        return tuple(bot_specs.from_declaration(item) for item in declared)
    except ValueError as error:
        raise ValueError(f"TAVOLA_BOT_SPECS: {path}: {error}") from None


def merged(rated: Sequence[gw.BotRating], calibrated: Sequence[gw.BotRating]) -> list[gw.BotRating]:
    """A bot's settings' ratings for ListBots, best first: rated play's where a setting has
    played a rated game, else its calibration's; each with its strength hint."""
    by_bot = {rating.bot: rating for rating in rated if rating.games == 0}
    by_bot.update((rating.bot, rating) for rating in calibrated)
    by_bot.update((rating.bot, rating) for rating in rated if rating.games > 0)
    for rating in by_bot.values():
        rating.strength = ratings.strength_hint(rating.rating, rating.uncertainty)
    return sorted(by_bot.values(), key=lambda rating: (-rating.rating, rating.bot))


class BotCatalog:
    def __init__(self, allowed: tuple[str, ...] = (), declared: Sequence[bot_specs.BotSpec] = ()):
        registered = bot_specs.load_bots()
        self.specs = {name: spec for name, spec in registered.items() if not allowed or name in allowed}
        # Declared by the operator: accepted with their options, whatever TAVOLA_BOTS says.
        self.specs.update((spec.name, spec) for spec in declared)
        self.external = tuple(name for name in allowed if name not in self.specs)
        self.thinking: dict[str, float] = {}  # thinking_seconds, by bot string

    def thinking_seconds(self, bot: str) -> float:
        """A bot's thinking budget per decision: its ``budget_ms`` option (the option's maximum
        when 0, i.e. a search limited by iterations only); 0 for a bot without one, or one
        whose worker runs elsewhere."""
        known = self.thinking.get(bot)
        if known is not None:
            return known
        seconds = 0.0
        try:
            spec, options = bot_specs.resolve(bot, bots=self.specs)
        except bot_specs.BotError:
            spec, options = None, {}
        for option in spec.options if spec is not None else ():
            if option.name == "budget_ms":
                value = options[option.name]
                budget = value if isinstance(value, int | float) and value > 0 else (option.maximum or 0)
                seconds = float(budget) / 1000
        if len(self.thinking) >= 1024:
            self.thinking.clear()
        self.thinking[bot] = seconds
        return seconds

    def preset_bots(self, name: str) -> tuple[str, ...]:
        """The bot strings of ``name``'s presets in their order (``ismcts:level=1`` ... for
        the search bot's levels); none for a bot without presets or not accepted here."""
        spec = self.specs.get(name)
        if spec is None or spec.presets is None:
            return ()
        chooser, presets = spec.presets
        keys = sorted(presets, key=lambda key: (not key.isdigit(), int(key) if key.isdigit() else 0, key))
        return tuple(f"{name}:{chooser}={key}" for key in keys)

    def calibrated(self, name: str, game_id: str) -> list[gw.BotRating]:
        """The ratings ``name``'s presets were calibrated at in ``game_id`` (those whose
        settings are still the ones measured: ``bot_specs.calibration``)."""
        found = []
        for bot in self.preset_bots(name):
            calibration = bot_specs.calibration(bot, game_id, bots=self.specs)
            if calibration is not None:
                found.append(
                    gw.BotRating(
                        bot=bot_specs.canonical(bot, game_id, bots=self.specs),  # as rated play names it
                        rating=calibration.rating,
                        uncertainty=calibration.uncertainty,
                        games=calibration.games,
                        calibrated=True,
                    )
                )
        return found

    def names(self) -> tuple[str, ...]:
        return (*self.specs, *self.external)

    def check(self, game_id: str, text: str) -> str:
        """The canonical form of a bot for a table of ``game_id``; raises INVALID_ARGUMENT."""
        if text in self.external:
            return text
        try:
            name, _ = bot_specs.parse_bot(text)
            if name not in self.specs:
                raise bot_specs.BotError("UNKNOWN_BOT", f"no bot {name!r}; bots: {', '.join(self.names())}")
            return bot_specs.canonical(text, game_id, bots=self.specs)
        except bot_specs.BotError as error:
            raise ApiError(grpc.StatusCode.INVALID_ARGUMENT, error.reason, error.message[:200]) from None

    def describe(self, game_id: str = "") -> list[gw.BotDescription]:
        """The bots that play ``game_id`` (every bot when empty), strongest first."""
        described = [
            gw.BotDescription(
                name=spec.name,
                description=spec.description,
                strength=spec.strength,
                strength_note=spec.strength_note,
                game_ids=spec.games,
                options=[
                    gw.BotOption(
                        name=option.name,
                        description=option.description,
                        kind=option.kind,
                        default_value=option.default,
                        choices=option.choices,
                        minimum=option.minimum,
                        maximum=option.maximum,
                    )
                    for option in spec.options
                ],
            )
            for spec in self.specs.values()
            if not game_id or spec.plays(game_id)
        ]
        described += [
            gw.BotDescription(name=name, description="a bot served by its own worker", strength_note="unknown")
            for name in self.external
        ]
        return sorted(described, key=lambda bot: (-bot.strength, bot.name))

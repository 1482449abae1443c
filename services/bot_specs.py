"""The one list of bots, as data: what each is called, plays, takes as options and how
strong it is, read without loading any bot's code.

A bot is a plug-in: an entry point in the group ``tavola.bots`` that loads a ``BotSpec``
from a light module of its package (tavola's own are in ``bots/<wing>/specs.py``, registered in
``pyproject.toml``); a bot from another package registers the same way, with no tavola
file changed. The spec names the function that builds the bot's strategy as
``"module:attribute"`` (or holds it, where the package is light anyway): only a worker
that plays the bot imports it (``bots/worker/registry.py``, ``make_strategy``). So the gateway,
which checks and lists bots, loads no search code, and no OpenSpiel.

A bot is written ``name`` or ``name:key=value,...`` (e.g. ``ismcts:budget_ms=50``):

- ``load_bots()``: every registered bot that can run here, by name.
- ``parse_bot(text)``: ``(name, raw options)``, syntax only.
- ``resolve(text, game_id=None)``: ``(spec, typed options)``, checked against the spec
  (and the game when given, whose own presets then apply); raises ``BotError`` with a
  ``reason`` and a message.
- ``canonical(text, game_id=None)``: the one string form of a bot and its options (sorted,
  values normalised, defaults left out). The bot task carries it.
- ``settings_digest(text, game_id)``: a digest of every option a bot string stands for at a
  game (presets expanded), so a rating can tell when its bot's settings changed.
- ``calibration(text, game_id)``: the rating a preset (``ismcts:level=3``) was calibrated at
  in a game, while its settings are the ones calibrated (their digest matches).
"""

import hashlib
import importlib.util
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from typing import Any, Literal

from services.engine.api import OptionValue, parse_option_value
from services.engine.errors import InvalidConfig

GROUP = "tavola.bots"

# Reasons carried by BotError; the gateway reports them in its ErrorInfo.
UNKNOWN_BOT = "UNKNOWN_BOT"
BAD_BOT_OPTION = "BAD_BOT_OPTION"
BOT_NOT_FOR_GAME = "BOT_NOT_FOR_GAME"

# (game_id, typed options) -> the worker's strategy (bots.search.policy.Strategy)
Factory = Callable[[str, Mapping[str, OptionValue]], Any]


class BotError(ValueError):
    """A bot string that names no bot, has a bad option, or a bot that does not play the game."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


def default_text(value: object, option: str) -> str:
    """An option's default as options travel, a string: ``50`` -> "50", ``True`` -> "true".
    Raises BotError(BAD_BOT_OPTION) for anything else (a list, None)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return value
    raise BotError(BAD_BOT_OPTION, f"bot option {option!r}: its default must be a string or a number, not {value!r}")


@dataclass(frozen=True)
class BotOption:
    """One bot option. Values travel as strings; ``parse`` checks and converts them."""

    name: str
    description: str
    kind: Literal["bool", "int", "float", "enum"]
    default: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None

    def __post_init__(self) -> None:
        # A default written as a number or a bool (``default=50``) is taken as its string
        # form here, so the arena, the worker, the printed declaration and the gateway all
        # read the same spec; a default the option itself refuses fails where it is loaded.
        object.__setattr__(self, "default", default_text(self.default, self.name))
        self.parse(self.default)

    def parse(self, raw: str) -> OptionValue:
        """Raises BotError(BAD_BOT_OPTION)."""
        try:
            return parse_option_value(self.name, self.kind, raw, self.choices, self.minimum, self.maximum)
        except InvalidConfig as error:
            raise BotError(BAD_BOT_OPTION, f"bot {error}") from None

    def format(self, value: OptionValue) -> str:
        if self.kind == "bool":
            return "true" if value else "false"
        if self.kind == "float":
            return repr(float(value))
        return str(value)


@dataclass(frozen=True)
class Calibration:
    """A preset's rating as calibrated offline (bots/lab/calibrate.py), on the 1500 scale."""

    rating: float
    uncertainty: float
    games: int
    digest: str  # the settings_digest of the preset it was measured with


@dataclass(frozen=True)
class BotSpec:
    """What the ``tavola.bots`` entry point of a bot loads."""

    name: str  # as registered; also its worker queue, bots.<name>
    description: str
    strength: int  # 0 (random) to 100 (plays as well as we know how), for sorting and display
    strength_note: str  # one sentence: what the strength is measured against
    # The strategy's factory, or its "module:attribute", imported by the worker that plays it.
    make: str | Factory
    games: tuple[str, ...] = ()  # the game ids it plays; empty: every game
    options: tuple[BotOption, ...] = ()
    # Checks a combination of options each valid alone; raises BotError(BAD_BOT_OPTION).
    check: Callable[[Mapping[str, OptionValue]], None] | None = None
    # Modules the bot's code needs beyond tavola's own (an optional extra's): where one is
    # missing the bot is not offered at all. Looked up, not imported.
    requires: tuple[str, ...] = ()
    # An option whose value stands for a preset of the others (ismcts's ``level``): (its name,
    # its value as written -> the raw options it stands for). Options given override the preset.
    presets: tuple[str, Mapping[str, Mapping[str, str]]] | None = None
    # A game's own presets, where they differ (game id -> value -> raw options): the same
    # level can need other options in a game whose strength lies elsewhere.
    game_presets: Mapping[str, Mapping[str, Mapping[str, str]]] = field(default_factory=dict)
    # Each game's calibrated presets (game id -> preset value -> its Calibration).
    calibrations: Mapping[str, Mapping[str, Calibration]] = field(default_factory=dict)

    @property
    def options_by_name(self) -> dict[str, BotOption]:
        return {option.name: option for option in self.options}

    @property
    def available(self) -> bool:
        return all(importlib.util.find_spec(module) is not None for module in self.requires)

    @property
    def searches(self) -> bool:
        """A bot with a thinking budget (a ``budget_ms`` option) searches: CPU-bound, it wants
        a process per core (the workers' split, ``deploy/workers.py``)."""
        return any(option.name == "budget_ms" for option in self.options)

    def plays(self, game_id: str) -> bool:
        return not self.games or game_id in self.games

    def preset_table(self, game_id: str | None = None) -> Mapping[str, Mapping[str, str]]:
        """The presets (value -> raw options) for ``game_id``: its own where it has them."""
        if self.presets is None:
            return {}
        return self.game_presets.get(game_id or "", self.presets[1])

    def parse_options(self, raw: Mapping[str, str], game_id: str | None = None) -> dict[str, OptionValue]:
        """Every option, defaults filled in (a game's own presets when ``game_id`` is given).
        Raises BotError(BAD_BOT_OPTION)."""
        specs = {option.name: option for option in self.options}
        unknown = sorted(set(raw) - set(specs))
        if unknown:
            known = ", ".join(specs) or "none"
            raise BotError(BAD_BOT_OPTION, f"bot {self.name!r} has no option {', '.join(unknown)} (options: {known})")
        if self.presets is not None:
            chooser = self.presets[0]
            chosen = specs[chooser].format(specs[chooser].parse(raw.get(chooser, specs[chooser].default)))
            raw = {**self.preset_table(game_id)[chosen], **raw}
        options = {name: option.parse(raw.get(name, option.default)) for name, option in specs.items()}
        if self.check is not None:
            self.check(options)
        return options


@cache
def load_bots() -> dict[str, BotSpec]:
    """Every registered bot that can run here (``BotSpec.requires``), by name, sorted by name."""
    bots: dict[str, BotSpec] = {}
    for entry in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        spec = entry.load()
        if not isinstance(spec, BotSpec):
            raise TypeError(f"entry point {entry.name} = {entry.value} in {GROUP} is not a services.bot_specs.BotSpec")
        if spec.name != entry.name:
            raise ValueError(f"entry point {entry.name} in {GROUP} names bot {spec.name!r}")
        if spec.available:
            bots[entry.name] = spec
    return bots


def parse_bot(text: str) -> tuple[str, dict[str, str]]:
    """``name`` or ``name:key=value,...`` -> (name, raw options). Syntax only; raises BotError."""
    name, _, rest = text.strip().partition(":")
    name = name.strip()
    if not name:
        raise BotError(UNKNOWN_BOT, f"no bot name in {text!r}")
    options: dict[str, str] = {}
    for item in rest.split(",") if rest.strip() else ():
        key, equals, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not equals or not key:
            raise BotError(BAD_BOT_OPTION, f"bot option {item.strip()!r} is not key=value")
        if key in options:
            raise BotError(BAD_BOT_OPTION, f"bot option {key!r} given twice")
        options[key] = value
    return name, options


def split_bots(text: str) -> list[str]:
    """A comma-separated list of bots, where a bot's own options also use commas:
    ``ismcts:budget_ms=50,c=0.5,random`` is ``ismcts:budget_ms=50,c=0.5`` and ``random``
    (an item with ``=`` and no ``:`` continues the previous bot's options)."""
    bots: list[str] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if "=" in item and ":" not in item and bots:
            bots[-1] += "," + item
        else:
            bots.append(item)
    return bots


def resolve(
    text: str, game_id: str | None = None, bots: Mapping[str, BotSpec] | None = None
) -> tuple[BotSpec, dict[str, OptionValue]]:
    """The bot and its typed options (defaults filled in), among ``bots`` (the registered
    ones when None). Raises BotError."""
    name, raw = parse_bot(text)
    bots = load_bots() if bots is None else bots
    spec = bots.get(name)
    if spec is None:
        raise BotError(UNKNOWN_BOT, f"no bot named {name!r} (bots: {', '.join(bots)})")
    options = spec.parse_options(raw, game_id)
    if game_id is not None and not spec.plays(game_id):
        raise BotError(BOT_NOT_FOR_GAME, f"bot {name!r} plays {', '.join(spec.games)}, not {game_id}")
    return spec, options


def canonical(text: str, game_id: str | None = None, bots: Mapping[str, BotSpec] | None = None) -> str:
    """The one string form of a bot (for ``game_id``'s presets when given): its name, then
    the options that differ from their defaults, sorted, with normalised values.
    ``resolve(canonical(t, g), g)`` equals ``resolve(t, g)``."""
    spec, options = resolve(text, game_id, bots=bots)
    plain = spec.parse_options({}, game_id)
    # With presets, the preset option is written when it is not the default, and the
    # others when they differ from the chosen preset's.
    chooser = spec.presets[0] if spec.presets else None
    chosen = {chooser: spec.options_by_name[chooser].format(options[chooser])} if chooser else {}
    defaults = spec.parse_options(chosen, game_id)
    changed = [
        f"{option.name}={option.format(options[option.name])}"
        for option in sorted(spec.options, key=lambda o: o.name)
        if options[option.name] != (plain if option.name == chooser else defaults)[option.name]
    ]
    return spec.name + (":" + ",".join(changed) if changed else "")


def settings_digest(text: str, game_id: str, bots: Mapping[str, BotSpec] | None = None) -> str:
    """16 hex digits standing for what a bot string plays at a game: its name and the value of
    every option, presets and defaults expanded. ``ismcts:level=4`` keeps its string when its
    preset moves; its digest changes (bots/worker/rating_tasks.py then restarts its rating). Raises
    BotError."""
    spec, options = resolve(text, game_id, bots=bots)
    values = {name: spec.options_by_name[name].format(value) for name, value in options.items()}
    return hashlib.sha256(json.dumps([spec.name, game_id, values], sort_keys=True).encode()).hexdigest()[:16]


def calibration(text: str, game_id: str, bots: Mapping[str, BotSpec] | None = None) -> Calibration | None:
    """The calibration of a bot string that is one of its bot's presets as it stands (no option
    overridden) at ``game_id``, when the preset's settings are still the ones calibrated; else
    None (a preset changed since is calibrated again: tests/bots/test_calibration.py)."""
    try:
        spec, options = resolve(text, game_id, bots=bots)
    except BotError:
        return None
    if spec.presets is None:
        return None
    chooser = spec.presets[0]
    value = spec.options_by_name[chooser].format(options[chooser])
    plain = f"{spec.name}:{chooser}={value}"
    if canonical(text, game_id, bots=bots) != canonical(plain, game_id, bots=bots):
        return None
    found = spec.calibrations.get(game_id, {}).get(value)
    if found is None or found.digest != settings_digest(plain, game_id, bots=bots):
        return None
    return found


# A declaration: what a gateway needs of a bot whose worker runs elsewhere (its name, games,
# options and strength), as JSON, with none of its code. ``python -m services.bot_specs
# <bot>`` prints one from an installed bot's spec; the gateway reads a list of them from
# TAVOLA_BOT_SPECS (gateway/bots.py).
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_KINDS = ("bool", "int", "float", "enum")


def declaration(spec: BotSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "description": spec.description,
        "strength": spec.strength,
        "strength_note": spec.strength_note,
        "games": list(spec.games),
        "options": [
            {
                "name": option.name,
                "description": option.description,
                "kind": option.kind,
                "default": option.default,
                **({"choices": list(option.choices)} if option.choices else {}),
                **({"minimum": option.minimum} if option.minimum is not None else {}),
                **({"maximum": option.maximum} if option.maximum is not None else {}),
            }
            for option in spec.options
        ],
    }


def from_declaration(declared: Mapping[str, Any]) -> BotSpec:
    """A spec from a declaration, every field checked (raises ValueError, naming what is
    wrong). Its ``make`` is empty: the gateway never plays a bot."""

    def text(value: Any, what: str, longest: int = 2000) -> str:
        if not isinstance(value, str) or len(value) > longest:
            raise ValueError(f"{what} must be a string of at most {longest} characters")
        return value

    def number(value: Any, what: str) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{what} must be a number")
        return float(value)

    if not isinstance(declared, Mapping):
        raise ValueError("a bot declaration is a JSON object")
    name = text(declared.get("name"), "name", 64)
    if not _NAME.fullmatch(name):
        raise ValueError(f"bot name {name!r}: lowercase letters, digits, '-' and '_'")
    strength = declared.get("strength", 0)
    if isinstance(strength, bool) or not isinstance(strength, int) or not 0 <= strength <= 100:
        raise ValueError(f"bot {name!r}: strength must be a whole number from 0 to 100")
    games = declared.get("games", [])
    if not isinstance(games, list):
        raise ValueError(f"bot {name!r}: games must be a list of game ids")
    options = []
    for item in declared.get("options", []):
        if not isinstance(item, Mapping):
            raise ValueError(f"bot {name!r}: each option is a JSON object")
        option_name = text(item.get("name"), f"bot {name!r}: an option's name", 64)
        kind = item.get("kind")
        if kind not in _KINDS:
            raise ValueError(f"bot {name!r}: option {option_name!r} has kind {kind!r}, not one of {', '.join(_KINDS)}")
        choices = item.get("choices", [])
        if not isinstance(choices, list) or not all(isinstance(choice, str) for choice in choices):
            raise ValueError(f"bot {name!r}: option {option_name!r}: choices must be a list of strings")
        default = item.get("default", "")
        if not isinstance(default, bool | int | float):  # a number is taken as BotOption takes it
            default = text(default, f"bot {name!r}: option {option_name!r}'s default", 256)
        try:
            option = BotOption(
                option_name,
                text(item.get("description", ""), f"bot {name!r}: option {option_name!r}'s description"),
                kind,
                default,
                tuple(choices),
                number(item.get("minimum"), f"bot {name!r}: option {option_name!r}'s minimum"),
                number(item.get("maximum"), f"bot {name!r}: option {option_name!r}'s maximum"),
            )
        except BotError as error:
            raise ValueError(f"bot {name!r}: its default is not a valid value: {error.message}") from None
        options.append(option)
    return BotSpec(
        name=name,
        description=text(declared.get("description", ""), f"bot {name!r}: description"),
        strength=strength,
        strength_note=text(declared.get("strength_note", ""), f"bot {name!r}: strength_note"),
        make="",
        games=tuple(text(game, f"bot {name!r}: a game id", 64) for game in games),
        options=tuple(options),
    )


def main(argv: list[str] | None = None) -> None:
    """python -m services.bot_specs <bot> ...: the declarations of installed bots, as JSON, for
    the operator of a gateway that accepts them from a worker of their own (TAVOLA_BOT_SPECS)."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m services.bot_specs", description=main.__doc__)
    parser.add_argument("bots", nargs="+", help="names of installed bots (their tavola.bots entry points)")
    args = parser.parse_args(argv)
    bots = load_bots()
    missing = [name for name in args.bots if name not in bots]
    if missing:
        parser.error(f"no installed bot {', '.join(missing)} (installed: {', '.join(bots)})")
    print(json.dumps([declaration(bots[name]) for name in args.bots], indent=2))


if __name__ == "__main__":
    # Run as a script this file is the module ``__main__``, whose BotSpec is another class
    # than the one the entry points load: run the imported module's main instead.
    from services import bot_specs

    bot_specs.main()

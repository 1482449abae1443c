"""The shape every game engine has, and the codec that turns its values into protos.

An engine is a pure library. State, actions, views and events are the engine's own
plain Python values (frozen dataclasses, tuples...). ``apply`` never mutates its input.
Randomness comes only from ``services.engine.rng.Rng`` whose state is part of the game
state, so (player_count, options, seed, actions) replays a game exactly.

Who decides is explicit: ``deciders(state)`` lists every seat that must decide now, on
its turn or not (call-or-allow, cancel by paying, Plague: People or Tower ...). It is
empty exactly when the game is over.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

from common.phrases import Phrase
from services.engine.errors import InvalidConfig
from services.engine.rng import Rng
from services.engine.values import fast_inits

if TYPE_CHECKING:  # engines stay free of protobuf at run time; only codecs produce messages
    from google.protobuf.message import Message

OptionValue = bool | int | float | str


@dataclass(frozen=True)
class OptionSpec:
    """One table option. Values travel as strings; ``parse_options`` checks and converts them."""

    name: str
    description: str
    kind: Literal["bool", "int", "enum"]
    default: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, raw: str) -> OptionValue:
        return parse_option_value(self.name, self.kind, raw, self.choices, self.minimum, self.maximum)


def parse_option_value(
    name: str,
    kind: str,
    raw: str,
    choices: tuple[str, ...] = (),
    minimum: float | None = None,
    maximum: float | None = None,
) -> OptionValue:
    """A table or bot option's value from its string: ``kind`` is bool, int, float or enum.
    Raises InvalidConfig naming the option and what it takes."""
    if kind == "bool":
        lowered = raw.strip().lower()
        if lowered in ("true", "1", "yes", "on"):
            return True
        if lowered in ("false", "0", "no", "off"):
            return False
        raise InvalidConfig(f"option {name!r} takes true or false, not {raw!r}")
    if kind == "enum":
        if raw not in choices:
            raise InvalidConfig(f"option {name!r} takes one of {', '.join(choices)}, not {raw!r}")
        return raw
    value: int | float
    try:
        value = int(raw) if kind == "int" else float(raw)
    except ValueError:
        raise InvalidConfig(
            f"option {name!r} takes {'an integer' if kind == 'int' else 'a number'}, not {raw!r}"
        ) from None
    if not math.isfinite(value):
        raise InvalidConfig(f"option {name!r} takes a finite number, not {raw!r}")
    if minimum is not None and value < minimum:
        raise InvalidConfig(f"option {name!r} must be at least {minimum}")
    if maximum is not None and value > maximum:
        raise InvalidConfig(f"option {name!r} must be at most {maximum}")
    return value


@dataclass(frozen=True)
class GameInfo:
    game_id: str
    display_name: str
    min_players: int
    max_players: int
    options: tuple[OptionSpec, ...] = ()
    summary: str = ""


def parse_options(info: GameInfo, player_count: int, raw: Mapping[str, str]) -> dict[str, OptionValue]:
    """Check player count and option names/values; fill defaults. Raises InvalidConfig."""
    if not info.min_players <= player_count <= info.max_players:
        raise InvalidConfig(
            f"{info.display_name} takes {info.min_players} to {info.max_players} players, not {player_count}",
            reason="BAD_PLAYER_COUNT",
        )
    specs = {spec.name: spec for spec in info.options}
    unknown = sorted(set(raw) - set(specs))
    if unknown:
        raise InvalidConfig(f"unknown option(s): {', '.join(unknown)}", reason="UNKNOWN_OPTION")
    return {name: spec.parse(raw.get(name, spec.default)) for name, spec in specs.items()}


@dataclass(frozen=True)
class Outcome:
    """The end of a game. ``winners`` may be empty (nobody wins)."""

    winners: tuple[int, ...]
    summary: str
    scores: tuple[int, ...] = field(default=())  # per seat, where the game has a score


State = TypeVar("State")
Action = TypeVar("Action")
Event = TypeVar("Event")
View = TypeVar("View")
EventIn = TypeVar("EventIn", contravariant=True)  # a codec only takes events in


class Engine(Protocol, Generic[State, Action, Event, View]):
    info: GameInfo

    def new_game(self, player_count: int, options: Mapping[str, str], seed: int) -> tuple[State, list[Event]]:
        """Set up a game; raises InvalidConfig. Events are the setup's (deals, start roll)."""
        ...

    def player_count(self, state: State) -> int:
        """Number of seats at the table (eliminated players included)."""
        ...

    def deciders(self, state: State) -> tuple[int, ...]:
        """Seats that must decide now, in turn order. Empty iff the game is over."""
        ...

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        """Every action ``seat`` may take now; empty when it need not decide."""
        ...

    def apply(self, state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
        """Raises NotYourDecision or IllegalAction and leaves ``state`` untouched."""
        ...

    def view(self, state: State, seat: int | None) -> View:
        """What ``seat`` may see (None: a spectator). Never another seat's secrets."""
        ...

    def project_event(self, event: Event, seat: int | None) -> Event | None:
        """The part of ``event`` that ``seat`` (None: spectator) may see; None if nothing."""
        ...

    def outcome(self, state: State) -> Outcome | None:
        """None while the game goes on."""
        ...

    def describe_action(self, action: Action) -> str:
        """A short human label, e.g. 'bid 3 POISON'."""
        ...

    def sample(self, view: View, seat: int, rng: "Rng") -> State:
        """Determinization: a full state drawn at random among those consistent with
        everything ``seat`` knows, i.e. ``view``. What the seat cannot see (others' dice,
        puppets, roles, hands, the order of draw piles, the RNG of future chance) is redrawn
        from ``rng``; everything in the view is kept, so ``view(sample(v, seat), seat) == v``
        and the seat's legal actions are the same as in the true state. Search bots
        (ISMCTS) call it once per iteration."""
        ...


class Codec(Protocol, Generic[State, Action, EventIn, View]):
    """Turns one engine's values into that game's typed proto messages and back."""

    def state_to_proto(self, state: State) -> "Message": ...

    def state_from_proto(self, message: Any) -> State: ...

    def action_type(self) -> "type[Message]": ...

    def action_to_proto(self, action: Action) -> "Message": ...

    def action_from_proto(self, message: Any) -> Action:
        """Raises MalformedAction for a message that is no action of this game."""
        ...

    def view_to_proto(self, view: View) -> "Message": ...

    def view_type(self) -> "type[Message]": ...

    def view_from_proto(self, message: Any) -> View:
        """The inverse of ``view_to_proto``: bots decode the view the gateway sends them."""
        ...

    def event_to_proto(self, event: EventIn) -> "Message": ...


class Words(Protocol[EventIn]):
    """A game's events in words (``services/<game>/words.py``): phrases of the game's
    catalogs (``catalog``, a folder of ``<locale>.po``), which the gateway tells in each
    reader's language (``TableEvent.text``)."""

    catalog: Path

    def event_phrase(self, event: EventIn, viewer: int | None) -> Phrase:
        """``event`` as ``viewer`` (None: a spectator) reads it. ``event`` is that viewer's
        projection (``Engine.project_event``), and the phrase tells nothing the projection
        does not hold. Seats are its arguments: each reader reads its own as "you"."""
        ...

    def action_phrase(self, action: Any) -> Phrase:
        """A legal action's label (``LegalAction.label_phrase``)."""
        ...


@dataclass(frozen=True)
class Game(Generic[State, Action, Event, View]):
    """One playable game: its engine, its codec and, where it has them, its words. Each
    ``services/<game>`` exports ``GAME``.

    ``rules_port`` is the port its rules service listens on by default and in the deploy
    files: declared, it never moves when other games come and go (services/registry.py
    derives one from the game id when it is left out). Without ``words``, events go out
    without words and clients fall back on their own."""

    engine: Engine[State, Action, Event, View]
    codec: Codec[State, Action, Event, View]
    rules_port: int | None = None
    words: Words[Event] | None = None


fast_inits(__name__)  # an Outcome is built at the end of every playout

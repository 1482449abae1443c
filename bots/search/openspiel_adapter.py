"""tavola's games as OpenSpiel games, and OpenSpiel's bots as tavola bots (optional extra).

Needs ``pip install 'tavola[openspiel]'``; without it this module still imports (the bot
list stays loadable) and everything that needs OpenSpiel raises ``OpenSpielMissing``.

Games. ``register_games()`` registers every hosted game (``services.registry``) with
``pyspiel.register_game`` as ``tavola_<game_id>``, e.g.
``pyspiel.load_game("tavola_borgia", {"players": 3})``. Parameters: ``players``, ``seed``
(-1: every initial state draws a fresh seed; otherwise initial states draw their seeds
from a generator seeded with it) and each table option of the game, typed (bool, int,
string), with the game's defaults. The games are:

- sequential, with one ``current_player``: the engine may ask several seats at once
  (``engine.deciders``); the adapter asks the first of them in seat order, the others
  after it, each seeing what the ones before it chose. A state built for a seat that
  decides (``state_from_engine(..., decider=seat)``) asks that seat first;
- imperfect information, ``SAMPLED_STOCHASTIC``: there are no chance nodes, the engine
  draws its dice and cards from the RNG it keeps in its state;
- general-sum: at the end each winner gets ``1/len(winners)``, everyone else 0 (nobody
  gets anything when nobody wins);
- ``information_state_string(player)`` and ``observation_string(player)`` are both the
  seat's view, ``engine.view(state, seat)`` through the game's codec, serialized
  deterministically (hex). The view is what the seat knows now, so states that reach
  the same view by different paths share an information state;
- ``resample_from_infostate(player, sampler)`` is ``engine.sample`` of that view, with
  an RNG seeded from the sampler: a full state consistent with all the seat knows.

Actions. OpenSpiel wants integers; an engine action's number comes from a per-game
codebook shared by all player counts: actions are told apart by their proto
(``codec.action_to_proto(action)``, serialized deterministically) and numbered in the
order the process first meets them. Numbers are stable for the life of a process, not
across processes: do not store them (store engine actions or their protos).
``num_distinct_actions`` is ``MAX_DISTINCT_ACTIONS``, an upper bound the codebook checks
(the hosted games have a few hundred distinct actions each).

Bots. OpenSpiel's bots play tavola's games through this adapter: ``bots.search.openspiel_bots``.
"""

import random
from collections.abc import Mapping
from functools import cache
from typing import Any

from google.protobuf import text_format

from services.engine.api import Game, OptionValue
from services.engine.rng import Rng
from services.registry import get_game, load_games

try:
    import pyspiel
except ImportError:  # the optional extra is not installed
    pyspiel = None

SHORT_NAME_PREFIX = "tavola_"
# Upper bound on any hosted game's distinct actions (the codebook refuses more).
MAX_DISTINCT_ACTIONS = 1 << 16
INSTALL_HINT = "OpenSpiel is not installed: pip install 'tavola[openspiel]' (the open_spiel package)"


class OpenSpielMissing(ImportError):
    """The optional extra ``openspiel`` is not installed."""

    def __init__(self) -> None:
        super().__init__(INSTALL_HINT)


def available() -> bool:
    return pyspiel is not None


def _require() -> None:
    if pyspiel is None:
        raise OpenSpielMissing()


# --------------------------------------------------------------------------- actions


class ActionCodebook:
    """One game's numbering of its engine actions, by their proto (see the module doc)."""

    _IDENTITY_CACHE = 1 << 16  # entries kept by object identity before the cache starts over

    def __init__(self, game: Game, limit: int = MAX_DISTINCT_ACTIONS):
        self._encode = game.codec.action_to_proto
        self._limit = limit
        self._by_key: dict[bytes, int] = {}  # serialized proto -> number (the identity)
        self._actions: list[Any] = []  # number -> the first engine action met with it
        self._by_value: dict[Any, int] = {}  # engine action -> number (a cache)
        # id(action) -> (action, number): engines share their action objects, and holding
        # the object keeps its id from being reused while the entry lives.
        self._by_id: dict[int, tuple[Any, int]] = {}

    def __len__(self) -> int:
        return len(self._actions)

    def numbers(self, actions: Any) -> list[int]:
        """The numbers of ``actions``, in order."""
        by_id, out = self._by_id, []
        for action in actions:
            hit = by_id.get(id(action))
            out.append(hit[1] if hit is not None and hit[0] is action else self.number(action))
        return out

    def number(self, action: Any) -> int:
        try:
            number, hashable = self._by_value.get(action), True
        except TypeError:  # an unhashable action: known by its proto only
            number, hashable = None, False
        if number is None:
            key = self._encode(action).SerializeToString(deterministic=True)
            number = self._by_key.get(key)
            if number is None:
                number = len(self._actions)
                if number >= self._limit:
                    raise RuntimeError(f"more than {self._limit} distinct actions: raise MAX_DISTINCT_ACTIONS")
                self._by_key[key] = number
                self._actions.append(action)
            if hashable:
                self._by_value[action] = number
        if len(self._by_id) >= self._IDENTITY_CACHE:
            self._by_id.clear()
        self._by_id[id(action)] = (action, number)
        return number

    def action(self, number: int) -> Any:
        return self._actions[number]


@cache
def codebook(game_id: str) -> ActionCodebook:
    return ActionCodebook(get_game(game_id))


# --------------------------------------------------------------------------- game length


def max_game_length(game_id: str, players: int, options: Mapping[str, str]) -> int:
    """A bound on the decisions of one game, from the rules' own limits.

    House of Borgia: every round loses a die (at most 6 per seat), and within a round each
    bid raises the count (at most the dice in play) and is followed by at most a response
    and a performance. Mortadella ends at ``max_turns`` turns, Pecunia at ``turn_limit``;
    the per-turn allowances are generous (random play stays far below). A game without
    such a limit (Pecunia with ``turn_limit=0``, or an unknown game) gets a nominal 10**6.
    """
    if game_id == "borgia":
        dice = 6 * players
        return dice * (3 * dice + 2)
    if game_id == "mortadella":
        return int(options.get("max_turns", "500")) * (40 + 8 * players) + 20 * players
    if game_id == "pecunia" and int(options.get("turn_limit", "0")) > 0:
        return int(options["turn_limit"]) * 200
    return 10**6


# --------------------------------------------------------------------------- the game

# Without OpenSpiel the classes still define (on object), and refuse to instantiate.
_Base: Any = pyspiel.Game if pyspiel is not None else object
_StateBase: Any = pyspiel.State if pyspiel is not None else object
_RESERVED = ("players", "seed")


def short_name(game_id: str) -> str:
    return SHORT_NAME_PREFIX + game_id


def _parameter_default(kind: str, default: str) -> OptionValue:
    if kind == "bool":
        return default.strip().lower() in ("true", "1", "yes", "on")
    if kind == "int":
        return int(default)
    return default


def game_type(game_id: str) -> "pyspiel.GameType":
    _require()
    info = get_game(game_id).engine.info
    parameters: dict[str, OptionValue] = {"players": max(2, info.min_players), "seed": -1}
    for option in info.options:
        if option.name in _RESERVED:
            raise ValueError(f"game {game_id}: table option {option.name!r} clashes with an OpenSpiel parameter")
        parameters[option.name] = _parameter_default(option.kind, option.default)
    return pyspiel.GameType(
        short_name=short_name(game_id),
        long_name=f"tavola {info.display_name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.max_players,
        min_num_players=info.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification=parameters,
    )


class TavolaGame(_Base):
    """One hosted game as an OpenSpiel game (see the module doc)."""

    def __init__(self, game_id: str, params: Mapping[str, Any] | None = None):
        _require()
        kind = game_type(game_id)
        params = dict(params or {})
        info = get_game(game_id).engine.info
        players = int(params.get("players", kind.parameter_specification["players"]))
        if not info.min_players <= players <= info.max_players:
            raise ValueError(f"{info.display_name} takes {info.min_players} to {info.max_players} players")
        # Table options travel as strings, like a table's (parse_options checks them).
        table_options = {
            option.name: _option_string(params.get(option.name, option.default)) for option in info.options
        }
        bound = max_game_length(game_id, players, table_options)
        super().__init__(
            kind,
            pyspiel.GameInfo(
                num_distinct_actions=MAX_DISTINCT_ACTIONS,
                max_chance_outcomes=0,
                num_players=players,
                min_utility=0.0,
                max_utility=1.0,
                max_game_length=bound,
            ),
            params,
        )
        self.game_id = game_id
        self.table_options = table_options
        self.tavola = get_game(game_id)
        self.codebook = codebook(game_id)
        seed = int(params.get("seed", -1))
        self._seeds = random.Random(seed) if seed >= 0 else random.SystemRandom()

    def new_initial_state(self) -> "TavolaState":
        return TavolaState(self)

    def state_from_engine(self, engine_state: Any, decider: int | None = None) -> "TavolaState":
        """An OpenSpiel state around an engine state; ``decider`` (a seat that decides
        now) is asked first instead of the first decider."""
        if self.tavola.engine.player_count(engine_state) != self.num_players():
            raise ValueError("the engine state has another player count than this game")
        state = TavolaState(self)
        state._set_engine_state(engine_state, decider)
        return state

    def make_py_observer(self, iig_obs_type=None, params=None) -> "ViewObserver":
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return ViewObserver()


def _option_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class ViewObserver:
    """Information state and observation alike: the seat's view (no tensors)."""

    def __init__(self) -> None:
        self.tensor = None
        self.dict: dict = {}

    def set_from(self, state: "TavolaState", player: int) -> None:
        pass

    def string_from(self, state: "TavolaState", player: int) -> str:
        return state.view_string(player)


# Attributes derived from the engine state: clone() hands them over instead of pickling them.
_CACHES = ("_deciders", "_legal", "_views")


class TavolaState(_StateBase):
    """An engine state as an OpenSpiel state. Engine states are immutable, so clones share them."""

    def __init__(self, game: TavolaGame):
        super().__init__(game)
        self._game_id = game.game_id
        self._players = game.num_players()
        self._engine_state: Any = None  # made on first use: clone() builds initial states it overwrites
        self._decider: int | None = None
        self._deciders: tuple[int, ...] | None = None
        self._legal: tuple[list[int], list[int], Any] | None = None
        self._views: dict[int, str] = {}

    # -- helpers

    @property
    def _tavola(self) -> Game:
        return get_game(self._game_id)

    @property
    def engine_state(self) -> Any:
        if self._engine_state is None:
            game = self.get_game()
            seed = game._seeds.getrandbits(63)
            self._engine_state, _ = self._tavola.engine.new_game(self._players, game.table_options, seed)
        return self._engine_state

    def _set_engine_state(self, engine_state: Any, decider: int | None = None) -> None:
        self._engine_state = engine_state
        self._deciders, self._legal, self._views = None, None, {}
        if decider is not None and decider not in self._all_deciders():
            raise ValueError(f"seat {decider} need not decide now")
        self._decider = decider

    def _all_deciders(self) -> tuple[int, ...]:
        if self._deciders is None:
            self._deciders = tuple(self._tavola.engine.deciders(self.engine_state))
        return self._deciders

    def _legal_lists(self) -> tuple[list[int], list[int], Any]:
        """The current player's legal actions: (sorted numbers, numbers, engine actions)."""
        if self._legal is None:
            player = self.current_player()
            actions = self._tavola.engine.legal_actions(self.engine_state, player) if player >= 0 else ()
            numbers = codebook(self._game_id).numbers(actions)
            self._legal = (sorted(numbers), numbers, actions)
        return self._legal

    def view_string(self, player: int) -> str:
        """The seat's view: its proto, serialized deterministically, in hex."""
        text = self._views.get(player)
        if text is None:
            tavola = self._tavola
            view = tavola.engine.view(self.engine_state, player)
            text = tavola.codec.view_to_proto(view).SerializeToString(deterministic=True).hex()
            self._views[player] = text
        return text

    def engine_action(self, action: int) -> Any:
        """The engine action numbered ``action`` among the current player's legal actions."""
        _, numbers, actions = self._legal_lists()
        try:
            return actions[numbers.index(action)]
        except ValueError:
            raise ValueError(f"action {action} is not legal here") from None

    # -- the OpenSpiel API

    def current_player(self) -> int:
        deciders = self._all_deciders()
        if not deciders:
            return pyspiel.PlayerId.TERMINAL
        return self._decider if self._decider is not None else deciders[0]

    def is_terminal(self) -> bool:
        return not self._all_deciders()

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player():
            return []
        return self._legal_lists()[0]

    def _apply_action(self, action: int) -> None:
        seat = self.current_player()
        engine_state, _ = self._tavola.engine.apply(self.engine_state, seat, self.engine_action(action))
        self._set_engine_state(engine_state)

    def _action_to_string(self, player: int, action: int) -> str:
        return self._tavola.engine.describe_action(codebook(self._game_id).action(action))

    def returns(self) -> list[float]:
        rewards = [0.0] * self._players
        if self.is_terminal():
            outcome = self._tavola.engine.outcome(self.engine_state)
            winners = outcome.winners if outcome is not None else ()
            for seat in winners:
                rewards[seat] = 1.0 / len(winners)
        return rewards

    def information_state_string(self, player: int | None = None) -> str:
        return self.view_string(self.current_player() if player is None else player)

    def observation_string(self, player: int | None = None) -> str:
        return self.view_string(self.current_player() if player is None else player)

    def clone(self) -> "TavolaState":
        """OpenSpiel's clone (history and all) without copying the immutable engine state."""
        engine_state = self.engine_state  # an initial state draws its game now, shared by both
        saved = dict(self.__dict__)
        for name in ("_engine_state", *_CACHES):
            self.__dict__.pop(name, None)
        try:
            copy = _StateBase.clone(self)
        finally:
            self.__dict__.update(saved)
        copy._engine_state = engine_state
        copy._deciders, copy._legal, copy._views = self._deciders, self._legal, dict(self._views)
        return copy

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "TavolaState":
        """A state drawn among those consistent with what ``player_id`` sees (engine.sample),
        its RNG seeded from ``probability_sampler`` (a callable returning floats in [0, 1))."""
        seed = 0
        for _ in range(4):  # 64 bits, 16 at a time
            seed = (seed << 16) | min(int(probability_sampler() * 65536), 65535)
        return self.resample(player_id, Rng.from_seed(seed))

    def resample(self, player_id: int, rng: Rng) -> "TavolaState":
        tavola = self._tavola
        sampled = tavola.engine.sample(tavola.engine.view(self.engine_state, player_id), player_id, rng)
        copy = self.clone()
        copy._set_engine_state(sampled, self._decider)
        return copy

    def __str__(self) -> str:
        message = self._tavola.codec.state_to_proto(self.engine_state)
        return text_format.MessageToString(message, as_one_line=True)


@cache
def register_games() -> tuple[str, ...]:
    """Register every hosted game with OpenSpiel (once); the short names registered."""
    _require()
    names = []
    for game_id in load_games():
        pyspiel.register_game(game_type(game_id), _game_class(game_id))
        names.append(short_name(game_id))
    return tuple(names)


def _game_class(game_id: str) -> type:
    """A subclass of TavolaGame per game: OpenSpiel constructs games from a class and params."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        TavolaGame.__init__(self, game_id, params)

    return type(f"TavolaGame_{game_id}", (TavolaGame,), {"__init__": __init__, "__module__": __name__})


@cache
def load_game(game_id: str, players: int) -> TavolaGame:
    """The registered OpenSpiel game of a hosted game, default table options."""
    register_games()
    return pyspiel.load_game(short_name(game_id), {"players": players})

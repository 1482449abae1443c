"""OpenSpiel's bots as tavola bots (optional extra): ``openspiel-random`` (OpenSpiel's uniform
random bot) and ``openspiel-ismcts`` (``open_spiel.python.algorithms.ismcts.ISMCTSBot``
with random rollouts; options ``budget_ms``, ``iterations``, ``c`` as tavola's
``ismcts``), playing tavola's games through ``bots.search.openspiel_adapter``. A bot sees only
its seat's view: it rebuilds an OpenSpiel state from ``engine.sample(view, seat, rng)``
and searches from there (ISMCTS resamples from the information state at every iteration
anyway).
"""

import random
from collections.abc import Callable, Mapping
from typing import Any

from bots.search import clock
from bots.search import openspiel_adapter as adapter
from bots.search.openspiel_adapter import INSTALL_HINT, TavolaGame, TavolaState, _require, codebook, load_game
from bots.search.policy import Strategy, decode_legal, decode_view
from services.bot_specs import UNKNOWN_BOT, BotError
from services.engine.api import OptionValue
from services.engine.rng import Rng
from services.registry import get_game
from tavola.gateway.v1 import gateway_pb2
from tavola.rules.v1 import rules_pb2

# OpenSpiel bot factory: (OpenSpiel game, seat, random.Random) -> pyspiel.Bot
BotFactory = Callable[[TavolaGame, int, random.Random], Any]


def adapter_strategy(game_id: str, make_bot: BotFactory) -> Strategy:
    """A tavola strategy from an OpenSpiel bot: the bot steps on a state sampled from the
    seat's view (so it never sees the true state), asked to decide for the seat."""
    _require()
    tavola = get_game(game_id)
    engine = tavola.engine
    book = codebook(game_id)

    def strategy(response: gateway_pb2.GetViewResponse, rng: random.Random) -> rules_pb2.LegalAction:
        legal = decode_legal(tavola, response)
        if len(legal) == 1:
            return response.legal_actions[0]
        seat = response.seat
        engine_state = engine.sample(decode_view(tavola, response), seat, Rng(rng.getrandbits(64)))
        game = load_game(game_id, engine.player_count(engine_state))
        state = game.state_from_engine(engine_state, decider=seat)
        number = make_bot(game, seat, rng).step(state)
        return response.legal_actions[book.numbers(legal).index(number)]

    return strategy


def random_bot(game: TavolaGame, seat: int, rng: random.Random):
    return adapter.pyspiel.make_uniform_random_bot(seat, rng.getrandbits(31))


class _BudgetSpent(Exception):
    pass


def ismcts_bot(*, iterations: int = 0, budget_ms: float = 200, c: float = 0.7) -> BotFactory:
    """OpenSpiel's ISMCTS with random rollouts, searching until ``iterations`` (0: no limit)
    or ``budget_ms`` (0: no limit) runs out, whichever comes first (at least two
    simulations: the first only expands the root). Resampling uses the bot's rng."""
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    def make(game: TavolaGame, seat: int, rng: random.Random):
        random_state = np.random.RandomState(rng.getrandbits(32))
        bot = ismcts.ISMCTSBot(
            game=game,
            evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state),
            uct_c=c,
            max_simulations=iterations if iterations > 0 else 1 << 62,
            random_state=random_state,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        )
        return _TimedISMCTS(bot, rng, budget_ms)

    return make


class _TimedISMCTS:
    """Steps an ISMCTSBot under a time budget: its resampler, called once per simulation,
    stops the search when time is up, and the answer is the root's most visited action."""

    def __init__(self, bot, rng: random.Random, budget_ms: float):
        self._bot, self._rng, self._budget = bot, rng, budget_ms / 1000
        self.simulations = 0
        bot.set_resampler(self._resample)

    def _resample(self, state: TavolaState, player: int) -> TavolaState:
        if self.simulations >= 2 and self._spent.over():
            raise _BudgetSpent()
        self.simulations += 1
        return state.resample(player, Rng(self._rng.getrandbits(64)))

    def restart_at(self, state: TavolaState) -> None:
        pass  # every step searches from scratch

    def inform_action(self, state: TavolaState, player: int, action: int) -> None:
        pass

    def step(self, state: TavolaState) -> int:
        self.simulations = 0
        self._spent = clock.Budget(self._budget)
        try:
            policy = self._bot.run_search(state)
        except _BudgetSpent:
            policy = self._bot.get_final_policy(state, self._bot._root_node)
        clock.searched(self.simulations)
        best = max(p for _, p in policy)
        return self._rng.choice(sorted(a for a, p in policy if p == best))


def make_random(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    _require_for_bot("openspiel-random")
    return adapter_strategy(game_id, random_bot)


def make_ismcts(game_id: str, options: Mapping[str, OptionValue]) -> Strategy:
    _require_for_bot("openspiel-ismcts")
    factory = ismcts_bot(
        iterations=int(options["iterations"]), budget_ms=float(options["budget_ms"]), c=float(options["c"])
    )
    return adapter_strategy(game_id, factory)


def _require_for_bot(name: str) -> None:
    if not adapter.available():
        raise BotError(UNKNOWN_BOT, f"bot {name!r} needs OpenSpiel: {INSTALL_HINT}")

"""Coin guess, the smallest hidden-information game: each of two players is dealt a coin
only they see; seat 0 then seat 1 guesses the other's coin. A right guess wins; both
right or both wrong, nobody wins.

It lives only in the tests and reaches the platform through one entry point
(``tavola.games``: ``coin = coin_game:GAME``), as a game from another package would.
"""

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import coin_pb2 as pb

from services.engine.api import Game, GameInfo, Outcome, parse_options
from services.engine.errors import IllegalAction, MalformedAction, NotYourDecision
from services.engine.rng import Rng

HEADS, TAILS = 1, 2
NAMES = {HEADS: "heads", TAILS: "tails"}


@dataclass(frozen=True)
class State:
    coins: tuple[int, int]
    guesses: tuple[int, int]  # 0: not yet
    rng: int


@dataclass(frozen=True)
class View:
    viewer: int | None
    own_coin: int
    guesses: tuple[int, int]
    revealed: tuple[int, ...]


@dataclass(frozen=True)
class Guessed:
    seat: int
    face: int


class CoinEngine:
    info = GameInfo(game_id="coin", display_name="Coin guess", min_players=2, max_players=2)

    def new_game(self, player_count: int, options: Mapping[str, str], seed: int) -> tuple[State, list]:
        parse_options(self.info, player_count, options)
        rng = Rng.from_seed(seed)
        coins = (1 + rng.below(2), 1 + rng.below(2))
        return State(coins, (0, 0), rng.state), []

    def player_count(self, state: State) -> int:
        return 2

    def deciders(self, state: State) -> tuple[int, ...]:
        return tuple(seat for seat in (0, 1) if not state.guesses[seat] and (seat == 0 or state.guesses[0]))[:1]

    def legal_actions(self, state: State, seat: int) -> list[int]:
        return [HEADS, TAILS] if seat in self.deciders(state) else []

    def apply(self, state: State, seat: int, action: int) -> tuple[State, list]:
        if seat not in self.deciders(state):
            raise NotYourDecision(f"seat {seat} need not decide")
        if action not in (HEADS, TAILS):
            raise IllegalAction("guess heads or tails")
        guesses = list(state.guesses)
        guesses[seat] = action
        return replace(state, guesses=(guesses[0], guesses[1])), [Guessed(seat, action)]

    def view(self, state: State, seat: int | None) -> View:
        over = all(state.guesses)
        return View(
            viewer=seat,
            own_coin=0 if seat is None else state.coins[seat],
            guesses=state.guesses,
            revealed=state.coins if over else (),
        )

    def project_event(self, event: Guessed, seat: int | None) -> Guessed:
        return event  # guesses are public

    def outcome(self, state: State) -> Outcome | None:
        if not all(state.guesses):
            return None
        right = tuple(seat for seat in (0, 1) if state.guesses[seat] == state.coins[1 - seat])
        winners = right if len(right) == 1 else ()
        return Outcome(winners=winners, summary="a right guess" if winners else "nobody wins")

    def describe_action(self, action: int) -> str:
        return f"guess {NAMES[action]}"

    def sample(self, view: View, seat: int, rng: Rng) -> State:
        coins = [0, 0]
        coins[seat] = view.own_coin
        coins[1 - seat] = view.revealed[1 - seat] if view.revealed else 1 + rng.below(2)
        return State((coins[0], coins[1]), view.guesses, rng.next_u64())


class CoinCodec:
    def state_to_proto(self, state: State) -> pb.GameState:
        return pb.GameState(coins=state.coins, guesses=state.guesses, rng=state.rng)

    def state_from_proto(self, message: Any) -> State:
        return State(tuple(message.coins), tuple(message.guesses), message.rng)

    def action_type(self) -> type[pb.Action]:
        return pb.Action

    def action_to_proto(self, action: int) -> pb.Action:
        return pb.Action(guess=pb.Guess(face=action))

    def action_from_proto(self, message: Any) -> int:
        if message.WhichOneof("kind") != "guess" or message.guess.face not in (HEADS, TAILS):
            raise MalformedAction("an action is a guess of heads or tails")
        return message.guess.face

    def view_type(self) -> type[pb.View]:
        return pb.View

    def view_to_proto(self, view: View) -> pb.View:
        message = pb.View(own_coin=view.own_coin, guesses=view.guesses, revealed=view.revealed)
        if view.viewer is not None:
            message.viewer_seat = view.viewer
        return message

    def view_from_proto(self, message: Any) -> View:
        viewer = message.viewer_seat if message.HasField("viewer_seat") else None
        return View(viewer, message.own_coin, tuple(message.guesses), tuple(message.revealed))

    def event_to_proto(self, event: Guessed) -> pb.Event:
        return pb.Event(guessed=pb.Guessed(seat=event.seat, face=event.face))


GAME = Game(engine=CoinEngine(), codec=CoinCodec())

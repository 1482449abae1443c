"""No move its own view refutes: positions where a seat's own view settles the answer,
and a check that a bot gives that answer in each.

    python -m bots.lab.settled --game borgia --positions 200 --bots ismcts --clock cpu

What each game's view settles (its playbook's ``settled``, ``bots/<game>/playbook.py``):
- Borgia: a bid its own dice already make true is allowed, one that its own dice and every
  die it cannot see could not make true is called (B4; ``bots.borgia.odds``), but for a bid
  of a player on its last die where the end that call brings elects a cardinal that is not
  its puppet whatever it cannot see (B7-B9): that one is allowed (``bots.borgia.endgame``);
- Il Trono di Mortadella: a guess of a role the deal leaves certain (M16, M19), and a die
  chosen or resolved that completes its own row, a win at once (M15;
  ``bots.mortadella.settled``);
- Pecunia non olet: collecting when what it pays reaches the target, and the Castor oil
  that makes a Roman pay at this collection when that reaches it (P4, P7;
  ``bots.pecunia.heuristic``).
In Mortadella and Pecunia a settled answer is a certain win: there, another move is right
too when it wins as well or keeps the certain win for the seat's next decision of the
turn (resolving its dice in another order, playing another card before collecting); a
move that gives the certain win away is refuted.

The positions come from games between the game's heuristic and random players (random
bidders make many bids that are sure to fail), every player count in turn, a few
positions a game; only positions where a refuted move is legal count (B12: at the highest
count a call is the only answer, and no test of anything). A bot sees each position as the
gateway would send it (``bots.lab.offline.view_response``).
"""

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bots.lab.offline import view_response
from bots.search import clock
from bots.search.makers import heuristic_policy, settled_answers
from bots.search.playbooks import load_playbooks, playbook
from bots.search.policy import random_policy
from bots.worker import registry
from services import bot_specs
from services.registry import get_game

PER_GAME = 4  # positions taken from one game at most, so they spread over many games


@dataclass(frozen=True)
class Position:
    state: Any
    seat: int
    answer: Any  # what the seat's own view proves right


def games_with_settled_answers() -> tuple[str, ...]:
    return tuple(sorted(game_id for game_id, book in load_playbooks().items() if book.settled is not None))


def is_right(game_id: str, state: Any, seat: int, answer: Any, chosen: Any) -> bool:
    """Whether ``chosen`` is as right as the settled ``answer`` in ``state``: the answer
    itself, or where the answer is a certain win, a move that wins too or after which the
    seat, deciding again, still has a certain win."""
    if chosen == answer:
        return True
    if not playbook(game_id).settled_wins:  # settled answers that are certain wins (see above)
        return False
    game = get_game(game_id)
    return _keeps_win(game, game.engine.apply(state, seat, chosen)[0], seat, settled_answers(game_id))


def _keeps_win(game: Any, state: Any, seat: int, settled: Any, depth: int = 8) -> bool:
    """Whether ``seat`` has won in ``state``, or decides next and its view still settles a
    win (a forced move, the only legal one, is followed)."""
    engine = game.engine
    ended = engine.outcome(state)
    if ended is not None:
        return tuple(ended.winners) == (seat,)
    if seat not in engine.deciders(state) or depth == 0:
        return False
    legal = engine.legal_actions(state, seat)
    if len(legal) == 1:
        return _keeps_win(game, engine.apply(state, seat, legal[0])[0], seat, settled, depth - 1)
    return settled(game, engine.view(state, seat), seat, legal) is not None


def positions(game_id: str, count: int, seed: int = 1) -> list[Position]:
    """``count`` positions where the deciding seat's view settles its answer and a move it refutes is legal."""
    game = get_game(game_id)
    engine, info = game.engine, game.engine.info
    settled = settled_answers(game_id)
    if settled is None:
        raise ValueError(f"game {game_id!r} has no settled answers (its playbook names none)")
    heuristic = heuristic_policy(game_id) or random_policy
    found: list[Position] = []
    index = 0
    while len(found) < count:
        players = info.min_players + index % (info.max_players - info.min_players + 1)
        rng = random.Random(seed * 100_003 + index)
        policies = [heuristic if (seat + index) % 2 else random_policy for seat in range(players)]
        state, _ = engine.new_game(players, {}, seed * 100_003 + index)
        taken = 0
        while (deciders := engine.deciders(state)) and taken < PER_GAME and len(found) < count:
            seat = rng.choice(deciders)
            legal = engine.legal_actions(state, seat)
            view = engine.view(state, seat)
            answer = settled(game, view, seat, legal) if len(legal) > 1 else None
            if answer is not None and any(not is_right(game_id, state, seat, answer, a) for a in legal):
                found.append(Position(state, seat, answer))
                taken += 1
            state, _ = engine.apply(state, seat, policies[seat](game, view, seat, legal, rng))
        index += 1
    return found


def refuted(bot: str, game_id: str, found: Sequence[Position], seed: int = 1) -> list[tuple[Position, Any]]:
    """The positions where ``bot`` chose otherwise than its view proves right, with its choice."""
    game = get_game(game_id)
    strategy = registry.make_strategy(bot, game_id)
    wrong = []
    for i, position in enumerate(found):
        response = view_response(game, position.state, position.seat)
        choice = strategy(response, random.Random(seed + i))
        message = game.codec.action_type()()
        choice.action.Unpack(message)
        chosen = game.codec.action_from_proto(message)
        if not is_right(game_id, position.state, position.seat, position.answer, chosen):
            wrong.append((position, chosen))
    return wrong


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.lab.settled", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="borgia", choices=games_with_settled_answers())
    parser.add_argument("--bots", default="ismcts", help="comma-separated bots, each name or name:key=value,...")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="what thinking budgets count")
    args = parser.parse_args(argv)
    clock.use(args.clock)
    try:
        bots = bot_specs.split_bots(args.bots)
        for bot in bots:
            bot_specs.resolve(bot, args.game)
    except bot_specs.BotError as error:
        parser.error(str(error))
    found = positions(args.game, args.positions, args.seed)
    kinds: dict[str, int] = {}
    for position in found:
        kinds[type(position.answer).__name__] = kinds.get(type(position.answer).__name__, 0) + 1
    print(
        f"{args.game}: {len(found)} positions its own view settles, seed {args.seed} "
        f"({', '.join(f'{n} {kind.lower()}' for kind, n in sorted(kinds.items()))})"
    )
    for bot in bots:
        started = time.monotonic()
        wrong = refuted(bot, args.game, found, args.seed)
        print(f"{bot}: {len(wrong)} refuted of {len(found)} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Literal Il Trono di Mortadella states for rule tests."""

from services.mortadella.model import Phase, Role, State, Symbol

P, T, B, M, W, R = (Symbol.PEOPLE, Symbol.TOWER, Symbol.BOOK, Symbol.MORTADELLA, Symbol.WINE, Symbol.RAT)
ZERO = (0, 0, 0, 0)

# Default deal per player count: every seat a known role, the rest of the pool undealt.
ROLES = {
    2: (Role.PRINCE, Role.RECTOR),
    3: (Role.PRINCE, Role.RECTOR, Role.LORD),
    4: (Role.PRINCE, Role.RECTOR, Role.LORD, Role.CAPTAIN),
    5: (Role.PRINCE, Role.RECTOR, Role.LORD, Role.CAPTAIN, Role.CARDINAL),
    6: (Role.PRINCE, Role.RECTOR, Role.LORD, Role.CAPTAIN, Role.CARDINAL, Role.MASTER),
    7: (Role.PRINCE, Role.RECTOR, Role.LORD, Role.CAPTAIN, Role.CARDINAL, Role.MASTER, Role.BRIGAND),
}
UNDEALT = {
    2: (Role.LORD, Role.CAPTAIN, Role.CARDINAL),
    3: (Role.CAPTAIN, Role.CARDINAL, Role.MASTER),
    4: (Role.CARDINAL, Role.MASTER),
    5: (Role.MASTER,),
    6: (),
    7: (),
}


def make_state(n: int = 4, **fields) -> State:
    """A literal state: seat 0 to play, before the roll, nobody holding anything.

    ``tokens`` may be given as a dict {seat: (people, tower, book, mortadella)}."""
    tokens = fields.pop("tokens", {})
    if isinstance(tokens, dict):
        tokens = tuple(tokens.get(seat, ZERO) for seat in range(n))
    base = dict(
        player_count=n,
        max_turns=500,
        additional_rules=True,
        rng=0x1234_5678_9ABC_DEF0,
        roles=ROLES[n],
        removed_roles=((),) * n,
        undealt=UNDEALT[n],
        tokens=tokens,
        in_game=(True,) * n,
        skip_turn=(False,) * n,
        start_player=0,
        active=0,
        turn=1,
        lombard_holder=n - 1,
        lombard_used=False,
        passed=(),
        kept=False,
        dice=(),
        carnival=False,
        chosen=(),
        unchosen=(),
        remaining=(),
        phase=Phase.PRE_ROLL,
        effect=None,
        target=None,
        steal_symbol=None,
        steals_left=0,
        waiting=(),
        guess_context=None,
        winners=(),
        end_reason=None,
        wrong_guesses=(),
    )
    base.update(fields)
    return State(**base)


def resolving(n: int = 4, remaining=(), chosen=None, unchosen=(W, R), **fields) -> State:
    """Seat ``active`` (default 0) resolving ``remaining`` of its chosen dice."""
    chosen = tuple(sorted(remaining)) if chosen is None else chosen
    fields.setdefault("dice", tuple(sorted((*chosen, *unchosen))))
    fields.setdefault("phase", Phase.RESOLVE)
    fields.setdefault("lombard_used", True)
    return make_state(n, chosen=chosen, unchosen=unchosen, remaining=tuple(sorted(remaining)), **fields)

"""Il Trono di Mortadella: engine values <-> tavola.mortadella.v1 proto messages.

Python enums share their numbers with the proto enums; ``None`` is the proto's 0
(UNSPECIFIED) for enums and an unset ``optional`` for seats.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from services.engine.errors import MalformedAction
from services.mortadella import model as m
from tavola.mortadella.v1 import mortadella_pb2 as pb

E = TypeVar("E", bound=int)


def _enum(kind: type[E], value: int) -> E | None:
    return None if value == 0 else kind(value)  # type: ignore[call-arg]


def _num(value: int | None) -> int:
    return 0 if value is None else int(value)


def _opt(message: Any, field: str) -> int | None:
    return getattr(message, field) if message.HasField(field) else None


def _symbols(values: Iterable[int]) -> tuple[m.Symbol, ...]:
    return tuple(m.Symbol(v) for v in values)


def _tokens_pb(tokens: tuple[int, ...]) -> pb.Tokens:
    return pb.Tokens(people=tokens[0], tower=tokens[1], book=tokens[2], mortadella=tokens[3])


def _tokens_py(message: pb.Tokens) -> m.Tokens:
    return (message.people, message.tower, message.book, message.mortadella)


def _guesses_pb(guesses: Iterable[m.WrongGuess]) -> list[pb.WrongGuess]:
    return [
        pb.WrongGuess(
            guesser=g.guesser, guesser_card=g.guesser_card, target=g.target, target_card=g.target_card, role=int(g.role)
        )
        for g in guesses
    ]


def _guesses_py(messages: Iterable[pb.WrongGuess]) -> tuple[m.WrongGuess, ...]:
    return tuple(m.WrongGuess(g.guesser, g.guesser_card, g.target, g.target_card, m.Role(g.role)) for g in messages)


# --------------------------------------------------------------------------- actions


def _strict_symbol(value: int, allowed: tuple[m.Symbol, ...] = m.DIE_FACES) -> m.Symbol:
    try:
        symbol = m.Symbol(value)
    except ValueError:
        raise MalformedAction(f"no such symbol: {value}") from None
    if symbol not in allowed:
        raise MalformedAction(f"symbol {symbol.name} makes no sense here")
    return symbol


def _strict_enum(kind: type[E], value: int, what: str) -> E:
    try:
        return kind(value)  # type: ignore[call-arg]
    except ValueError:
        raise MalformedAction(f"no such {what}: {value}") from None


def _strict_seat(value: int) -> int:
    if value < 0:
        raise MalformedAction(f"no such seat: {value}")
    return value


def _action_choose_start_token(msg: pb.ChooseStartToken) -> m.Action:
    return m.ChooseStartToken(_strict_symbol(msg.symbol, m.TOKEN_SYMBOLS))


def _action_roll_dice(msg: pb.RollDice) -> m.Action:
    return m.RollDice(msg.keep_passed)


def _action_guess_role(msg: pb.GuessRole) -> m.Action:
    return m.GuessRole(_strict_seat(msg.target), _strict_enum(m.Role, msg.role, "role"))


def _action_use_lombard(msg: pb.UseLombard) -> m.Action:
    return m.UseLombard(msg.reroll)


def _action_choose_dice(msg: pb.ChooseDice) -> m.Action:
    if len(msg.symbols) != 3:
        raise MalformedAction("choose exactly three dice")
    return m.ChooseDice(tuple(_strict_symbol(s) for s in msg.symbols))


def _action_resolve_effect(msg: pb.ResolveEffect) -> m.Action:
    if len(msg.dice) not in (1, 2):
        raise MalformedAction("resolve one die or two")
    return m.ResolveEffect(tuple(_strict_symbol(s) for s in msg.dice), _strict_enum(m.Effect, msg.effect, "effect"))


def _action_choose_target(msg: pb.ChooseTarget) -> m.Action:
    return m.ChooseTarget(_strict_seat(msg.target))


def _action_choose_revolution(msg: pb.ChooseRevolution) -> m.Action:
    return m.ChooseRevolution(_strict_seat(msg.target), _strict_symbol(msg.symbol, (m.Symbol.TOWER, m.Symbol.BOOK)))


def _action_pay_cancel(msg: pb.PayCancel) -> m.Action:
    return m.PayCancel(msg.pay)


def _action_plague_discard(msg: pb.PlagueDiscard) -> m.Action:
    return m.PlagueDiscard(_strict_symbol(msg.symbol, (m.Symbol.PEOPLE, m.Symbol.TOWER)))


def _action_steal_from(msg: pb.StealFrom) -> m.Action:
    return m.StealFrom(_strict_seat(msg.victim))


_ACTION_READERS: dict[str, Callable[[Any], m.Action]] = {
    "choose_start_token": _action_choose_start_token,
    "roll_dice": _action_roll_dice,
    "guess_role": _action_guess_role,
    "use_lombard": _action_use_lombard,
    "choose_dice": _action_choose_dice,
    "resolve_effect": _action_resolve_effect,
    "choose_target": _action_choose_target,
    "choose_revolution": _action_choose_revolution,
    "pay_cancel": _action_pay_cancel,
    "plague_discard": _action_plague_discard,
    "steal_from": _action_steal_from,
}


class MortadellaCodec:
    """The Codec protocol for Il Trono di Mortadella (services.engine.api.Codec)."""

    # ------------------------------------------------------------------ state

    def state_to_proto(self, state: m.State) -> pb.GameState:
        msg = pb.GameState(
            player_count=state.player_count,
            max_turns=state.max_turns,
            additional_rules=state.additional_rules,
            rng=state.rng,
            seats=[
                pb.SeatState(
                    role=int(state.roles[s]),
                    tokens=_tokens_pb(state.tokens[s]),
                    in_game=state.in_game[s],
                    skip_turn=state.skip_turn[s],
                    removed_roles=[int(r) for r in state.removed_roles[s]],
                )
                for s in range(state.player_count)
            ],
            undealt_roles=[int(r) for r in state.undealt],
            start_player=state.start_player,
            active_seat=state.active,
            turn=state.turn,
            lombard_used=state.lombard_used,
            passed_dice=[int(d) for d in state.passed],
            kept_passed=state.kept,
            dice=[int(d) for d in state.dice],
            carnival=state.carnival,
            chosen_dice=[int(d) for d in state.chosen],
            unchosen_dice=[int(d) for d in state.unchosen],
            remaining_dice=[int(d) for d in state.remaining],
            phase=int(state.phase),
            effect=_num(state.effect),
            steal_symbol=_num(state.steal_symbol),
            steals_left=state.steals_left,
            waiting_seats=list(state.waiting),
            guess_context=_num(state.guess_context),
            winners=list(state.winners),
            end_reason=_num(state.end_reason),
            wrong_guesses=_guesses_pb(state.wrong_guesses),
        )
        if state.lombard_holder is not None:
            msg.lombard_holder = state.lombard_holder
        if state.target is not None:
            msg.target = state.target
        return msg

    def state_from_proto(self, message: Any) -> m.State:
        seats = list(message.seats)
        return m.State(
            player_count=message.player_count,
            max_turns=message.max_turns,
            additional_rules=message.additional_rules,
            rng=message.rng,
            roles=tuple(m.Role(s.role) for s in seats),
            removed_roles=tuple(tuple(m.Role(r) for r in s.removed_roles) for s in seats),
            undealt=tuple(m.Role(r) for r in message.undealt_roles),
            tokens=tuple(_tokens_py(s.tokens) for s in seats),
            in_game=tuple(s.in_game for s in seats),
            skip_turn=tuple(s.skip_turn for s in seats),
            start_player=message.start_player,
            active=message.active_seat,
            turn=message.turn,
            lombard_holder=_opt(message, "lombard_holder"),
            lombard_used=message.lombard_used,
            passed=_symbols(message.passed_dice),
            kept=message.kept_passed,
            dice=_symbols(message.dice),
            carnival=message.carnival,
            chosen=_symbols(message.chosen_dice),
            unchosen=_symbols(message.unchosen_dice),
            remaining=_symbols(message.remaining_dice),
            phase=m.Phase(message.phase),
            effect=_enum(m.Effect, message.effect),
            target=_opt(message, "target"),
            steal_symbol=_enum(m.Symbol, message.steal_symbol),
            steals_left=message.steals_left,
            waiting=tuple(message.waiting_seats),
            guess_context=_enum(m.GuessContext, message.guess_context),
            winners=tuple(message.winners),
            end_reason=_enum(m.EndReason, message.end_reason),
            wrong_guesses=_guesses_py(message.wrong_guesses),
        )

    # ------------------------------------------------------------------ actions

    def action_type(self) -> type[pb.Action]:
        return pb.Action

    def action_to_proto(self, action: m.Action) -> pb.Action:
        if isinstance(action, m.ChooseStartToken):
            return pb.Action(choose_start_token=pb.ChooseStartToken(symbol=int(action.symbol)))
        if isinstance(action, m.RollDice):
            return pb.Action(roll_dice=pb.RollDice(keep_passed=action.keep_passed))
        if isinstance(action, m.GuessRole):
            return pb.Action(guess_role=pb.GuessRole(target=action.target, role=int(action.role)))
        if isinstance(action, m.UseLombard):
            return pb.Action(use_lombard=pb.UseLombard(reroll=action.reroll))
        if isinstance(action, m.ChooseDice):
            return pb.Action(choose_dice=pb.ChooseDice(symbols=[int(s) for s in action.symbols]))
        if isinstance(action, m.ResolveEffect):
            return pb.Action(
                resolve_effect=pb.ResolveEffect(dice=[int(s) for s in action.dice], effect=int(action.effect))
            )
        if isinstance(action, m.ChooseTarget):
            return pb.Action(choose_target=pb.ChooseTarget(target=action.target))
        if isinstance(action, m.ChooseRevolution):
            return pb.Action(choose_revolution=pb.ChooseRevolution(target=action.target, symbol=int(action.symbol)))
        if isinstance(action, m.PayCancel):
            return pb.Action(pay_cancel=pb.PayCancel(pay=action.pay))
        if isinstance(action, m.PlagueDiscard):
            return pb.Action(plague_discard=pb.PlagueDiscard(symbol=int(action.symbol)))
        if isinstance(action, m.StealFrom):
            return pb.Action(steal_from=pb.StealFrom(victim=action.victim))
        raise MalformedAction("not an action of Il Trono di Mortadella")

    def action_from_proto(self, message: Any) -> m.Action:
        if not isinstance(message, pb.Action):
            raise MalformedAction("expected a tavola.mortadella.v1.Action")
        kind = message.WhichOneof("kind")
        if kind is None:
            raise MalformedAction("the action names no kind")
        return _ACTION_READERS[kind](getattr(message, kind))

    # ------------------------------------------------------------------ views

    def view_to_proto(self, view: m.View) -> pb.View:
        msg = pb.View(
            player_count=view.player_count,
            max_turns=view.max_turns,
            additional_rules=view.additional_rules,
            seats=[
                pb.SeatView(
                    seat=s.seat,
                    role=_num(s.role),
                    tokens=_tokens_pb(s.tokens),
                    in_game=s.in_game,
                    skip_turn=s.skip_turn,
                    removed_role_count=s.removed_role_count,
                    removed_roles=[int(r) for r in s.removed_roles],
                )
                for s in view.seats
            ],
            undealt_count=view.undealt_count,
            start_player=view.start_player,
            active_seat=view.active,
            turn=view.turn,
            lombard_used=view.lombard_used,
            passed_dice=[int(d) for d in view.passed],
            kept_passed=view.kept,
            dice=[int(d) for d in view.dice],
            carnival=view.carnival,
            chosen_dice=[int(d) for d in view.chosen],
            unchosen_dice=[int(d) for d in view.unchosen],
            remaining_dice=[int(d) for d in view.remaining],
            phase=int(view.phase),
            effect=_num(view.effect),
            steal_symbol=_num(view.steal_symbol),
            steals_left=view.steals_left,
            waiting_seats=list(view.waiting),
            guess_context=_num(view.guess_context),
            deciding_seats=list(view.deciders),
            winners=list(view.winners),
            end_reason=_num(view.end_reason),
            wrong_guesses=_guesses_pb(view.wrong_guesses),
        )
        if view.viewer is not None:
            msg.viewer = view.viewer
        if view.lombard_holder is not None:
            msg.lombard_holder = view.lombard_holder
        if view.target is not None:
            msg.target = view.target
        return msg

    def view_type(self) -> type[pb.View]:
        return pb.View

    def view_from_proto(self, message: Any) -> m.View:
        return m.View(
            viewer=_opt(message, "viewer"),
            player_count=message.player_count,
            max_turns=message.max_turns,
            additional_rules=message.additional_rules,
            seats=tuple(
                m.SeatView(
                    seat=s.seat,
                    role=_enum(m.Role, s.role),
                    tokens=_tokens_py(s.tokens),
                    in_game=s.in_game,
                    skip_turn=s.skip_turn,
                    removed_role_count=s.removed_role_count,
                    removed_roles=tuple(m.Role(r) for r in s.removed_roles),
                )
                for s in message.seats
            ),
            undealt_count=message.undealt_count,
            start_player=message.start_player,
            active=message.active_seat,
            turn=message.turn,
            lombard_holder=_opt(message, "lombard_holder"),
            lombard_used=message.lombard_used,
            passed=_symbols(message.passed_dice),
            kept=message.kept_passed,
            dice=_symbols(message.dice),
            carnival=message.carnival,
            chosen=_symbols(message.chosen_dice),
            unchosen=_symbols(message.unchosen_dice),
            remaining=_symbols(message.remaining_dice),
            phase=m.Phase(message.phase),
            effect=_enum(m.Effect, message.effect),
            target=_opt(message, "target"),
            steal_symbol=_enum(m.Symbol, message.steal_symbol),
            steals_left=message.steals_left,
            waiting=tuple(message.waiting_seats),
            guess_context=_enum(m.GuessContext, message.guess_context),
            deciders=tuple(message.deciding_seats),
            winners=tuple(message.winners),
            end_reason=_enum(m.EndReason, message.end_reason),
            wrong_guesses=_guesses_py(message.wrong_guesses),
        )

    # ------------------------------------------------------------------ events

    def event_to_proto(self, event: m.Event) -> pb.Event:
        if isinstance(event, m.RoleDealt):
            return pb.Event(role_dealt=pb.RoleDealt(seat=event.seat, role=_num(event.role)))
        if isinstance(event, m.StartRoll):
            return pb.Event(
                start_roll=pb.StartRoll(
                    entries=[
                        pb.StartRollEntry(seat=seat, dice=[int(d) for d in roll])
                        for seat, roll in zip(event.seats, event.rolls, strict=True)
                    ]
                )
            )
        if isinstance(event, m.StartPlayerChosen):
            msg = pb.StartPlayerChosen(seat=event.seat)
            if event.lombard_holder is not None:
                msg.lombard_holder = event.lombard_holder
            return pb.Event(start_player_chosen=msg)
        if isinstance(event, m.TurnStarted):
            return pb.Event(
                turn_started=pb.TurnStarted(
                    seat=event.seat, turn=event.turn, passed_dice=[int(d) for d in event.passed]
                )
            )
        if isinstance(event, m.TurnSkipped):
            return pb.Event(turn_skipped=pb.TurnSkipped(seat=event.seat))
        if isinstance(event, m.DiceRolled):
            return pb.Event(
                dice_rolled=pb.DiceRolled(seat=event.seat, dice=[int(d) for d in event.dice], kept_passed=event.kept)
            )
        if isinstance(event, m.LombardDecided):
            msg = pb.LombardDecided(holder=event.holder, reroll=event.reroll, dice=[int(d) for d in event.dice])
            if event.new_holder is not None:
                msg.new_holder = event.new_holder
            return pb.Event(lombard_decided=msg)
        if isinstance(event, m.SpecialEventOccurred):
            return pb.Event(
                special_event_occurred=pb.SpecialEventOccurred(kind=int(event.kind), symbol=_num(event.symbol))
            )
        if isinstance(event, m.DiceChosen):
            return pb.Event(
                dice_chosen=pb.DiceChosen(
                    seat=event.seat,
                    chosen=[int(d) for d in event.chosen],
                    passed_on=[int(d) for d in event.passed_on],
                )
            )
        if isinstance(event, m.EffectChosen):
            return pb.Event(
                effect_chosen=pb.EffectChosen(
                    seat=event.seat, dice=[int(d) for d in event.dice], effect=int(event.effect)
                )
            )
        if isinstance(event, m.TargetChosen):
            return pb.Event(
                target_chosen=pb.TargetChosen(
                    seat=event.seat, effect=int(event.effect), target=event.target, symbol=_num(event.symbol)
                )
            )
        if isinstance(event, m.CancelDecided):
            return pb.Event(cancel_decided=pb.CancelDecided(seat=event.seat, effect=int(event.effect), paid=event.paid))
        if isinstance(event, m.TokensChanged):
            msg = pb.TokensChanged(seat=event.seat, symbol=int(event.symbol), delta=event.delta, cause=int(event.cause))
            if event.other is not None:
                msg.other = event.other
            return pb.Event(tokens_changed=msg)
        if isinstance(event, m.SkipTurnGiven):
            return pb.Event(skip_turn_given=pb.SkipTurnGiven(seat=event.seat))
        if isinstance(event, m.NoEffect):
            return pb.Event(no_effect=pb.NoEffect(seat=event.seat, effect=int(event.effect)))
        if isinstance(event, m.GuessMade):
            return pb.Event(
                guess_made=pb.GuessMade(
                    seat=event.seat, target=event.target, role=int(event.role), correct=event.correct
                )
            )
        if isinstance(event, m.RoleReplaced):
            return pb.Event(
                role_replaced=pb.RoleReplaced(
                    seat=event.seat, old_role=_num(event.old_role), new_role=_num(event.new_role)
                )
            )
        if isinstance(event, m.PlayerEliminated):
            msg = pb.PlayerEliminated(seat=event.seat, cause=int(event.cause), returned=_tokens_pb(event.returned))
            if event.lombard_to is not None:
                msg.lombard_to = event.lombard_to
            return pb.Event(player_eliminated=msg)
        if isinstance(event, m.GameEnded):
            return pb.Event(
                game_ended=pb.GameEnded(
                    winners=list(event.winners),
                    reason=int(event.reason),
                    revealed=[
                        pb.RevealedRole(seat=seat, role=int(role), removed_roles=[int(r) for r in removed])
                        for seat, (role, removed) in enumerate(zip(event.roles, event.removed_roles, strict=True))
                    ],
                )
            )
        raise TypeError(f"not an event of Il Trono di Mortadella: {event!r}")


CODEC = MortadellaCodec()

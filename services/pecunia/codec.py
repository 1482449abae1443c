"""Pecunia non olet values <-> ``tavola.pecunia.v1`` protos (the Codec protocol)."""

from __future__ import annotations

from typing import Any

from services.engine.errors import MalformedAction
from services.pecunia import model as m
from tavola.pecunia.v1 import pecunia_pb2 as pb

# Engine enums are 0-based for seats; proto enums keep 0 for UNSPECIFIED.
_SEAT_TO_PB = {
    m.SeatPos.LEFT: pb.SEAT_POSITION_LEFT,
    m.SeatPos.MIDDLE: pb.SEAT_POSITION_MIDDLE,
    m.SeatPos.RIGHT: pb.SEAT_POSITION_RIGHT,
}
_SEAT_FROM_PB = {value: key for key, value in _SEAT_TO_PB.items()}
_ROMAN_KINDS = {kind.value for kind in m.RomanKind}
_ACTION_KINDS = {kind.value for kind in m.ActionKind}
_PHASES = {phase.value for phase in m.Phase}


def _seat(value: int) -> m.SeatPos:
    seat = _SEAT_FROM_PB.get(value)
    if seat is None:
        raise MalformedAction(f"no latrine seat {value}")
    return seat


def _roman(card: m.RomanCard) -> pb.RomanCard:
    return pb.RomanCard(id=card.id, kind=int(card.kind), rounds=card.rounds, sesterces=card.sesterces)


def _action_card(card: m.ActionCard) -> pb.ActionCard:
    return pb.ActionCard(id=card.id, kind=int(card.kind))


def _roman_from(message: pb.RomanCard) -> m.RomanCard:
    if message.kind not in _ROMAN_KINDS:
        raise ValueError(f"unknown Roman kind {message.kind}")
    return m.RomanCard(message.id, m.RomanKind(message.kind), message.rounds, message.sesterces)


def _action_card_from(message: pb.ActionCard) -> m.ActionCard:
    if message.kind not in _ACTION_KINDS:
        raise ValueError(f"unknown action card kind {message.kind}")
    return m.ActionCard(message.id, m.ActionKind(message.kind))


class PecuniaCodec:
    # -- state ---------------------------------------------------------------------------

    def state_to_proto(self, state: m.PecuniaState) -> pb.GameState:
        message = pb.GameState(
            deck=pb.Deck(
                name=state.deck.name,
                romans=[_roman(card) for card in state.deck.romans],
                actions=[_action_card(card) for card in state.deck.actions],
            ),
            target=state.target,
            turn_limit=state.turn_limit,
            start_player=state.start_player,
            roman_pile=state.roman_pile,
            roman_discard=state.roman_discard,
            action_pile=state.action_pile,
            action_discard=state.action_discard,
            active=state.active,
            phase=int(state.phase),
            villa_dixius=state.villa,
            turn=state.turn,
            rng=state.rng,
            winners=state.winners,
            end_reason=int(state.end_reason),
        )
        if state.reorder is not None:
            message.reorder_placed = state.reorder
        for p in range(state.player_count):
            player = message.players.add(queue=state.queues[p], hand=state.hands[p], sesterces=state.coins[p])
            for stack in state.seats[p]:
                player.seats.add(romans=[pb.SeatedRomanState(card=r.card, markers=r.markers) for r in stack])
        return message

    def state_from_proto(self, message: Any) -> m.PecuniaState:
        if not isinstance(message, pb.GameState):
            raise TypeError(f"expected tavola.pecunia.v1.GameState, not {type(message).__name__}")
        if message.phase not in _PHASES:
            raise ValueError(f"unknown phase {message.phase}")
        deck = m.Deck(
            name=message.deck.name,
            romans=tuple(_roman_from(card) for card in message.deck.romans),
            actions=tuple(_action_card_from(card) for card in message.deck.actions),
        )
        seats = []
        for player in message.players:
            if len(player.seats) != 3:
                raise ValueError("a latrine has exactly three seats")
            seats.append(tuple(tuple(m.Seated(r.card, r.markers) for r in seat.romans) for seat in player.seats))
        return m.PecuniaState(
            deck=deck,
            target=message.target,
            turn_limit=message.turn_limit,
            start_player=message.start_player,
            seats=tuple(seats),
            queues=tuple(tuple(player.queue) for player in message.players),
            hands=tuple(tuple(player.hand) for player in message.players),
            coins=tuple(player.sesterces for player in message.players),
            roman_pile=tuple(message.roman_pile),
            roman_discard=tuple(message.roman_discard),
            action_pile=tuple(message.action_pile),
            action_discard=tuple(message.action_discard),
            active=message.active,
            phase=m.Phase(message.phase),
            villa=message.villa_dixius,
            reorder=message.reorder_placed if message.HasField("reorder_placed") else None,
            turn=message.turn,
            rng=message.rng,
            winners=tuple(message.winners),
            end_reason=m.EndReason(message.end_reason),
        )

    # -- actions -------------------------------------------------------------------------

    def action_type(self) -> type[pb.Action]:
        return pb.Action

    def action_to_proto(self, action: m.PecuniaAction) -> pb.Action:
        kind = type(action)
        if kind is m.RemoveMarkers:
            return pb.Action(remove_markers=pb.RemoveMarkers())
        if kind is m.SeatRoman:
            return pb.Action(seat_roman=pb.SeatRoman(seat=_SEAT_TO_PB[action.seat], pair=action.pair))
        if kind is m.EndRefill:
            return pb.Action(end_refill=pb.EndRefill())
        if kind is m.DrawActionCard:
            return pb.Action(draw_action_card=pb.DrawActionCard())
        if kind is m.PlayVillaDixius:
            return pb.Action(play_villa_dixius=pb.PlayVillaDixius())
        if kind is m.PlayQueueJumper:
            return pb.Action(play_queue_jumper=pb.PlayQueueJumper(index=action.index))
        if kind is m.PlayCastorOil:
            return pb.Action(
                play_castor_oil=pb.PlayCastorOil(seat=_SEAT_TO_PB[action.seat], slot=action.slot, amount=action.amount)
            )
        if kind is m.PlayFishPoisoning:
            return pb.Action(
                play_fish_poisoning=pb.PlayFishPoisoning(
                    target=action.target, seat=_SEAT_TO_PB[action.seat], slot=action.slot
                )
            )
        if kind is m.PlaySpecialTax:
            return pb.Action(play_special_tax=pb.PlaySpecialTax(target=action.target))
        if kind is m.PlayPoaching:
            return pb.Action(play_poaching=pb.PlayPoaching(target=action.target))
        if kind is m.PlaySwap:
            return pb.Action(
                play_swap=pb.PlaySwap(index=action.index, target=action.target, target_index=action.target_index)
            )
        if kind is m.PlaySenateMeeting:
            return pb.Action(play_senate_meeting=pb.PlaySenateMeeting(target=action.target))
        if kind is m.PlayReordering:
            return pb.Action(play_reordering=pb.PlayReordering())
        if kind is m.PlayEviction:
            return pb.Action(
                play_eviction=pb.PlayEviction(target=action.target, seat=_SEAT_TO_PB[action.seat], slot=action.slot)
            )
        if kind is m.PickNext:
            return pb.Action(pick_next=pb.PickNext(index=action.index))
        raise MalformedAction(f"not a Pecunia non olet action: {kind.__name__}")

    def action_from_proto(self, message: Any) -> m.PecuniaAction:
        if not isinstance(message, pb.Action):
            raise MalformedAction(f"expected tavola.pecunia.v1.Action, not {type(message).__name__}")
        which = message.WhichOneof("kind")
        if which is None:
            raise MalformedAction("the action names no kind")
        body = getattr(message, which)

        def non_negative(*values: int) -> None:
            if any(value < 0 for value in values):
                raise MalformedAction(f"{which}: negative number")

        def slot(value: int) -> int:
            if value not in (0, 1):
                raise MalformedAction(f"{which}: slot must be 0 or 1, not {value}")
            return value

        if which == "remove_markers":
            return m.RemoveMarkers()
        if which == "seat_roman":
            return m.SeatRoman(_seat(body.seat), body.pair)
        if which == "end_refill":
            return m.EndRefill()
        if which == "draw_action_card":
            return m.DrawActionCard()
        if which == "play_villa_dixius":
            return m.PlayVillaDixius()
        if which == "play_queue_jumper":
            non_negative(body.index)
            return m.PlayQueueJumper(body.index)
        if which == "play_castor_oil":
            if body.amount not in (1, 2):
                raise MalformedAction(f"castor oil removes 1 or 2 round markers, not {body.amount}")
            return m.PlayCastorOil(_seat(body.seat), slot(body.slot), body.amount)
        if which == "play_fish_poisoning":
            non_negative(body.target)
            return m.PlayFishPoisoning(body.target, _seat(body.seat), slot(body.slot))
        if which == "play_special_tax":
            non_negative(body.target)
            return m.PlaySpecialTax(body.target)
        if which == "play_poaching":
            non_negative(body.target)
            return m.PlayPoaching(body.target)
        if which == "play_swap":
            non_negative(body.index, body.target, body.target_index)
            return m.PlaySwap(body.index, body.target, body.target_index)
        if which == "play_senate_meeting":
            non_negative(body.target)
            return m.PlaySenateMeeting(body.target)
        if which == "play_reordering":
            return m.PlayReordering()
        if which == "play_eviction":
            non_negative(body.target)
            return m.PlayEviction(body.target, _seat(body.seat), slot(body.slot))
        if which == "pick_next":
            non_negative(body.index)
            return m.PickNext(body.index)
        raise MalformedAction(f"unknown action kind {which}")  # pragma: no cover - every oneof case is above

    # -- views and events ----------------------------------------------------------------

    def view_to_proto(self, view: m.PecuniaView) -> pb.View:
        message = pb.View(
            deck_name=view.deck_name,
            target=view.target,
            turn_limit=view.turn_limit,
            start_player=view.start_player,
            turn=view.turn,
            active=view.active,
            phase=int(view.phase),
            villa_dixius=view.villa,
            roman_pile_count=view.roman_pile_count,
            roman_discard=[_roman(card) for card in view.roman_discard],
            action_pile_count=view.action_pile_count,
            action_discard=[_action_card(card) for card in view.action_discard],
            winners=view.winners,
            end_reason=int(view.end_reason),
        )
        if view.viewer is not None:
            message.viewer = view.viewer
        if view.reorder is not None:
            message.reorder_placed = view.reorder
        for player in view.players:
            entry = message.players.add(
                seat=player.seat,
                sesterces=player.sesterces,
                queue=[_roman(card) for card in player.queue],
                hand_count=player.hand_count,
                hand_visible=player.hand is not None,
                hand=[_action_card(card) for card in player.hand or ()],
            )
            for position, stack in zip(m.SeatPos, player.latrine, strict=True):
                entry.latrine.add(
                    position=_SEAT_TO_PB[position],
                    romans=[pb.SeatedRoman(card=_roman(r.card), markers=r.markers) for r in stack],
                )
        return message

    def view_type(self) -> type[pb.View]:
        return pb.View

    def view_from_proto(self, message: Any) -> m.PecuniaView:
        """The inverse of ``view_to_proto`` (bots decode the view the gateway sends them)."""
        if not isinstance(message, pb.View):
            raise TypeError(f"expected tavola.pecunia.v1.View, not {type(message).__name__}")
        if message.phase not in _PHASES:
            raise ValueError(f"unknown phase {message.phase}")
        players = []
        for player in message.players:
            if [seat.position for seat in player.latrine] != list(_SEAT_TO_PB.values()):
                raise ValueError("a latrine has exactly three seats: LEFT, MIDDLE, RIGHT")
            players.append(
                m.PlayerView(
                    seat=player.seat,
                    sesterces=player.sesterces,
                    latrine=tuple(
                        tuple(m.SeatedView(_roman_from(r.card), r.markers) for r in seat.romans)
                        for seat in player.latrine
                    ),
                    queue=tuple(_roman_from(card) for card in player.queue),
                    hand_count=player.hand_count,
                    hand=tuple(_action_card_from(card) for card in player.hand) if player.hand_visible else None,
                )
            )
        return m.PecuniaView(
            viewer=message.viewer if message.HasField("viewer") else None,
            deck_name=message.deck_name,
            target=message.target,
            turn_limit=message.turn_limit,
            start_player=message.start_player,
            turn=message.turn,
            active=message.active,
            phase=m.Phase(message.phase),
            villa=message.villa_dixius,
            reorder=message.reorder_placed if message.HasField("reorder_placed") else None,
            players=tuple(players),
            roman_pile_count=message.roman_pile_count,
            roman_discard=tuple(_roman_from(card) for card in message.roman_discard),
            action_pile_count=message.action_pile_count,
            action_discard=tuple(_action_card_from(card) for card in message.action_discard),
            winners=tuple(message.winners),
            end_reason=m.EndReason(message.end_reason),
        )

    def event_to_proto(self, event: m.PecuniaEvent) -> pb.Event:
        kind = type(event)
        if kind is m.GameStarted:
            return pb.Event(
                game_started=pb.GameStarted(
                    player_count=event.player_count,
                    start_player=event.start_player,
                    target=event.target,
                    turn_limit=event.turn_limit,
                    deck_name=event.deck_name,
                )
            )
        if kind is m.TurnStarted:
            return pb.Event(turn_started=pb.TurnStarted(player=event.player, turn=event.turn))
        if kind is m.RomanSeated:
            return pb.Event(
                roman_seated=pb.RomanSeated(
                    player=event.player, seat=_SEAT_TO_PB[event.seat], card=_roman(event.card), markers=event.markers
                )
            )
        if kind is m.QueueDealt:
            return pb.Event(queue_dealt=pb.QueueDealt(player=event.player, cards=[_roman(c) for c in event.cards]))
        if kind is m.ActionCardsDrawn:
            return pb.Event(
                action_cards_drawn=pb.ActionCardsDrawn(
                    player=event.player, count=event.count, cards=[_action_card(c) for c in event.cards]
                )
            )
        if kind is m.MarkersRemoved:
            return pb.Event(markers_removed=pb.MarkersRemoved(player=event.player))
        if kind is m.RomanPaid:
            return pb.Event(
                roman_paid=pb.RomanPaid(
                    player=event.player,
                    seat=_SEAT_TO_PB[event.seat],
                    card=_roman(event.card),
                    amount=event.amount,
                    sesterces=event.sesterces,
                )
            )
        if kind is m.RefillEnded:
            return pb.Event(
                refill_ended=pb.RefillEnded(
                    player=event.player, empty_seats=[_SEAT_TO_PB[s] for s in event.empty_seats]
                )
            )
        if kind is m.ActionCardPlayed:
            return pb.Event(
                action_card_played=pb.ActionCardPlayed(
                    player=event.player, card=_action_card(event.card), action=self.action_to_proto(event.action)
                )
            )
        if kind is m.MarkersChanged:
            return pb.Event(
                markers_changed=pb.MarkersChanged(
                    player=event.player, seat=_SEAT_TO_PB[event.seat], card=_roman(event.card), markers=event.markers
                )
            )
        if kind is m.SesterceTaxed:
            return pb.Event(
                sesterce_taxed=pb.SesterceTaxed(player=event.player, amount=event.amount, sesterces=event.sesterces)
            )
        if kind is m.RomanRemoved:
            return pb.Event(
                roman_removed=pb.RomanRemoved(
                    player=event.player, seat=_SEAT_TO_PB[event.seat], card=_roman(event.card)
                )
            )
        if kind is m.QueueChanged:
            return pb.Event(queue_changed=pb.QueueChanged(player=event.player, cards=[_roman(c) for c in event.cards]))
        if kind is m.PileReshuffled:
            return pb.Event(pile_reshuffled=pb.PileReshuffled(pile=int(event.pile), size=event.size))
        if kind is m.GameEnded:
            return pb.Event(
                game_ended=pb.GameEnded(winners=event.winners, reason=int(event.reason), sesterces=event.sesterces)
            )
        raise TypeError(f"not a Pecunia non olet event: {kind.__name__}")

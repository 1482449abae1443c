"""House of Borgia values <-> tavola.borgia.v1 protos.

Proto enums reserve 0 for UNSPECIFIED, so a proto enum value is the engine's IntEnum
value + 1. An UNSPECIFIED Cardinal in an optional slot (antipope, pope, returned rumor)
means "none".
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from services.borgia.model import (
    BID_FACES,
    CARDINALS,
    FACES,
    Accuse,
    ActionPerformed,
    Allow,
    Allowed,
    Bid,
    BidMade,
    BorgiaAction,
    BorgiaEvent,
    BorgiaState,
    BorgiaView,
    Bribe,
    Call,
    Called,
    Cardinal,
    DiceRevealed,
    DieLost,
    Direction,
    Face,
    FinalResult,
    GameEnded,
    GameStarted,
    InfluenceChange,
    JudgementPair,
    JudgementSplit,
    PerformNothing,
    Phase,
    Poison,
    PuppetsDealt,
    Rallied,
    RollOff,
    RoundStarted,
    Rumor,
    SeatView,
)
from services.engine.errors import MalformedAction
from tavola.borgia.v1 import borgia_pb2 as pb

_DIRECTIONS = tuple(Direction)
_PHASES = tuple(Phase)


# --------------------------------------------------------------------------- enums


def _card_out(cardinal: Cardinal | None) -> int:
    return 0 if cardinal is None else int(cardinal) + 1


def _enum_in(table: tuple, value: int, what: str):
    """A stored or sent proto enum value back to the engine enum; UNSPECIFIED or unknown is corrupt."""
    if not 1 <= value <= len(table):
        raise ValueError(f"corrupt message: bad {what} value {value}")
    return table[value - 1]


def _card_in(value: int) -> Cardinal | None:
    return None if value == 0 else _enum_in(CARDINALS, value, "cardinal")


def _cards_in(values) -> tuple[Cardinal, ...]:
    return tuple(_enum_in(CARDINALS, v, "cardinal") for v in values)


def _faces_in(values) -> tuple[Face, ...]:
    return tuple(_enum_in(FACES, v, "face") for v in values)


def _faces_out(faces) -> list[int]:
    return [int(f) + 1 for f in faces]


def _cards_out(cards) -> list[int]:
    return [int(c) + 1 for c in cards]


def _checked_card(value: int, what: str) -> Cardinal:
    if not 1 <= value <= len(CARDINALS):
        raise MalformedAction(f"{what} must name a cardinal")
    return CARDINALS[value - 1]


# --------------------------------------------------------------------------- small messages


def _variants_out(shadow: bool, flame: bool, poisoned: bool) -> pb.Variants:
    return pb.Variants(shadow_puppets=shadow, flame_of_thy_tongue=flame, poisoned_dice=poisoned)


def _bid_out(bid: Bid) -> pb.Bid:
    return pb.Bid(count=bid.count, action=int(bid.action) + 1)


def _bid_in(message: pb.Bid) -> Bid:
    return Bid(message.count, _enum_in(BID_FACES, message.action, "bid action"))


def _influence_out(influence) -> list[pb.CardinalInfluence]:
    return [pb.CardinalInfluence(cardinal=int(c) + 1, influence=influence[c]) for c in CARDINALS]


def _influence_in(entries) -> tuple[int, ...]:
    values = {entry.cardinal - 1: entry.influence for entry in entries}
    return tuple(values[c] for c in CARDINALS)


def _changes_out(changes) -> list[pb.InfluenceChange]:
    return [pb.InfluenceChange(cardinal=int(c.cardinal) + 1, delta=c.delta, total=c.total) for c in changes]


def _view_influence_in(entries) -> tuple[int, ...]:
    # Lenient where a view leaves a cardinal out: no entry means no influence.
    values = {entry.cardinal - 1: entry.influence for entry in entries}
    return tuple(values.get(c, 0) for c in CARDINALS)


def _changes_in(entries) -> tuple[InfluenceChange, ...]:
    return tuple(InfluenceChange(_enum_in(CARDINALS, c.cardinal, "cardinal"), c.delta, c.total) for c in entries)


def _seat_dice(seat: int, faces, count: int | None = None) -> pb.SeatDice:
    if faces is None:
        return pb.SeatDice(seat=seat, count=count or 0, hidden=True)
    return pb.SeatDice(seat=seat, count=len(faces), faces=_faces_out(faces))


def _seat_puppets(seat: int, puppets) -> pb.SeatPuppets:
    if puppets is None:
        return pb.SeatPuppets(seat=seat, hidden=True)
    return pb.SeatPuppets(seat=seat, puppets=_cards_out(puppets))


def _result_out(result: FinalResult) -> pb.FinalResult:
    return pb.FinalResult(
        puppets=[_seat_puppets(s, p) for s, p in enumerate(result.puppets)],
        dice_counts=list(result.dice_counts),
        bonuses=_changes_out(result.bonuses),
        penalties=_changes_out(result.penalties),
        eliminated_seats=list(result.eliminated),
        removed=_cards_out(result.removed),
        influence=_influence_out(result.influence),
        ladder=_cards_out(result.ladder),
        pope=_card_out(result.pope),
        winners=list(result.winners),
        scores=list(result.scores),
    )


def _result_in(message: pb.FinalResult) -> FinalResult:
    return FinalResult(
        puppets=tuple(_cards_in(entry.puppets) for entry in message.puppets),
        dice_counts=tuple(message.dice_counts),
        bonuses=_changes_in(message.bonuses),
        penalties=_changes_in(message.penalties),
        eliminated=tuple(message.eliminated_seats),
        removed=_cards_in(message.removed),
        influence=_influence_in(message.influence),
        ladder=_cards_in(message.ladder),
        pope=_card_in(message.pope),
        winners=tuple(message.winners),
        scores=tuple(message.scores),
    )


# --------------------------------------------------------------------------- codec


class BorgiaCodec:
    # ----------------------------------------------------------------- state

    def state_to_proto(self, state: BorgiaState) -> pb.GameState:
        message = pb.GameState(
            player_count=state.player_count,
            variants=_variants_out(state.shadow_puppets, state.flame_of_thy_tongue, state.poisoned_dice),
            rng=state.rng,
            ladder=_cards_out(state.ladder),
            influence=_influence_out(state.influence),
            antipope=_card_out(state.antipope),
            seats=[
                pb.SeatState(
                    dice=_faces_out(state.dice[s]),
                    puppets=_cards_out(state.puppets[s]),
                    rumors=_cards_out(state.rumors[s]),
                )
                for s in range(state.player_count)
            ],
            phase=int(state.phase) + 1,
            round_number=state.round_number,
            round_starter_seat=state.round_starter,
            active_seat=state.active,
            called=state.called,
        )
        if state.bid is not None:
            message.bid.CopyFrom(_bid_out(state.bid))
        return message

    def state_from_proto(self, message: Any) -> BorgiaState:
        if not isinstance(message, pb.GameState):
            raise TypeError("expected a tavola.borgia.v1.GameState")
        variants = message.variants
        return BorgiaState(
            player_count=message.player_count,
            shadow_puppets=variants.shadow_puppets,
            flame_of_thy_tongue=variants.flame_of_thy_tongue,
            poisoned_dice=variants.poisoned_dice,
            rng=message.rng,
            ladder=_cards_in(message.ladder),
            influence=_influence_in(message.influence),
            antipope=_card_in(message.antipope),
            puppets=tuple(_cards_in(seat.puppets) for seat in message.seats),
            dice=tuple(_faces_in(seat.dice) for seat in message.seats),
            rumors=tuple(_cards_in(seat.rumors) for seat in message.seats),
            phase=_enum_in(_PHASES, message.phase, "phase"),
            round_number=message.round_number,
            round_starter=message.round_starter_seat,
            active=message.active_seat,
            bid=_bid_in(message.bid) if message.HasField("bid") else None,
            called=message.called,
        )

    # ----------------------------------------------------------------- actions

    def action_type(self) -> type[Message]:
        return pb.Action

    def action_to_proto(self, action: BorgiaAction) -> pb.Action:
        if isinstance(action, Bid):
            return pb.Action(bid=_bid_out(action))
        if isinstance(action, Call):
            return pb.Action(call=pb.CallAction())
        if isinstance(action, Allow):
            return pb.Action(allow=pb.AllowAction())
        if isinstance(action, Bribe):
            return pb.Action(
                bribe=pb.BribeAction(cardinal=int(action.cardinal) + 1, direction=int(action.direction) + 1)
            )
        if isinstance(action, Poison):
            return pb.Action(poison=pb.PoisonAction(first=int(action.first) + 1, second=int(action.second) + 1))
        if isinstance(action, JudgementPair):
            return pb.Action(
                judgement_pair=pb.JudgementPairAction(source=int(action.source) + 1, target=int(action.target) + 1)
            )
        if isinstance(action, JudgementSplit):
            (a, b), (c, d) = action.sources, action.targets
            return pb.Action(
                judgement_split=pb.JudgementSplitAction(
                    source_a=int(a) + 1, source_b=int(b) + 1, target_a=int(c) + 1, target_b=int(d) + 1
                )
            )
        if isinstance(action, Accuse):
            return pb.Action(accuse=pb.AccuseAction(cardinal=int(action.cardinal) + 1))
        if isinstance(action, Rumor):
            return pb.Action(
                rumor=pb.RumorAction(
                    card=int(action.card) + 1, target_seat=action.target, returned=_card_out(action.returned)
                )
            )
        if isinstance(action, PerformNothing):
            return pb.Action(perform_nothing=pb.PerformNothingAction())
        raise MalformedAction("not a House of Borgia action")

    def action_from_proto(self, message: Any) -> BorgiaAction:
        if not isinstance(message, pb.Action):
            raise MalformedAction("expected a tavola.borgia.v1.Action")
        kind = message.WhichOneof("kind")
        if kind is None:
            raise MalformedAction("the action names no kind")
        if kind == "bid":
            bid = message.bid
            if not 1 <= bid.action <= len(BID_FACES):
                raise MalformedAction("a bid names BRIBE, POISON, JUDGEMENT, ACCUSATION or RUMOR")
            return Bid(bid.count, BID_FACES[bid.action - 1])
        if kind == "call":
            return Call()
        if kind == "allow":
            return Allow()
        if kind == "bribe":
            bribe = message.bribe
            if not 1 <= bribe.direction <= len(_DIRECTIONS):
                raise MalformedAction("a bribe moves to the top or the bottom")
            return Bribe(_checked_card(bribe.cardinal, "a bribe"), _DIRECTIONS[bribe.direction - 1])
        if kind == "poison":
            poison = message.poison
            return Poison(_checked_card(poison.first, "a poison"), _checked_card(poison.second, "a poison"))
        if kind == "judgement_pair":
            pair = message.judgement_pair
            return JudgementPair(_checked_card(pair.source, "a judgement"), _checked_card(pair.target, "a judgement"))
        if kind == "judgement_split":
            split = message.judgement_split
            sources = (_checked_card(split.source_a, "a judgement"), _checked_card(split.source_b, "a judgement"))
            targets = (_checked_card(split.target_a, "a judgement"), _checked_card(split.target_b, "a judgement"))
            return JudgementSplit(sources, targets)
        if kind == "accuse":
            return Accuse(_checked_card(message.accuse.cardinal, "an accusation"))
        if kind == "rumor":
            rumor = message.rumor
            returned = None if rumor.returned == 0 else _checked_card(rumor.returned, "a returned rumor")
            return Rumor(_checked_card(rumor.card, "a rumor"), rumor.target_seat, returned)
        return PerformNothing()  # "perform_nothing", the last oneof member

    # ----------------------------------------------------------------- views

    def view_to_proto(self, view: BorgiaView) -> pb.View:
        message = pb.View(
            player_count=view.player_count,
            variants=_variants_out(view.shadow_puppets, view.flame_of_thy_tongue, view.poisoned_dice),
            phase=int(view.phase) + 1,
            round_number=view.round_number,
            round_starter_seat=view.round_starter,
            active_seat=view.active,
            called=view.called,
            ladder=_cards_out(view.ladder),
            influence=_influence_out(view.influence),
            antipope=_card_out(view.antipope),
            centre_rumors=_cards_out(view.centre_rumors),
            seats=[
                pb.SeatView(
                    seat=seat.seat,
                    dice_count=seat.dice_count,
                    dice_hidden=seat.dice is None,
                    dice=_faces_out(seat.dice or ()),
                    puppets_hidden=seat.puppets is None,
                    puppets=_cards_out(seat.puppets or ()),
                    rumors=_cards_out(seat.rumors),
                )
                for seat in view.seats
            ],
        )
        if view.viewer is not None:
            message.viewer_seat = view.viewer
        if view.responder is not None:
            message.responder_seat = view.responder
        if view.bid is not None:
            message.bid.CopyFrom(_bid_out(view.bid))
        if view.result is not None:
            message.result.CopyFrom(_result_out(view.result))
        return message

    def view_type(self) -> type[Message]:
        return pb.View

    def view_from_proto(self, message: Any) -> BorgiaView:
        """The inverse of ``view_to_proto``; raises ValueError on a message it never produces."""
        if not isinstance(message, pb.View):
            raise TypeError("expected a tavola.borgia.v1.View")
        variants = message.variants
        return BorgiaView(
            viewer=message.viewer_seat if message.HasField("viewer_seat") else None,
            player_count=message.player_count,
            shadow_puppets=variants.shadow_puppets,
            flame_of_thy_tongue=variants.flame_of_thy_tongue,
            poisoned_dice=variants.poisoned_dice,
            phase=_enum_in(_PHASES, message.phase, "phase"),
            round_number=message.round_number,
            round_starter=message.round_starter_seat,
            active=message.active_seat,
            responder=message.responder_seat if message.HasField("responder_seat") else None,
            bid=_bid_in(message.bid) if message.HasField("bid") else None,
            called=message.called,
            ladder=_cards_in(message.ladder),
            influence=_view_influence_in(message.influence),
            antipope=_card_in(message.antipope),
            centre_rumors=_cards_in(message.centre_rumors),
            seats=tuple(
                SeatView(
                    seat=seat.seat,
                    dice_count=seat.dice_count,
                    dice=None if seat.dice_hidden else _faces_in(seat.dice),
                    puppets=None if seat.puppets_hidden else _cards_in(seat.puppets),
                    rumors=_cards_in(seat.rumors),
                )
                for seat in message.seats
            ),
            result=_result_in(message.result) if message.HasField("result") else None,
        )

    # ----------------------------------------------------------------- events

    def event_to_proto(self, event: BorgiaEvent) -> pb.Event:
        if isinstance(event, GameStarted):
            return pb.Event(
                game_started=pb.GameStartedEvent(
                    player_count=event.player_count,
                    variants=_variants_out(event.shadow_puppets, event.flame_of_thy_tongue, event.poisoned_dice),
                    ladder=_cards_out(event.ladder),
                    dice_counts=list(event.dice_counts),
                )
            )
        if isinstance(event, PuppetsDealt):
            return pb.Event(
                puppets_dealt=pb.PuppetsDealtEvent(seats=[_seat_puppets(s, p) for s, p in enumerate(event.puppets)])
            )
        if isinstance(event, RollOff):
            return pb.Event(
                roll_off=pb.RollOffEvent(
                    rounds=[
                        pb.RollOffRound(rolls=[_seat_dice(r.seat, r.faces) for r in rnd.rolls]) for rnd in event.rounds
                    ],
                    starter_seat=event.starter,
                )
            )
        if isinstance(event, RoundStarted):
            return pb.Event(
                round_started=pb.RoundStartedEvent(
                    round_number=event.round_number,
                    starter_seat=event.starter,
                    dice=[_seat_dice(s, d, event.dice_counts[s]) for s, d in enumerate(event.dice)],
                )
            )
        if isinstance(event, BidMade):
            return pb.Event(bid_made=pb.BidMadeEvent(seat=event.seat, bid=_bid_out(Bid(event.count, event.action))))
        if isinstance(event, Allowed):
            return pb.Event(allowed=pb.AllowedEvent(seat=event.seat))
        if isinstance(event, Called):
            return pb.Event(called=pb.CalledEvent(seat=event.seat))
        if isinstance(event, DiceRevealed):
            return pb.Event(
                dice_revealed=pb.DiceRevealedEvent(
                    dice=[_seat_dice(s, d) for s, d in enumerate(event.dice)],
                    bidder_seat=event.bidder,
                    caller_seat=event.caller,
                    bid=_bid_out(event.bid),
                    matching=event.matching,
                    truthful=event.truthful,
                )
            )
        if isinstance(event, ActionPerformed):
            return pb.Event(
                action_performed=pb.ActionPerformedEvent(
                    seat=event.seat,
                    action=self.action_to_proto(event.action),
                    influence_changes=_changes_out(event.influence_changes),
                    ladder=_cards_out(event.ladder),
                    antipope=_card_out(event.antipope),
                    rumors=[pb.SeatRumors(seat=s, rumors=_cards_out(r)) for s, r in enumerate(event.rumors)],
                )
            )
        if isinstance(event, DieLost):
            return pb.Event(die_lost=pb.DieLostEvent(seat=event.seat, remaining=event.remaining))
        if isinstance(event, Rallied):
            return pb.Event(rallied=pb.RalliedEvent(gains=_changes_out(event.gains)))
        if isinstance(event, GameEnded):
            return pb.Event(game_ended=pb.GameEndedEvent(result=_result_out(event.result)))
        raise TypeError(f"not a House of Borgia event: {type(event).__name__}")

"""Per-game knowledge the integration tests need: table settings to cover, and how to
spot another seat's secret in a view or an event (None: a spectator).

``CASES`` has every registered game: one with a checker here is searched for another
seat's secret; any other (a game installed from another package) is played at its
smallest and largest player counts with its default options, its views and events
decoded as its own messages, with no secret to look for."""

from collections.abc import Callable
from dataclasses import dataclass

from google.protobuf import message_factory
from google.protobuf.message import Message

from services.registry import game_ids, get_game, player_counts
from tavola.borgia.v1 import borgia_pb2
from tavola.mortadella.v1 import mortadella_pb2
from tavola.pecunia.v1 import pecunia_pb2


@dataclass(frozen=True)
class GameCase:
    game: str
    view_type: type[Message]
    event_type: type[Message]
    tables: tuple[tuple[int, dict[str, str]], ...]  # (players, options) to play
    view_leaks: Callable[[Message, int | None], list[str]]
    event_leaks: Callable[[Message, int | None], list[str]]

    def unpack(self, packed, message_type):
        message = message_type()
        assert packed.Unpack(message)
        return message


def _borgia_view(view: borgia_pb2.View, viewer: int | None) -> list[str]:
    if view.HasField("result") and view.result.pope:
        return []  # the end reveals everything (B9)
    leaks = []
    for seat in view.seats:
        if seat.seat == viewer:
            continue
        if seat.puppets:
            leaks.append(f"puppets of {seat.seat}")
        if seat.dice and not view.called:  # a call reveals every die (B4)
            leaks.append(f"dice of {seat.seat}")
    return leaks


def _borgia_event(event: borgia_pb2.Event, viewer: int | None) -> list[str]:
    kind = event.WhichOneof("kind")
    if kind == "round_started":
        return [f"dice of {d.seat}" for d in event.round_started.dice if d.seat != viewer and d.faces]
    if kind == "puppets_dealt":
        return [f"puppets of {p.seat}" for p in event.puppets_dealt.seats if p.seat != viewer and p.puppets]
    return []


def _pecunia_view(view: pecunia_pb2.View, viewer: int | None) -> list[str]:
    return [f"hand of {p.seat}" for p in view.players if p.seat != viewer and (p.hand or p.hand_visible)]


def _pecunia_event(event: pecunia_pb2.Event, viewer: int | None) -> list[str]:
    if event.WhichOneof("kind") == "action_cards_drawn":
        drawn = event.action_cards_drawn
        if drawn.player != viewer and drawn.cards:
            return [f"cards drawn by {drawn.player}"]
    return []


_VISIBLE_ROLES = (mortadella_pb2.ROLE_UNSPECIFIED, mortadella_pb2.ROLE_BRIGAND)  # M18: the Brigand is face up


def _mortadella_view(view: mortadella_pb2.View, viewer: int | None) -> list[str]:
    if view.winners or view.end_reason:
        return []  # the end reveals every dealt role
    return [
        f"role of {seat.seat}"
        for seat in view.seats
        if seat.seat != viewer and (seat.role not in _VISIBLE_ROLES or seat.removed_roles)
    ]


def _mortadella_event(event: mortadella_pb2.Event, viewer: int | None) -> list[str]:
    kind = event.WhichOneof("kind")
    if kind == "role_dealt" and event.role_dealt.seat != viewer and event.role_dealt.role not in _VISIBLE_ROLES:
        return [f"role of {event.role_dealt.seat}"]
    if kind == "role_replaced" and event.role_replaced.seat != viewer:
        replaced = event.role_replaced
        if replaced.old_role != mortadella_pb2.ROLE_UNSPECIFIED or replaced.new_role != mortadella_pb2.ROLE_UNSPECIFIED:
            return [f"roles of {replaced.seat}"]
    return []


def _nothing_known(message: Message, viewer: int | None) -> list[str]:
    return []


def registry_case(game: str) -> GameCase:
    """A game's case from the registry alone: its messages from its codec's proto file."""
    codec = get_game(game).codec
    game_file = codec.action_type().DESCRIPTOR.file
    event_type = message_factory.GetMessageClass(game_file.message_types_by_name["Event"])
    counts = player_counts(game)
    tables = tuple((players, {}) for players in dict.fromkeys((counts[0], counts[-1])))
    return GameCase(game, codec.view_type(), event_type, tables, _nothing_known, _nothing_known)


KNOWN = {
    "borgia": GameCase(
        "borgia",
        borgia_pb2.View,
        borgia_pb2.Event,
        ((2, {"shadow_puppets": "true"}), (3, {}), (5, {"flame_of_thy_tongue": "true", "poisoned_dice": "true"})),
        _borgia_view,
        _borgia_event,
    ),
    "mortadella": GameCase(
        "mortadella",
        mortadella_pb2.View,
        mortadella_pb2.Event,
        ((2, {}), (4, {"additional_rules": "false"}), (7, {"max_turns": "60"})),
        _mortadella_view,
        _mortadella_event,
    ),
    "pecunia": GameCase(
        "pecunia",
        pecunia_pb2.View,
        pecunia_pb2.Event,
        ((2, {}), (4, {"deck": "gentle"}), (6, {"target": "12"})),
        _pecunia_view,
        _pecunia_event,
    ),
}
CASES = {game: KNOWN.get(game) or registry_case(game) for game in game_ids()}

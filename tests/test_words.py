"""Each game's words over random playouts: every event, as every viewer sees it, in words,
and never a word about what that viewer may not see."""

import re

import pytest

from services.borgia import model as borgia
from services.mortadella import model as mortadella
from services.pecunia import model as pecunia
from services.registry import get_game, player_counts
from tests.engine_harness import random_playout, told

GAMES = ("borgia", "mortadella", "pecunia")
SEEDS = (1,)


def playout_texts(game_id: str, players: int, seed: int):
    """(event, viewer, projection, text) for every event of a random playout and every
    viewer, the text as the gateway sends it to that viewer (its choices made)."""
    game = get_game(game_id)
    assert game.words is not None
    engine = game.engine
    _, first = engine.new_game(players, {}, seed)
    events = list(first)
    playout = random_playout(game, players, {}, seed, max_steps=3000)
    events += playout.events
    for event in events:
        for viewer in (None, *range(players)):
            seen = engine.project_event(event, viewer)
            if seen is not None:
                yield event, viewer, seen, told(game, seen, viewer)


@pytest.mark.parametrize("game_id", GAMES)
def test_every_event_of_every_player_count_has_text(game_id):
    kinds = set()
    for players in player_counts(game_id):
        for seed in SEEDS:
            for event, viewer, _, text in playout_texts(game_id, players, seed):
                kinds.add(type(event).__name__)
                assert text.strip(), f"{type(event).__name__} for viewer {viewer}: no text"
                assert text != type(event).__name__, f"{type(event).__name__} has no words"
                # "seat N" names only real seats (the gateway writes their names in).
                for number in re.findall(r"\bseat (\d+)\b", text):
                    assert int(number) < players, text
                assert "You's" not in text and "you's" not in text, text
                if viewer is None:
                    assert not re.search(r"\b[Yy]ou(r)?\b", text), f"a spectator is nobody: {text}"
    assert len(kinds) >= 8


def test_the_viewer_is_you_with_the_verb_to_match():
    borgia_game = get_game("borgia")
    bid = borgia.BidMade(1, 3, borgia.Face.BRIBE)  # one phrase, told to each reader
    assert told(borgia_game, bid, 1) == "You bid 3 x Bribe."
    assert told(borgia_game, bid, 0) == told(borgia_game, bid, None) == "seat 1 bids 3 x Bribe."
    queue = pecunia.QueueChanged(2, ())
    assert told(get_game("pecunia"), queue, 2).startswith("Your queue")  # never "You's queue"
    assert told(get_game("pecunia"), queue, None).startswith("seat 2's queue")


def test_borgia_never_tells_a_seat_anothers_puppet_or_dice():
    """Puppets and the round's dice are secret until revealed (B2, B9; Project decision lead 8)."""
    faces = [f"[{face.name.title()}]" for face in borgia.Face]
    for players in player_counts("borgia"):
        for event, viewer, _, text in playout_texts("borgia", players, 3):
            if isinstance(event, borgia.PuppetsDealt):
                own = set(event.puppets[viewer]) if viewer is not None else set()
                for card, name in borgia.CARDINAL_NAMES.items():
                    if card not in own:
                        assert name not in text, (viewer, text)
            if isinstance(event, borgia.RoundStarted):
                assert not any(face in text for face in faces), (viewer, text)  # one text for all


def test_mortadella_names_a_role_only_to_whom_may_see_it():
    """Roles are secret (M18) unless face up; all are revealed at the end."""
    roles = {info.name for info in mortadella.ROLE_INFO.values()}
    for players in player_counts("mortadella"):
        for event, viewer, seen, text in playout_texts("mortadella", players, 4):
            if isinstance(event, mortadella.RoleDealt | mortadella.RoleReplaced):
                visible = seen.role if isinstance(seen, mortadella.RoleDealt) else seen.new_role
                if visible is None:
                    assert not any(re.search(rf"\b{role}\b", text) for role in roles), (viewer, text)
                    assert viewer != event.seat


def test_pecunia_names_drawn_cards_only_to_the_drawer():
    """Hands of action cards are secret (P7)."""
    labels = set(pecunia.ACTION_LABELS.values())
    drawn = 0
    for players in player_counts("pecunia"):
        for event, viewer, _, text in playout_texts("pecunia", players, 5):
            if isinstance(event, pecunia.ActionCardsDrawn) and event.cards:
                if viewer == event.player:
                    drawn += 1
                    assert any(label in text for label in labels), text
                else:
                    assert not any(label in text for label in labels), (viewer, text)
    assert drawn


def test_borgia_ending_says_why():
    result = borgia.FinalResult(
        puppets=((borgia.Cardinal.MEDICI,), (borgia.Cardinal.ORSINI,)),
        dice_counts=(2, 0),
        bonuses=(borgia.InfluenceChange(borgia.Cardinal.MEDICI, 4, 9),),
        penalties=(),
        eliminated=(1,),
        removed=(borgia.Cardinal.ORSINI,),
        influence=(2, 2, 9, 12, 2, 2),
        ladder=(borgia.Cardinal.MEDICI, borgia.Cardinal.BORGIA),
        pope=borgia.Cardinal.MEDICI,
        winners=(0,),
        scores=(9, 0),
    )
    text = told(get_game("borgia"), borgia.GameEnded(result), 0)
    assert "Puppets revealed: You: Medici; seat 1: Orsini." in text
    assert "Medici +4" in text
    assert (
        "seat 1 is eliminated: the rumor in front of them names their puppet." in text
        and "Orsini leaves the ladder" in text
    )
    assert "Medici is elected pope with 9 influence: you win." in text


@pytest.mark.parametrize("game_id", GAMES)
def test_the_rules_service_sends_each_viewer_the_phrase_of_its_own_projection(game_id):
    """A seat's phrase is made from that seat's projection: a seat with an entry of its own
    reads its own phrase, every other seat the spectators'."""
    from common.phrase_wire import to_proto
    from services.rules_server import RulesServicer
    from tavola.rules.v1 import rules_pb2

    game = get_game(game_id)
    assert game.words is not None
    servicer = RulesServicer(game)
    players = 3
    events = list(game.engine.new_game(players, {}, 9)[1])
    events += random_playout(game, players, {}, 9, max_steps=60).events
    response = rules_pb2.NewGameResponse()
    servicer._project(response.events, events, players)
    own_texts = 0

    def words_of(seen, viewer):
        return to_proto(game.words.event_phrase(seen, viewer)) if seen is not None else rules_pb2.Phrase()

    for event, projected in zip(events, response.events, strict=True):
        public = game.engine.project_event(event, None)
        assert projected.spectator_phrase == words_of(public, None)
        entries = {entry.seat: entry for entry in projected.seats}
        for seat in range(players):
            seen = game.engine.project_event(event, seat)
            own = entries.get(seat)
            said = own.phrase if own is not None and own.HasField("phrase") else projected.spectator_phrase
            assert said == words_of(seen, seat)
            own_texts += seat in entries
    # Only a seat that sees an event otherwise has a phrase of its own ("you" is told to
    # each reader from the one phrase): none in Mortadella's public play after the deal.
    assert own_texts < len(events) * players / 4

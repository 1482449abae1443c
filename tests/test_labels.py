"""What a player reads among their choices and on the board: each game's action labels in
its rulebook's words, read as the event that tells the action was taken, and Pecunia's
turn counted from 1 alike in its view and its history."""

import re

from common.names import with_names
from services.mortadella import ENGINE as MORTADELLA
from services.mortadella import model as m
from services.pecunia import ENGINE as PECUNIA
from services.pecunia import model as p
from services.registry import get_game
from tests.engine_harness import random_playout
from tests.engine_harness import told as tell_event


def test_pecunia_labels_are_the_rulebooks_steps_and_cards():
    label = PECUNIA.describe_action
    assert label(p.RemoveMarkers()) == "remove round markers and collect sesterces"
    assert label(p.SeatRoman(p.SeatPos.MIDDLE)) == "refill the middle seat"
    assert label(p.SeatRoman(p.SeatPos.LEFT, pair=True)) == "refill the left seat with two women"
    assert label(p.EndRefill()) == "stop refilling"
    assert label(p.DrawActionCard()) == "draw an action card (ends your turn)"
    assert label(p.PlayCastorOil(p.SeatPos.RIGHT, 0, 2)) == "Castor oil: -2 round markers on the right seat"
    assert (
        label(p.PlayCastorOil(p.SeatPos.LEFT, 1, 1)) == "Castor oil: -1 round marker on the top woman on the left seat"
    )
    assert label(p.PlayFishPoisoning(1, p.SeatPos.LEFT, 0)) == "Fish poisoning on seat 1's left seat"
    assert label(p.PlaySwap(2, 1, 4)) == "Swap: queue card 3 for seat 1's card 5"
    assert label(p.PlaySenateMeeting(2)) == "Senate meeting on seat 2"
    assert label(p.PlayVillaDixius()) == "Villa Dixius"
    # Names written in as the clients and the gateway write them.
    assert with_names(label(p.PlaySwap(0, 1, 0)), {1: "Ada"}) == "Swap: queue card 1 for Ada's card 1"


def test_a_played_card_reads_as_its_label():
    for action in (
        p.PlayQueueJumper(2),
        p.PlayCastorOil(p.SeatPos.MIDDLE, 0, 1),
        p.PlayFishPoisoning(1, p.SeatPos.RIGHT, 1),
        p.PlayEviction(1, p.SeatPos.LEFT, 0),
        p.PlaySpecialTax(1),
        p.PlaySwap(0, 1, 2),
    ):
        card = p.ActionCard(0, p.PLAY_KINDS[type(action)])
        told = tell_event(get_game("pecunia"), p.ActionCardPlayed(0, card, action), 0)
        assert told == f"You play {PECUNIA.describe_action(action)}.", told


def test_mortadella_labels_are_the_rulebooks_words():
    label = MORTADELLA.describe_action
    P, T, B, R = m.Symbol.PEOPLE, m.Symbol.TOWER, m.Symbol.BOOK, m.Symbol.RAT
    assert label(m.ChooseDice((T, T, R))) == "use [Tower] [Tower] [Rat]"
    assert label(m.ResolveEffect((T,), m.Effect.ACQUIRE_TOWER)) == "resolve [Tower]: acquire 1 Tower"
    assert (
        label(m.ResolveEffect((B,), m.Effect.ACQUIRE_MORTADELLA)) == "resolve [Book] as a Joker: acquire 1 Mortadella"
    )
    assert label(m.ResolveEffect((P, P), m.Effect.REVOLUTION)) == "resolve [People] [People]: the Revolution"
    assert label(m.ResolveEffect((B, B), m.Effect.INEBRIATION)) == "resolve [Book] [Book] as Jokers: Inebriation"
    assert label(m.ResolveEffect((R, R), m.Effect.BLACK_DEATH)) == "resolve [Rat] [Rat]: the Black Death"
    assert label(m.ChooseRevolution(2, B)) == "Revolution: seat 2 discards 1 Book"
    assert label(m.PlagueDiscard(P)) == "discard 1 People"
    assert label(m.UseLombard(False)) == "leave the dice as they lie"


def test_a_resolved_effect_reads_as_its_label():
    for dice, effect in (((m.Symbol.TOWER,), m.Effect.ACQUIRE_TOWER), ((m.Symbol.BOOK,), m.Effect.PLAGUE)):
        told = tell_event(get_game("mortadella"), m.EffectChosen(0, dice, effect), 0)
        assert told == f"You {MORTADELLA.describe_action(m.ResolveEffect(dice, effect))}.", told


def test_no_effect_names_whose_effect_it_was():
    # NoEffect's seat is the one resolving; "has no effect for <that seat>" read as if it
    # were the target.
    told = tell_event(get_game("mortadella"), m.NoEffect(2, m.Effect.DRUNKENNESS), None)
    assert told == "seat 2's Drunkenness has no effect."


def test_pecunia_turns_count_from_1_in_the_view_and_the_history():
    game = get_game("pecunia")
    state, events = PECUNIA.new_game(2, {}, 7)
    assert PECUNIA.view(state, 0).turn == PECUNIA.view(state, None).turn == 1
    started = [e for e in events if isinstance(e, p.TurnStarted)]
    assert tell_event(get_game("pecunia"), started[0], None).startswith("Turn 1: ")
    playout = random_playout(game, 2, {}, 7, max_steps=400)
    told = [tell_event(get_game("pecunia"), e, None) for e in playout.events if isinstance(e, p.TurnStarted)]
    numbers = [int(re.match(r"Turn (\d+):", text).group(1)) for text in told]  # type: ignore[union-attr]
    assert numbers == list(range(1, 1 + len(numbers)))  # the playout's events start with the deal's
    # The last turn started is the view's turn while the game goes on.
    if PECUNIA.view(playout.state, None).phase is not p.Phase.OVER:
        assert PECUNIA.view(playout.state, None).turn == numbers[-1]


def test_a_submenu_says_what_its_parent_said_once():
    from clients.terminal import choices

    labels = [f"Swap: queue card {i} for seat 1's card {j}" for i in (1, 2) for j in range(1, 7)]
    menu = choices.build(choices.word_paths(labels))
    stems = ["Swap: queue card 1 for seat 1's card …", "Swap: queue card 2 for seat 1's card …"]
    assert [choice.label for choice in menu] == stems
    assert choices.under(menu[0].children[0].label, menu[0].label) == "1"
    assert choices.under("call", None) == "call"


def test_a_dealt_role_says_what_it_needs_to_win():
    told = tell_event(get_game("mortadella"), m.RoleDealt(0, m.Role.MASTER), 0)
    assert told == (
        "Your role: Master of the Innkeepers. To win: at least 3 People, 3 Book and 3 Mortadella,"
        " and a right guess of a role."
    )
    lord = tell_event(get_game("mortadella"), m.RoleReplaced(1, m.Role.PRINCE, m.Role.LORD), 1)
    assert lord.endswith("To win: at least 4 People and 6 Tower, with no Mortadella.")
    # Nobody else reads the role, nor what it needs.
    assert tell_event(get_game("mortadella"), m.RoleDealt(0, None), None) == "seat 0 is dealt a secret role card."


def test_one_revealed_die_shows():
    from services.borgia import model as b

    faces = ((b.Face.POISON,), (b.Face.BRIBE,))
    called = b.DiceRevealed(faces, bidder=0, caller=1, bid=b.Bid(3, b.Face.POISON), matching=1, truthful=False)
    assert "1 shows Poison or Fate" in tell_event(get_game("borgia"), called, None)


def test_a_group_is_named_by_every_word_its_members_share():
    from clients.terminal import choices

    labels = ["remove round markers and collect sesterces"]
    labels += [f"Castor oil: -{n} round markers on the {where} seat" for n in (1, 2) for where in ("left", "right")]
    labels += [f"Fish poisoning on seat 1's {where} seat" for where in ("left", "middle", "right")]
    labels += [f"Queue-jumper: queue card {i} to the start" for i in (2, 3, 4, 5)]
    menu = choices.build(choices.word_paths(labels))
    names = [choice.label for choice in menu]
    assert "Castor oil: …" in names and "Fish poisoning on seat 1's …" in names, names
    fish = menu[names.index("Fish poisoning on seat 1's …")]
    assert [choices.under(c.label, fish.label) for c in fish.children] == ["left seat", "middle seat", "right seat"]


def test_table_options_are_described_to_players_without_ruling_numbers():
    # The lobby shows each option's description; "(B10)" or a file path means nothing there.
    for game_id in ("borgia", "mortadella", "pecunia"):
        for option in get_game(game_id).engine.info.options:
            assert not re.search(r"\([BMP]\d|[BMP]\d+\)|services/", option.description), option


def test_mortadella_words_for_a_declined_cancel_and_the_turn_limit():
    told = tell_event(get_game("mortadella"), m.CancelDecided(1, m.Effect.DRUNKENNESS, False), None)
    assert told == "seat 1 lets Drunkenness take effect."
    assert MORTADELLA.describe_action(m.PayCancel(False)) == "let it take effect"

"""Every event a viewer receives comes in words (TableEvent.text): the game's own words for
that viewer, made from what it may see, with the seats' names written in; the same on
SubmitAction responses, WatchTable, SpectateTable and GetReplay."""

import re

from common import auth
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.conftest import HumanTable


def _texts(events) -> list[str]:
    return [event.text for event in events]


def _watch(gateway, table_id: str, token: str | None) -> list[gw.TableEvent]:
    if token is None:
        stream = gateway.SpectateTable(gw.SpectateTableRequest(table_id=table_id, batched=True), timeout=60)
    else:
        request = gw.WatchTableRequest(table_id=table_id, batched=True)
        stream = gateway.WatchTable(request, metadata=auth.metadata(token), timeout=60)
    return [event for message in stream for event in message.events]


def test_every_event_arrives_in_words_for_its_viewer(gateway):
    # Two people (p0, p1) and a bot, so that each person reads the others by name.
    table = HumanTable(gateway, 3, game="borgia", seed=17, bots={2: "random"})
    table.start()
    submitted: list[gw.TableEvent] = []
    while table.table().status != gw.TABLE_STATUS_FINISHED:
        seat = table.decider()
        if seat == 2:
            continue  # the bot's turn: its worker plays it
        legal = table.view(seat).legal_actions
        try:
            response = table.submit(seat, legal[0].action)
        except Exception:  # the bot acted first: look again
            continue
        if seat == 0:
            submitted.extend(response.events)
    # SubmitAction: the acting seat's own events, "You" for itself, the others by name.
    assert submitted and all(event.text for event in submitted)
    assert any(text.startswith("You ") for text in _texts(submitted)), _texts(submitted)
    watched = _watch(gateway, table.table_id, table.tokens[0])
    spectated = _watch(gateway, table.table_id, None)
    for events, viewer in ((watched, 0), (spectated, None)):
        texts = _texts(events)
        assert all(texts), [event for event in events if not event.text][:3]
        assert "p0 sits down." in texts and "random sits down." in texts
        assert any(text.startswith("The game begins. Seed commitment (SHA-256): ") for text in texts)
        assert texts[-1].startswith("Game over: ")
        # Names are written in: no "seat N" is left for a client to resolve.
        assert not any(re.search(r"\bseat \d\b", text) for text in texts), texts
        deal = next(text for text in texts if text.startswith("The puppets are dealt"))
        if viewer is None:  # a spectator sees no puppet, and is nobody's "you"
            assert "Your puppet" not in deal
            assert not any(re.search(r"\b[Yy]ou\b", text) for text in texts)
        else:
            assert "Your puppet: " in deal
            assert any("p1 " in text for text in texts) and any(text.startswith("You ") for text in texts)
    # The words told as the log is read are those the rules service sent with each command.
    assert set(_texts(submitted)) <= set(_texts(watched))
    # What p1 reads of p0's bids is not what p0 reads.
    theirs = _texts(_watch(gateway, table.table_id, table.tokens[1]))
    assert any("p0 bids" in text for text in theirs) and not any("p0 bids" in text for text in _texts(watched))
    # The game's end names each person's own seat "(you)" to them, and to nobody else.
    winners = set(table.table().outcome.winners)
    for seat in (0, 1):
        over = _texts(_watch(gateway, table.table_id, table.tokens[seat]))[-1]
        assert over.startswith("Game over: ") and "{" not in over, over
        assert ("(you)" in over) == (seat in winners), (seat, winners, over)
        assert all(f"p{other} (you)" not in over for other in (0, 1) if other != seat), over
    # A replay keeps the text each viewer was shown.
    replay = gateway.GetReplay(gw.GetReplayRequest(table_id=table.table_id, seat=0))
    assert [step.event.text for step in replay.steps if step.HasField("event")] == _texts(watched)


def test_a_seat_a_bot_took_over_keeps_its_name_in_the_events_before(gateway):
    # The text is told as the log is read, with the names the seats had when each event
    # was logged: the people's before a bot took their seats, after it both ("p0 (random)").
    timer = gw.DecisionTimer(seconds=1, policy=gw.TIMEOUT_POLICY_BOT_TAKES_SEAT)
    table = HumanTable(gateway, players=2, game="borgia", seed=77, decision_timer=timer)
    table.start()
    spectated = _watch(gateway, table.table_id, None)
    texts = _texts(spectated)
    assert all(texts) and texts[-1].startswith("Game over: ")
    expired = [index for index, event in enumerate(spectated) if event.HasField("decision_expired")]
    assert len(expired) == 2, texts
    game = [index for index, event in enumerate(spectated) if event.HasField("game_event")]
    before = [texts[index] for index in game if index < expired[0]]
    after = [texts[index] for index in game if index > expired[1]]
    assert any(re.search(r"\bp[01]\b", text) for text in before), before
    assert not any("random" in text for text in before), before
    assert any(re.search(r"\bp[01] \(random\)", text) for text in after), after
    assert not any(re.search(r"\bp[01]\b(?! \(random\))", text) for text in after), after
    # Read again, from a replay and from the middle of the log: the same sentences.
    replay = gateway.GetReplay(gw.GetReplayRequest(table_id=table.table_id))
    assert [step.event.text for step in replay.steps if step.HasField("event")] == texts
    middle = spectated[expired[0]].seq
    request = gw.SpectateTableRequest(table_id=table.table_id, after_seq=middle, batched=True)
    later = [event for message in gateway.SpectateTable(request, timeout=60) for event in message.events]
    assert _texts(later) == [event.text for event in spectated if event.seq > middle]

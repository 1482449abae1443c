"""Each reader reads a table's events in the language it asks for (gateway/locale.py): the
``tavola-locale`` metadata, else ``accept-language``, else English. The game's events and the
platform's (a seat taken, the game begun, its end with its winners) are told in it, each
reader its own language however the log's entries are shared between readers."""

import threading

from common import auth
from tavola.gateway.v1 import gateway_pb2 as gw
from tests.integration.conftest import HumanTable


def _texts(gateway, table_id: str, token: str | None, metadata=()) -> list[str]:
    if token is None:
        stream = gateway.SpectateTable(
            gw.SpectateTableRequest(table_id=table_id, batched=True), metadata=list(metadata), timeout=60
        )
    else:
        request = gw.WatchTableRequest(table_id=table_id, batched=True)
        stream = gateway.WatchTable(request, metadata=[*auth.metadata(token), *metadata], timeout=60)
    return [event.text for message in stream for event in message.events]


def _played(gateway) -> HumanTable:
    table = HumanTable(gateway, 3, game="borgia", seed=17)
    table.start()
    while table.table().status != gw.TABLE_STATUS_FINISHED:
        seat = table.decider()
        table.submit(seat, table.view(seat).legal_actions[0].action)
    return table


def test_each_reader_reads_the_events_in_its_language(gateway):
    table = _played(gateway)
    italian = _texts(gateway, table.table_id, table.tokens[0], [("tavola-locale", "it")])
    german = _texts(gateway, table.table_id, None, [("accept-language", "fr;q=0.3, de-DE;q=0.9")])
    english = _texts(gateway, table.table_id, None)
    assert len(italian) == len(german) == len(english) and all(italian) and all(german)
    # The platform's events, told again as they are read.
    assert "p0 si siede al tavolo." in italian and "p1 nimmt Platz." in german and "p0 sits down." in english
    assert any(text.startswith("La partita comincia. Impegno del seme (SHA-256): ") for text in italian)
    assert any(text.startswith("Das Spiel beginnt. Festlegung des Startwerts (SHA-256): ") for text in german)
    # The game's, each seat by its name and the reader's own as "you" in its language.
    assert any(text.startswith("I burattini vengono distribuiti in segreto. Il tuo burattino: ") for text in italian)
    assert "Die Marionetten werden verdeckt verteilt." in german
    assert any(text.startswith("Dichiari ") for text in italian)  # p0's own bids
    assert any(" sagt " in text and text.endswith(" an.") for text in german)
    assert not any("bids" in text or "puppet" in text for text in italian[:-1] + german[:-1]), (italian, german)
    # The game's end names its winners in the reader's language, the reader's own seat marked.
    winners = set(table.table().outcome.winners)
    assert english[-1].startswith("Game over: ") and german[-1].startswith("Spielende: "), german[-1]
    assert italian[-1].startswith("Partita finita: ") and " Il seme viene rivelato: " in italian[-1], italian[-1]
    assert ("p0 (tu)" in italian[-1]) == (0 in winners), (winners, italian[-1])
    assert "(du)" not in german[-1]  # a spectator is nobody's "you"


def test_readers_of_different_languages_at_once_each_read_their_own(gateway):
    table = _played(gateway)
    read: dict[str, list[str]] = {}

    def watch(language: str) -> None:
        read[language] = _texts(gateway, table.table_id, None, [("tavola-locale", language)])

    threads = [threading.Thread(target=watch, args=(language,)) for language in ("it", "de", "en", "it_CH")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert "Die Marionetten werden verdeckt verteilt." in read["de"]
    assert "I burattini vengono distribuiti in segreto." in read["it"]
    assert "The puppets are dealt in secret." in read["en"]
    assert read["it"] == read["it_CH"] and read["it"] != read["de"] != read["en"]


def test_the_legal_actions_read_in_the_language_of_the_call(gateway):
    table = HumanTable(gateway, 3, game="pecunia", seed=3)
    table.start()
    seat = table.decider()
    request = gw.GetViewRequest(table_id=table.table_id)
    token = auth.metadata(table.tokens[seat])
    english = [item.label for item in gateway.GetView(request, metadata=token).legal_actions]
    italian = gateway.GetView(request, metadata=[*token, ("tavola-locale", "it")]).legal_actions
    german = gateway.GetView(request, metadata=[*token, ("accept-language", "de")]).legal_actions
    assert len(english) == len(italian) == len(german) > 0
    assert "draw an action card (ends your turn)" in english or "remove round markers and collect sesterces" in english
    assert {item.label for item in italian} & {
        "pesca una carta azione (termina il turno)",
        "togli i segnalini turno e incassa i sesterzi",
    }, [item.label for item in italian]
    assert not set(english) & {item.label for item in german}, [item.label for item in german]
    # The same actions, in the same order: only their words differ.
    assert [item.action for item in italian] == [item.action for item in german]
    # A move submitted from the Italian view is the move it names.
    table.submit(seat, italian[0].action)


def test_the_games_summaries_and_options_are_listed_in_the_readers_language(gateway):
    """ListGames tells each game's summary and each option's label and description from the
    game's catalog in the reader's language; English readers get the rules service's words."""
    english = {game.game_id: game for game in gateway.ListGames(gw.ListGamesRequest()).games}
    italian = {
        game.game_id: game
        for game in gateway.ListGames(gw.ListGamesRequest(), metadata=[("tavola-locale", "it")]).games
    }
    german = {
        game.game_id: game
        for game in gateway.ListGames(gw.ListGamesRequest(), metadata=[("accept-language", "de-DE")]).games
    }
    borgia = {option.name: option for option in english["borgia"].options}
    assert english["borgia"].summary.startswith("Bluff with hidden dice")
    assert borgia["shadow_puppets"].label == "Shadow Puppets"
    assert borgia["shadow_puppets"].description.startswith("Two players only")
    assert italian["borgia"].summary.startswith("Bluffa con i dadi nascosti")
    assert {option.name: option.label for option in italian["borgia"].options}[
        "shadow_puppets"
    ] == "Burattini nell'ombra"
    assert german["pecunia"].summary.startswith("Setze Römer auf deine Latrine")
    turn_limit = {option.name: option for option in german["pecunia"].options}["turn_limit"]
    assert turn_limit.label == "Zuglimit" and turn_limit.description.startswith("Grenze für abgeschlossene Züge")
    for listed in (italian, german):  # every game and option in words, nothing left in English
        for game_id, game in listed.items():
            assert game.summary != english[game_id].summary, game_id
            for option, plain in zip(game.options, english[game_id].options, strict=True):
                assert option.label and option.description != plain.description, (game_id, option.name)


def _labels(view: gw.GetViewResponse) -> list[str]:
    """A view's labels, none of its legal actions with a phrase (no client reads one)."""
    assert view.legal_actions and not any(item.HasField("label_phrase") for item in view.legal_actions)
    return [item.label for item in view.legal_actions]


def _both(gateway, table: HumanTable, seat: int) -> tuple[list[str], list[str]]:
    """The seat's labels in Italian and in English (each GetView after the other's)."""
    request = gw.GetViewRequest(table_id=table.table_id)
    token = auth.metadata(table.tokens[seat])
    italian = gateway.GetView(request, metadata=[*token, ("tavola-locale", "it")])
    english = gateway.GetView(request, metadata=token)
    assert [item.action for item in italian.legal_actions] == [item.action for item in english.legal_actions]
    return _labels(italian), _labels(english)


def test_a_view_kept_for_one_language_is_told_in_the_next_readers(gateway):
    """A command keeps the views it brings for the next GetView: an English reader's come
    without the labels' phrases, an Italian's with them. Whoever reads a kept view next
    reads its labels in their own language, and no client is sent a phrase."""
    table = HumanTable(gateway, 3, game="pecunia", seed=3)
    table.start()
    for submitter in ((), [("tavola-locale", "it")]):
        seat = table.decider()
        action = table.view(seat).legal_actions[0].action
        request = gw.SubmitActionRequest(table_id=table.table_id, action=action)
        answered = gateway.SubmitAction(request, metadata=[*auth.metadata(table.tokens[seat]), *submitter])
        italian, english = _both(gateway, table, table.decider())
        assert len(italian) == len(english) and italian != english, (italian, english)
        if answered.view.legal_actions:  # the acting seat's own view, in the submitter's language
            assert _labels(answered.view) == (_both(gateway, table, seat)[0 if submitter else 1])

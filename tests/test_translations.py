"""Italian and German beside English: every catalog's it.po and de.po has every English id,
the same placeholders and plural forms, and compiles (``python -m common.catalog_check``
lists what a language lacks, the games' help included); a game's events and its help read
in each; a word a language lacks is told in English."""

import re
from pathlib import Path

import pytest

from common.catalog_check import catalog_folders, check, main, reports
from common.help import help_entries, help_messages
from common.phrases import Catalogs, Seat, Teller, phrase, platform_catalogs
from services.borgia import model as borgia
from services.mortadella import model as mortadella
from services.mortadella.words import victory_phrase
from services.pecunia.model import (
    PlayCastorOil,
    PlayEviction,
    PlayFishPoisoning,
    PlayPoaching,
    PlaySpecialTax,
    RefillEnded,
    SeatPos,
)
from services.pecunia.words import played
from services.registry import get_game

LANGUAGES = ("it", "de")


def test_every_catalog_has_italian_and_german():
    folders = catalog_folders()
    assert len(folders) >= 4  # the platform's and each game's
    for folder in folders:
        assert {path.stem for path in folder.glob("*.po")} >= {"en", *LANGUAGES}, folder


def test_every_translation_is_complete_and_says_what_english_says(capsys):
    found = reports()
    assert {report.path.stem for report in found} >= set(LANGUAGES)
    for report in found:
        assert report.clean, (report.path, report.missing, report.extra, report.wrong)
    assert main([]) == 0
    assert "complete" in capsys.readouterr().out


def test_the_check_names_what_a_translation_lacks_or_gets_wrong(tmp_path: Path):
    english = (
        'msgid ""\nmsgstr ""\n"Language: en\\n"\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
        'msgid "a"\nmsgstr "{0} bids {1:signed}"\n\n'
        'msgid "b"\nmsgstr "Heads"\n\n'
        'msgid "c"\nmsgid_plural "c"\nmsgstr[0] "{0} die"\nmsgstr[1] "{0} dice"\n'
    )
    italian = (
        'msgid ""\nmsgstr ""\n"Language: it\\n"\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
        'msgid "a"\nmsgstr "{0} dichiara {1}"\n\n'
        'msgid "c"\nmsgid_plural "c"\nmsgstr[0] "{0} dado"\nmsgstr[1] "{0} dadi"\n\n'
        'msgid "z"\nmsgstr "in più"\n'
    )
    (tmp_path / "en.po").write_text(english, "utf-8")
    (tmp_path / "it.po").write_text(italian, "utf-8")
    report = check(tmp_path / "it.po")
    assert report.missing == ["b"]
    assert report.extra == ["z"]
    assert len(report.wrong) == 1 and report.wrong[0].startswith("a: placeholders")
    assert not report.clean


@pytest.mark.parametrize(
    ("locale", "theirs", "yours"),
    [
        ("en", "Bea bids 3 x Bribe.", "You bid 3 x Bribe."),
        ("it", "Bea dichiara 3 x Corruzione.", "Dichiari 3 x Corruzione."),
        ("de", "Bea sagt 3 x Bestechung an.", "Du sagst 3 x Bestechung an."),
    ],
)
def test_an_event_reads_in_each_language(locale, theirs, yours):
    words = get_game("borgia").words
    teller = Teller(locale, Catalogs.from_folder(words.catalog), strict=True)
    said = words.event_phrase(borgia.BidMade(1, 3, borgia.Face.BRIBE), None)
    assert teller.tell(said, {0: "Ada", 1: "Bea"}, 0) == theirs
    assert teller.tell(said, {0: "Ada", 1: "Bea"}, 1) == yours


def test_numbers_and_the_platform_read_as_the_language_writes_them():
    assert Teller("de").tell(phrase("platform.expired.bot", Seat(0)), {0: "Ada"}) == (
        "Die Bedenkzeit von Ada ist abgelaufen: ein Bot übernimmt den Platz."
    )
    pecunia = Catalogs.from_folder(get_game("pecunia").words.catalog)
    assert Teller("it", pecunia).tell(phrase("pecunia.sesterces", 1234), {}) == "1.234 sesterzi"
    assert Teller("de", pecunia).tell(phrase("pecunia.sesterces", 1), {}) == "1 Sesterz"


def test_a_word_missing_in_italian_is_told_in_english():
    folder = get_game("borgia").words.catalog
    texts = {path.stem: path.read_text("utf-8") for path in folder.glob("*.po")}
    cut = texts["it"].replace('msgid "borgia.call"\nmsgstr "contesta"\n', "")
    assert cut != texts["it"]
    teller = Teller("it", Catalogs.from_po_texts([("it", cut), ("en", texts["en"])]), strict=True)
    assert teller.tell(phrase("borgia.call"), {}) == "call"
    assert teller.tell(phrase("borgia.allow"), {}) == "accetta"
    assert platform_catalogs().chain("it_CH")[0].locale == "it"


@pytest.mark.parametrize("locale", LANGUAGES)
@pytest.mark.parametrize("game_id", ["borgia", "mortadella", "pecunia"])
def test_a_game_s_help_reads_in_each_language_of_its_own(game_id, locale):
    """Every help message has words of the language (strict: no English fallback), and the
    rules and the goal are not the English ones."""
    catalogs = Catalogs.from_folder(get_game(game_id).words.catalog)
    ids = help_messages(catalogs)
    teller = Teller(locale, catalogs, strict=True)
    told = {key: teller.tell(phrase(key), {}, None) for key in ids}
    english = dict(help_entries(catalogs))
    assert all(text.strip() and "{" not in text for text in told.values())
    assert told["help.rules"] != english["help.rules"] and told["help.goal"] != english["help.goal"]


@pytest.mark.parametrize(
    ("locale", "one", "two"),
    [
        ("it", "quindi il posto sinistro resta vuoto.", "quindi i posti sinistro e destro restano vuoti."),
        ("de", "also bleibt Platz links leer.", "also bleiben die Plätze links und rechts leer."),
    ],
)
def test_seats_left_empty_are_counted_in_each_language(locale, one, two):
    """P3: refilling stops when the queue's start fits no free seat; the seats left empty
    are told with the language's plural (the list's length)."""
    pecunia = get_game("pecunia").words
    teller = Teller(locale, Catalogs.from_folder(pecunia.catalog), strict=True)
    seats = {0: "Ada"}
    alone = pecunia.event_phrase(RefillEnded(0, (SeatPos.LEFT,)), None)
    both = pecunia.event_phrase(RefillEnded(0, (SeatPos.LEFT, SeatPos.RIGHT)), None)
    assert teller.tell(alone, seats, None).endswith(one)
    assert teller.tell(both, seats, None).endswith(two)


@pytest.mark.parametrize("locale", LANGUAGES)
def test_mortadella_goals_in_each_language_say_what_the_role_data_says_m14(locale):
    """M14: each role's goal in the help reads as the language tells the role's victory rows
    (the history's "Per vincere: …", "Zum Sieg: …"), so the two can never part."""
    catalogs = Catalogs.from_folder(get_game("mortadella").words.catalog)
    teller = Teller(locale, catalogs, strict=True)
    help = dict(help_entries(catalogs, locale))
    for role in mortadella.Role:
        told = teller.tell(phrase("mortadella.term", victory_phrase(role)), {}, None)
        assert help[f"help.role.{role.name.lower()}.goal"] == told, role
    lord = "help.role.lord.goal"
    assert (
        help[lord]
        == {"it": "almeno 4 Popolo e 6 Torre, senza Mortadella", "de": "mindestens 4 Volk und 6 Turm, ohne Mortadella"}[
            locale
        ]
    )


# Italian joins a preposition to the article after it ("su il" is "sul", "a la" is "alla").
UNJOINED = re.compile(r"\b(su|a|da|di|in) (il|lo|la|l'|i|gli|le)\b")


def test_pecunia_s_played_cards_read_as_italian_joins_its_words():
    """A card played on a seat (Fish poisoning, Eviction, Castor oil; any of P1's seats, on
    the top woman or the only Roman) names the seat with its article: the preposition
    before it must take the article in, as Italian writes it."""
    words = get_game("pecunia").words
    teller = Teller("it", Catalogs.from_folder(words.catalog), strict=True)
    actions = []
    for seat in SeatPos:
        for slot in (0, 1):
            actions += [PlayCastorOil(seat, slot, 2), PlayFishPoisoning(1, seat, slot), PlayEviction(1, seat, slot)]
    actions += [PlaySpecialTax(1), PlayPoaching(1)]
    for action in actions:
        told = teller.tell(played(action), {0: "Ada", 1: "Bea"}, 0)
        assert not UNJOINED.search(told), told

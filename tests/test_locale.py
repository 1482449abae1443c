"""The reader's language is read in one place (gateway/locale.py): ``tavola-locale`` first,
then ``accept-language`` by its weights, English for anything else; and a phrase is told
in it, each word its catalogs lack in English."""

from common.phrases import Catalogs, Teller, phrase
from gateway.locale import READER, from_metadata, reading_in


def test_the_locale_named_first_then_the_accepted_one_else_english():
    assert from_metadata([("tavola-locale", "it")]) == "it"
    assert from_metadata([("tavola-locale", "de-CH"), ("accept-language", "it")]) == "de_CH"
    assert from_metadata([("accept-language", "fr;q=0.2, de;q=0.9, it;q=0.5")]) == "de"
    assert from_metadata([("accept-language", "*")]) == "en"
    for hostile in ("", "x" * 500, "../../etc", "{0}", "en;drop", "zz_QQ_123456789"):
        assert from_metadata([("tavola-locale", hostile)]) == "en"
    assert from_metadata([]) == "en"


def test_a_call_reads_in_its_locale_and_then_no_longer():
    class Call:
        def invocation_metadata(self):
            return (("tavola-locale", "it"),)

    with reading_in(Call()) as locale:
        assert locale == READER.get() == "it"
    assert READER.get() == "en"


def test_a_language_without_the_word_falls_back_on_english():
    italian = 'msgid ""\nmsgstr ""\n"Language: it\\n"\n\nmsgid "coin.heads"\nmsgstr "Testa per {0}."\n'
    english = (
        'msgid ""\nmsgstr ""\n"Language: en\\n"\n\nmsgid "coin.heads"\nmsgstr "Heads for {0}."\n\n'
        'msgid "coin.tails"\nmsgstr "Tails for {0}, {1} times."\n'
    )
    catalogs = Catalogs.from_po_texts([("it", italian), ("en", english)])
    teller = Teller("it", catalogs)
    assert teller.tell(phrase("coin.heads", 1234), {}) == "Testa per 1.234."  # the Italian way
    assert teller.tell(phrase("coin.tails", 1, 2), {}) == "Tails for 1, 2 times."
    assert Teller("de", catalogs).tell(phrase("coin.heads", 1234), {}) == "Heads for 1.234."

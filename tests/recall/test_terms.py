"""The one term rule: words, stems, phrases as consecutive stems, word boundaries, the scan bound."""

from __future__ import annotations

from abcd.recall.constants import PROMPT_SCAN_BYTES
from abcd.recall.terms import Prompt, count, hits, scan, term_of, tokens, words


def hit(word: str, text: str) -> bool:
    term = term_of(word)
    assert term is not None
    return hits(term, tokens(text))


def test_a_word_hits_its_inflections() -> None:
    for text in ("run the tests", "testing now", "it was tested", "Tests pass", "TEST"):
        assert hit("test", text), text


def test_a_word_never_hits_a_longer_word_that_merely_holds_it() -> None:
    for text in ("attest to it", "a contest", "testimony", "latest"):
        assert not hit("test", text), text


def test_a_phrase_hits_as_consecutive_stems_in_any_inflection() -> None:
    assert hit("race detector", "turn on the race detectors")
    assert hit("race detector", "Race-detector runs")
    assert not hit("race detector", "race to the detector")
    assert not hit("race detector", "detector race")


def test_underscores_and_hyphens_separate_words() -> None:
    assert words("test_utils pre-commit") == ["test", "utils", "pre", "commit"]
    assert term_of("pre-commit") == term_of("pre commit")
    assert hit("test", "run test_utils.py")


def test_an_apostrophe_inside_a_word_stays_and_a_possessive_drops() -> None:
    assert words("don't 'quoted' agent’s") == ["don't", "quoted", "agent's"]
    assert tokens("the agent's notes") == tokens("the agent notes")


def test_letters_of_any_script_are_word_characters() -> None:
    assert words("Café 日本語 Ünïcode") == ["café", "日本語", "ünïcode"]


def test_combining_marks_continue_a_word() -> None:
    assert words("हिन्दी") == ["हिन्दी"]
    assert words("cafe\u0301") == words("café")


def test_combining_marks_beyond_the_basic_plane_continue_a_word_too() -> None:
    # Brahmi KA, vowel sign AA, virama: one word, as Devanagari's are.
    assert words("\U00011013\U00011038\U00011046 x") == ["\U00011013\U00011038\U00011046", "x"]


def test_a_mark_never_starts_a_word_nor_follows_an_apostrophe() -> None:
    assert words("\u0301a b\u0301 c'\u0301d") == ["a", "b\u0301", "c", "d"]


def test_full_width_letters_and_ligatures_read_as_plain_ones() -> None:
    assert tokens("ＴＥＳＴＳ") == ["test"]
    assert words("ﬁle") == ["file"]


def test_ascii_and_unicode_text_are_read_alike() -> None:
    assert tokens("Testing the Race-Detector é")[:4] == tokens("Testing the Race-Detector")


def test_a_word_without_a_letter_or_digit_is_no_term() -> None:
    assert term_of("--") is None
    assert term_of("  ") is None
    assert term_of("v2") == ("v2",)


def test_count_counts_every_occurrence_of_a_phrase() -> None:
    stems = tokens("race detector, then the race detectors, then race")
    assert count(("race", "detector"), stems) == 2
    assert count(("race",), stems) == 3
    assert count(("detector", "race"), stems) == 0


def test_the_prompt_index_agrees_with_the_plain_functions() -> None:
    text = "Run the race detectors before testing; attest nothing, test again"
    prompt = Prompt(text)
    stems = tokens(text)
    for word in ("test", "race detector", "attest", "nothing", "absent", "detector race"):
        term = term_of(word)
        assert term is not None
        assert prompt.hits(term) == hits(term, stems), word
        assert prompt.count(term) == count(term, stems), word
    assert prompt.distinct == frozenset(stems)


def test_the_prompt_is_read_only_up_to_its_bound() -> None:
    text = "a " * (PROMPT_SCAN_BYTES // 2) + "pytest"
    assert not Prompt(text).hits(("pytest",))
    assert len(scan(text).encode()) == PROMPT_SCAN_BYTES


def test_a_character_cut_at_the_bound_is_dropped_not_half_read() -> None:
    text = "a" * (PROMPT_SCAN_BYTES - 1) + "é and more"
    assert scan(text) == "a" * (PROMPT_SCAN_BYTES - 1)


def test_a_short_prompt_is_read_whole() -> None:
    assert scan("é" * 100) == "é" * 100


def test_warming_the_stem_cache_in_one_batch_changes_no_stem() -> None:
    from abcd.recall import terms

    sample = "the testers were testing flakily rerunning migrations databases".split()
    expected = [terms._STEMMER.stemWord(word) for word in sample]
    terms.warm(sample)
    assert terms.stems(sample) == expected


def test_the_term_rule_version_is_the_digest_of_the_term_rule() -> None:
    # Indexes and caches built under another term rule are refused by this version: edit
    # `abcd/recall/terms.py` and this test names the value to write in `abcd.recall.index`.
    import hashlib

    from abcd.recall import terms
    from abcd.recall.index import TERM_RULE_VERSION

    with open(terms.__file__, "rb") as source:
        digest = hashlib.sha256(source.read()).hexdigest()[:16]
    assert digest == TERM_RULE_VERSION, f"set TERM_RULE_VERSION = {digest!r} in abcd.recall.index"


def test_the_stop_words_are_written_out_as_the_stemmer_stems_them() -> None:
    from abcd.recall import terms
    from abcd.recall.second import STOP_STEMS, STOP_WORDS

    stemmer = terms._STEMMER
    assert frozenset(stemmer.stemWord(word) for word in STOP_WORDS) == STOP_STEMS

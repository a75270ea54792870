"""Properties of the term rule over any text: it never raises, and reading it twice changes nothing."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from abcd.recall.terms import Prompt, count, hits, term_of, tokens, words

texts = st.text(max_size=200)
# Text close to the real thing: words, separators and a few awkward characters.
prose = st.lists(
    st.sampled_from(
        [
            "test",
            "Tests",
            "testing",
            "race",
            "detector",
            "attest",
            "don't",
            "_",
            "-",
            " ",
            "’s",
            "é",
            "\u0301",
            "İ",
            "ß",
            "ﬁ",
            "हि",
            "न्",
            "日本",
            "'",
            "\n",
            "x2",
            "ＴＥＳＴ",
        ]
    ),
    max_size=30,
).map("".join)


def _is_word_character(char: str) -> bool:
    return char.isalnum() or char == "'" or unicodedata.category(char).startswith("M")


@given(st.one_of(texts, prose))
def test_words_are_lower_case_letters_digits_and_marks(text: str) -> None:
    for word in words(text):
        assert word == word.lower()
        assert word[0].isalnum()
        assert all(_is_word_character(char) for char in word)
        assert not word.endswith("'") and "''" not in word


@given(st.one_of(texts, prose))
def test_reading_the_words_again_gives_the_same_words(text: str) -> None:
    once = words(text)
    assert words(" ".join(once)) == once


@given(st.one_of(texts, prose))
def test_the_stems_of_the_joined_words_are_the_stems_of_the_text(text: str) -> None:
    assert tokens(" ".join(words(text))) == tokens(text)


@given(st.one_of(texts, prose), st.data())
def test_any_run_of_a_texts_stems_hits_it(text: str, data: st.DataObject) -> None:
    stems = tokens(text)
    if not stems:
        return
    start = data.draw(st.integers(0, len(stems) - 1))
    end = data.draw(st.integers(start + 1, len(stems)))
    term = tuple(stems[start:end])
    assert hits(term, stems)
    assert count(term, stems) >= 1
    assert Prompt(text).hits(term)


@given(st.one_of(texts, prose), st.one_of(texts, prose))
def test_the_prompt_index_and_the_plain_functions_agree(text: str, word: str) -> None:
    term = term_of(word)
    if term is None:
        return
    prompt = Prompt(text)
    assert prompt.hits(term) == hits(term, tokens(text))
    assert prompt.count(term) == count(term, tokens(text))


@given(st.lists(st.one_of(texts, prose), max_size=6))
def test_the_stems_of_words_joined_by_spaces_are_each_words_stems_in_turn(parts: list[str]) -> None:
    one_by_one = [stem for part in parts for stem in (term_of(part) or ())]
    assert tokens(" ".join(parts)) == one_by_one

"""The stem cache's terms looked up in bulk (`StemCache.terms_of`) are the ones looked up word by
word (`StemCache.term`), whatever the kept words hold: a damaged entry is derived again."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from abcd.recall.stemcache import StemCache
from abcd.recall.terms import term_of

WORDS = st.sampled_from(["test", "tests", "deploy", "flaky ci", "the", "rétry", "a-b", "", "x y z"])
# What a kept file may hold for a word: its term, none, or something damaged.
KEPT = st.one_of(
    st.none(),
    st.tuples(st.sampled_from(["test", "deploy", "flaki", "ci"])),
    st.lists(st.text(max_size=4), max_size=3).map(tuple),
    st.integers(),
    st.text(max_size=3),
    st.tuples(st.integers()),
    st.lists(st.text(max_size=3), max_size=2),
)


def cache(kept: dict[str, Any]) -> StemCache:
    stems = StemCache(None, "")
    stems.terms = dict(kept)
    return stems


@given(st.dictionaries(WORDS, KEPT), st.sets(WORDS))
def test_terms_in_bulk_are_the_terms_word_by_word(kept: dict[str, Any], words: set[str]) -> None:
    bulk, one_by_one = cache(kept), cache(kept)
    expected = {word: one_by_one.term(word) for word in words}
    assert bulk.terms_of(words) == expected
    assert bulk.terms_used == one_by_one.terms_used  # what the prompt keeps for the next
    assert bulk.added_parsed == one_by_one.added_parsed  # and whether it writes it again


def test_a_word_kept_damaged_is_derived_again() -> None:
    found = cache({"tests": ("test",), "deploy": 7}).terms_of({"tests", "deploy"})
    assert found == {"tests": ("test",), "deploy": term_of("deploy")}

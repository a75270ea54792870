"""The one term rule, shared by rules, notes, pages and the ranking.

A rule domain's recall word, a note's recall word and a page's `recall:`
entry hit exactly the same prompts, because all of them, and the prompt, go
through the functions below and nothing else (SPEC section 8; seed 000,
"Matching is the loader's").

The rule:

- **Words.** The text is NFKC-normalised (full-width letters, ligatures and
  superscripts become plain ones) and lower-cased; a word is then a run of
  Unicode letters and digits, so non-ASCII letters (`café`, `日本語`) are word
  characters. Combining marks continue a word (scripts that write vowels as
  marks, such as Devanagari, stay whole).
- **Separators.** Everything else separates words, including `_` and `-`:
  `test_utils` is `test utils` and `pre-commit` is `pre commit`, so a
  snake_case or kebab-case identifier in a prompt hits the words it is made
  of, and a recall word written with a hyphen is the phrase of its parts.
- **Apostrophes.** An apostrophe (`'` or the typographic `’`) between two
  letters or digits stays inside the word (`don't`, `agent's`), and the
  stemmer then drops a possessive `'s`; a leading or trailing one separates.
- **Stems.** Each word is reduced by the English Snowball stemmer (PyStemmer,
  in C, behind a bounded word -> stem cache), so "tests", "testing" and "tested" are all `test`.
- **Terms.** A recall word or phrase is a `Term`, the tuple of its stems. A
  term hits a text when its stems occur there as consecutive stems: word
  boundaries are kept, so "test" hits "tests" and "testing" but not "attest",
  and "race detector" hits "the race detectors" but not "race to the detector".

Invariant: `tokens(text) == tokens(" ".join(words(text)))`, every word is
lower-case, and no function here raises on any `str`.
"""

from __future__ import annotations

import Stemmer

from abcd.recall.constants import (
    MARK_CACHE_SIZE,
    PROMPT_SCAN_BYTES,
    STEM_CACHE_SIZE,
    WORD_PATTERNS_KEPT,
)

# The prompt hook imports this module on every prompt, so it loads no
# `typing`, no `collections` and compiles no pattern at import: ASCII text
# (most prompts) is read with `str.translate` and `str.split`, both in C, and
# the one Unicode pattern is compiled on the first text that needs it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Sequence

Term = tuple[str, ...]
"""A recall word or phrase as the consecutive stems it must hit."""

# The stemmer's own cache is off: the dict below answers a cached word from C
# (`map` over `dict.__getitem__`) about four times faster than PyStemmer's does.
_STEMMER = Stemmer.Stemmer("english", 0)


class _StemCache(dict[str, str]):
    """word -> stem, filled on a miss; bounded, so a long-lived process cannot grow it forever.

    With the mark table and the word patterns below, the only module state here, and all three
    only memoise pure functions.
    """

    def __missing__(self, word: str) -> str:
        stem: str = _STEMMER.stemWord(word)
        if len(self) < STEM_CACHE_SIZE:
            self[word] = stem
        return stem


_STEMS = _StemCache()

# ASCII: letters lower-cased, digits and the apostrophe kept, every other
# character a space; `split()` then gives the words (apostrophes aside).
_ASCII_FOLD = {
    code: (chr(code).lower() if chr(code).isalnum() or chr(code) == "'" else " ")
    for code in range(128)
}


class _MarkTable(dict[str, bool]):
    """character -> whether it is a combining mark (category M), read from `unicodedata` once."""

    def __missing__(self, char: str) -> bool:
        import unicodedata  # only non-ASCII text needs it (see `_nfkc`)

        mark = unicodedata.category(char)[0] == "M"
        if len(self) < MARK_CACHE_SIZE:
            self[char] = mark
        return mark


_IS_MARK = _MarkTable()

# Word patterns for non-ASCII text, by the marks the text holds (see `_word_pattern`).
_PATTERNS: dict[str, re.Pattern[str]] = {}
_ALNUM = r"[^\W_]"  # a letter or digit: what `str.isalnum` says, character by character


def _word_pattern(marks: str) -> re.Pattern[str]:
    """Letters and digits, `'` between two of them, and `marks` continuing a word.

    Only the marks the text actually holds go in the class: a class of every
    mark Unicode has costs `re` about a millisecond to compile, in every
    process, while a text's few marks (or none) cost a fraction of that.
    """
    pattern = _PATTERNS.get(marks)
    if pattern is None:
        import re  # only non-ASCII text needs it, and most of the hook's prompts are not

        unit = f"(?:{_ALNUM}|[{re.escape(marks)}])" if marks else _ALNUM
        pattern = re.compile(f"{_ALNUM}{unit}*(?:'{_ALNUM}{unit}*)*")
        if len(_PATTERNS) >= WORD_PATTERNS_KEPT:
            _PATTERNS.clear()
        _PATTERNS[marks] = pattern
    return pattern


def _marks_in(normal: str) -> str:
    """The combining marks `normal` holds, each once, in code point order."""
    try:
        normal.encode("latin-1")
    except UnicodeEncodeError:
        pass
    else:
        return ""  # every mark lies above U+02FF, beyond Latin-1
    # Marks lie above U+02FF and none is a letter or digit: those need no look-up.
    is_mark = _IS_MARK
    found = [c for c in set(normal) if c > "\u02ff" and not c.isalnum() and is_mark[c]]
    return "".join(sorted(found))


def _split_words(folded: str) -> list[str]:
    """The words of text that holds only word characters, `'` and whitespace."""
    found = folded.split()
    if "'" not in folded:
        return found
    words: list[str] = []
    for token in found:
        if "'" not in token:
            words.append(token)
            continue
        # `'` joins two runs of letters and digits; at either end, or doubled, it separates.
        joined: list[str] = []
        for part in token.split("'"):
            if part:
                joined.append(part)
            elif joined:
                words.append("'".join(joined))
                joined = []
        if joined:
            words.append("'".join(joined))
    return words


def _normal(text: str) -> str:
    """NFKC, lower case, typographic apostrophes made plain; stable under a second pass."""
    lowered = _nfkc(text).lower()
    # Lower-casing could leave a string NFKC would change again; one more pass
    # settles it (an exhaustive check over every code point needs none), so
    # re-reading the words is idempotent. Bounded: the hook must never spin.
    for _ in range(3):
        again = _nfkc(lowered).lower()
        if again == lowered:
            break
        lowered = again
    return lowered.replace("\u2019", "'")  # the typographic apostrophe as the plain one


def _nfkc(text: str) -> str:
    # `unicodedata` is a shared library: loading it costs a prompt a fraction of a millisecond,
    # and ASCII text (most prompts, most items) never comes here (`words`).
    import unicodedata

    # The quick check is far cheaper than normalising text that is already normal.
    if unicodedata.is_normalized("NFKC", text):
        return text
    return unicodedata.normalize("NFKC", text)


def words(text: str) -> list[str]:
    """The lower-cased words of `text`, in order, before stemming."""
    if text.isascii():
        return _split_words(text.translate(_ASCII_FOLD))
    normal = _normal(text)
    if normal.isascii():  # NFKC made it plain (full-width letters, ligatures)
        return _split_words(normal.translate(_ASCII_FOLD))
    return _word_pattern(_marks_in(normal)).findall(normal)


def stems(word_list: Iterable[str]) -> list[str]:
    """The English Snowball stem of each word (cached)."""
    return list(map(_STEMS.__getitem__, word_list))


def warm(word_list: Iterable[str]) -> None:
    """Stem every word not yet cached in one call into the stemmer's C code.

    A fresh process stems each distinct word once; asking for a batch of
    items' words together saves the per-word call of the cache's miss path.
    """
    missing = list(set(word_list).difference(_STEMS))
    if missing:
        for word, stem in zip(missing, _STEMMER.stemWords(missing), strict=True):
            if len(_STEMS) >= STEM_CACHE_SIZE:
                break
            _STEMS[word] = stem


def tokens(text: str) -> list[str]:
    """The stems of the words of `text`, in order: what every match and count reads."""
    return stems(words(text))


def term_of(word: str) -> Term | None:
    """The term a recall word or phrase stands for; `None` when it holds no letter or digit."""
    term = tuple(tokens(word))
    return term or None


def count(term: Term, stem_list: Sequence[str]) -> int:
    """How often `term` occurs in `stem_list` as consecutive stems (overlaps counted)."""
    if len(term) == 1:
        return stem_list.count(term[0])
    return len(_starts(term, stem_list))


def hits(term: Term, stem_list: Sequence[str]) -> bool:
    """Whether `term` occurs in `stem_list` as consecutive stems."""
    if len(term) == 1:
        return term[0] in stem_list
    return bool(_starts(term, stem_list, first_only=True))


def _starts(term: Term, stem_list: Sequence[str], *, first_only: bool = False) -> list[int]:
    width = len(term)
    found: list[int] = []
    for at, stem in enumerate(stem_list):
        if stem == term[0] and tuple(stem_list[at : at + width]) == term:
            found.append(at)
            if first_only:
                break
    return found


def scan(text: str) -> str:
    """The part of a prompt the hook reads: its first `PROMPT_SCAN_BYTES` bytes of UTF-8."""
    if len(text) * 4 <= PROMPT_SCAN_BYTES:
        return text  # even at four bytes a character it is within the bound
    data = text.encode("utf-8", errors="surrogatepass")
    if len(data) <= PROMPT_SCAN_BYTES:
        return text
    # A character cut in half at the bound is dropped, never half-read.
    return data[:PROMPT_SCAN_BYTES].decode("utf-8", errors="ignore")


class Prompt:
    """A prompt read once: its scanned text, its stems, and an index for hits and counts.

    Built once per prompt and asked for every domain, note and page, so a
    single-stem term is a set lookup and a phrase looks only where its first
    stem stands.
    """

    __slots__ = ("_distinct", "_positions", "stems", "text")

    def __init__(self, text: str) -> None:
        self.text = scan(text)
        self.stems: tuple[str, ...] = tuple(tokens(self.text))
        self._distinct: frozenset[str] | None = None
        self._positions: dict[str, list[int]] | None = None

    @property
    def distinct(self) -> frozenset[str]:
        """Each stem of the prompt once: the ranking's query terms."""
        if self._distinct is None:
            self._distinct = frozenset(self.stems)
        return self._distinct

    def _where(self, stem: str) -> list[int]:
        if self._positions is None:
            positions: dict[str, list[int]] = {}
            for at, each in enumerate(self.stems):
                positions.setdefault(each, []).append(at)
            self._positions = positions
        return self._positions.get(stem, [])

    def count(self, term: Term) -> int:
        """How often `term` occurs in the prompt as consecutive stems."""
        if len(term) == 1:
            return len(self._where(term[0])) if term[0] in self.distinct else 0
        width = len(term)
        return sum(1 for at in self._where(term[0]) if self.stems[at : at + width] == term)

    def hits(self, term: Term) -> bool:
        """Whether `term` occurs in the prompt as consecutive stems."""
        if term[0] not in self.distinct:
            return False
        if len(term) == 1:
            return True
        width = len(term)
        return any(self.stems[at : at + width] == term for at in self._where(term[0]))

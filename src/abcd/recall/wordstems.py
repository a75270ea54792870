"""The stems of the words prompts were made of, kept between prompts: `<home>/cache/words.marshal`.

The term rule stems every word of a prompt (`abcd.recall.terms`). Loading the
stemmer's library costs a prompt about a millisecond, more than all its
stemming, and a person's prompts repeat their words. So the prompt hook looks
its prompt's words up here first and hands the stems it finds to the term
rule (`terms.remember`): the stemmer is loaded only for a word no earlier
prompt held, and that word is kept for the next one. The rules' and the
items' recall words are kept with the parsed files (`abcd.recall.stemcache`)
and the second tier's stop words are written out (`abcd.recall.second`), so a
prompt of words seen before loads no stemmer at all.

The file holds up to `MAX_WORDS` word -> stem pairs on `SHELVES` shelves (a
word's shelf is a CRC-32 of it), a file of checked pieces
(`abcd.recall.pieces`) whose header names the format, the interpreter and
the term rule's version. A prompt reads the header and
the shelves of its own words (a few small `pread`s), never the whole file.
A file of another format, interpreter or term rule, or whose header does not
check, is read as empty; a shelf that does not check, or does not hold
strings, is read as empty. Only the prompt hook writes it (atomically, and
only when its prompt held a word the file lacked), keeping every shelf that
checks; when it is full, the next new word starts it over. It is swept with
the other caches after 7 days unwritten, and holds nothing the stemmer would
not give again.
"""

from __future__ import annotations

import marshal
import sys
from zlib import crc32

from abcd.errors import AbcdError
from abcd.recall import pieces
from abcd.recall.index import TERM_RULE_VERSION
from abcd.recall.terms import remember, stems
from abcd.session.files import CACHE_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from abcd.trust.guarded import Home

WORDS_REL = f"{CACHE_DIR}/words.marshal"
FORMAT = 1
# A word's shelf is a CRC-32 of it modulo this: a prompt of a dozen words reads about a dozen.
SHELVES = 256
# About 80 words a shelf when full (~400 KB in all): a person's working vocabulary with room.
MAX_WORDS = 20_000
# A longer word (a pasted hash, a path without separators) is stemmed, never kept.
WORD_MAX_CHARS = 40
# Past this it is not a file this tool wrote (20,000 words of 40 characters, with room).
MAX_BYTES = 4 * 1024 * 1024

Shelf = dict[str, str]


def shelf_of(word: str) -> int:
    """The shelf a word is kept on."""
    return crc32(word.encode("utf-8", "surrogatepass")) % SHELVES


def _header() -> tuple[object, ...]:
    return (FORMAT, sys.implementation.cache_tag, TERM_RULE_VERSION)


def _shelf(body: memoryview | None) -> Shelf | None:
    """A shelf's word -> stem pairs, or `None` when its piece did not check or hold them."""
    try:
        kept = marshal.loads(body) if body is not None else None
    except (ValueError, EOFError, TypeError):
        return None
    if type(kept) is not dict:
        return None
    for word, stem in kept.items():
        if type(word) is not str or type(stem) is not str:
            return None
    return kept


def encode(shelves: list[Shelf]) -> bytes:
    """A whole file holding these shelves (`abcd.recall.pieces`)."""
    return pieces.encode(_header(), [marshal.dumps(shelf) for shelf in shelves])


def decode(data: bytes) -> list[Shelf] | None:
    """Every shelf a whole file holds (one that does not check is empty), or `None` when the file
    is not one this interpreter and term rule wrote."""
    found = pieces.decode(data, _header(), 0, SHELVES)
    if found is None:
        return None
    return [_shelf(body) or {} for body in found[1]]


class WordStems:
    """The kept stems a prompt asked for, and the words it found missing."""

    __slots__ = ("found", "home", "missing")

    def __init__(self, home: Home) -> None:
        self.home = home
        self.found = 0  # words whose stem came from the file
        self.missing: set[str] = set()  # words to keep once the term rule has stemmed them

    def prime(self, words: Iterable[str]) -> None:
        """Hand the term rule the kept stems of `words`, and note the ones not kept (never raises)."""
        wanted = {word for word in words if len(word) <= WORD_MAX_CHARS}
        if not wanted:
            return
        known = self._look_up(wanted)
        self.found = len(known)
        self.missing = wanted.difference(known)
        remember(known)

    def _look_up(self, wanted: set[str]) -> Shelf:
        reader = pieces.open_reader(self.home, WORDS_REL, _header(), 0, SHELVES)
        if reader is None:
            return {}
        try:
            by_shelf: dict[int, list[str]] = {}
            for word in wanted:
                by_shelf.setdefault(shelf_of(word), []).append(word)
            known: Shelf = {}
            for no, words in by_shelf.items():
                kept = _shelf(reader.piece(no))
                if kept:
                    known.update((word, kept[word]) for word in words if word in kept)
            return known
        finally:
            reader.close()

    def save(self) -> None:
        """Keep the stems of the words that were missing (stemmed by now); never raises."""
        if not self.missing:
            return
        words = sorted(self.missing)
        try:
            data = self.home.read(WORDS_REL, MAX_BYTES)
            shelves = decode(data) if data else None
            if shelves is None or sum(map(len, shelves)) + len(words) > MAX_WORDS:
                shelves = [{} for _ in range(SHELVES)]  # none yet, not ours, or full: start over
            for word, stem in zip(words, stems(words), strict=True):
                shelves[shelf_of(word)][word] = stem
            self.home.write_atomic(WORDS_REL, encode(shelves))
        except (AbcdError, OSError, ValueError):
            pass  # not kept: the next prompt with these words loads the stemmer, nothing else

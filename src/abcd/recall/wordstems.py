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
word's shelf is a CRC-32 of it), each marshalled and checked (CRC-32) on
its own, behind a checked header naming the format, the interpreter and the
term rule's version and where each shelf lies. A prompt reads the header and
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
import os
import sys
from zlib import crc32

from abcd.errors import AbcdError
from abcd.recall.index import TERM_RULE_VERSION
from abcd.recall.terms import remember, stems
from abcd.session.files import CACHE_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

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
_HEADER_MAX = 16 * 1024

Shelf = dict[str, str]


def shelf_of(word: str) -> int:
    """The shelf a word is kept on."""
    return crc32(word.encode("utf-8", "surrogatepass")) % SHELVES


def _piece(value: Any) -> bytes:
    """`value` marshalled, behind a CRC-32 of it."""
    blob = marshal.dumps(value)
    return crc32(blob).to_bytes(4, "little") + blob


def _unpiece(piece: bytes | memoryview) -> object:
    """What a piece holds, or `None` when it does not check or decode."""
    body = memoryview(piece)[4:]
    if len(piece) < 4 or int.from_bytes(piece[:4], "little") != crc32(body):
        return None
    try:
        return marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return None


def _shelf(piece: bytes | memoryview) -> Shelf | None:
    """A shelf's word -> stem pairs, or `None` when the piece does not check or hold them."""
    kept = _unpiece(piece)
    if type(kept) is not dict:
        return None
    for word, stem in kept.items():
        if type(word) is not str or type(stem) is not str:
            return None
    return kept


def _header() -> tuple[object, ...]:
    return (FORMAT, sys.implementation.cache_tag, TERM_RULE_VERSION)


def _offsets(piece: bytes | memoryview, size: int) -> tuple[int, ...] | None:
    """Where each shelf starts and the last ends, counted from the end of the header, when a
    header this interpreter and term rule wrote says so and the file holds them, else `None`."""
    stored = _unpiece(piece)
    if type(stored) is not tuple or len(stored) != 4 or stored[:3] != _header():
        return None
    offsets = stored[3]
    if type(offsets) is not tuple or len(offsets) != SHELVES + 1:
        return None
    previous = 0
    for at in offsets:
        if type(at) is not int or at < previous:
            return None
        previous = at
    return offsets if 4 + len(piece) + previous <= size else None


def encode(shelves: list[Shelf]) -> bytes:
    """A whole file holding these shelves: the header's length, the header, the shelves."""
    pieces = [_piece(shelf) if shelf else b"" for shelf in shelves]
    offsets = [0]
    for piece in pieces:
        offsets.append(offsets[-1] + len(piece))
    header = _piece((*_header(), tuple(offsets)))
    return len(header).to_bytes(4, "little") + header + b"".join(pieces)


def decode(data: bytes) -> list[Shelf] | None:
    """Every shelf a whole file holds (one that does not check is empty), or `None` when the file
    is not one this interpreter and term rule wrote."""
    length = int.from_bytes(data[:4], "little")
    if len(data) < 4 or not 4 < length <= _HEADER_MAX:
        return None
    offsets = _offsets(memoryview(data)[4 : 4 + length], len(data))
    if offsets is None:
        return None
    base = 4 + length
    shelves: list[Shelf] = []
    for no in range(SHELVES):
        start, end = base + offsets[no], base + offsets[no + 1]
        shelves.append((_shelf(memoryview(data)[start:end]) or {}) if end > start else {})
    return shelves


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
        known: Shelf = {}
        try:
            known = self._look_up(wanted)
        except (AbcdError, OSError, ValueError):
            known = {}
        self.found = len(known)
        self.missing = wanted.difference(known)
        remember(known)

    def _look_up(self, wanted: set[str]) -> Shelf:
        opened = self.home.open_file(WORDS_REL)
        if opened is None:
            return {}
        fd, st = opened
        try:
            length = int.from_bytes(os.pread(fd, 4, 0), "little")
            if st.st_size > MAX_BYTES or not 4 < length <= _HEADER_MAX:
                return {}
            offsets = _offsets(os.pread(fd, length, 4), st.st_size)
            if offsets is None:
                return {}
            by_shelf: dict[int, list[str]] = {}
            for word in wanted:
                by_shelf.setdefault(shelf_of(word), []).append(word)
            base = 4 + length
            known: Shelf = {}
            for no, words in by_shelf.items():
                start, end = offsets[no], offsets[no + 1]
                kept = _shelf(os.pread(fd, end - start, base + start)) if end > start else None
                if kept:
                    known.update((word, kept[word]) for word in words if word in kept)
            return known
        finally:
            os.close(fd)

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

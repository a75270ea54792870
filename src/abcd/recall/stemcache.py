"""What the repository layer costs to read, kept between prompts: three files in `<home>/cache/`.

Every prompt reads the project's notes and pages, checks each recall word
against the prompt and, when something hits, ranks over all of them. Doing
that from scratch parses every page, stems every recall word and every body,
in a new process each prompt. This cache keeps five things, each keyed so
that a stale entry is never used:

- **forwards**, by an item's content signature (a digest of its kind,
  layer, title, body and recall words: `Item.signature`), or for an item
  parsed from a file matched by stat (below) by that file's path and stat:
  its weighted length and the weighted count of each stem in it, what
  ranking needs (each entry marshalled on its own), so an item is stemmed
  once per change of its text;
- **the reach's table**, under a digest of the reach's keys: the small layers
  in reach as ranking reads them, column by column (how many items, their
  total weighted length, each one's length, and for each stem the weighted
  count of each item holding it, the columns on 1,024 shelves, each a checked
  piece of the file, `abcd.recall.pieces`), so a prompt reads and decodes the
  shelves of its own stems and no item's forward: how many items hold a stem
  is its column's length;
- **terms**, by recall word: the word's term under the term rule, for the
  items' recall words and the rules' recall words and aliases alike (the
  file names the term rule's version, and another version's file is
  ignored);
- **parsed files**, by the file's path under the repository (or the home's
  pages folder) and its stat (size, modification and change times to the
  nanosecond, inode, device): the items parsed from it. A file is kept only
  when it was last modified at least `RACY_NS` before it was read, so a write
  within the file system's timestamp granularity of the read can never leave
  an entry that matches new content (git's "racily clean" rule). A reused
  file is still checked as a read would check it (a regular file, not a
  link, within its bound, owned by this account and not writable by others,
  nor for machine pages by its group); only its bytes are not read again;
- **note numbers**: the machine index's numbers of the ids the index must
  set aside (promoted, removed or newer notes), under the index's format,
  checkpoint and count and a digest of the ids, so a checkout's promoted ids
  are not looked up bucket by bucket on every prompt.

Terms, parsed files and note numbers, needed by every prompt, are in `parsed-<digest>.marshal`,
a file of two checked pieces (`abcd.recall.pieces`): the first holds them with each page's and
note's body set apart as a number, the second the bodies' text, read only when a prompt asks for a
body (one rendered in full; a kept item's signature is kept with it), so a prompt reads the ~45 KB
of recall words and titles of a 264 KB file. A body whose piece does not check raises
`CacheDamaged`, and the hook recalls again without the parsed files;
the reach's table, needed only by a prompt with something to rank, in
`reach-<digest>.marshal`; the forwards, needed only to build a table, in
`stems-<digest>.marshal`. The prompt hook,
their only writer, rewrites a file (atomically, keeping only the entries the
reach still holds) only when something in it was new. One set per checkout (named
by the digest of its top folder and of the rules below, `cache_rel`, so two installs of
different versions on one home keep a set each), and one for prompts outside any checkout
(named by the digest of the empty name and the rules); the session-start sweep removes files
untouched for 7 days. Each file names the format, the interpreter, the term rule and the parse
rule (`PARSE_RULE_VERSION`) it was written under, and one written under any other (an earlier
or a later abcd's) is not read. A cache that cannot be read is ignored,
never trusted: it can only spare work, and holds nothing that is not in the
files it was taken from.
"""

from __future__ import annotations

import marshal
import sys
from itertools import chain
from zlib import crc32

from abcd.digest import sha256_hex
from abcd.errors import AbcdError
from abcd.recall import pieces
from abcd.recall.index import TERM_RULE_VERSION
from abcd.recall.terms import term_of
from abcd.session.files import CACHE_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from typing import Any, TypeGuard

    from abcd import leanos as os
    from abcd.recall.index import Index
    from abcd.recall.items import Item
    from abcd.recall.pieces import Reader
    from abcd.recall.terms import Term
    from abcd.trust.guarded import Home

# 11: no project note kept from a file the commands refuse (a field of another type, a lone
# surrogate, a NaN); 10: no project note kept whose id is not a note id or whose title is not one line; 9: the
# parsed files a file of two checked pieces, the bodies apart and read when one is asked
# for; 8: the reach's table a file of checked pieces, each shelf read when a prompt's stem is on it;
# 7: the reach's columns on 1,024 shelves; 6: the reach kept as a table of columns (5: a page's
# recency from its frontmatter)
FORMAT = 11
# The first 16 hex digits of the SHA-256 of the sources that decide what a parse of a checkout's
# files holds (`PARSE_RULE_SOURCES`, one after the other): a parse kept by an abcd whose reading
# differs (a page with a byte order mark was one without recall words) is never served after an
# upgrade or a downgrade, whatever `FORMAT` says; the caches keyed by the parse (the forwards,
# the reach's table) go with it. Written out, as `TERM_RULE_VERSION` is; a test holds it to the
# files and names the new value when one changes (tests/hook/test_upgrades.py).
PARSE_RULE_VERSION = "898b5fa536865b49"
PARSE_RULE_SOURCES = ("recall/items.py", "shapes.py", "journal/lean.py", "fastjson.py")
# 10,000 items of ~1 KiB of stems each, with room: past this it is not a file this tool wrote.
CACHE_MAX_BYTES = 32 * 1024 * 1024
# A file modified this close to its read may change again within one timestamp tick (a coarse
# file system's is up to 2 s) without its stat changing: such a file is not kept.
RACY_NS = 2_000_000_000

Forward = tuple[int, dict[str, int]]
"""An item as ranking needs it: its weighted length and each stem's weighted count."""
KeptTable = tuple[str, int, int, tuple[int, ...], tuple[bytes, ...]]
"""A reach's table as kept: its digest, count, total length, each item's length and the stems'
columns on `SHELVES` shelves (each marshalled: a prompt decodes only the shelves of its stems)."""
# The columns of a reach's table are kept on this many shelves, a stem's by a CRC-32 of it: a prompt
# decodes a shelf for each of its stems, so a shelf holds a few columns (a reach of 300 items holds
# some 2,300 stems; on 64 shelves a prompt of nine stems decoded 0.3 ms of columns, on 1,024 0.1 ms).
SHELVES = 1024


def shelf_of(stem: str) -> int:
    """The shelf a stem's column is kept on."""
    return crc32(stem.encode("utf-8", "surrogatepass")) % SHELVES


def forward_of(item: Item) -> Forward:
    """The item's forward, through the term rule (as `Corpus` reads it)."""
    doc = item.doc()
    return doc.length, doc.weights()


StatKey = tuple[int, int, int, int, int]


# The parsed file is written again, with only what a prompt used, when it holds more than this
# many words (or files) besides, and more besides than the prompt used (`StemCache.save`).
PARSED_WASTE_MIN = 256


def _wasted(kept: int, used: int) -> bool:
    """Whether `kept` entries hold far more than the `used` a prompt used: more than
    `PARSED_WASTE_MIN` besides, and more besides than used (a prompt that used none, the kill
    switch's, keeps what it did not look at)."""
    return used > 0 and kept - used > max(PARSED_WASTE_MIN, used)


def cache_rel(top: str, part: str = "stems") -> str:
    """The checkout's cache file, named by the checkout and by what its header must name (format,
    interpreter, term rule, parse rule: `_reach_header`): two installs of different versions
    sharing one home keep a set each, where one set was rewritten whole by every prompt of each
    (at 600 pages, ~630 KB and +17 ms a prompt). A set no install reads is swept after 7 days."""
    rule = "\0".join(map(str, (top, *_reach_header())))
    return f"{CACHE_DIR}/{part}-{sha256_hex(rule.encode('utf-8'))[:32]}.marshal"


def stat_key(st: os.stat_result) -> StatKey:
    """What a parsed file is kept under: its size, modification and change times, inode, device."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


class StemCache:
    """The entries read at the start of a prompt, and those this prompt used or added."""

    def __init__(self, home: Home | None, top: str) -> None:
        self.home = home
        self.rel = cache_rel(top)
        self.parsed_rel = cache_rel(top, "parsed")
        self.reach_rel = cache_rel(top, "reach")
        self._entries: dict[str, bytes] | None = None
        self._table: KeptTable | None = None
        self.reach_keys: set[str] | None = None
        self.used: dict[str, bytes] = {}
        self.terms_used: dict[str, Term | None] = {}
        self.files_used: dict[str, tuple[StatKey, Any]] = {}
        self.added = 0  # new stems
        self.added_parsed = 0  # new terms or files
        self._texts: Reader | None = None  # the parsed file, open for its bodies' piece
        self._ends: tuple[int, ...] = (0,)  # where each body kept apart ends in that piece
        self._blob: memoryview | None = None
        self._apart: list[str] = []  # bodies this prompt set apart (numbered -1, -2, ...)
        stored = self._read_parsed()
        self.terms: dict[str, Term | None] = stored.get("words", {})
        self.files: dict[str, tuple[StatKey, Any]] = stored.get("files", {})
        ids = stored.get("ids")
        self.ids: tuple[Any, dict[str, int]] | None = ids if isinstance(ids, tuple) else None
        self.ids_used: tuple[Any, dict[str, int]] | None = None

    def _read(self, rel: str) -> dict[str, Any]:
        """The file's entries when this interpreter and term rule wrote it, else nothing."""
        if self.home is None:
            return {}
        try:
            data = self.home.read(rel, CACHE_MAX_BYTES)
            # A CRC-32 of the body first: a cache damaged on disk is re-derived, never believed.
            body = memoryview(data or b"")[4:]  # not copied: checked and decoded where it lies
            if not data or int.from_bytes(data[:4], "little") != crc32(body):
                body = memoryview(b"")
            stored = marshal.loads(body) if body else None
        except (AbcdError, OSError, ValueError, EOFError, TypeError):
            return {}
        if (
            isinstance(stored, dict)
            and all(stored.get(k) == v for k, v in zip(_HEADER_KEYS, _reach_header(), strict=True))
            and all(isinstance(v, dict) for k, v in stored.items() if k in _PARTS)
        ):
            return stored
        return {}

    def _read_parsed(self) -> dict[str, Any]:
        """The parsed file's first piece when this interpreter and term rule wrote it (its reader
        kept open for the bodies' piece), else nothing."""
        if self.home is None:
            return {}
        reader = pieces.open_reader(self.home, self.parsed_rel, _reach_header(), 0, 2)
        if reader is None:
            return {}
        try:
            stored = marshal.loads(reader.piece(0) or b"")
        except (ValueError, EOFError, TypeError):
            stored = None
        ends = stored.get("texts") if isinstance(stored, dict) else None
        if (
            type(ends) is not tuple
            or not ends
            or ends[0] != 0
            or set(map(type, ends)) != _INT  # (a C pass: ~10,000 bodies in a large checkout)
            or not all(isinstance(v, dict) for k, v in stored.items() if k in _PARTS)
        ):
            reader.close()
            return {}
        self._texts, self._ends = reader, ends
        kept: dict[str, Any] = stored
        return kept

    def apart(self, text: str) -> int:
        """Set a body apart for the file this prompt writes: its number in a kept entry."""
        self._apart.append(text)
        return -len(self._apart)

    def text(self, number: int) -> str:
        """A body set apart, by its number in a kept entry; `CacheDamaged` when its piece does
        not check, or the number or its bytes are not ones this tool wrote."""
        if number < 0:
            return self._apart[-number - 1]
        if self._blob is None:
            blob = self._texts.piece(1) if self._texts is not None else None
            ends = self._ends
            if (
                blob is None
                or ends[-1] != len(blob)
                or not all(map(int.__le__, ends[:-1], ends[1:]))
            ):
                raise CacheDamaged(f"{self.parsed_rel}: the bodies' piece does not check")
            self._blob = blob
        ends = self._ends
        try:
            if not 0 <= number < len(ends) - 1:
                raise ValueError(number)
            return str(self._blob[ends[number] : ends[number + 1]], "utf-8", "surrogatepass")
        except (ValueError, TypeError):
            raise CacheDamaged(f"{self.parsed_rel}: body {number} is not one it holds") from None

    def close(self) -> None:
        """Give back the parsed file's descriptor (its bodies are read no more)."""
        if self._texts is not None:
            self._texts.close()
            self._texts = None

    def forget_files(self) -> None:
        """Parse every file again (its kept bodies did not check); what is parsed is kept anew."""
        self.files, self.files_used = {}, {}

    @property
    def entries(self) -> dict[str, bytes]:
        """Each item's forward, marshalled, by its key: decoded only for the items asked for."""
        if self._entries is None:
            stored = self._read(self.rel)
            self._entries = stored.get("entries", {})
        return self._entries

    def forward(self, item: Item) -> Forward:
        """The item's weighted length and weighted count of each stem, from the cache when kept."""
        key = item.stem_key or item.signature()
        blob = self.used.get(key) or self.entries.get(key)
        forward = _decoded(blob) if blob is not None else None
        if blob is None or forward is None:  # not kept, or kept damaged: stemmed, kept anew
            forward = forward_of(item)
            blob = marshal.dumps(forward)
            self.added += 1
        self.used[key] = blob
        return forward

    def table(self, items: list[Item], query: frozenset[str]) -> ReachTable:
        """The small layers in reach (`items`) as ranking needs them, with the columns of the
        stems in `query` decoded: their count, total weighted length, each one's length and,
        stem by stem, each holder's weighted count.

        Kept under a digest of the items' keys, so a prompt whose reach is the
        one an earlier prompt saw reads a table and the columns of its own
        stems instead of every item's forward; a reach seen for the first time
        (or a table that does not decode) is built from the forwards and kept.
        """
        keys = [item.stem_key or item.signature() for item in items]
        order = sorted(keys)
        ident = sha256_hex("\n".join(order).encode("utf-8"))[:32]
        self.reach_keys = set(keys)
        reader = (
            pieces.open_reader(self.home, self.reach_rel, (*_reach_header(), ident), 3, SHELVES)
            if self.home is not None
            else None
        )
        if reader is not None:
            try:
                n, total, kept_lengths = reader.fields
                table = ReachTable.of(order, n, total, kept_lengths, reader.piece, query)
            finally:
                reader.close()
            if table is not None:
                return table
        forwards = dict(zip(keys, map(self.forward, items), strict=True))
        lengths: list[int] = []
        columns: dict[str, dict[int, int]] = {}
        for at, key in enumerate(order):
            length, weights = forwards[key]
            lengths.append(length)
            for stem, w in weights.items():
                columns.setdefault(stem, {})[at] = w
        shelves: list[dict[str, dict[int, int]]] = [{} for _ in range(SHELVES)]
        for stem, column in columns.items():
            shelves[shelf_of(stem)][stem] = column
        packed = tuple(marshal.dumps(shelf) for shelf in shelves)
        self._table = (ident, len(items), sum(lengths), tuple(lengths), packed)
        self.added += 1
        table = ReachTable.of(order, *self._table[1:4], packed.__getitem__, query)
        assert table is not None  # just built
        return table

    def term(self, word: str) -> Term | None:
        """The recall word's term (`None`: it holds no word), from the cache when seen before."""
        if word in self.terms_used:
            return self.terms_used[word]
        kept = self.terms.get(word, False)
        if _usable_term(kept):
            term = kept
        else:  # not kept, or kept damaged
            term = term_of(word)
            self.added_parsed += 1
        self.terms_used[word] = term
        return term

    def usable_terms(self) -> dict[str, Term | None]:
        """The kept terms a prompt would take as they are (not those kept damaged)."""
        return {word: term for word, term in self.terms.items() if _usable_term(term)}

    def terms_of(self, words: set[str]) -> dict[str, Term | None]:
        """`term` of each word, in bulk: the kept terms are taken and checked a few C calls at a
        time (a prompt looks up every recall word of every item in reach: ~450 in a home of 100
        pages and 200 project notes, 0.3 ms one by one); a word not kept, or a file kept
        damaged, goes through `term`."""
        kept = self.terms
        known = [word for word in words if word in kept]
        terms = list(map(kept.__getitem__, known))
        shapes = set(map(type, terms))
        if shapes <= {tuple, type(None)} and _strings(
            tuple(chain.from_iterable(t for t in terms if t is not None))
        ):
            found = dict(zip(known, terms, strict=True))
            self.terms_used.update(found)
            for word in words - found.keys():
                found[word] = self.term(word)
            return found
        return {word: self.term(word) for word in words}

    def numbers(self, index: Index, note_ids: list[str]) -> dict[str, int]:
        """The index's note numbers of `note_ids` (the promoted, removed and newer notes), kept
        for as long as the index and the ids are the same: a checkout's promoted ids cost a
        lookup each (a bucket read) on every prompt otherwise. Kept under the ids in the order
        given (the caller's is fixed by their sources: the same list, the same ids), not
        sorted: sorting 10,000 project note ids cost ~2 ms a prompt."""
        key = (
            index.FORMAT_KEY,
            tuple(index.checkpoint),
            index.count,
            sha256_hex("\n".join(note_ids).encode("utf-8")),
        )
        if self.ids is not None and self.ids[0] == key:
            self.ids_used = self.ids
            return self.ids[1]
        found = index.numbers_of(note_ids)
        self.ids_used = (key, found)
        self.added_parsed += 1
        return found

    def parsed(self, rel: str, st: os.stat_result) -> Any | None:
        """What was parsed from `rel` when it had this very stat, else `None`."""
        kept = self.files.get(rel)
        if kept is None or kept[0] != stat_key(st):
            return None
        self.files_used[rel] = kept
        return kept[1]

    def keep(self, rel: str, st: os.stat_result, read_ns: int, parsed: Any) -> bool:
        """Remember what was parsed from `rel` (read at `read_ns`, with stat `st`), unless racy;
        whether it was kept."""
        if st.st_mtime_ns + RACY_NS < read_ns:
            self.files_used[rel] = (stat_key(st), parsed)
            self.added_parsed += 1
            return True
        return False

    def save(self) -> None:
        """Write the part that had something new, with the entries this prompt used (never raises)."""
        if self.added:
            entries = dict(self.entries)
            entries.update(self.used)
            if self.reach_keys is not None:  # only what the reach still holds
                entries = {key: entries[key] for key in self.reach_keys if key in entries}
            self._write(self.rel, {"entries": entries})
            if self._table is not None:
                self._write_reach(self._table)
        if self.added_parsed or self._parsed_wasted():
            self._write_parsed()

    def _parsed_wasted(self) -> bool:
        """Whether the parsed file holds far more words than this prompt looked up (or files than
        it read), so that every prompt after it would decode them for nothing: after a prompt
        that read every personal note (no index: an upgrade, a copied home) it held their
        recall words, thousands, and kept them until something new came (eighteenth round)."""
        return _wasted(len(self.terms), len(self.terms_used)) or _wasted(
            len(self.files), len(self.files_used)
        )

    def _write_parsed(self) -> None:
        """The parsed file again: the files this prompt used, their bodies set apart anew."""
        if self.home is None:
            return
        texts: list[str] = []
        files: dict[str, tuple[StatKey, Any]] = {}
        for rel, (key, parsed) in self.files_used.items():
            mark = len(texts)
            try:
                files[rel] = (key, self._renumbered(parsed, texts))
            except CacheDamaged:
                del texts[mark:]  # its bodies dropped with it: parsed again at the next prompt
        blobs = [text.encode("utf-8", "surrogatepass") for text in texts]
        ends = [0]
        for blob in blobs:
            ends.append(ends[-1] + len(blob))
        # A prompt that looked no word up (the kill switch) keeps the words it did not look at.
        stored = {
            "words": self.terms_used or self.terms,
            "files": files,
            "ids": self.ids_used or self.ids,
            "texts": tuple(ends),
        }
        self._put(
            self.parsed_rel,
            pieces.encode(_reach_header(), [marshal.dumps(stored), b"".join(blobs)]),
        )

    def _renumbered(self, value: Any, texts: list[str]) -> Any:
        """A kept entry with each body it sets apart numbered in `texts`."""

        def numbered(number: int) -> int:
            texts.append(self.text(number))
            return len(texts) - 1

        return with_bodies(value, numbered)

    def _write_reach(self, table: KeptTable) -> None:
        """The reach's table as a file of checked pieces (`abcd.recall.pieces`): its digest, count,
        total length and lengths in the header, each shelf of columns a piece."""
        if self.home is None:
            return
        ident, n, total, lengths, packed = table
        self._put(
            self.reach_rel, pieces.encode((*_reach_header(), ident, n, total, lengths), packed)
        )

    def _write(self, rel: str, parts: dict[str, Any]) -> None:
        if self.home is None:
            return
        stored = {**dict(zip(_HEADER_KEYS, _reach_header(), strict=True)), **parts}
        blob = marshal.dumps(stored)
        self._put(rel, crc32(blob).to_bytes(4, "little") + blob)

    def _put(self, rel: str, data: bytes) -> None:
        """Write a cache file whole (atomically), unless past the bound it would never be read
        back at; a cache not written costs the next prompt some work, nothing else. Not synced
        to the disk: after a crash it holds its old bytes or bytes that do not check, and either
        way costs the next prompt some work, nothing else (docs/decisions.md)."""
        if self.home is None or len(data) > CACHE_MAX_BYTES:
            return
        try:
            self.home.write_atomic(rel, data, durable=False)
        except (AbcdError, OSError):
            pass


class ReachTable:
    """The small layers in reach, column by column: what ranking their candidates reads.

    Items are numbered by the sorted order of their keys (an item's number is
    where its key stands); `lengths[no]` is its weighted length, and a
    decoded column maps the number of each item holding the stem to its
    weighted count. Only the prompt's stems are decoded.
    """

    __slots__ = ("_holders", "_telling", "at", "columns", "lengths", "n", "total")

    def __init__(
        self,
        order: list[str],
        n: int,
        total: int,
        lengths: tuple[int, ...],
        columns: dict[str, dict[int, int]],
    ) -> None:
        self.at = dict(zip(order, range(len(order)), strict=True))
        self.n, self.total, self.lengths, self.columns = n, total, lengths, columns
        self._telling: frozenset[str] | None = None
        self._holders: set[int] = set()

    @classmethod
    def of(
        cls,
        order: list[str],
        n: object,
        total: object,
        lengths: object,
        kept: Callable[[int], bytes | memoryview | None],
        query: frozenset[str],
    ) -> ReachTable | None:
        """The kept table (its count, total length, each item's length, and `kept` giving the
        bytes of a shelf of columns by number, `None` when they did not check) with `query`'s
        columns decoded, or `None` when it does not decode to one of `order` (a damaged cache is
        rebuilt, never believed)."""
        if (
            type(n) is not int
            or n != len(order)
            or type(lengths) is not tuple
            or len(lengths) != n
            or not set(map(type, lengths)) <= _INT
            or type(total) is not int
            or total != sum(lengths)
        ):
            return None
        columns: dict[str, dict[int, int]] = {}
        shelves: dict[int, Any] = {}
        try:
            for stem in query:
                at = shelf_of(stem)
                shelf = shelves.get(at)
                if shelf is None:
                    blob = kept(at)
                    if blob is None:
                        return None
                    shelf = shelves[at] = marshal.loads(blob)
                    if type(shelf) is not dict:
                        return None
                column = shelf.get(stem)
                if column is None:
                    continue
                if (
                    type(column) is not dict
                    or not set(map(type, column)) | set(map(type, column.values())) <= _INT
                ):
                    return None
                columns[stem] = column
        except (ValueError, EOFError, TypeError):
            return None
        return cls(order, n, total, lengths, columns)

    def forward_if(self, item: Item, telling: frozenset[str]) -> Forward | None:
        """The item's weighted length and its counts of the decoded stems (the prompt's), all the
        second tier reads of an item in reach (issue 16); or `None` when the item holds none of
        `telling` (the second tier judges only an item holding one): a set look-up for each item,
        the holders gathered once from the telling stems' columns."""
        columns = self.columns
        if telling is not self._telling:
            self._holders = set().union(*(columns[s].keys() for s in telling if s in columns))
            self._telling = telling
        no = self.at[item.stem_key or item.signature()]
        if no not in self._holders:
            return None
        return self.lengths[no], {stem: col[no] for stem, col in columns.items() if no in col}

    def held(self, terms: Collection[str]) -> dict[str, int]:
        """How many items in reach hold each of `terms` (each one of the prompt's stems)."""
        columns = self.columns
        return {t: len(columns[t]) if t in columns else 0 for t in terms}


_INT = {int}


def with_bodies(value: Any, body: Callable[[int], Any]) -> Any:
    """A kept entry with each body set apart (every number in it) replaced by `body(number)`."""
    if type(value) is int:
        return body(value)
    if type(value) is tuple:
        return tuple([with_bodies(v, body) for v in value])
    if type(value) is list:
        return [with_bodies(v, body) for v in value]
    return value


def parsed_file(data: bytes) -> tuple[dict[str, Any], bytes] | None:
    """A whole parsed file's first piece, decoded, and its bodies' bytes, when both check (what
    a prompt reads piece by piece; for reading one whole, as the tests do)."""
    found = pieces.decode(data, _reach_header(), 0, 2)
    if found is None or found[1][0] is None or found[1][1] is None:
        return None
    stored = marshal.loads(found[1][0])
    return (stored, bytes(found[1][1])) if isinstance(stored, dict) else None


class CacheDamaged(Exception):
    """A body kept apart in the parsed file that does not read back: recall again without it."""


def _reach_header() -> tuple[int, str, str, str]:
    """What every cache file names before its own fields: the format, interpreter, term rule and
    parse rule (the stems file under `_HEADER_KEYS`, the others as a piece header)."""
    return (FORMAT, sys.implementation.cache_tag, TERM_RULE_VERSION, PARSE_RULE_VERSION)


# The stems file's keys for `_reach_header()`'s fields, one for one.
_HEADER_KEYS = ("format", "python", "terms", "parse")


_PARTS = ("entries", "words", "files")


def _decoded(blob: object) -> Forward | None:
    """A kept forward, or `None` when its bytes do not decode to one (a damaged cache)."""
    try:
        forward = marshal.loads(blob)  # type: ignore[arg-type]
    except (ValueError, EOFError, TypeError):
        return None
    if (
        isinstance(forward, tuple)
        and len(forward) == 2
        and isinstance(forward[0], int)
        and isinstance(forward[1], dict)
    ):
        return forward
    return None


def _usable_term(kept: object) -> TypeGuard[Term | None]:
    """Whether a kept term has the shape one is kept in: none (no word), or a tuple of stems."""
    return kept is None or (type(kept) is tuple and _strings(kept))


def _strings(values: tuple[object, ...]) -> bool:
    """Whether every value is a string (`str.join` checks them in C; asked on every prompt)."""
    try:
        "".join(values)  # type: ignore[arg-type]
    except TypeError:
        return False
    return True

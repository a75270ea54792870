"""The derived index of the machine's notes: `<home>/memory.idx`, kept beside `memory.json`.

The prompt hook must not re-read and re-stem every note on every prompt (a
10,000-note view is several megabytes). So each writer, under the journal
lock and right after the view, writes this index from the same fold, with
the same checkpoint. It is a cache: rebuilt from the view whenever it is
missing, stale or from another version, never believed past its checkpoint.

Layout: `MAGIC`, an 8-byte header length, a `marshal`led header, then blobs.
Everything the hook reads per prompt is reached by key without loading the
rest:

- header: format, term-rule version, checkpoint, per root group `(n, total
  length)`, and the offsets of the sections below;
- recall buckets: first stem of a recall term -> `[(term, group, bitmap,
  note numbers)]`: the holders as a bitmap (bit `i` for note number `i`)
  when they are at least one in `BITMAP_SHARE` of the index's notes, else
  packed as 4-byte integers, so a prompt gathers its candidates as one
  integer a note a bit (`abcd.recall.bitset`), checking each distinct term
  against the prompt once;
- df buckets, per group: stem -> number of notes holding it (any field);
- vocabulary buckets: stem -> `(term number, postings offset, postings
  length, dense, impacts offset, impacts length)`;
- postings, per term: the weighted count of every note holding it, dense
  (16-bit, by note number) for a term many notes hold, else a dictionary
  note number -> weighted count; and every note's weighted length (32-bit,
  by note number), so a prompt scores term by term (`abcd.recall.engine`);
- impacts, per dense term: its holders split by weighted count (1, 2, 3,
  and 4 or more: `IMPACT_GROUPS`), each group a bitset (bit `i` for note
  number `i`) with, for each weighted count in it, the shortest holder with
  that count: whatever the reach's idf and mean length, no holder's part of
  a score is above the best of its group's, and the bitsets are added up in
  C, so a prompt ranks best first and stops where the budget does
  (`abcd.recall.engine`, `_BestFirst`);
- id buckets: note id -> note no, a bucket per CRC-32 of the id (about
  `IDS_PER_BUCKET` ids each), reached through a table of 8-byte offsets;
  a removed note's id maps to -1, so a writer checks an id it mints against
  every id ever used by reading one bucket (`Index.knows`);
- forward records: per note `(weighted length, term numbers, weighted
  counts)`, what ranking needs and nothing else: small integers decode
  several times faster than the stems they stand for (see
  `docs/performance.md`);
- records: per note `(id, title, body, recall, root, written_at,
  recall_terms)`, read only for the notes the budget takes (and for the
  diagnostic).

Records, forward records and id buckets are each a table of blobs: the
blobs one after another, then a table of 8-byte entries (offset and length),
so one is read by its number and all of them in one read.

Buckets are keyed by a stem's first two characters, so a prompt reads only
the few buckets its own stems fall in. `marshal` is the interpreter's own
format (no import cost); the header names the interpreter's cache tag and
byte order, and a reader refuses any other.

Term numbers are kept from one index to the next (a writer extends the old
vocabulary), so the forward records of unchanged notes are reused as they
are; the vocabulary is renumbered from scratch once it holds more than twice
the stems the notes still use.
"""

from __future__ import annotations

import marshal
import sys
import zlib

from abcd import leanos as os
from abcd.errors import AbcdError
from abcd.recall import bitset
from abcd.recall.bm25f import Doc
from abcd.recall.terms import term_of

# No `array` at import: it loads `collections` (milliseconds on every prompt); a `memoryview` cast
# reads the same packed integers. Writers import it where they build.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable
    from typing import Any

    from abcd.recall.terms import Prompt
    from abcd.trust.guarded import Home

INDEX_FILE = "memory.idx"
MAGIC = b"ABCDIDX1"
# 9: impacts; 10: a record keeps its origin; 11: the id buckets hold removed ids; 12: a recall
# term's many holders kept as a bitmap
FORMAT = 12
# A writer leaves the index as it is while it trails the journal by fewer events than this: a
# prompt folds the lines past the index's checkpoint (a few microseconds each), and one add in
# this many rewrites the index whole (see `project_index`).
INDEX_LAG_EVENTS = 64
# The index is bounded like the view it derives from, with room for the stems it adds.
INDEX_MAX_BYTES = 256 * 1024 * 1024
EVERYWHERE = ""  # the group of notes recalled in every repository (root null)
# A term held by at least one note in this many (and by at least `DENSE_MIN` notes) keeps its
# postings dense: two bytes a note, every note, so a prompt reads its weights by note number in C
# (`map`) instead of decoding a dictionary; a rarer term keeps a dictionary of its few holders.
DENSE_SHARE = 32
DENSE_MIN = 64
# A recall term whose holders in a group are at least one in this many of the index's notes keeps
# them as a bitmap (an eighth of a byte a note, read with `int.from_bytes`), a rarer one as packed
# numbers (four bytes a holder, set bit by bit): what a prompt pays for a rare term is bounded.
BITMAP_SHARE = 256
# A dense term's impacts group its holders by weighted count: 1, 2, 3, and this many or more.
IMPACT_GROUPS = 4
# A dense posting is 16-bit: a weighted count past it (impossible within a note's limits) is sparse.
DENSE_MAX_WEIGHT = 0xFFFF
# An entry of a table of blobs (records, forward records, id buckets): 5 bytes of offset, 3 of
# length.
_LENGTH_BITS = 24
_LENGTH_MASK = (1 << _LENGTH_BITS) - 1

Record = tuple[str, str, str, tuple[str, ...], "str | None", str, tuple[tuple[str, ...], ...], str]
"""A note's text as the hook renders it: `(id, title, body, recall, root, written_at, recall
terms, origin)`. Its stems are not kept: the forward record holds what ranking needs of them."""
Term = tuple[int, int, int, bool, int, int]
"""A term in the index: its number, where its postings are and how long, whether they are dense,
and where its impacts are and how long (none for a sparse term)."""
Forward = tuple[int, tuple[int, ...], tuple[int, ...]]
"""A note as ranking needs it: its weighted length, its term numbers and their weighted counts."""


# The first 16 hex digits of the SHA-256 of the term rule's source (`abcd/recall/terms.py`): an
# index or cache built under another term rule is never used. Written out rather than hashed from
# the file, which cost every prompt ~0.1 ms; a test holds it to the file and names the new value
# when the file changes (tests/recall/test_terms.py).
TERM_RULE_VERSION = "04d8f2af6e54badb"


def bucket_of(stem: str) -> str:
    return stem[:2]


# About this many ids to an id bucket: a lookup reads one small bucket through a table of offsets.
IDS_PER_BUCKET = 8
# Past this many buckets to read, the id buckets are read in one piece.
_IDS_READ_WHOLE = 16


def id_bucket(note_id: str, buckets: int) -> int:
    """The bucket of a note id: a CRC-32 of it (zlib is loaded with the stemmer anyway)."""
    return zlib.crc32(note_id.encode("utf-8")) % buckets


def note_record(note: Any) -> Record:
    """A note's record: its seed fields and the terms of its recall words (the term rule's)."""
    return (
        note.id,
        note.title,
        note.body,
        tuple(note.recall),
        note.root,
        note.written_at,
        tuple(term_of(word) or () for word in note.recall),
        note.origin,
    )


def forward_of(record: Record, vocabulary: dict[str, int]) -> Forward:
    """The note's forward record, its fields stemmed by the term rule (as `Corpus` reads them);
    a stem the vocabulary lacks gets the next term number."""
    doc = Doc.of(record[0], recall=record[3], title=record[1], body=record[2])
    counts: dict[int, int] = {}
    for stem, weight in doc.weights().items():
        number = vocabulary.get(stem)
        if number is None:
            number = vocabulary[stem] = len(vocabulary)
        counts[number] = weight
    return doc.length, tuple(counts), tuple(counts.values())


def _place(layout: list[bytes], at: list[int], data: bytes) -> tuple[int, int]:
    layout.append(data)
    at[0] += len(data)
    return at[0] - len(data), len(data)


def _place_blobs(layout: list[bytes], at: list[int], blobs: list[bytes]) -> bytes:
    """Place `blobs` and return their table: 8 bytes each, offset << 24 | length."""
    from array import array

    table = array("Q")
    for blob in blobs:
        where, length = _place(layout, at, blob)
        table.append(where << _LENGTH_BITS | length)
    return table.tobytes()


def build(
    records: Iterable[Record],
    checkpoint: tuple[int, int, int, str],
    raw: dict[str, tuple[bytes, bytes]] | None = None,
    vocabulary: dict[str, int] | None = None,
    removed: Collection[str] = (),
) -> bytes:
    """The index file's bytes for these records (in view order).

    `raw` holds, by note id, records and forward records already marshalled
    under `vocabulary` (the old index's), reused as they are; a new note is
    stemmed here. The per-group counts are taken with `Counter` over each
    note's term numbers, in C, then named by stem and split into buckets.
    """
    from array import array
    from collections import Counter

    records = list(records)
    raw = raw or {}
    vocabulary = {} if vocabulary is None else vocabulary
    decoded: list[Forward] = []
    encoded: list[tuple[bytes, bytes]] = []
    for record in records:
        reused = raw.get(record[0])
        if reused is not None:
            decoded.append(marshal.loads(reused[1]))
            encoded.append(reused)
        else:
            made = forward_of(record, vocabulary)
            decoded.append(made)
            encoded.append((marshal.dumps(record), marshal.dumps(made)))
    in_use = set().union(*(made[1] for made in decoded))
    if len(vocabulary) > 2 * len(in_use):  # renumbered: no old forward record holds
        vocabulary = {}
        decoded = [forward_of(record, vocabulary) for record in records]
        encoded = [
            (blob, marshal.dumps(made)) for (blob, _), made in zip(encoded, decoded, strict=True)
        ]
    recall: dict[str, dict[str, dict[tuple[tuple[str, ...], str], list[int]]]] = {}
    counts: dict[str, Counter[int]] = {}
    id_buckets = max(1, (len(records) + len(removed)) // IDS_PER_BUCKET)
    ids: list[dict[str, int]] = [{} for _ in range(id_buckets)]
    for gone in removed:
        ids[id_bucket(gone, id_buckets)][gone] = -1
    groups: dict[str, list[int]] = {}
    blobs: list[bytes] = []
    forwards: list[bytes] = []
    lengths = array("I")
    postings: dict[int, dict[int, int]] = {}
    for no, (record, (length, numbers, weights), (blob, forward)) in enumerate(
        zip(records, decoded, encoded, strict=True)
    ):
        group = record[4] or EVERYWHERE
        stats = groups.setdefault(group, [0, 0])
        stats[0] += 1
        stats[1] += length
        ids[id_bucket(record[0], id_buckets)][record[0]] = no
        for term in record[6]:
            if term:
                by_term = recall.setdefault(bucket_of(term[0]), {}).setdefault(term[0], {})
                by_term.setdefault((term, group), []).append(no)
        counter = counts.get(group)
        if counter is None:
            counter = counts[group] = Counter()
        counter.update(numbers)  # a forward record names each of its terms once
        blobs.append(blob)
        forwards.append(forward)
        lengths.append(length)
        for number, weight in zip(numbers, weights, strict=True):
            held = postings.get(number)
            if held is None:
                held = postings[number] = {}
            held[no] = weight
    stem_of = {number: stem for stem, number in vocabulary.items()}
    df: dict[tuple[str, str], dict[str, int]] = {}
    for group, counter in counts.items():
        for number, n in counter.items():
            stem = stem_of[number]
            key = (group, bucket_of(stem))
            table = df.get(key)
            if table is None:
                table = df[key] = {}
            table[stem] = n
    sections: list[bytes] = []
    at = [0]
    count, dense_from = len(records), max(DENSE_MIN, len(records) // DENSE_SHARE)
    words_of: dict[str, dict[str, Term]] = {}
    for stem, number in vocabulary.items():
        held = postings.get(number)
        if held is None:  # no note holds it any more: it keeps its number for the next writer only
            words_of.setdefault(bucket_of(stem), {})[stem] = (number, 0, 0, False, 0, 0)
            continue
        dense = len(held) >= dense_from and max(held.values()) <= DENSE_MAX_WEIGHT
        impacts = (0, 0)
        if dense:
            column = array("H", bytes(2 * count))
            by_weight: dict[int, tuple[bytearray, dict[int, int]]] = {}
            for no, weight in held.items():
                column[no] = weight
                holders = by_weight.get(min(weight, IMPACT_GROUPS))
                if holders is None:
                    holders = by_weight[min(weight, IMPACT_GROUPS)] = (
                        bytearray((count + 7) // 8),
                        {},
                    )
                holders[0][no >> 3] |= 1 << (no & 7)
                length = lengths[no]
                if length < holders[1].get(weight, length + 1):
                    holders[1][weight] = length
            where = _place(sections, at, column.tobytes())
            impacts = _place(
                sections,
                at,
                marshal.dumps([(bytes(bits), shortest) for bits, shortest in by_weight.values()]),
            )
        else:
            where = _place(sections, at, marshal.dumps(held))
        words_of.setdefault(bucket_of(stem), {})[stem] = (number, *where, dense, *impacts)
    layout: dict[str, Any] = {
        "lengths": _place(sections, at, lengths.tobytes()),
        "records": _place(sections, at, _place_blobs(sections, at, blobs)),
        "forward": _place(sections, at, _place_blobs(sections, at, forwards)),
        "recall": {
            b: _place(
                sections,
                at,
                marshal.dumps(
                    {
                        stem: [
                            _holders(term, group, numbers, count)
                            for (term, group), numbers in by_term.items()
                        ]
                        for stem, by_term in v.items()
                    }
                ),
            )
            for b, v in recall.items()
        },
        "df": {k: _place(sections, at, marshal.dumps(v)) for k, v in df.items()},
        "vocabulary": {b: _place(sections, at, marshal.dumps(v)) for b, v in words_of.items()},
        "ids": _place(sections, at, _place_blobs(sections, at, [marshal.dumps(v) for v in ids])),
    }
    header = marshal.dumps(
        {
            "format": FORMAT,
            "python": sys.implementation.cache_tag,
            "byteorder": sys.byteorder,
            "terms": TERM_RULE_VERSION,
            "checkpoint": tuple(checkpoint),
            "count": count,
            "groups": {g: tuple(s) for g, s in groups.items()},
            "layout": layout,
        }
    )
    return MAGIC + len(header).to_bytes(8, "little") + header + b"".join(sections)


def _holders(
    term: tuple[str, ...], group: str, numbers: list[int], count: int
) -> tuple[tuple[str, ...], str, bool, bytes]:
    """A recall term's holders in one group, as a bitmap (many) or packed numbers (few)."""
    from array import array

    if len(numbers) * BITMAP_SHARE >= count:
        return term, group, True, bitset.of(numbers, count).to_bytes((count + 7) // 8, "little")
    return term, group, False, array("I", numbers).tobytes()


class IndexUnusable(AbcdError):
    """The index is absent, stale or from another version: recall folds the view instead."""


class IndexChanged(IndexUnusable):
    """The index is not the one the view's writer left beside it (said, then the view serves)."""


class Index:
    """An open index: reads its header once, then buckets and records on demand."""

    # What, with its checkpoint and count, tells one index's note numbering from another's.
    FORMAT_KEY = (FORMAT, TERM_RULE_VERSION)

    def __init__(self, fd: int, size: int) -> None:
        # It owns `fd` only once it proves to be an index (the opener closes it otherwise).
        self.fd = -1
        head = os.pread(fd, 16, 0)
        if len(head) < 16 or head[:8] != MAGIC:
            raise IndexUnusable("not an abcd index")
        length = int.from_bytes(head[8:16], "little")
        if length > size - 16:
            raise IndexUnusable("the index's header runs past its end")
        header = marshal.loads(os.pread(fd, length, 16))
        if not isinstance(header, dict):
            raise IndexUnusable("the index's header is not a table")
        if (
            header.get("format"),
            header.get("python"),
            header.get("byteorder"),
            header.get("terms"),
        ) != (FORMAT, sys.implementation.cache_tag, sys.byteorder, TERM_RULE_VERSION):
            raise IndexUnusable("the index was written by another version")
        self.base = 16 + length
        self.checkpoint: tuple[int, int, int, str] = header["checkpoint"]
        self.count: int = header["count"]
        self.groups: dict[str, tuple[int, int]] = header["groups"]
        self.layout: dict[str, Any] = header["layout"]
        self._tables: dict[str, memoryview] = {}
        self._ids: dict[int, dict[str, int]] = {}
        self._postings: dict[tuple[int, int, bool], Any] = {}  # by where they lie, and how
        self._lengths: memoryview | None = None
        self.fd = fd

    @classmethod
    def open(cls, home: Home) -> Index:
        opened = home.open_file(INDEX_FILE)
        if opened is None:
            raise IndexUnusable("no index")
        fd, st = opened
        if st.st_size > INDEX_MAX_BYTES:
            os.close(fd)
            raise IndexUnusable("the index is larger than its bound")
        try:
            return cls(fd, st.st_size)
        except (ValueError, EOFError, TypeError, KeyError, AttributeError) as err:
            os.close(fd)
            raise IndexUnusable(f"the index does not decode ({err})") from None
        except BaseException:
            os.close(fd)
            raise

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __del__(self) -> None:
        self.close()  # an outcome dropped unclosed still gives its descriptor back

    def _read(self, where: tuple[int, int]) -> bytes:
        return os.pread(self.fd, where[1], self.base + where[0])

    def _blob(self, where: tuple[int, int]) -> Any:
        return marshal.loads(self._read(where))

    def _table(self, name: str) -> memoryview:
        """A table of blobs (`_place_blobs` wrote it), read whole on first use."""
        table = self._tables.get(name)
        if table is None:
            table = self._tables[name] = memoryview(self._read(self.layout[name])).cast("Q")
        return table

    def _entry(self, name: str, i: int) -> bytes:
        """The `i`th blob of a table: its table entry (unless the table was read) and the blob."""
        table = self._tables.get(name)
        if table is not None:
            entry = table[i]
        else:
            at = self.layout[name][0] + 8 * i
            entry = int.from_bytes(self._read((at, 8)), sys.byteorder)
        return self._read((entry >> _LENGTH_BITS, entry & _LENGTH_MASK))

    def _entries(self, name: str) -> tuple[memoryview, bytes, int]:
        """A table, every blob it names in one read, and where that read starts: the blobs of a
        table are placed one after another, so entry `i` is `data[at - start : ...]`."""
        table = self._table(name)
        if not len(table):
            return table, b"", 0
        start, last = table[0] >> _LENGTH_BITS, table[len(table) - 1]
        end = (last >> _LENGTH_BITS) + (last & _LENGTH_MASK)
        return table, self._read((start, end - start)), start

    def candidates(self, prompt: Prompt, groups: Collection[str]) -> int:
        """The notes of `groups` holding a recall term the prompt hits, as a bitset
        (`abcd.recall.bitset`): the bitmaps of common terms or'ed, the rare terms' holders set."""
        wanted: dict[str, list[str]] = {}
        for stem in prompt.distinct:
            wanted.setdefault(bucket_of(stem), []).append(stem)
        found = 0
        few: list[memoryview] = []
        table = self.layout["recall"]
        for bucket, stems_here in wanted.items():
            if bucket not in table:
                continue
            entries = self._blob(table[bucket])
            for stem in stems_here:
                for term, group, bitmap, holders in entries.get(stem, ()):
                    if group in groups and prompt.hits(term):
                        if bitmap:
                            found |= int.from_bytes(holders, "little")
                        else:
                            few.append(memoryview(holders).cast("I"))
        if few:
            marks = bytearray(found.to_bytes((self.count + 7) // 8, "little"))
            for numbers in few:
                for no in numbers:
                    marks[no >> 3] |= 1 << (no & 7)
            found = int.from_bytes(marks, "little")
        return found

    def _lookup(self, section: str, key: Any, terms: Iterable[str]) -> dict[str, Any]:
        wanted: dict[str, list[str]] = {}
        for term in terms:
            wanted.setdefault(bucket_of(term), []).append(term)
        out: dict[str, Any] = {}
        table = self.layout[section]
        for bucket, terms_here in wanted.items():
            where = table.get(key(bucket))
            if where is not None:
                found = self._blob(where)
                for term in terms_here:
                    if term in found:
                        out[term] = found[term]
        return out

    def df(self, group: str, terms: Iterable[str]) -> dict[str, int]:
        """How many notes of `group` hold each term."""
        return self._lookup("df", lambda bucket: (group, bucket), terms)

    def terms(self, terms: Iterable[str]) -> dict[str, Term]:
        """The entry (`Term`) of each of `terms` a note holds."""
        found = self._lookup("vocabulary", lambda bucket: bucket, terms)
        return {stem: entry for stem, entry in found.items() if entry[2]}

    def postings(self, where: Term) -> Any:
        """A term's weighted counts by note number: a 16-bit `memoryview` when dense, else a dict.

        Read once while the index is open (a recall asks for a term's postings to judge the second
        tier and again to rank); the caller reads them and never changes them.
        """
        _, at, length, dense, _, _ = where
        weights = self._postings.get((at, length, dense))
        if weights is None:
            data = self._read((at, length))
            weights = memoryview(data).cast("H") if dense else marshal.loads(data)
            self._postings[at, length, dense] = weights
        return weights

    def impacts(self, where: Term) -> list[tuple[int, dict[int, int]]]:
        """A dense term's holders in groups by weighted count, each as a bitset (bit `i`: note
        number `i`) and, for each weighted count in it, the shortest weighted length with it."""
        return [
            (int.from_bytes(bits, "little"), shortest)
            for bits, shortest in self._blob((where[4], where[5]))
        ]

    def lengths(self) -> memoryview:
        """Every note's weighted length, by note number (read once while the index is open)."""
        if self._lengths is None:
            self._lengths = memoryview(self._read(self.layout["lengths"])).cast("I")
        return self._lengths

    def vocabulary(self) -> dict[str, int]:
        """Every stem's term number, held or not (for a writer extending it)."""
        out: dict[str, int] = {}
        for where in self.layout["vocabulary"].values():
            out.update((stem, entry[0]) for stem, entry in self._blob(where).items())
        return out

    def numbers_of(self, note_ids: Collection[str]) -> dict[str, int]:
        """The note number of each of `note_ids` the index holds as a live note.

        Past `_IDS_READ_WHOLE` ids, the buckets are read in one piece rather
        than one read each (a checkout's promoted notes are looked up at once).
        """
        return {note_id: no for note_id, no in self._ids_of(note_ids).items() if no >= 0}

    def _ids_of(self, note_ids: Collection[str]) -> dict[str, int]:
        table = self._table("ids")
        if not len(table):
            return {}
        wanted = {note_id: id_bucket(note_id, len(table)) for note_id in note_ids}
        missing = {bucket for bucket in wanted.values() if bucket not in self._ids}
        if len(missing) > _IDS_READ_WHOLE:
            _, data, start = self._entries("ids")
            for bucket in missing:
                self._ids[bucket] = marshal.loads(_slice(data, start, table[bucket]))
        for bucket in missing - self._ids.keys():
            self._ids[bucket] = marshal.loads(self._entry("ids", bucket))
        found = {}
        for note_id, bucket in wanted.items():
            no = self._ids[bucket].get(note_id)
            if no is not None:
                found[note_id] = no
        return found

    def knows(self, note_ids: Collection[str]) -> dict[str, int]:
        """The note number of each of `note_ids` the index holds, -1 for a removed one."""
        return self._ids_of(note_ids)

    def forward(self, no: int) -> Forward:
        """The note's forward record (asked for note after note: the table is read whole)."""
        self._table("forward")
        forward: Forward = marshal.loads(self._entry("forward", no))
        return forward

    def record(self, no: int) -> Record:
        record: Record = marshal.loads(self._entry("records", no))
        return record

    def records_raw(self) -> list[tuple[Record, bytes, bytes]]:
        """Every record with its stored bytes and its forward record's, in view order."""
        table, records, start = self._entries("records")
        forward_table, forwards, forward_start = self._entries("forward")
        out = []
        for entry, forward_entry in zip(table, forward_table, strict=True):
            blob = _slice(records, start, entry)
            out.append((marshal.loads(blob), blob, _slice(forwards, forward_start, forward_entry)))
        return out


def _slice(data: bytes, start: int, entry: int) -> bytes:
    """The blob a table entry names, out of a read of the table's blobs that began at `start`."""
    at = (entry >> _LENGTH_BITS) - start
    return data[at : at + (entry & _LENGTH_MASK)]


def write_index(
    home: Home,
    notes: Iterable[Any],
    checkpoint: tuple[int, int, int, str],
    removed: Collection[str] = (),
) -> None:
    """Write the index for the view's notes (`index_bytes`)."""
    home.write_atomic(INDEX_FILE, index_bytes(home, notes, checkpoint, removed))


def index_bytes(
    home: Home,
    notes: Iterable[Any],
    checkpoint: tuple[int, int, int, str],
    removed: Collection[str] = (),
) -> bytes:
    """The index for the view's notes; reuse what the old index already holds.

    The old vocabulary is kept and extended, so its forward records stay
    valid, unless it has grown past twice the stems the notes still use.
    """
    known: dict[str, tuple[Record, bytes, bytes]] = {}
    vocabulary: dict[str, int] = {}
    try:
        old = Index.open(home)
        try:
            known = {entry[0][0]: entry for entry in old.records_raw()}
            vocabulary = old.vocabulary()
        finally:
            old.close()
    except (IndexUnusable, OSError, ValueError, EOFError, KeyError, TypeError):
        known, vocabulary = {}, {}
    records = []
    raw: dict[str, tuple[bytes, bytes]] = {}
    for note in notes:
        cached = known.get(note.id)
        fields = (note.title, note.body, tuple(note.recall), note.root, note.written_at)
        if cached is not None and cached[0][1:6] == fields and cached[0][7:] == (note.origin,):
            records.append(cached[0])
            raw[note.id] = (cached[1], cached[2])
        else:
            records.append(note_record(note))
    return build(records, checkpoint, raw, vocabulary, removed)


def usable_index_seq(home: Home) -> int | None:
    """The seq the index is folded to when it opens under this interpreter and term rule and is
    the one the view names (lagging is fine: it folds forward); `None` when it is not usable."""
    from abcd.digest import VIEW_HEAD_BYTES, file_stamp

    try:
        index = Index.open(home)
    except (AbcdError, OSError, ValueError, EOFError):
        return None
    try:
        stamp = file_stamp(os.fstat(index.fd))
        seq = index.checkpoint[2]
    finally:
        index.close()
    try:
        opened = home.open_file("memory.json")
    except (AbcdError, OSError):
        return None
    if opened is None:
        return None
    try:
        head = os.pread(opened[0], VIEW_HEAD_BYTES, 0)
    finally:
        os.close(opened[0])
    return seq if named_index_stamp(home, head, file_stamp(opened[1])) == stamp else None


def named_index_stamp(home: Home, view_head: bytes, view_stamp: str) -> str | None:
    """The stamp of the index the view's writer (or the head line beside it) names."""
    from abcd.digest import view_index_stamp
    from abcd.journal.head import head_beside, view_checkpoint

    cp = view_checkpoint(view_head)
    beside = None if cp is None else head_beside(home, view_stamp, cp[2])
    return view_index_stamp(view_head) if beside is None else beside.index


def project_index(home: Home, view: Any) -> None:
    """The projection of a writer that writes the view whole (no head line named the view: see
    `abcd.journal.head`): the index of that view, at the same checkpoint, unless the index on
    disk trails it by fewer than `INDEX_LAG_EVENTS` events. Other writers leave both caches to
    the compaction (`abcd.journal.compact`).

    A trailing index is never wrong: readers fold the journal past its
    checkpoint and take those notes as they take the project's. Writing it
    whole on every add made an add into a 100,000-note home cost seconds;
    this way one add in `INDEX_LAG_EVENTS` pays for it, and a prompt folds
    at most that many lines.
    """
    cp = view.journal
    try:
        index = Index.open(home)
    except (IndexUnusable, OSError, ValueError, EOFError):
        index = None
    if index is not None:
        try:
            trailing = cp.seq - index.checkpoint[2]
            on_chain = _on_chain(home, index.checkpoint)
        finally:
            index.close()
        if 0 <= trailing < INDEX_LAG_EVENTS and on_chain:
            return
    rebuild_index(home, view)


def rebuild_index(home: Home, view: Any) -> None:
    """The index of the view, at its checkpoint, written whatever the index on disk holds."""
    cp = view.journal
    write_index(home, view.notes, (cp.segment, cp.offset, cp.seq, cp.head), view.removed)


def _on_chain(home: Home, checkpoint: tuple[int, int, int, str]) -> bool:
    """Whether the journal still holds the checkpoint (a repair or a rebuild may have cut it)."""
    from abcd.journal.segments import Segments
    from abcd.recall.machine import at_checkpoint

    with Segments(home) as segs:
        return at_checkpoint(segs, checkpoint)
